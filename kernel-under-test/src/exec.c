/* SPDX-License-Identifier: MIT */
/*
 * exec.c - the statement engine: node tree -> results.
 *
 * Control flow (break/continue/return/exit, and the recursion-cap abort) is a pending
 * k->flow that every loop checks, never a longjmp. Re-entry through $( ) and function
 * calls is counted in k->depth and capped at KAISH_MAX_RECURSION_DEPTH.
 *
 * Pipelines: every stage of a multi-stage pipeline runs in its own kernel fork (a scope
 * snapshot). Builtins buffer their whole output (as kaish's do), so a stage's output is
 * handed to the next stage as one in-memory buffer plus the structured .data sideband.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "builtins.h"
#include "expand.h"
#include "kernel.h"
#include "parse.h"
#include "scope.h"
#include "util.h"
#include "vfs.h"

static int exec_node(kaish_kernel *k, struct node *n, struct io *io);
static int exec_stage(kaish_kernel *k, struct node *n, struct io *io);

/* Record st as $? and return it, so call sites can `return set_last(k, st)`. */
static int set_last(kaish_kernel *k, int st)
{
	k->last_code = st;
	return st;
}

/* --- $( ) ------------------------------------------------------------------------------------ */

int exec_subst(kaish_kernel *k, struct node *body, struct io *io, struct sbuf *out,
	       char **data, bool *data_is_value)
{
	*data = NULL;
	*data_is_value = false;
	if (k->depth >= KAISH_MAX_RECURSION_DEPTH) {
		/* Normal substitution rules: empty expansion, the enclosing command carries on. */
		sb_printf(io->err,
			  "kaish: maximum recursion depth (%d) exceeded in command substitution\n",
			  KAISH_MAX_RECURSION_DEPTH);
		k->subst_code = 1;
		return 1;
	}
	/* $( ) runs in the same kernel: save what it may change and restore it afterwards. */
	struct scope saved;
	char *saved_cwd = strdup(k->cwd);
	if (!saved_cwd || scope_copy(&saved, &k->scope) < 0) {
		free(saved_cwd);
		sb_adds(io->err, "kaish: out of memory\n");
		k->subst_code = 1;
		return 1;
	}
	struct pstatus saved_ps;
	if (pstatus_copy(&saved_ps, &k->ps) < 0) {
		scope_free(&saved);
		free(saved_cwd);
		sb_adds(io->err, "kaish: out of memory\n");
		k->subst_code = 1;
		return 1;
	}
	char *saved_data = k->data;
	bool saved_dv = k->data_is_value;
	int saved_loop = k->loop_depth;
	k->data = NULL;
	k->data_is_value = false;
	k->loop_depth = 0;
	k->depth++;

	struct io sio = { .in = NULL, .in_len = 0, .in_data = NULL, .out = out, .err = io->err };
	int st = exec_node(k, body, &sio);
	if (k->flow == FL_EXIT || k->flow == FL_ABORT || k->flow == FL_RETURN)
		st = k->exit_code;
	k->flow = FL_NONE;
	kernel_interrupted(k, io->err); /* a cancel or timeout must not stop at the $( ) boundary */

	k->depth--;
	k->loop_depth = saved_loop;
	*data = k->data;
	*data_is_value = k->data_is_value;
	k->data = saved_data;
	k->data_is_value = saved_dv;
	scope_free(&k->scope);
	k->scope = saved;
	free(k->cwd);
	k->cwd = saved_cwd;
	pstatus_free(&k->ps);
	k->ps = saved_ps; /* the numbers, as the scope, are the caller's again */
	k->subst_code = st;
	k->last_code = st;
	return st;
}

/* --- redirects --------------------------------------------------------------------------------- */

struct rtarget {
	char *path;
	bool append;
	struct sbuf buf;
};

struct rstate {
	struct io io;	   /* the redirected io */
	struct rtarget *t; /* file targets, written after the command */
	int nt;
	char *inbuf;	   /* owned stdin from < or <<< */
};

/* Expand and check redirect targets before the command runs. 0 or an exit code. */
static int redir_setup(kaish_kernel *k, struct redir *r, struct io *io, struct rstate *rs)
{
	int cnt = 0;
	memset(rs, 0, sizeof(*rs));
	rs->io = *io;
	for (struct redir *x = r; x; x = x->next)
		cnt++;
	rs->t = calloc((size_t)cnt, sizeof(*rs->t));
	if (!rs->t) {
		sb_adds(io->err, "kaish: out of memory\n");
		return 1;
	}
	for (; r; r = r->next) {
		if (r->type == R_ERR2OUT) {
			rs->io.err = rs->io.out;
			continue;
		}
		if (r->type == R_OUT2ERR) {
			rs->io.out = rs->io.err;
			continue;
		}
		char *path = expand_str(k, r->target, io);
		if (!path)
			return 1;
		if (r->type == R_HEREDOC || r->type == R_HEREDOC_LIT) {
			free(rs->inbuf);
			rs->inbuf = path; /* the expanded body */
			rs->io.in = path;
			rs->io.in_len = strlen(path);
			rs->io.in_data = NULL;
			continue;
		}
		if (r->type == R_HERESTR) {
			size_t n = strlen(path);
			free(rs->inbuf);
			rs->inbuf = malloc(n + 2);
			if (!rs->inbuf) {
				free(path);
				return 1;
			}
			memcpy(rs->inbuf, path, n);
			free(path);
			rs->inbuf[n] = '\n';
			rs->inbuf[n + 1] = '\0';
			rs->io.in = rs->inbuf;
			rs->io.in_len = n + 1;
			rs->io.in_data = NULL;
			continue;
		}
		if (r->type == R_IN) {
			char *buf;
			size_t len;
			int e = vfs_read_all(k, path, &buf, &len);
			if (e < 0) {
				sb_printf(io->err, "kaish: %s: %s\n", path, vfs_strerror(e));
				free(path);
				return vfs_exit_code(e);
			}
			free(path);
			free(rs->inbuf);
			rs->inbuf = buf;
			rs->io.in = buf;
			rs->io.in_len = len;
			rs->io.in_data = NULL;
			continue;
		}
		/* Output targets: refuse sandbox escapes before anything runs. */
		char *host = NULL;
		int e = vfs_resolve(k, path, true, &host);
		free(host);
		if (e < 0) {
			sb_printf(io->err, "kaish: %s: %s\n", path, vfs_strerror(e));
			free(path);
			return vfs_exit_code(e);
		}
		struct rtarget *t = &rs->t[rs->nt++];
		t->path = path;
		t->append = r->type == R_APPEND || r->type == R_ERR_APPEND;
		sb_init(&t->buf);
		if (r->type == R_OUT || r->type == R_APPEND || r->type == R_BOTH)
			rs->io.out = &t->buf;
		if (r->type == R_ERR || r->type == R_ERR_APPEND || r->type == R_BOTH)
			rs->io.err = &t->buf;
	}
	return 0;
}

/* Write file targets and release the state. Returns st, or an error code if a write failed. */
static int redir_finish(kaish_kernel *k, struct rstate *rs, struct io *io, int st)
{
	for (int i = 0; i < rs->nt; i++) {
		struct rtarget *t = &rs->t[i];
		int e = vfs_write_all(k, t->path, sb_str(&t->buf), t->buf.len, t->append);
		if (e < 0) {
			sb_printf(io->err, "kaish: %s: %s\n", t->path, vfs_strerror(e));
			st = vfs_exit_code(e);
		}
	}
	for (int i = 0; i < rs->nt; i++) {
		free(rs->t[i].path);
		sb_free(&rs->t[i].buf);
	}
	free(rs->t);
	free(rs->inbuf);
	return st;
}

/* --- commands ---------------------------------------------------------------------------------- */

static int call_function(kaish_kernel *k, struct func *f, int argc, char **argv, struct io *io)
{
	if (k->depth >= KAISH_MAX_RECURSION_DEPTH) {
		sb_printf(io->err, "kaish: maximum recursion depth (%d) exceeded in function '%s'\n",
			  KAISH_MAX_RECURSION_DEPTH, f->name);
		k->flow = FL_ABORT; /* direct recursion unwinds the whole script with code 1 */
		k->exit_code = 1;
		return 1;
	}
	struct strv saved_pos = k->scope.pos;
	int saved_ff = k->scope.func_frame, saved_frames = k->scope.nframes;
	int saved_loop = k->loop_depth;
	strv_init(&k->scope.pos);
	for (int i = 1; i < argc; i++)
		strv_pushdup(&k->scope.pos, argv[i]);
	if (scope_push(&k->scope) < 0) {
		strv_free(&k->scope.pos);
		k->scope.pos = saved_pos;
		sb_adds(io->err, "kaish: out of memory\n");
		return 1;
	}
	func_ref(f); /* the function may be redefined while it runs */
	k->scope.func_frame = k->scope.nframes - 1;
	k->loop_depth = 0;
	k->depth++;
	int st = exec_node(k, f->body, io);
	k->depth--;
	if (k->flow == FL_RETURN) {
		st = k->exit_code;
		k->flow = FL_NONE;
	} else if (k->flow == FL_BREAK || k->flow == FL_CONTINUE) {
		k->flow = FL_NONE;
	}
	while (k->scope.nframes > saved_frames)
		scope_pop(&k->scope);
	strv_free(&k->scope.pos);
	k->scope.pos = saved_pos;
	k->scope.func_frame = saved_ff;
	k->loop_depth = saved_loop;
	func_unref(f);
	return st;
}

/* The N of `break N` / `continue N` (default 1); -1 with a message if N is not >= 1. */
static int flow_count(struct io *io, const char *name, int argc, char **argv, int *n)
{
	*n = 1;
	if (argc > 1) {
		long v;
		if (!bi_parse_long(argv[1], &v) || v < 1) {
			sb_printf(io->err, "%s: %s: numeric argument required\n", name, argv[1]);
			return -1;
		}
		*n = (int)v;
	}
	return 0;
}

/* Special forms, user functions, builtins, else 127. */
static int dispatch(kaish_kernel *k, int argc, char **argv, struct io *io)
{
	const char *name = argv[0];
	if (!strcmp(name, "true") || !strcmp(name, ":"))
		return 0;
	if (!strcmp(name, "false"))
		return 1;
	if (!strcmp(name, "break") || !strcmp(name, "continue")) {
		int n;
		if (flow_count(io, name, argc, argv, &n) < 0)
			return 2;
		if (k->loop_depth == 0) {
			sb_printf(io->err, "%s: only meaningful in a loop\n", name);
			return 1;
		}
		k->flow = name[0] == 'b' ? FL_BREAK : FL_CONTINUE;
		k->flow_n = n;
		return 0;
	}
	if (!strcmp(name, "return") || !strcmp(name, "exit")) {
		long code = k->last_code;
		if (argc > 1 && !bi_parse_long(argv[1][0] == '-' ? argv[1] + 1 : argv[1], &code)) {
			sb_printf(io->err, "%s: %s: numeric argument required\n", name, argv[1]);
			code = 2;
		} else if (argc > 1 && argv[1][0] == '-') {
			code = -code;
		}
		k->flow = name[0] == 'r' ? FL_RETURN : FL_EXIT;
		k->exit_code = (int)(code & 0xff);
		return k->exit_code;
	}
	if (!strcmp(name, "local")) {
		if (k->scope.func_frame < 0) {
			sb_adds(io->err, "local: can only be used in a function\n");
			return 1;
		}
		for (int i = 1; i < argc; i++) {
			char *eq = strchr(argv[i], '=');
			size_t nl = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
			if (!is_name(argv[i], nl)) {
				sb_printf(io->err, "local: '%s': not a valid identifier\n", argv[i]);
				return 1;
			}
			char *nm = kstrndup(argv[i], nl);
			const char *val = eq ? eq + 1 : "";
			if (!eq && i + 2 < argc && !strcmp(argv[i + 1], "=")) {
				val = argv[i + 2]; /* kaish's spaced form: local NAME = VALUE */
				i += 2;
			}
			int e = nm ? scope_set_in(&k->scope, k->scope.func_frame, nm, val) : -1;
			free(nm);
			if (e < 0)
				return 1;
		}
		/* As kaish (an assignment, not a command): the status of the last $( ) in
		 * the values, so `local x=$(false) || …` and set -e see the failure. */
		return k->subst_code;
	}
	struct func *f = kernel_find_func(k, name);
	if (f)
		return call_function(k, f, argc, argv, io);
	const struct builtin *b = bi_lookup(name);
	if (b) {
		struct bi_ctx c = { .k = k, .io = io, .name = name };
		if (bi_help(&c, argc, argv, b->usage))
			return 0;
		return b->fn(&c, argc, argv);
	}
	sb_printf(io->err, "kaish: command not found: %s\n", name);
	return KAISH_EXIT_NOT_FOUND;
}

/*
 * A=1 cmd: the variables live in a frame around this one command, exported. As in kaish
 * (not bash), the frame is in place before the command's words expand, so `FOO=bar echo
 * $FOO` prints bar. Returns 0, or -1 when the frame cannot be pushed.
 */
static int prefix_push(kaish_kernel *k, struct node *n, struct io *io)
{
	if (scope_push(&k->scope) < 0)
		return -1;
	for (struct assign *a = n->assigns; a; a = a->next) {
		char *v = expand_str(k, a->value, io);
		if (v) {
			scope_set_in(&k->scope, k->scope.nframes - 1, a->name, v);
			scope_export(&k->scope, a->name);
		}
		free(v);
	}
	return 0;
}

/* simple := assignment* word* redirect* */
static int exec_simple(kaish_kernel *k, struct node *n, struct io *io)
{
	struct strv argv;
	struct rstate rs;
	int st;
	int frames = k->scope.nframes;
	bool prefix = n->assigns && n->nwords;
	strv_init(&argv);
	kernel_set_data(k, NULL, false);
	k->subst_code = 0;
	if (prefix && prefix_push(k, n, io) < 0) {
		st = 1;
		goto out;
	}
	for (int i = 0; i < n->nwords; i++) {
		if (expand_word(k, n->words[i], io, EXP_ARG, &argv) < 0) {
			st = 1;
			goto out;
		}
	}
	if (k->flow != FL_NONE) { /* a $( ) may not leave flow pending, but stay defensive */
		st = k->last_code;
		goto out;
	}
	kernel_set_data(k, NULL, false); /* $( ) in arguments must not leak their .data */
	st = redir_setup(k, n->redirs, io, &rs);
	if (st) {
		redir_finish(k, &rs, io, st);
		goto out;
	}
	if (argv.n == 0 && !prefix) {
		/* Assignments only: status is that of the last $( ) (0 without one). */
		for (struct assign *a = n->assigns; a; a = a->next) {
			char *v = expand_str(k, a->value, &rs.io);
			if (!v || scope_set(&k->scope, a->name, v) < 0) {
				free(v);
				st = 1;
				break;
			}
			free(v);
		}
		if (!st)
			st = k->subst_code;
	} else if (argv.n > 0) {
		if (k->sh->trace && !prefix)
			kernel_trace(k, "exec %s", argv.v[0]);
		st = dispatch(k, argv.n, argv.v, &rs.io);
	}
	st = redir_finish(k, &rs, io, st);
	pstatus_set(&k->ps, &st, 1); /* a pipeline of one: [st] */
out:
	while (k->scope.nframes > frames)
		scope_pop(&k->scope);
	strv_free(&argv);
	return set_last(k, st);
}

/* --- pipelines --------------------------------------------------------------------------------- */

static const char *stage_name(struct node *n)
{
	if (n->type != N_CMD || n->nwords == 0)
		return NULL;
	struct wpart *wp = n->words[0]->parts;
	return wp && !wp->next && wp->type == W_LIT ? wp->text : NULL;
}

/*
 * pipeline := stage ('|' stage)*  -- each stage of a multi-stage pipeline runs in its own
 * fork; the previous stage's whole output and .data become the next stage's stdin. Stages
 * run in order (builtins buffer everything anyway), which keeps the trace deterministic.
 * A one-stage pipeline runs in k itself: no fork, as kaish's single-stage fast path.
 */
int exec_stages(kaish_kernel *k, struct node **stages, int n, struct io *io)
{
	if (n <= 0) /* an empty pipeline: nothing runs, success (defensive; callers avoid it) */
		return set_last(k, 0);
	if (n == 1) {
		int st = exec_stage(k, stages[0], io);
		pstatus_set(&k->ps, &st, 1);
		return set_last(k, st);
	}
	int *codes = calloc((size_t)n, sizeof(*codes));
	if (!codes) {
		sb_adds(io->err, "kaish: out of memory\n");
		return set_last(k, 1);
	}
	const char *in = io->in, *in_data = io->in_data;
	size_t in_len = io->in_len;
	char *in_owned = NULL, *data_owned = NULL;
	bool data_is_value = false;
	for (int i = 0; i < n; i++) {
		kaish_kernel *f = kernel_fork(k);
		if (!f) {
			sb_adds(io->err, "kaish: out of memory\n");
			codes[i] = 1;
			break;
		}
		struct sbuf out;
		sb_init(&out);
		struct io sio = { .in = in, .in_len = in_len, .in_data = in_data, .out = &out, .err = io->err };
		codes[i] = exec_stage(f, stages[i], &sio);
		if (f->flow == FL_EXIT || f->flow == FL_ABORT)
			codes[i] = f->exit_code;
		free(in_owned);
		free(data_owned);
		in_len = out.len;
		in = in_owned = sb_detach(&out);
		in_data = data_owned = f->data;
		data_is_value = f->data_is_value;
		f->data = NULL;
		if (i == n - 1) {
			/* As kaish: the last stage's scope and cwd sync back to the parent. */
			struct scope tmp = k->scope;
			k->scope = f->scope;
			f->scope = tmp;
			char *c = k->cwd;
			k->cwd = f->cwd;
			f->cwd = c;
		}
		kernel_fork_free(f);
	}
	if (in_owned)
		sb_add(io->out, in_owned, in_len);
	free(in_owned);
	kernel_set_data(k, data_owned, data_is_value);
	int st = codes[n - 1];
	if (k->pipefail)
		for (int i = 0; i < n; i++)
			if (codes[i])
				st = codes[i];
	pstatus_set(&k->ps, codes, n);
	free(codes);
	kernel_interrupted(k, io->err); /* a cancel or timeout in a stage stops the caller too */
	return set_last(k, st);
}

/* pipeline: scatter ... gather diverts to the scatter runner */
static int exec_pipeline(kaish_kernel *k, struct node *n, struct io *io)
{
	int s = -1, g = -1;
	for (int i = 0; i < n->nkids; i++) {
		const char *nm = stage_name(n->kids[i]);
		if (!nm)
			continue;
		if (s < 0 && !strcmp(nm, "scatter"))
			s = i;
		else if (s >= 0 && g < 0 && !strcmp(nm, "gather"))
			g = i;
	}
	if (s >= 0 && g > s) {
		int st = exec_scatter(k, n->kids, n->nkids, s, g, io);
		kernel_interrupted(k, io->err); /* workers report into their rows */
		return set_last(k, st);
	}
	return exec_stages(k, n->kids, n->nkids, io);
}

/* --- compound statements --------------------------------------------------------------------- */

/* After a loop body: returns true if the loop must stop. */
static bool loop_flow(kaish_kernel *k)
{
	if (k->flow == FL_BREAK) {
		if (--k->flow_n <= 0)
			k->flow = FL_NONE;
		return true;
	}
	if (k->flow == FL_CONTINUE) {
		if (--k->flow_n <= 0) {
			k->flow = FL_NONE;
			return false;
		}
		return true; /* continue N: the outer loop continues */
	}
	return k->flow != FL_NONE;
}

/* for NAME in WORDS: items are expanded once, up front (EXP_FOR splits $( ) text). */
static int exec_for(kaish_kernel *k, struct node *n, struct io *io)
{
	struct strv items;
	int st = 0;
	strv_init(&items);
	for (int i = 0; i < n->nwords; i++) {
		if (expand_word(k, n->words[i], io, EXP_FOR, &items) < 0) {
			strv_free(&items);
			return 1;
		}
	}
	/* The loop variable lives in a frame pushed for the loop (it does not survive it). */
	if (scope_push(&k->scope) < 0) {
		strv_free(&items);
		return 1;
	}
	int frame = k->scope.nframes - 1;
	k->loop_depth++;
	for (int i = 0; i < items.n; i++) {
		if (kernel_interrupted(k, io->err))
			break;
		scope_set_in(&k->scope, frame, n->name, items.v[i]);
		st = exec_node(k, n->a, io);
		if (loop_flow(k))
			break;
	}
	k->loop_depth--;
	while (k->scope.nframes > frame)
		scope_pop(&k->scope);
	strv_free(&items);
	return st;
}

/* while LIST; do LIST; done -- the condition never triggers set -e. */
static int exec_while(kaish_kernel *k, struct node *n, struct io *io)
{
	int st = 0;
	k->loop_depth++;
	for (;;) {
		if (kernel_interrupted(k, io->err))
			break;
		k->errexit_suppress++;
		int c = exec_node(k, n->a, io);
		k->errexit_suppress--;
		if (k->flow != FL_NONE || c != 0)
			break;
		st = exec_node(k, n->b, io);
		if (loop_flow(k))
			break;
	}
	k->loop_depth--;
	return st;
}

/* case WORD in PATTERN) ...;; esac -- first matching arm (fnmatch glob) wins. */
static int exec_case(kaish_kernel *k, struct node *n, struct io *io)
{
	char *subj = expand_str(k, n->words[0], io);
	if (!subj)
		return 1;
	int st = 0;
	for (struct case_arm *a = n->arms; a; a = a->next) {
		bool hit = false;
		for (int i = 0; i < a->npats && !hit; i++) {
			char *pat = expand_str(k, a->pats[i], io);
			hit = pat && fnmatch(pat, subj, 0) == 0;
			free(pat);
		}
		if (hit) {
			st = exec_node(k, a->body, io);
			break;
		}
	}
	free(subj);
	return st;
}

/* [[ ... ]]: words expand to one field each (no globbing), then the test evaluator. */
static int exec_test(kaish_kernel *k, struct node *n, struct io *io)
{
	struct strv argv;
	strv_init(&argv);
	for (int i = 0; i < n->nwords; i++) {
		if (expand_word(k, n->words[i], io, EXP_STR, &argv) < 0) {
			strv_free(&argv);
			return 2;
		}
	}
	struct bi_ctx c = { .k = k, .io = io, .name = "[[" };
	int st = bi_test_eval(&c, argv.v, argv.n, true);
	strv_free(&argv);
	return st;
}

/* A statement list: the status is the last statement's. Cancellation and the deadline
 * are checked before every statement, as kaish checks its cancel token. */
static int exec_list(kaish_kernel *k, struct node *n, struct io *io)
{
	int st = 0;
	for (int i = 0; i < n->nkids; i++) {
		struct node *s = n->kids[i];
		if (kernel_interrupted(k, io->err))
			return k->exit_code;
		if (k->sh->trace)
			kernel_trace(k, "stmt line %d", s->line);
		st = set_last(k, exec_node(k, s, io));
		if (k->flow != FL_NONE)
			break;
		/* set -e: stop on failure, except in conditions and && / || / ! lists. */
		if (k->errexit && st != 0 && k->errexit_suppress == 0 && s->type != N_AND &&
		    s->type != N_OR && s->type != N_NOT) {
			k->flow = FL_EXIT;
			k->exit_code = st;
			break;
		}
	}
	return st;
}

/*
 * andor: ((a && b) || c) && d is a left-deep tree. Walk its spine bottom-up in a loop, so a
 * 100 000-operand chain does not recurse 100 000 deep (a stack overflow found under ASan).
 * Same rules as the recursive form: every operand but the last is a left side (set -e is
 * suppressed there), a pending break/return/exit stops the chain.
 */
static int exec_andor(kaish_kernel *k, struct node *n, struct io *io)
{
	int cnt = 0, st;
	for (struct node *x = n; x->type == N_AND || x->type == N_OR; x = x->a)
		cnt++;
	struct node **spine = calloc((size_t)cnt, sizeof(*spine));
	if (!spine) {
		sb_adds(io->err, "kaish: out of memory\n");
		return 1;
	}
	int i = cnt;
	for (struct node *x = n; i > 0; x = x->a)
		spine[--i] = x; /* spine[0]: the innermost operator, whose a is the first operand */
	k->errexit_suppress++;
	st = exec_node(k, spine[0]->a, io);
	k->errexit_suppress--;
	for (i = 0; i < cnt && k->flow == FL_NONE; i++) {
		if ((spine[i]->type == N_AND) != (st == 0))
			continue;
		bool left_side = i < cnt - 1;
		k->errexit_suppress += left_side;
		st = exec_node(k, spine[i]->b, io);
		k->errexit_suppress -= left_side;
	}
	free(spine);
	return st;
}

/* Dispatch on the node type (redirects of compound statements are already applied). */
static int exec_inner(kaish_kernel *k, struct node *n, struct io *io)
{
	int st;
	switch (n->type) {
	case N_LIST:
		return exec_list(k, n, io);
	case N_CMD:
		return exec_simple(k, n, io);
	case N_PIPE:
		return exec_pipeline(k, n, io);
	case N_AND:
	case N_OR:
		return exec_andor(k, n, io);
	case N_NOT:
		k->errexit_suppress++;
		st = exec_node(k, n->a, io);
		k->errexit_suppress--;
		return st == 0 ? 1 : 0;
	case N_IF:
		/* elif chains in a loop (each elif is an N_IF in c): no recursion per branch. */
		for (;;) {
			k->errexit_suppress++;
			st = exec_node(k, n->a, io);
			k->errexit_suppress--;
			if (k->flow != FL_NONE)
				return st;
			if (st == 0)
				return exec_node(k, n->b, io);
			if (!n->c)
				return 0;
			if (n->c->type != N_IF || n->c->redirs)
				return exec_node(k, n->c, io);
			n = n->c;
		}
	case N_FOR:
		return exec_for(k, n, io);
	case N_WHILE:
		return exec_while(k, n, io);
	case N_CASE:
		return exec_case(k, n, io);
	case N_FUNC:
		if (kernel_define_func(k, n->name, n->a, k->prog) < 0) {
			sb_adds(io->err, "kaish: out of memory\n");
			return 1;
		}
		return 0;
	case N_BRACE:
		return exec_node(k, n->a, io);
	case N_TEST:
		return exec_test(k, n, io);
	}
	return 1;
}

/* Run one node. A simple command handles its own redirects (after expanding its words). */
static int exec_stage(kaish_kernel *k, struct node *n, struct io *io)
{
	if (n->type == N_CMD || !n->redirs)
		return exec_inner(k, n, io);
	/* Redirects on a compound statement apply to everything it runs. */
	struct rstate rs;
	int st = redir_setup(k, n->redirs, io, &rs);
	if (!st)
		st = exec_inner(k, n, &rs.io);
	return redir_finish(k, &rs, io, st);
}

/*
 * Run a node as a statement. A command or a pipeline is what kaish's execute_pipeline runs,
 * and its result gets the output limit there (§2.3 6, §4.2): per statement, wherever it
 * runs (top level, loop bodies, $( )), not on the whole script. Compound statements are
 * not limited as a whole; the statements inside them are.
 */
static int exec_node(kaish_kernel *k, struct node *n, struct io *io)
{
	if (!k->sh->output_limit || (n->type != N_CMD && n->type != N_PIPE))
		return exec_stage(k, n, io);
	size_t from = io->out->len;
	int st = exec_stage(k, n, io);
	if (io->out->len - from > k->sh->output_limit) {
		int orig;
		bool spilled = false;
		kernel_apply_limit(k->sh, io->out, from, &st, &orig, &spilled);
		if (io->out == k->top_out) {
			k->spilled = true;
			k->spill_orig = orig;
		}
		set_last(k, st);
	}
	return st;
}

/* Top level: exit/return/abort end the script with their code; stray break is dropped. */
int exec_program(kaish_kernel *k, struct program *p, struct io *io)
{
	k->prog = p;
	k->flow = FL_NONE;
	int st = exec_node(k, p->root, io);
	if (k->flow == FL_EXIT || k->flow == FL_RETURN || k->flow == FL_ABORT)
		st = k->exit_code;
	k->flow = FL_NONE;
	k->last_code = st;
	return st;
}

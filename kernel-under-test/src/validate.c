/* SPDX-License-Identifier: MIT */
/*
 * validate.c - static checks before anything runs (kaish's Validator).
 *
 * Reported as KAISH_ERR_VALIDATION: builtin argument checks on literal arguments
 * (regexes compile, seq increment != 0),
 * break/continue outside a loop, return outside a function, E014 (scatter without a gather
 * in its pipeline), E020 (`test` with -a / -o, bi_test_check), E017 / E018 (an assignment
 * to a name with '.' or '#'), and E012 (a bare $VAR as a for-loop head: no word
 * splitting, so it would be a single item). The first error wins. An unknown command is
 * only a warning (to the trace), as in kaish: it exits 127 when it runs.
 */
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"
#include "builtins.h"
#include "kernel.h"
#include "parse.h"
#include "util.h"

struct vctx {
	kaish_kernel *k;
	struct strv funcs; /* functions defined anywhere in the script */
	int loop_depth;
	int func_depth; /* > 0 inside a function body: `return` is allowed */
	char *err;
};

static void verr(struct vctx *v, int line, const char *msg, const char *near)
{
	if (v->err)
		return;
	struct sbuf b;
	sb_init(&b);
	sb_printf(&b, "line %d: %s near '%s'", line, msg, near);
	v->err = sb_detach(&b);
}

static void collect_funcs(struct vctx *v, struct node *n);
static void check_node(struct vctx *v, struct node *n);

static void collect_parts(struct vctx *v, struct wpart *wp)
{
	for (; wp; wp = wp->next) {
		if (wp->sub)
			collect_funcs(v, wp->sub);
		collect_parts(v, wp->kids);
	}
}

static void collect_funcs(struct vctx *v, struct node *n)
{
	/* A set of names, so order does not matter: follow the deep spine of && / || chains
	 * (in a) and elif chains (in c) in a loop instead of recursing along it. */
	while (n) {
		bool andor = n->type == N_AND || n->type == N_OR;
		struct node *spine = andor ? n->a : n->type == N_IF ? n->c : NULL;
		if (n->type == N_FUNC)
			strv_pushdup(&v->funcs, n->name);
		if (!andor)
			collect_funcs(v, n->a);
		collect_funcs(v, n->b);
		if (n->type != N_IF)
			collect_funcs(v, n->c);
		for (int i = 0; i < n->nkids; i++)
			collect_funcs(v, n->kids[i]);
		for (int i = 0; i < n->nwords; i++)
			collect_parts(v, n->words[i]->parts);
		for (struct case_arm *a = n->arms; a; a = a->next)
			collect_funcs(v, a->body);
		n = spine;
	}
}

/* $( ) bodies are validated too; they start outside any loop. */
static void check_parts(struct vctx *v, struct wpart *wp)
{
	for (; wp; wp = wp->next) {
		if (wp->sub) {
			int saved = v->loop_depth;
			v->loop_depth = 0;
			check_node(v, wp->sub);
			v->loop_depth = saved;
		}
		if (wp->alt)
			check_parts(v, wp->alt->parts);
		if (wp->key)
			check_parts(v, wp->key->parts);
		check_parts(v, wp->kids);
	}
}

static bool known_command(struct vctx *v, const char *name)
{
	if (bi_is_special(name) || bi_lookup(name) || kernel_find_func(v->k, name))
		return true;
	for (int i = 0; i < v->funcs.n; i++)
		if (!strcmp(v->funcs.v[i], name))
			return true;
	return false;
}

/*
 * E017 / E018: a command word spelled as an assignment to a name with '.' or '#'
 * (`user.email=x`, `abc#3=5`). kaish parses it as an assignment and refuses the target:
 * `$abc#3` could never read it back, and kaish reads fields with brackets, not dots.
 * Here such a word is no assignment (not a NAME), so it would run as a command and exit
 * 127; the validator names it instead, with kaish's code and corrected spelling.
 */
static void check_target(struct vctx *v, struct node *n)
{
	const char *raw = n->words[0]->raw;
	size_t len = strspn(raw, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789_.#");
	if (raw[len] != '=' || len == 0 || len > 100 || isdigit((unsigned char)raw[0]) ||
	    raw[0] == '.' || raw[0] == '#')
		return;
	char name[128];
	memcpy(name, raw, len);
	name[len] = '\0';
	const char *dot = strchr(name, '.');
	char msg[400];
	if (dot && dot[1] && !strchr(name, '#')) {
		snprintf(msg, sizeof(msg),
			 "E017 '%s' is not a valid assignment target — kaish uses bracket access, "
			 "not dots; use `%.*s[%s]=value`", name, (int)(dot - name), name, dot + 1);
	} else if (strchr(name, '#')) {
		char fix[128];
		for (size_t i = 0; i <= len; i++)
			fix[i] = name[i] == '#' ? '_' : name[i];
		snprintf(msg, sizeof(msg),
			 "E018 '%s' is not a valid assignment target — a variable name cannot "
			 "contain `#`; drop the `#`, e.g. `%s=value`", name, fix);
	} else {
		return;
	}
	verr(v, n->line, msg, raw);
}

static void check_cmd(struct vctx *v, struct node *n)
{
	for (int i = 0; i < n->nwords; i++)
		check_parts(v, n->words[i]->parts);
	for (struct assign *a = n->assigns; a; a = a->next)
		check_parts(v, a->value->parts);
	if (!n->nwords)
		return;
	check_target(v, n);
	char *name = word_literal(n->words[0]);
	if (!name)
		return; /* a computed command name is resolved at run time */
	if (!known_command(v, name)) {
		/* A warning in kaish (trace only): the script runs and the command exits 127. */
		kernel_trace(v->k, "warning: line %d: command not found: %s", n->line, name);
	} else if ((!strcmp(name, "break") || !strcmp(name, "continue")) && v->loop_depth == 0) {
		char msg[64];
		snprintf(msg, sizeof(msg), "'%s' outside a loop", name);
		verr(v, n->line, msg, name);
	} else if (!strcmp(name, "return") && v->func_depth == 0) {
		verr(v, n->line, "'return' outside a function", name);
	} else {
		const struct builtin *b = bi_lookup(name);
		bool help = false; /* `CMD --help` only prints usage: skip argument checks */
		for (int i = 1; i < n->nwords; i++)
			if (!strcmp(n->words[i]->raw, "--help"))
				help = true;
		if (b && b->check && !help && !kernel_find_func(v->k, name)) {
			char **argv = calloc((size_t)n->nwords + 1, sizeof(*argv));
			if (argv) {
				for (int i = 0; i < n->nwords; i++)
					argv[i] = word_literal(n->words[i]);
				char *msg = NULL;
				if (b->check(n->nwords, argv, &msg) < 0)
					verr(v, n->line, msg ? msg : "invalid arguments", name);
				free(msg);
				for (int i = 0; i < n->nwords; i++)
					free(argv[i]);
				free(argv);
			}
		}
	}
	free(name);
}

/* The literal name of a pipeline stage that is a plain command, or NULL. */
static const char *stage_literal(struct node *n)
{
	if (n->type != N_CMD || n->nwords == 0)
		return NULL;
	struct wpart *wp = n->words[0]->parts;
	return wp && !wp->next && wp->type == W_LIT ? wp->text : NULL;
}

/* E014: a scatter needs a gather later in its pipeline (the runner pairs the first scatter
 * with the first gather after it). */
static void check_pipe(struct vctx *v, struct node *n)
{
	int s = -1, g = -1;
	for (int i = 0; i < n->nkids; i++) {
		const char *nm = stage_literal(n->kids[i]);
		if (nm && s < 0 && !strcmp(nm, "scatter"))
			s = i;
		else if (nm && s >= 0 && g < 0 && !strcmp(nm, "gather"))
			g = i;
	}
	if (s >= 0 && g < 0)
		verr(v, n->kids[s]->line, "E014 scatter without gather", "scatter");
	for (int i = 0; i < n->nkids; i++)
		check_node(v, n->kids[i]);
}

static void check_node(struct vctx *v, struct node *n)
{
	if (!n || v->err)
		return;
	switch (n->type) {
	case N_CMD:
		check_cmd(v, n);
		break;
	case N_FOR:
		for (int i = 0; i < n->nwords; i++) {
			struct wpart *wp = n->words[i]->parts;
			if (wp && !wp->next && wp->type == W_VAR && !wp->quoted &&
			    strcmp(wp->text, "@") && strcmp(wp->text, "*"))
				verr(v, n->line,
				     "E012 bare variable in for-loop head is a single item "
				     "(no word splitting)",
				     n->words[i]->raw);
			check_parts(v, wp);
		}
		v->loop_depth++;
		check_node(v, n->a);
		v->loop_depth--;
		break;
	case N_WHILE:
		check_node(v, n->a);
		v->loop_depth++;
		check_node(v, n->b);
		v->loop_depth--;
		break;
	case N_FUNC: {
		int saved = v->loop_depth;
		v->loop_depth = 0;
		v->func_depth++;
		check_node(v, n->a);
		v->func_depth--;
		v->loop_depth = saved;
		break;
	}
	case N_PIPE:
		check_pipe(v, n);
		break;
	case N_TEST:
		for (int i = 0; i < n->nwords; i++) {
			check_parts(v, n->words[i]->parts);
			if (i + 1 < n->nwords && !strcmp(n->words[i]->raw, "=~")) {
				char *pat = word_literal(n->words[i + 1]);
				regex_t re;
				char *msg = NULL;
				if (pat && bi_regex_compile(&re, pat, REG_EXTENDED | REG_NOSUB, &msg) == 0)
					regfree(&re);
				else if (pat)
					verr(v, n->line, msg ? msg : "invalid regex", pat);
				free(msg);
				free(pat);
			}
		}
		break;
	case N_CASE:
		check_parts(v, n->words[0]->parts);
		for (struct case_arm *a = n->arms; a; a = a->next)
			check_node(v, a->body);
		break;
	case N_AND:
	case N_OR: {
		/* A left-deep chain: walk its spine in a loop (100 000 operands must not recurse
		 * 100 000 deep), checking operands in source order. */
		int cnt = 0;
		for (struct node *x = n; x->type == N_AND || x->type == N_OR; x = x->a)
			cnt++;
		struct node **spine = calloc((size_t)cnt, sizeof(*spine));
		if (!spine) {
			verr(v, n->line, "out of memory", "&&");
			break;
		}
		int i = cnt;
		for (struct node *x = n; i > 0; x = x->a)
			spine[--i] = x;
		check_node(v, spine[0]->a);
		for (i = 0; i < cnt; i++)
			check_node(v, spine[i]->b);
		free(spine);
		break;
	}
	case N_IF:
		/* elif chains in a loop, as the executor runs them. */
		for (struct node *x = n; x && !v->err;) {
			check_node(v, x->a);
			check_node(v, x->b);
			if (x->c && x->c->type == N_IF && !x->c->redirs) {
				x = x->c;
				continue;
			}
			check_node(v, x->c);
			break;
		}
		break;
	default:
		check_node(v, n->a);
		check_node(v, n->b);
		check_node(v, n->c);
		for (int i = 0; i < n->nkids; i++)
			check_node(v, n->kids[i]);
		break;
	}
	for (struct redir *r = n->redirs; r; r = r->next)
		if (r->target)
			check_parts(v, r->target->parts);
}

int validate_program(kaish_kernel *k, struct program *p, char **err)
{
	struct vctx v = { .k = k, .loop_depth = 0, .err = NULL };
	strv_init(&v.funcs);
	collect_funcs(&v, p->root);
	check_node(&v, p->root);
	strv_free(&v.funcs);
	if (v.err) {
		*err = v.err;
		return -1;
	}
	return 0;
}

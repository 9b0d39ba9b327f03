/* SPDX-License-Identifier: MIT */
/*
 * kernel.c - the public API: configs, kernels, forks, execute, results.
 *
 * kaish_execute = lex + parse -> validate -> exec_program -> output-limit contract.
 * A fork (pipeline stage, scatter worker) is a kaish_kernel that borrows the shared part
 * (config, trace hook) and owns a deep copy of the scope and cwd.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel.h"
#include "exec.h"
#include "parse.h"
#include "scope.h"
#include "util.h"
#include "validate.h"

struct kaish_config {
	char *root;
	char *name;
	bool trash, skip_validation, errexit;
	size_t output_limit, limit_head, limit_tail, vfs_budget;
	unsigned long timeout_ms;
	struct strv var_names, var_values;
};

/* --- configuration ----------------------------------------------------------------------------- */

static kaish_config *config_new(void)
{
	kaish_config *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	strv_init(&c->var_names);
	strv_init(&c->var_values);
	return c;
}

kaish_config *kaish_config_agent_with_root(const char *root)
{
	if (!root) {
		errno = EINVAL;
		return NULL;
	}
	kaish_config *c = config_new();
	if (!c)
		return NULL;
	c->root = strdup(root);
	c->name = strdup("agent");
	if (!c->root || !c->name) {
		kaish_config_free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->output_limit = 8 * 1024;
	c->limit_head = 1024;
	c->limit_tail = 512;
	c->vfs_budget = 64u * 1024 * 1024;
	/* The one environment variable the presets read, as kaish: it can only turn trash on. */
	const char *t = getenv("KAISH_TRASH");
	c->trash = t && !strcmp(t, "1");
	return c;
}

kaish_config *kaish_config_isolated(void)
{
	kaish_config *c = config_new();
	if (!c)
		return NULL;
	if (!(c->name = strdup("isolated"))) {
		kaish_config_free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

void kaish_config_free(kaish_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->root);
	free(cfg->name);
	strv_free(&cfg->var_names);
	strv_free(&cfg->var_values);
	free(cfg);
}

void kaish_config_set_trash(kaish_config *cfg, bool on)
{
	cfg->trash = on;
}

void kaish_config_set_skip_validation(kaish_config *cfg, bool skip)
{
	cfg->skip_validation = skip;
}

void kaish_config_set_errexit(kaish_config *cfg, bool on)
{
	cfg->errexit = on;
}

void kaish_config_set_output_limit(kaish_config *cfg, size_t max_bytes)
{
	cfg->output_limit = max_bytes;
	/* Keep the agent split (1 KiB head, 512 B tail) when it fits, else 2/3 + 1/3. */
	cfg->limit_head = 1024;
	cfg->limit_tail = 512;
	if (max_bytes && max_bytes < 1024 + 512) {
		cfg->limit_head = max_bytes * 2 / 3;
		cfg->limit_tail = max_bytes - cfg->limit_head;
	}
}

void kaish_config_set_request_timeout(kaish_config *cfg, unsigned long ms)
{
	cfg->timeout_ms = ms;
}

void kaish_config_set_vfs_budget(kaish_config *cfg, size_t bytes)
{
	cfg->vfs_budget = bytes;
}

int kaish_config_set_var(kaish_config *cfg, const char *name, const char *value)
{
	if (strv_pushdup(&cfg->var_names, name) < 0)
		return -ENOMEM;
	if (strv_pushdup(&cfg->var_values, value) < 0) {
		free(cfg->var_names.v[--cfg->var_names.n]);
		cfg->var_names.v[cfg->var_names.n] = NULL;
		return -ENOMEM;
	}
	return 0;
}

int kaish_config_set_name(kaish_config *cfg, const char *name)
{
	char *n = strdup(name);
	if (!n)
		return -ENOMEM;
	free(cfg->name);
	cfg->name = n;
	return 0;
}

/* --- kernels ------------------------------------------------------------------------------------ */

static void set_errmsg(char **errmsg, const char *fmt, const char *arg)
{
	if (!errmsg)
		return;
	struct sbuf b;
	sb_init(&b);
	sb_printf(&b, fmt, arg);
	*errmsg = sb_detach(&b);
}

kaish_kernel *kaish_kernel_new(const kaish_config *cfg, char **errmsg)
{
	if (errmsg)
		*errmsg = NULL;
	kaish_kernel *k = calloc(1, sizeof(*k));
	struct kshared *sh = calloc(1, sizeof(*sh));
	if (!k || !sh) {
		free(k);
		free(sh);
		set_errmsg(errmsg, "%s", "out of memory");
		return NULL;
	}
	k->sh = sh;
	memfs_init(&sh->mem, cfg->vfs_budget); /* no allocation until something is written */
	pthread_mutex_init(&k->lock, NULL);
	pthread_mutex_init(&sh->trace_lock, NULL);
	if (scope_init(&k->scope) < 0)
		goto oom;
	if (cfg->root) {
		/* The sandbox root is canonical so confinement checks compare real paths. */
		sh->root = realpath(cfg->root, NULL);
		if (!sh->root) {
			set_errmsg(errmsg, "sandbox root %s: not an accessible directory", cfg->root);
			kaish_kernel_free(k);
			return NULL;
		}
		k->cwd = strdup(sh->root);
		sh->mem.mount = sh->root;
	} else {
		k->cwd = strdup("/");
	}
	sh->name = strdup(cfg->name ? cfg->name : "default");
	if (!k->cwd || !sh->name)
		goto oom;
	sh->skip_validation = cfg->skip_validation;
	sh->output_limit = cfg->output_limit;
	sh->limit_head = cfg->limit_head;
	sh->limit_tail = cfg->limit_tail;
	sh->vfs_budget = cfg->vfs_budget;
	sh->timeout_ms = cfg->timeout_ms;
	k->errexit = cfg->errexit;
	k->trash = cfg->trash;
	k->glob = true;
	k->pid = 1000;
	for (int i = 0; i < cfg->var_names.n; i++) {
		if (scope_set(&k->scope, cfg->var_names.v[i], cfg->var_values.v[i]) < 0 ||
		    scope_export(&k->scope, cfg->var_names.v[i]) < 0)
			goto oom;
	}
	/* Hermetic: the root scope holds only the initial vars plus PWD. */
	if (scope_set(&k->scope, "PWD", k->cwd) < 0 || scope_export(&k->scope, "PWD") < 0)
		goto oom;
	return k;
oom:
	set_errmsg(errmsg, "%s", "out of memory");
	kaish_kernel_free(k);
	return NULL;
}

/* What a kernel and a fork both own: scope, cwd, function refs, the data sideband. */
static void kernel_state_free(kaish_kernel *k)
{
	scope_free(&k->scope);
	free(k->cwd);
	for (int i = 0; i < k->nfuncs; i++)
		func_unref(k->funcs[i]);
	free(k->funcs);
	free(k->data);
	pstatus_free(&k->ps);
}

void kaish_kernel_free(kaish_kernel *k)
{
	if (!k)
		return;
	kernel_state_free(k);
	if (k->sh) {
		free(k->sh->root);
		free(k->sh->name);
		memfs_destroy(&k->sh->mem);
		pthread_mutex_destroy(&k->sh->trace_lock);
		free(k->sh);
	}
	pthread_mutex_destroy(&k->lock);
	free(k);
}

/*
 * A fork, as kaish's fork_attached(): a deep copy of the scope (kaish clones its Scope per
 * fork too), its own cwd, shared function definitions (refcounted, so workers on other
 * threads may hold them) and the shared config/trace state by pointer.
 */
kaish_kernel *kernel_fork(kaish_kernel *k)
{
	kaish_kernel *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->sh = k->sh;
	f->is_fork = true;
	if (scope_copy(&f->scope, &k->scope) < 0) {
		free(f);
		return NULL;
	}
	f->cwd = strdup(k->cwd);
	if (k->nfuncs) {
		f->funcs = malloc((size_t)k->nfuncs * sizeof(*f->funcs));
		if (f->funcs) {
			for (int i = 0; i < k->nfuncs; i++) {
				f->funcs[i] = k->funcs[i];
				func_ref(k->funcs[i]);
			}
			f->nfuncs = k->nfuncs;
		}
	}
	if (!f->cwd || (k->nfuncs && !f->funcs)) {
		kernel_fork_free(f);
		return NULL;
	}
	/* Depth is inherited (not reset as in kaish): stages run on the caller's native stack. */
	f->depth = k->depth;
	f->last_code = k->last_code;
	if (pstatus_copy(&f->ps, &k->ps) < 0) {
		kernel_fork_free(f);
		return NULL;
	}
	f->errexit = k->errexit;
	f->pipefail = k->pipefail;
	f->trash = k->trash;
	f->glob = k->glob;
	f->errexit_suppress = k->errexit_suppress;
	f->pid = k->pid;
	f->prog = k->prog;
	f->deadline_ns = k->deadline_ns; /* stages of a scatter worker share its timeout */
	return f;
}

void kernel_fork_free(kaish_kernel *f)
{
	if (!f)
		return;
	kernel_state_free(f);
	free(f);
}

void pstatus_free(struct pstatus *ps)
{
	free(ps->more);
	ps->more = NULL;
	ps->n = 0;
}

void pstatus_set(struct pstatus *ps, const int *codes, int n)
{
	if (n < 0)
		n = 0;
	if (n <= PS_INLINE) {
		free(ps->more);
		ps->more = NULL;
		memcpy(ps->v, codes, (size_t)n * sizeof(*codes));
		ps->n = n;
		return;
	}
	int *m = realloc(ps->more, (size_t)n * sizeof(*m));
	if (!m) {
		int keep[PS_INLINE];
		memcpy(keep, codes, sizeof(keep)); /* codes may be ps->more itself */
		pstatus_set(ps, keep, PS_INLINE);
		return;
	}
	memmove(m, codes == ps->more ? m : codes, (size_t)n * sizeof(*m));
	ps->more = m;
	ps->n = n;
}

int pstatus_copy(struct pstatus *dst, const struct pstatus *src)
{
	*dst = (struct pstatus){ .n = 0 };
	if (src->n <= PS_INLINE) {
		*dst = *src;
		dst->more = NULL;
		return 0;
	}
	dst->more = malloc((size_t)src->n * sizeof(*dst->more));
	if (!dst->more)
		return -1;
	memcpy(dst->more, src->more, (size_t)src->n * sizeof(*dst->more));
	dst->n = src->n;
	return 0;
}

bool pstatus_render(const struct pstatus *ps, struct sbuf *b)
{
	if (ps->n <= 0)
		return false;
	const int *v = ps->more ? ps->more : ps->v;
	sb_addc(b, '[');
	for (int i = 0; i < ps->n; i++)
		sb_printf(b, "%s%d", i ? "," : "", v[i]);
	sb_addc(b, ']');
	return true;
}

void kernel_set_data(kaish_kernel *k, char *json, bool is_value)
{
	free(k->data);
	k->data = json;
	k->data_is_value = json ? is_value : false;
}

/* Monotonic time: the deadline must not move with wall-clock changes. */
static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

bool kernel_interrupted(kaish_kernel *k, struct sbuf *err)
{
	struct kshared *sh = k->sh;
	int code = 0;
	if (__atomic_load_n(&sh->cancelled, __ATOMIC_RELAXED))
		code = KAISH_EXIT_CANCELLED;
	else if (sh->deadline_ns && now_ns() >= sh->deadline_ns)
		code = KAISH_EXIT_TIMEOUT;
	else if (k->deadline_ns && now_ns() >= k->deadline_ns) {
		code = KAISH_EXIT_TIMEOUT;
		k->timed_out = true; /* the fork's own deadline (scatter --timeout) */
	}
	if (!code)
		return false;
	/* Report once per err stream: stages and $( ) share their caller's stream. */
	const char *msg = code == KAISH_EXIT_CANCELLED ? "kaish: cancelled\n" :
			  k->timed_out		       ? "scatter: worker timed out\n" :
							 "kaish: timed out\n";
	if (err && !strstr(sb_str(err), msg))
		sb_adds(err, msg);
	k->flow = FL_EXIT;
	k->exit_code = code;
	return true;
}

void kernel_set_fork_deadline(kaish_kernel *f, long long ms)
{
	f->deadline_ns = now_ns() + ms * 1000000LL;
}

void kaish_cancel(kaish_kernel *k)
{
	if (k)
		__atomic_store_n(&k->sh->cancelled, 1, __ATOMIC_RELAXED);
}

void kernel_trace(kaish_kernel *k, const char *fmt, ...)
{
	struct kshared *sh = k->sh;
	if (!sh->trace)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&sh->trace_lock);
	sh->trace(sh->trace_ctx, msg);
	pthread_mutex_unlock(&sh->trace_lock);
}

/* --- user functions ----------------------------------------------------------------------------- */

void func_ref(struct func *f)
{
	__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
}

void func_unref(struct func *f)
{
	if (f && __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		program_unref(f->prog);
		free(f->name);
		free(f);
	}
}

/* Linear scan: scripts define a handful of functions; no hash table to allocate per fork. */
struct func *kernel_find_func(kaish_kernel *k, const char *name)
{
	for (int i = 0; i < k->nfuncs; i++)
		if (!strcmp(k->funcs[i]->name, name))
			return k->funcs[i];
	return NULL;
}

int kernel_define_func(kaish_kernel *k, const char *name, struct node *body,
		       struct program *prog)
{
	struct func *f = calloc(1, sizeof(*f));
	if (!f || !(f->name = strdup(name))) {
		free(f);
		return -1;
	}
	f->refs = 1;
	f->body = body;
	f->prog = prog;
	program_ref(prog);
	for (int i = 0; i < k->nfuncs; i++) {
		if (!strcmp(k->funcs[i]->name, name)) {
			func_unref(k->funcs[i]);
			k->funcs[i] = f;
			return 0;
		}
	}
	struct func **v = realloc(k->funcs, (size_t)(k->nfuncs + 1) * sizeof(*v));
	if (!v) {
		func_unref(f);
		return -1;
	}
	k->funcs = v;
	k->funcs[k->nfuncs++] = f;
	return 0;
}

/* --- execute ------------------------------------------------------------------------------------ */

void kernel_apply_limit(const struct kshared *sh, struct sbuf *out, size_t from, int *code,
			int *orig, bool *spilled)
{
	size_t len = out->len - from; /* the result being limited: out[from..] */
	*orig = *code;
	if (!sh->output_limit || len <= sh->output_limit)
		return;
	size_t head = sh->limit_head, tail = sh->limit_tail;
	if (head + tail > len) {
		head = len;
		tail = 0;
	}
	struct sbuf b;
	sb_init(&b);
	sb_add(&b, out->s, from + head);
	sb_printf(&b, "\n... [output truncated: %zu of %zu bytes omitted] ...\n",
		  len - head - tail, len);
	sb_add(&b, out->s + out->len - tail, tail);
	sb_free(out);
	*out = b;
	*code = KAISH_EXIT_TRUNCATED;
	*spilled = true;
}

/* err is either empty or ends in exactly one newline. */
static char *normalize_err(struct sbuf *err)
{
	size_t n = err->len;
	while (n && err->s[n - 1] == '\n')
		n--;
	if (n == 0) {
		sb_free(err);
		return sb_detach(err);
	}
	err->len = n;
	err->s[n] = '\0';
	sb_addc(err, '\n');
	return sb_detach(err);
}

/* A zeroed result is valid input for kaish_result_free(). */
static void result_reset(kaish_result *res)
{
	memset(res, 0, sizeof(*res));
}

enum kaish_status kaish_execute(kaish_kernel *k, const char *script, kaish_result *res)
{
	enum kaish_status status = KAISH_OK;
	char *msg = NULL;
	struct sbuf out, err;
	if (!k || !res)
		return KAISH_ERR_EXECUTION;
	sb_init(&out);
	sb_init(&err);
	result_reset(res);
	pthread_mutex_lock(&k->lock);

	struct program *prog = parse_program(script ? script : "", &msg);
	if (!prog) {
		status = KAISH_ERR_PARSE;
		res->code = KAISH_EXIT_USAGE;
		sb_adds(&err, msg ? msg : "parse error");
		goto done;
	}
	if (!k->sh->skip_validation && validate_program(k, prog, &msg) < 0) {
		status = KAISH_ERR_VALIDATION;
		res->code = KAISH_EXIT_USAGE;
		sb_adds(&err, msg ? msg : "validation failed");
		goto done;
	}
	kernel_trace(k, "execute");
	/* Per-call setup, as kaish: a fresh cancel state and the deadline. */
	__atomic_store_n(&k->sh->cancelled, 0, __ATOMIC_RELAXED);
	k->sh->deadline_ns = k->sh->timeout_ms ? now_ns() + (long long)k->sh->timeout_ms * 1000000LL : 0;
	struct io io = { .in = NULL, .in_len = 0, .in_data = NULL, .out = &out, .err = &err };
	/* The output limit applies per statement (exec.c); the result says if any spilled. */
	k->top_out = &out;
	k->spilled = false;
	k->spill_orig = -1;
	int code = exec_program(k, prog, &io);
	k->prog = NULL;
	k->top_out = NULL;
	res->did_spill = k->spilled;
	res->original_code =
		code == KAISH_EXIT_TRUNCATED && k->spill_orig >= 0 ? k->spill_orig : code;
	res->code = code;
	if (k->data) {
		res->data = strdup(k->data);
		res->data_is_value = k->data_is_value;
	}
	if (out.oom || err.oom) {
		status = KAISH_ERR_EXECUTION;
		sb_free(&out);
		sb_free(&err);
		sb_adds(&err, "out of memory");
	}
done:
	free(msg);
	program_unref(prog);
	res->out_len = out.len;
	res->out = sb_detach(&out);
	res->err = normalize_err(&err);
	if (status != KAISH_OK)
		res->original_code = res->code;
	pthread_mutex_unlock(&k->lock);
	return status;
}

void kaish_result_free(kaish_result *res)
{
	if (!res)
		return;
	free(res->out);
	free(res->err);
	free(res->data);
	result_reset(res);
}

char *kaish_get_var(kaish_kernel *k, const char *name)
{
	pthread_mutex_lock(&k->lock);
	char *r;
	struct sbuf b;
	sb_init(&b);
	if (!strcmp(name, "PIPESTATUS") && pstatus_render(&k->ps, &b)) {
		r = strdup(sb_str(&b)); /* the list rendered from the numbers */
	} else {
		const char *v = scope_get(&k->scope, name);
		r = v ? strdup(v) : NULL;
	}
	sb_free(&b);
	pthread_mutex_unlock(&k->lock);
	return r;
}

int kaish_set_var(kaish_kernel *k, const char *name, const char *value)
{
	if (!is_name(name, strlen(name)))
		return -EINVAL;
	pthread_mutex_lock(&k->lock);
	int e = scope_set(&k->scope, name, value);
	if (e >= 0 && !strcmp(name, "PIPESTATUS"))
		pstatus_free(&k->ps); /* the embedder's value reads back until the next command */
	pthread_mutex_unlock(&k->lock);
	return e < 0 ? -ENOMEM : 0;
}

char *kaish_cwd(kaish_kernel *k)
{
	pthread_mutex_lock(&k->lock);
	char *c = strdup(k->cwd);
	pthread_mutex_unlock(&k->lock);
	return c;
}

void kaish_set_trace(kaish_kernel *k, kaish_trace_fn fn, void *ctx)
{
	pthread_mutex_lock(&k->sh->trace_lock);
	k->sh->trace = fn;
	k->sh->trace_ctx = ctx;
	pthread_mutex_unlock(&k->sh->trace_lock);
}

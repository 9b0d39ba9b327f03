/* SPDX-License-Identifier: MIT */
/*
 * scatter.c - the scatter/gather runner (kaish's ScatterGatherRunner, help scatter).
 *
 *   pre | scatter [--as VAR] [--limit N] [--timeout DUR] | parallel... | gather [--lines|--json]
 *       | post
 *
 * pre runs in one "sequential dispatcher" fork; its structured .data (a JSON array) gives
 * typed items, else its text gives one string item per non-blank line. Each item runs the
 * parallel segment in its own kernel fork on its own pthread (KAISH_RECOMMENDED_STACK_SIZE
 * stack), at most --limit at a time (a counting semaphore). Rows are gathered in item
 * order; any failure gives exit 123 and "gather: K of N worker(s) failed: labels".
 */
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "bi_table.h"
#include "builtins.h"
#include "expand.h"
#include "kernel.h"
#include "parse.h"
#include "scope.h"
#include "util.h"

const char bi_scatter_usage[] =
	"Usage: ... | scatter [--as VAR] [--limit N] [--timeout DUR] | CMD...\n"
	"         | gather [--lines|--json]\n"
	"Run the commands between scatter and gather once per input item, in parallel\n"
	"(at most N at a time, default 8), with $VAR (default ITEM) set to the item.\n"
	"--timeout stops each worker after DUR (30 = 30s, 5s, 500ms, 2m, 1h): exit 124.\n"
	"Items: the elements of structured input (e.g. from seq), else non-blank lines.\n"
	"Without gather: print the item count and the items.\n";
const char bi_gather_usage[] =
	"Usage: ... | gather [--lines|--json]\n"
	"Collect scatter workers as JSONL rows {i,item,ok,code,out,err} in item order.\n"
	"  --lines  the workers' outputs joined by newlines (fails if any worker failed)\n"
	"  --json   one JSON array\n"
	"Exit 123 if any worker failed. Without scatter: pass stdin through.\n";

struct item {
	char *json;  /* typed JSON value for the row */
	char *value; /* the string bound to VAR, and the failure label */
};

struct worker {
	kaish_kernel *fork;
	struct node **stages;
	int nstages;
	sem_t *sem;
	struct sbuf out, err;
	int code;
	char *data;
	bool timed_out; /* its --timeout fired: code 124, "timed_out":true in the row */
	bool started;
	pthread_t tid;
};

struct sg_opts {
	char *var;
	long limit;
	long long timeout_ms; /* per worker, -1 = none */
	bool lines, json;
};

static void items_free(struct item *it, int n)
{
	for (int i = 0; i < n; i++) {
		free(it[i].json);
		free(it[i].value);
	}
	free(it);
}

/* Items from structured data (typed) or text (non-blank lines). 0 or an exit code. */
static int extract_items(const char *data, const char *text, size_t len, struct item **out,
			 int *count, struct sbuf *err)
{
	struct strv elems;
	strv_init(&elems);
	*out = NULL;
	*count = 0;
	if (data) {
		char kind = json_kind(data);
		if (kind == 'o') {
			sb_adds(err, "scatter: input is a single object; select an array of items\n");
			return KAISH_EXIT_USAGE;
		}
		if (kind == 'a') {
			if (json_array_split(data, &elems) < 0) {
				sb_adds(err, "scatter: malformed structured input\n");
				strv_free(&elems);
				return KAISH_EXIT_USAGE;
			}
		} else {
			strv_pushdup(&elems, data);
		}
		struct item *it = calloc((size_t)elems.n + 1, sizeof(*it));
		if (!it) {
			strv_free(&elems);
			return 1;
		}
		for (int i = 0; i < elems.n; i++) {
			if (json_kind(elems.v[i]) == 'z') {
				sb_printf(err, "scatter: item %d is null\n", i);
				items_free(it, i);
				strv_free(&elems);
				return KAISH_EXIT_USAGE;
			}
			it[i].json = elems.v[i];
			elems.v[i] = NULL;
			it[i].value = json_string_value(it[i].json);
			if (!it[i].value)
				it[i].value = strdup(it[i].json);
		}
		*count = elems.n;
		*out = it;
		free(elems.v);
		return 0;
	}
	struct strv lines;
	strv_init(&lines);
	strv_split_lines(&lines, text ? text : "", text ? len : 0);
	struct item *it = calloc((size_t)lines.n + 1, sizeof(*it));
	if (!it) {
		strv_free(&lines);
		return 1;
	}
	int n = 0;
	for (int i = 0; i < lines.n; i++) {
		char *l = lines.v[i];
		size_t ll = strlen(l);
		if (ll && l[ll - 1] == '\r')
			l[--ll] = '\0';
		if (strspn(l, " \t") == ll)
			continue; /* blank lines are not items */
		struct sbuf j;
		sb_init(&j);
		json_add_string(&j, l, ll);
		it[n].json = sb_detach(&j);
		it[n].value = strdup(l);
		n++;
	}
	strv_free(&lines);
	*out = it;
	*count = n;
	return 0;
}

/* kaish's durations: N (seconds), Nms, Ns, Nm, Nh. Returns ms, or -1 if malformed. */
static long long parse_duration(const char *v)
{
	static const struct {
		const char *unit;
		long long ms;
	} units[] = { { "", 1000 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 } };
	char *end;
	if (*v < '0' || *v > '9')
		return -1;
	long long n = strtoll(v, &end, 10);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			return n > LLONG_MAX / units[i].ms ? -1 : n * units[i].ms;
	return -1;
}

/* Option parsing for the scatter and gather stages (expanded argv). */
static int sg_parse(struct strv *sa, struct strv *ga, struct sg_opts *o, struct sbuf *err)
{
	o->var = NULL;
	o->limit = 8;
	o->timeout_ms = -1;
	o->lines = o->json = false;
	for (int i = 1; i < sa->n; i++) {
		const char *a = sa->v[i], *v = NULL;
		bool is_as = !strncmp(a, "--as", 4), is_limit = !strncmp(a, "--limit", 7);
		bool is_timeout = !strncmp(a, "--timeout", 9);
		size_t kl = is_as ? 4 : is_limit ? 7 : is_timeout ? 9 : 0;
		if (kl && a[kl] == '=')
			v = a + kl + 1;
		else if (kl && !a[kl] && i + 1 < sa->n)
			v = sa->v[++i];
		if (!kl || (a[kl] && a[kl] != '=') || !v) {
			sb_printf(err, "scatter: %s '%s'\n", kl ? "missing value for" : "unknown option", a);
			goto usage;
		}
		if (is_as) {
			if (!is_name(v, strlen(v))) {
				sb_printf(err, "scatter: invalid variable name '%s'\n", v);
				goto usage;
			}
			free(o->var);
			o->var = strdup(v);
		} else if (is_timeout) {
			if ((o->timeout_ms = parse_duration(v)) < 0) {
				sb_printf(err, "scatter: invalid --timeout '%s'\n", v);
				goto usage;
			}
		} else if (!bi_parse_long(v, &o->limit)) {
			sb_printf(err, "scatter: invalid --limit '%s'\n", v);
			goto usage;
		} else if (o->limit < 1 || o->limit > 10000) {
			/* kaish clamps with a warning; the warning goes to the trace only. */
			o->limit = o->limit < 1 ? 1 : 10000;
		}
	}
	for (int i = 1; i < ga->n; i++) {
		if (!strcmp(ga->v[i], "--lines"))
			o->lines = true;
		else if (!strcmp(ga->v[i], "--json"))
			o->json = true;
		else {
			sb_printf(err, "gather: unknown option '%s'\n", ga->v[i]);
			goto usage;
		}
	}
	if (!o->var)
		o->var = strdup("ITEM");
	return o->var ? 0 : 1;
usage:
	/* An earlier --as may have set the variable: nothing of o survives a usage error. */
	free(o->var);
	o->var = NULL;
	return KAISH_EXIT_USAGE;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct io wio = { .in = NULL, .in_len = 0, .in_data = NULL, .out = &w->out, .err = &w->err };
	w->code = exec_stages(w->fork, w->stages, w->nstages, &wio);
	if (w->fork->flow == FL_EXIT || w->fork->flow == FL_ABORT)
		w->code = w->fork->exit_code;
	w->fork->flow = FL_NONE;
	if (w->fork->timed_out) {
		w->timed_out = true;
		w->code = KAISH_EXIT_TIMEOUT; /* kaish forces 124 and ok=false */
	}
	int orig;
	bool spilled;
	kernel_apply_limit(w->fork->sh, &w->out, 0, &w->code, &orig, &spilled);
	w->data = w->fork->data;
	w->fork->data = NULL;
	sem_post(w->sem);
	return NULL;
}

/* One row: {"i","item","ok","code","out","err"[,"data"][,"timed_out"]}, one trailing newline
 * stripped from out and err. */
static void add_row(struct sbuf *b, int i, const struct item *it, const struct worker *w)
{
	size_t ol = w->out.len, el = w->err.len;
	if (ol && w->out.s[ol - 1] == '\n')
		ol--;
	if (el && w->err.s[el - 1] == '\n')
		el--;
	sb_printf(b, "{\"i\":%d,\"item\":%s,\"ok\":%s,\"code\":%d,\"out\":", i, it->json,
		  w->code == 0 ? "true" : "false", w->code);
	json_add_string(b, sb_str(&w->out), ol);
	sb_adds(b, ",\"err\":");
	json_add_string(b, sb_str(&w->err), el);
	if (w->data) {
		sb_adds(b, ",\"data\":");
		sb_adds(b, w->data);
	}
	if (w->timed_out)
		sb_adds(b, ",\"timed_out\":true");
	sb_addc(b, '}');
}

static int expand_argv(kaish_kernel *k, struct node *n, struct io *io, struct strv *out)
{
	for (int i = 0; i < n->nwords; i++)
		if (expand_word(k, n->words[i], io, EXP_ARG, out) < 0)
			return -1;
	return 0;
}

/* Run the workers and gather rows into io. Returns the exit code. */
static int run_workers(kaish_kernel *d, struct node **par, int npar, struct item *items,
		       int nitems, const struct sg_opts *o, struct sbuf *text, struct sbuf *rows,
		       struct sbuf *err)
{
	struct worker *w = calloc((size_t)nitems, sizeof(*w));
	sem_t sem;
	if (!w || sem_init(&sem, 0, (unsigned)o->limit) < 0) {
		free(w);
		sb_adds(err, "scatter: out of memory\n");
		return 1;
	}
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, KAISH_RECOMMENDED_STACK_SIZE);
	for (int i = 0; i < nitems; i++) {
		struct worker *x = &w[i];
		sb_init(&x->out);
		sb_init(&x->err);
		x->stages = par;
		x->nstages = npar;
		x->sem = &sem;
		x->code = 1;
		while (sem_wait(&sem) < 0)
			; /* EINTR: retry */
		x->fork = kernel_fork(d);
		if (!x->fork ||
		    scope_set_in(&x->fork->scope, x->fork->scope.nframes - 1, o->var, items[i].value) < 0) {
			sb_adds(&x->err, "scatter: out of memory\n");
			sem_post(&sem);
			continue;
		}
		if (o->timeout_ms >= 0) /* per worker, from its start, as kaish's timer task */
			kernel_set_fork_deadline(x->fork, o->timeout_ms);
		if (pthread_create(&x->tid, &attr, worker_main, x) != 0) {
			sb_adds(&x->err, "scatter: cannot start worker thread\n");
			sem_post(&sem);
			continue;
		}
		x->started = true;
	}
	int failed = 0;
	struct sbuf labels;
	sb_init(&labels);
	sb_addc(rows, '[');
	for (int i = 0; i < nitems; i++) { /* joined in item order: rows follow item order */
		struct worker *x = &w[i];
		if (x->started)
			pthread_join(x->tid, NULL);
		if (x->code != 0) {
			sb_printf(&labels, "%s%s", failed ? ", " : "", items[i].value);
			failed++;
		}
		if (i) {
			sb_addc(rows, ',');
			if (!o->json)
				sb_addc(text, '\n'); /* rows / lines joined by \n, none after the last */
		}
		size_t before = rows->len;
		add_row(rows, i, &items[i], x);
		if (o->lines) {
			size_t ol = x->out.len;
			if (ol && x->out.s[ol - 1] == '\n')
				ol--;
			sb_add(text, sb_str(&x->out), ol);
		} else if (!o->json) {
			sb_add(text, rows->s + before, rows->len - before);
		}
		kernel_fork_free(x->fork);
		sb_free(&x->out);
		sb_free(&x->err);
		free(x->data);
	}
	sb_addc(rows, ']');
	if (o->json)
		json_pretty(text, sb_str(rows)); /* --json: one pretty-printed array */
	pthread_attr_destroy(&attr);
	sem_destroy(&sem);
	free(w);
	int code = 0;
	if (failed) {
		sb_printf(err, "gather: %d of %d worker(s) failed: %s\n", failed, nitems, sb_str(&labels));
		code = KAISH_EXIT_GATHER;
		if (o->lines) {
			text->len = 0; /* --lines is all-or-nothing */
			sb_adds(err, "gather: --lines prints nothing when a worker fails; drop --lines "
				     "to get one row per worker with its ok, code and err\n");
		}
	}
	sb_free(&labels);
	return code;
}

int exec_scatter(kaish_kernel *k, struct node **stages, int n, int s, int g, struct io *io)
{
	if (g == s + 1) {
		/* `scatter | gather`: no parallel segment for the workers to run (found by
		 * fuzzing: workers used to run an empty pipeline and read past its end). */
		sb_adds(io->err, "scatter: no command between scatter and gather\n");
		return KAISH_EXIT_USAGE;
	}
	for (int i = 0; i < n; i++) {
		if (stages[i]->type != N_CMD) {
			sb_adds(io->err, "scatter: scatter/gather cannot share a pipeline with a "
					 "compound stage (for, while, if, case, { }): workers run plain "
					 "commands\n");
			return KAISH_EXIT_USAGE;
		}
	}
	struct strv sa, ga;
	struct sg_opts o = { 0 };
	struct item *items = NULL;
	int nitems = 0, code;
	struct sbuf pre, text, rows;
	char *pre_data = NULL;
	strv_init(&sa);
	strv_init(&ga);
	sb_init(&pre);
	sb_init(&text);
	sb_init(&rows);
	kaish_kernel *d = kernel_fork(k); /* the sequential dispatcher */
	if (!d) {
		sb_adds(io->err, "scatter: out of memory\n");
		return 1;
	}
	if (expand_argv(d, stages[s], io, &sa) < 0 || expand_argv(d, stages[g], io, &ga) < 0) {
		code = 1;
		goto out;
	}
	if ((code = sg_parse(&sa, &ga, &o, io->err)))
		goto out;

	const char *in = io->in, *in_data = io->in_data;
	size_t in_len = io->in_len;
	if (s > 0) {
		struct io pio = { .in = io->in, .in_len = io->in_len, .in_data = io->in_data,
				  .out = &pre, .err = io->err };
		code = exec_stages(d, stages, s, &pio);
		int orig;
		bool spilled;
		kernel_apply_limit(k->sh, &pre, 0, &code, &orig, &spilled);
		if (code) { /* a failing pre-scatter segment returns early */
			sb_add(io->out, sb_str(&pre), pre.len);
			goto out;
		}
		pre_data = d->data;
		d->data = NULL;
		in = sb_str(&pre);
		in_len = pre.len;
		in_data = pre_data;
	}
	if ((code = extract_items(in_data, in, in_len, &items, &nitems, io->err)))
		goto out;
	if (nitems == 0)
		goto out; /* no items: exit 0, empty output */
	kernel_trace(k, "scatter %d items (as=%s, limit=%ld)", nitems, o.var, o.limit);
	code = run_workers(d, stages + s + 1, g - s - 1, items, nitems, &o, &text, &rows, io->err);

	if (code == 0 && g + 1 < n) {
		/* post-gather runs with gather's text and data as its stdin; --lines is plain
		 * text in kaish, with no row data behind it. */
		struct io post = { .in = sb_str(&text), .in_len = text.len,
				   .in_data = o.lines ? NULL : sb_str(&rows), .out = io->out,
				   .err = io->err };
		code = exec_stages(d, stages + g + 1, n - g - 1, &post);
		kernel_set_data(k, d->data, d->data_is_value);
		d->data = NULL;
	} else {
		sb_add(io->out, sb_str(&text), text.len);
		/* The rows are the value of $( ), except for --lines: its text is the value. */
		kernel_set_data(k, o.lines ? NULL : sb_detach(&rows), !o.lines);
	}
out:
	items_free(items, nitems);
	free(pre_data);
	free(o.var);
	strv_free(&sa);
	strv_free(&ga);
	sb_free(&pre);
	sb_free(&text);
	sb_free(&rows);
	kernel_fork_free(d);
	return code;
}

/* scatter without gather: describe the items. */
int bi_scatter(struct bi_ctx *c, int argc, char **argv)
{
	struct strv sa, ga;
	struct sg_opts o;
	struct item *items;
	int n;
	strv_init(&sa);
	strv_init(&ga);
	for (int i = 0; i < argc; i++)
		strv_pushdup(&sa, argv[i]);
	int code = sg_parse(&sa, &ga, &o, c->io->err);
	strv_free(&sa);
	if (code)
		return code;
	size_t len;
	const char *in = bi_stdin(c, &len);
	code = extract_items(c->io->in_data, in, len, &items, &n, c->io->err);
	if (!code) {
		sb_printf(c->io->out, "scatter: %d items (as=$%s, limit=%ld)\n", n, o.var, o.limit);
		for (int i = 0; i < n; i++)
			sb_printf(c->io->out, "%s\n", items[i].value);
		items_free(items, n);
	}
	free(o.var);
	return code;
}

/* gather without scatter: pass stdin (text and data) through. */
int bi_gather(struct bi_ctx *c, int argc, char **argv)
{
	size_t len;
	const char *in = bi_stdin(c, &len);
	sb_add(c->io->out, in, len);
	if (c->io->in_data)
		kernel_set_data(c->k, strdup(c->io->in_data), true);
	return 0;
}

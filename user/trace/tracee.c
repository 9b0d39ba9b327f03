// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Traced process images: see tracee.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc_scope.h"
#include "clock.h"
#include "dwarf_stacks.h"
#include "events.h"
#include "log.h"
#include "mappings.h"
#include "py_inline.h"
#include "py_sites.h"
#include "rss_sampler.h"
#include "symbolizer.h"
#include "target.h"
#include "tgid_index.h"
#include "tracee.h"
#include "safe_text.h"
#include "grow.h"
#include "strvec.h"

struct tracees {
	struct tracees_opts opts;
	struct tracee **v; /* in the order they were opened */
	size_t cnt, cap;
	struct tgid_index newest; /* tgid -> its last entry in v */
	struct strvec py_said;	  /* interpreter files whose images were announced */
	bool root_execd;	 /* held_root has exec'd its command */
	__u64 polls;		 /* tracees__close_exited calls: the batches read */
	__u64 pre_exec_records;	 /* held_root's records before that (dropped) */
	__u64 unread_image_records; /* of images exec'd away before they were read (dropped) */
};

/* "a/b/app.json.gz" -> offset of ".json.gz"; the last '.' of the basename otherwise; or the
 * end. Where ".<pid>.<prog>" goes. */
static size_t suffix_at(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	dot = strstr(base, ".json");
	if (!dot)
		dot = strrchr(base, '.');
	return dot && dot != base ? (size_t)(dot - path) : strlen(path);
}

/* Copy pattern into out with every "%p" replaced by rep. */
static void expand_pid(const char *pattern, const char *rep, char *out, size_t sz)
{
	size_t n = 0;

	for (const char *p = pattern; *p && n + 1 < sz; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			n += (size_t)snprintf(out + n, sz - n, "%s", rep);
			p++;
		} else {
			out[n++] = *p;
		}
		if (n >= sz)
			n = sz - 1;
	}
	out[n] = '\0';
}

bool tracee_path(const char *output, bool final, pid_t pid, const char *prog, char *out,
		 size_t sz)
{
	const char *env = getenv("KAISH_PROFILE_OUT"), *base;
	char pattern[PATH_MAX], rep[128], name[96];
	size_t at;

	/* The image's name is the target's choice: only safe characters reach the path. */
	safe_text__file_name(name, sizeof(name), prog);
	prog = name;
	if (output)
		snprintf(pattern, sizeof(pattern), "%s", output);
	else
		snprintf(pattern, sizeof(pattern), "%s/dhat-heap-%%p.json", env && *env ? env : ".");
	if (final || strstr(pattern, "%p")) {
		if (final)
			snprintf(rep, sizeof(rep), "%d", (int)pid);
		else
			snprintf(rep, sizeof(rep), "%d.%s", (int)pid, prog);
		expand_pid(pattern, rep, out, sz);
		return strlen(out) + 1 < sz;
	}
	/* -o FILE: the other images in FILE.d/, named after FILE's basename. */
	at = suffix_at(pattern);
	base = strrchr(pattern, '/');
	base = base ? base + 1 : pattern;
	return snprintf(out, sz, "%s.d/%.*s.%d.%s%s", pattern, (int)(pattern + at - base), base,
			(int)pid, prog, pattern + at) < (int)sz;
}

/* A path no earlier tracee of the set took (an image exec'ing the same program twice):
 * ".2", ".3" ... before the suffix. */
static void unique_path(const struct tracees *ts, char *path, size_t sz)
{
	char base[PATH_MAX];
	size_t at;
	bool taken = true;

	snprintf(base, sizeof(base), "%s", path);
	at = suffix_at(base);
	for (int n = 2; taken; n++) {
		taken = false;
		for (size_t i = 0; i < ts->cnt && !taken; i++)
			taken = !strcmp(ts->v[i]->path, path);
		if (taken)
			snprintf(path, sz, "%.*s.%d%s", (int)at, base, n, base + at);
	}
}

struct tracees *tracees__new(const struct tracees_opts *o)
{
	struct tracees *ts = calloc(1, sizeof(*ts));

	if (ts)
		ts->opts = *o;
	return ts;
}

static void tracee_free(struct tracee *t)
{
	if (!t)
		return;
	session__free(t->session);
	symbolizer__free(t->sym);
	dwarf_stacks__free(t->stacks);
	py_stacks__free(t->py);
	rss_sampler__free(t->rss);
	mappings__free(t->maps);
	dhat_arenas__release(t->exit_arenas);
	free(t->exit_arenas);
	free(t);
}

void tracees__free(struct tracees *ts)
{
	if (!ts)
		return;
	for (size_t i = 0; i < ts->cnt; i++)
		tracee_free(ts->v[i]);
	free(ts->v);
	tgid_index__release(&ts->newest);
	strvec__release(&ts->py_said);
	free(ts);
}

static int push(struct tracees *ts, struct tracee *t)
{
	if (grow__array(&ts->v, &ts->cap, ts->cnt + 1, sizeof(*ts->v)) ||
	    (t->tgid > 0 && tgid_index__set(&ts->newest, t->tgid, ts->cnt)))
		return -ENOMEM;
	ts->v[ts->cnt++] = t;
	return 0;
}

/* An interpreter built with pymalloc copied into its callers (py_inline.h): said once per
 * image, with whether the copies are probed (py_sites.h: a non-PIE x86-64 executable) or
 * most small objects go unseen. */
static void py_warn_inlined(const struct tracee *t)
{
	const char *image = py_stacks__image(t->py);
	char path[PATH_MAX];
	struct py_sites *ps;
	int sites;

	if (!image || t->set->opts.python == PY_MODE_OFF)
		return;
	alloc_scope__open_path(t->tgid, image, path, sizeof(path));
	sites = py_inline__sites(path);
	if (sites < PY_INLINE_MIN_SITES)
		return;
	ps = calloc(1, sizeof(*ps));
	if (ps && !py_sites__find(path, ps) && ps->cnt)
		ilog("pid %d (%s): %s has pymalloc inlined at %zu call sites (an LTO build): "
		     "probed at each copy, %zu not resolved (what they allocate is not seen)\n",
		     (int)t->tgid, safe_text__term(t->prog), safe_text__term(image), ps->found,
		     ps->unresolved);
	else
		ilog("pid %d (%s): %s has pymalloc inlined at %d call sites (an LTO build): "
		     "most allocations of 512 bytes and less make no PyObject_Malloc call and are "
		     "not seen\n",
		     (int)t->tgid, safe_text__term(t->prog), safe_text__term(image), sites);
	free(ps);
}

/* Whether an image of the interpreter file image was announced already this run; marks it
 * announced. A Python program running a thousand subprocesses forks a thousand images of
 * it: the user is told once (each again at -v), and its code is scanned for inlined pymalloc
 * once (py_warn_inlined), not at every fork. */
static bool py_announced(struct tracees *ts, const char *image)
{
	for (size_t i = 0; i < ts->py_said.cnt; i++)
		if (!strcmp(ts->py_said.items[i], image))
			return true;
	(void)strvec__push(&ts->py_said, image); /* out of memory: said again, no harm */
	return false;
}

/* Is t's interpreter known (looked for again while not, py_stacks__probe)? Said once. */
static bool py_probe(struct tracee *t)
{
	const char *why = NULL;
	bool known = py_stacks__probe(t->py, &why);

	if (why) {
		ilog("pid %d (%s): %s\n", (int)t->tgid, safe_text__term(t->prog), why);
		t->py_said = true;
	}
	if (known && !*t->py_version) {
		const char *image = py_stacks__image(t->py);
		bool again = image && py_announced(t->set, image);

		snprintf(t->py_version, sizeof(t->py_version), "%s", py_stacks__version(t->py));
		if (again) { /* another image of an interpreter said already: at -v only */
			vlog("pid %d (%s): CPython %s: Python frames recorded\n", (int)t->tgid,
			     safe_text__term(t->prog), safe_text__term(t->py_version));
		} else {
			ilog("pid %d (%s): CPython %s: Python frames recorded\n", (int)t->tgid,
			     safe_text__term(t->prog), safe_text__term(t->py_version));
			py_warn_inlined(t);
		}
	}
	return known;
}

/* An allocation record of t: its Python stack named now, while the target lives. */
static void py_record(struct tracee *t, __u32 type, const void *data, size_t sz)
{
	const struct alloc_event *e = data;

	if (!t->py || (type != EV_ALLOC && type != EV_REALLOC) || sz < sizeof(*e))
		return;
	if (!*t->py_version)
		py_probe(t);
	if (e->py_stack)
		py_stacks__see(t->py, e->py_stack);
}

/* A session for image t whose profile starts at start_ns. */
static struct session *image_session(const struct tracees *ts, struct tracee *t,
				     __u64 start_ns)
{
	struct session_opts so = ts->opts.sopts;

	so.ctx = t;
	so.start_ns = start_ns;
	return session__new(&so);
}

struct tracee *tracees__open(struct tracees *ts, pid_t tgid, pid_t parent, const char *exe,
			     __u64 start_ns)
{
	struct tracee *t = calloc(1, sizeof(*t));
	const char *slash;
	char link[64];
	ssize_t n;

	if (!t)
		return NULL;
	t->tgid = tgid;
	t->parent = parent;
	t->set = ts;
	if (exe && *exe) {
		snprintf(t->exe, sizeof(t->exe), "%s", exe);
	} else {
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)tgid);
		t->exe_read_from = clock__mono_ns();
		n = readlink(link, t->exe, sizeof(t->exe) - 1);
		t->exe_read_by = clock__mono_ns();
		t->exe[n > 0 ? n : 0] = '\0';
	}
	slash = strrchr(t->exe, '/');
	snprintf(t->prog, sizeof(t->prog), "%s", slash ? slash + 1 : *t->exe ? t->exe : "unknown");
	if (!target__read_cmdline(tgid, t->cmdline, sizeof(t->cmdline)))
		snprintf(t->cmdline, sizeof(t->cmdline), "%s", *t->exe ? t->exe : t->prog);
	if (ts->opts.name_paths) {
		tracee_path(ts->opts.output, false, tgid, t->prog, t->path, sizeof(t->path));
		unique_path(ts, t->path, sizeof(t->path));
		tracee_path(ts->opts.output, true, tgid, t->prog, t->final_path,
			    sizeof(t->final_path));
	}
	t->session = image_session(ts, t, start_ns);
	/* Maps now, while the image certainly lives; NULL when they cannot be read (it is
	 * gone already): its frames then print as addresses. */
	t->sym = symbolizer__new(tgid);
	if (ts->opts.dwarf)
		t->stacks = dwarf_stacks__new(tgid);
	if (t->stacks && ts->opts.hint_fn &&
	    dwarf_stacks__set_hint_sink(t->stacks, ts->opts.hint_fn, ts->opts.hint_ctx))
		vlog("pid %d: no stack hints (out of memory): its stack copies go whole\n",
		     (int)tgid);
	if (ts->opts.rss) /* NULL when unreadable: its profile has no series */
		t->rss = rss_sampler__new(tgid);
	if (ts->opts.python != PY_MODE_OFF) {
		t->py = py_stacks__new(tgid, &ts->opts.py);
		py_probe(t);
	}
	if (!t->session || push(ts, t)) {
		tracee_free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

bool tracee__final(const struct tracee *t)
{
	return !t->parent && !t->execd && t->set->cnt && t->tgid == t->set->v[0]->tgid;
}

const char *tracee__profile_path(const struct tracee *t)
{
	return tracee__final(t) ? t->final_path : t->path;
}

struct tracee *tracees__live(const struct tracees *ts, pid_t tgid)
{
	/* The open image of a pid is its last tracee, if that is still open. */
	long i = tgid_index__get(&ts->newest, tgid);

	return i >= 0 && ts->v[i]->session ? ts->v[i] : NULL;
}

int tracees__close(struct tracee *t, __u64 end_ns, bool ended)
{
	int err;

	if (!t || !t->session)
		return 0;
	t->ended = t->ended || ended;
	err = session__finish(t->session, end_ns);
	t->stats = *session__stats(t->session);
	session__free(t->session);
	t->session = NULL;
	symbolizer__free(t->sym);
	t->sym = NULL;
	if (t->stacks)
		dwarf_stacks__stats(t->stacks, &t->unwind);
	dwarf_stacks__free(t->stacks);
	t->stacks = NULL;
	py_stacks__stats(t->py, &t->py_stats);
	if (t->py && !*t->py_version && py_stacks__why(t->py) && !t->py_said)
		ilog("pid %d (%s): %s\n", (int)t->tgid, safe_text__term(t->prog),
		     py_stacks__why(t->py));
	py_stacks__free(t->py); /* its names were written: the profile is out */
	t->py = NULL;
	rss_sampler__free(t->rss);
	t->rss = NULL;
	mappings__free(t->maps);
	t->maps = NULL;
	return err;
}

/* Close the exited images (at their exit) whose EV_DEATH did not come; all: also those
 * whose exit came in the batch just read (the last drain: nothing more will come). */
static int close_exited(struct tracees *ts, bool all)
{
	int err = 0, e;

	for (size_t i = 0; ts && i < ts->cnt; i++) {
		const struct tracee *t = ts->v[i];

		if (!t->session || !t->exit_ns || (!all && t->exit_poll == ts->polls))
			continue;
		e = tracees__close(ts->v[i], t->exit_ns, true);
		err = err ?: e;
	}
	if (ts)
		ts->polls++;
	return err;
}

int tracees__close_exited(struct tracees *ts)
{
	return close_exited(ts, false);
}

int tracees__close_all(struct tracees *ts, __u64 end_ns)
{
	int err = close_exited(ts, true), e;

	for (size_t i = 0; i < ts->cnt; i++) {
		e = tracees__close(ts->v[i], end_ns, false);
		err = err ?: e;
	}
	return err;
}

void tracee__refresh_sym(struct tracee *t)
{
	if (t->ended || t->sym_borrowed)
		return;
	if (t->sym)
		symbolizer__refresh_maps(t->sym);
	else
		t->sym = symbolizer__new(t->tgid);
}

void tracees__refresh_maps(struct tracees *ts)
{
	for (size_t i = 0; i < ts->cnt; i++) {
		struct tracee *t = ts->v[i];

		if (!t->session || t->ended)
			continue;
		tracee__refresh_sym(t);
		if (t->stacks)
			dwarf_stacks__refresh_maps(t->stacks);
		mappings__refresh_maps(t->maps);
	}
}

void tracees__sample_rss(struct tracees *ts, __u64 now_ns)
{
	for (size_t i = 0; ts && i < ts->cnt; i++)
		if (ts->v[i]->session)
			rss_sampler__tick(ts->v[i]->rss, now_ns);
}

size_t tracees__count(const struct tracees *ts)
{
	return ts ? ts->cnt : 0;
}

struct tracee *tracees__at(const struct tracees *ts, size_t i)
{
	return i < ts->cnt ? ts->v[i] : NULL;
}

void *tracees__owner(const struct tracees *ts)
{
	return ts->opts.owner;
}

void tracees__stats(const struct tracees *ts, struct session_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; ts && i < ts->cnt; i++) {
		const struct session_stats *s =
			ts->v[i]->session ? session__stats(ts->v[i]->session) : &ts->v[i]->stats;

		out->records += s->records;
		out->outside_window += s->outside_window;
		out->bad_records += s->bad_records;
		out->profiles += s->profiles;
		out->unknown_frees += s->unknown_frees;
		out->stack_failures += s->stack_failures;
	}
}

bool tracees__py_stats(const struct tracees *ts, struct py_stacks_stats *out)
{
	bool any = false;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; ts && i < ts->cnt; i++) {
		struct py_stacks_stats s = ts->v[i]->py_stats;

		if (ts->v[i]->py)
			py_stacks__stats(ts->v[i]->py, &s);
		any = any || *ts->v[i]->py_version;
		out->stacks += s.stacks;
		out->frames += s.frames;
		out->unnamed += s.unnamed;
		out->unread += s.unread;
	}
	return any;
}

void tracees__unwind_stats(const struct tracees *ts, struct dwarf_stacks_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; ts && i < ts->cnt; i++) {
		struct dwarf_stacks_stats s = ts->v[i]->unwind;

		if (ts->v[i]->stacks)
			dwarf_stacks__stats(ts->v[i]->stacks, &s);
		out->snapshots += s.snapshots;
		out->unwound += s.unwound;
		out->partial += s.partial;
		out->short_copies += s.short_copies;
		out->failures += s.failures;
		out->frames += s.frames;
		out->unwind_ns += s.unwind_ns;
		if (s.max_unwind_ns > out->max_unwind_ns)
			out->max_unwind_ns = s.max_unwind_ns;
		out->stack_bytes += s.stack_bytes;
		out->sparse += s.sparse;
		out->hint_misses += s.hint_misses;
		out->hints_set += s.hints_set;
		out->hint_refusals += s.hint_refusals;
		out->hint_sites += s.hint_sites;
		out->distinct += s.distinct;
	}
}

struct tracee *tracees__busiest(const struct tracees *ts)
{
	struct tracee *best = NULL;
	__u64 most = 0;

	for (size_t i = 0; ts && i < ts->cnt; i++) {
		const struct collector_totals *c =
			ts->v[i]->session ? session__current(ts->v[i]->session) : NULL;

		if (c && (!best || c->live_bytes > most)) {
			best = ts->v[i];
			most = c->live_bytes;
		}
	}
	return best;
}

/* A new image of tgid starts (fork: the parent's image, exec: filename). */
static struct tracee *open_image(struct tracees *ts, pid_t tgid, pid_t parent, const char *exe,
				 __u64 ns)
{
	struct tracee *t = tracees__open(ts, tgid, parent, exe, ns);

	if (!t)
		elog("pid %d: cannot open a profile: %s\n", (int)tgid, strerror(errno));
	else
		vlog("pid %d: tracing %s%s\n", (int)tgid, safe_text__term(t->cmdline),
		     parent ? " (forked)" : "");
	return t;
}

/* Is exec record e about the image t already is? A process that joined the trace (--cgroup,
 * --pid, a first record) was opened by reading /proc/PID/exe; its exec may have come between
 * its probes' attach and that read, so the image read is the exec's. Certain when the exec
 * precedes the read; while the two overlap, the same program name decides. */
static bool exec_already_opened(const struct tracee *t, const struct proc_event *e)
{
	char filename[PROC_FILENAME_LEN + 1];
	const char *name;

	if (!t->exe_read_by || e->ts_ns > t->exe_read_by)
		return false;
	if (e->ts_ns < t->exe_read_from)
		return true;
	snprintf(filename, sizeof(filename), "%.*s", PROC_FILENAME_LEN, e->filename);
	name = strrchr(filename, '/');
	name = name ? name + 1 : filename;
	return !strcmp(name, t->prog);
}

/* t, read as the image its exec record e opens, may hold records handled before e: the old
 * image's, made before the exec. Nothing describes that image any more (t's name, maps and
 * symbols are the new one's), so they are dropped, counted, and t starts afresh at e. */
static int drop_unread_image(struct tracees *ts, struct tracee *t, const struct proc_event *e)
{
	__u64 records = session__stats(t->session)->records;
	struct session *s;

	if (!records)
		return 0;
	s = image_session(ts, t, e->ts_ns);
	if (!s)
		return -ENOMEM;
	session__free(t->session); /* unfinished: no profile */
	t->session = s;
	mappings__free(t->maps); /* the old image's mappings */
	t->maps = NULL;
	ts->unread_image_records += records;
	return 0;
}

/* EV_PROC_*: open and close the images' profiles at their place in the stream. */
static int on_proc_event(struct tracees *ts, const struct proc_event *e)
{
	struct tracee *t = tracees__live(ts, (pid_t)e->tgid), *parent;
	pid_t root = ts->opts.held_root;
	int err = 0;

	switch (e->type) {
	case EV_PROC_FORK:
		parent = tracees__live(ts, (pid_t)e->parent_tgid);
		if (!parent && root && (pid_t)e->parent_tgid == root && !ts->root_execd)
			break; /* forked by the held child before its exec: not the command */
		if (t)
			err = tracees__close(t, e->ts_ns, true); /* pid reused: a lost EXIT */
		t = open_image(ts, (pid_t)e->tgid, (pid_t)e->parent_tgid,
			       parent ? parent->exe : NULL, e->ts_ns);
		if (t && parent) { /* its own may show the exec that followed already */
			snprintf(t->cmdline, sizeof(t->cmdline), "%s", parent->cmdline);
			t->malloc_kind = parent->malloc_kind; /* the same image */
			/* Gone before its maps were read (no exit stop holds it with --pid,
			 * and a zombie's maps are empty): its frames are the parent's image's. */
			if (symbolizer__empty(t->sym) && !symbolizer__empty(parent->sym)) {
				symbolizer__free(t->sym);
				t->sym = symbolizer__ref(parent->sym);
				t->sym_borrowed = true;
			}
		}
		break;
	case EV_PROC_EXEC:
		if ((pid_t)e->tgid == root)
			ts->root_execd = true;
		if (t && exec_already_opened(t, e)) {
			vlog("pid %d: its exec of %s came before its image was read: one image\n",
			     (int)e->tgid, safe_text__term(t->prog));
			err = drop_unread_image(ts, t, e);
		} else {
			if (t) {
				t->execd = true; /* before the close writes it: not final */
				err = tracees__close(t, e->ts_ns, true);
			}
			t = open_image(ts, (pid_t)e->tgid, t ? t->parent : 0, e->filename,
				       e->ts_ns);
		}
		if (t && ts->opts.on_exec) /* idempotent: a second call probes nothing new */
			ts->opts.on_exec(ts->opts.owner, t);
		break;
	case EV_PROC_EXIT:
		if (t && ts->opts.await_death) {
			t->exit_ns = e->ts_ns; /* its EV_DEATH follows, with the cause */
			t->exit_poll = ts->polls;
		} else {
			err = tracees__close(t, e->ts_ns, true);
		}
		break;
	}
	return err;
}

/* EV_MAPPING: to the image's own tracker, created with its first record (its unwinder
 * reads the maps then). Only -ENOMEM stops the trace; a malformed record is counted. */
static int on_mapping(struct tracees *ts, const void *data, size_t sz)
{
	const struct mapping_event *m = data;
	struct tracee *t = sz >= sizeof(*m) ? tracees__live(ts, (pid_t)m->tgid) : NULL;

	if (!t)
		return 0; /* not an image of ours (the held child before its exec) */
	if (!t->maps)
		t->maps = mappings__new(t->tgid);
	if (!t->maps)
		return -ENOMEM;
	return mappings__handle(t->maps, data, sz) == -ENOMEM ? -ENOMEM : 0;
}

/* The tgid of an allocator, window or death record, 0 if it has none. */
static pid_t record_tgid(__u32 type, const void *data, size_t sz)
{
	const struct alloc_event *a = data;
	const struct window_event *w = data;
	const struct death_event *d = data;

	if (type == EV_DEATH)
		return sz >= sizeof(*d) ? (pid_t)d->tgid : 0;
	if (type == EV_WINDOW_BEGIN || type == EV_WINDOW_END)
		return sz >= sizeof(*w) ? (pid_t)w->tgid : 0;
	return sz >= sizeof(*a) ? (pid_t)a->tgid : 0;
}

int tracees__handle(void *set, const void *data, size_t sz)
{
	struct tracees *ts = set;
	const struct window_event *w = data; /* read only when type says it is one */
	struct alloc_event ev;
	struct tracee *t;
	__u32 type;
	pid_t tgid;

	if (sz < sizeof(__u32))
		return 0;
	type = event__type(data);
	if (type == EV_PROC_FORK || type == EV_PROC_EXEC || type == EV_PROC_EXIT)
		return sz >= sizeof(struct proc_event) ? on_proc_event(ts, data) : 0;
	if (type == EV_MAPPING)
		return on_mapping(ts, data, sz);
	tgid = record_tgid(type, data, sz);
	t = tracees__live(ts, tgid);
	if (!t && ts->opts.held_root == tgid && !ts->root_execd) {
		ts->pre_exec_records++;
		return 0;
	}
	if (!t && type == EV_DEATH)
		return 0; /* its image closed already: nothing left to end */
	if (!t && tgid > 0)
		t = open_image(ts, tgid, 0, NULL, clock__mono_ns());
	if (!t)
		return 0;
	if (sz >= sizeof(*w) && type == EV_WINDOW_BEGIN && w->iterations)
		ilog("tracing %.*s: %llu iterations\n", WINDOW_NAME_LEN, w->name,
		     (unsigned long long)w->iterations);
	else if (sz >= sizeof(*w) && type == EV_WINDOW_BEGIN)
		vlog("window opened at %.*s\n", WINDOW_NAME_LEN, w->name);
	/* Unwound here, before the session: it only ever sees plain records. A malformed
	 * snapshot goes on as is and is counted as a bad record. */
	if (type == EV_STACK_SNAPSHOT && t->stacks &&
	    !dwarf_stacks__resolve(t->stacks, data, sz, &ev)) {
		if (ts->opts.tag_user_ids && ev.stack_id >= 0)
			ev.stack_id |= STACK_ID_USER_TAG;
		py_record(t, ev.type, &ev, sizeof(ev));
		return session__handle(t->session, &ev, sizeof(ev));
	}
	py_record(t, type, data, sz);
	if (type == EV_DEATH) { /* the process is gone: its profile ended at the death */
		const struct death_event *d = data;
		int err = session__handle(t->session, data, sz);

		if (sz >= sizeof(*d) && (WIFSIGNALED(d->exit_code) || (d->flags & DEATH_F_OOM)))
			t->died = true;
		return tracees__close(t, d->ts_ns, true) ?: err;
	}
	return session__handle(t->session, data, sz);
}

__u64 tracees__pre_exec_records(const struct tracees *ts)
{
	return ts ? ts->pre_exec_records : 0;
}

__u64 tracees__unread_image_records(const struct tracees *ts)
{
	return ts ? ts->unread_image_records : 0;
}

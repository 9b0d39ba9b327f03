// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What a run writes and prints: profiles as they close, the closing reports and counters,
 * progress on a terminal (run.h). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc_check.h"
#include "alloc_symbols.h"
#include "alloc_watch.h"
#include "arenas.h"
#include "cli.h"
#include "clock.h"
#include "collector.h"
#include "death_probes.h"
#include "debug_hint.h"
#include "dhat_reader.h"
#include "dwarf_stacks.h"
#include "environment.h"
#include "fp_detect.h"
#include "frames.h"
#include "loader.h"
#include "loader_window.h"
#include "log.h"
#include "mappings.h"
#include "options.h"
#include "output.h"
#include "profile_output.h"
#include "report.h"
#include "rss_sampler.h"
#include "session.h"
#include "suppress.h"
#include "sudo_user.h"
#include "symbolizer.h"
#include "target.h"
#include "trace_summary.h"
#include "tracee.h"
#include "tracee_summary.h"
#include "tracer_exit.h"
#include "units.h"
#include "run.h"
#include "workloads.h"
#include "safe_text.h"

/* stack_source callbacks, ctx = struct profile_ctx: stack ids are BPF's, or the image's
 * resolver's in dwarf mode; with --unwind kernel both, the resolver's tagged
 * STACK_ID_USER_TAG. */
static int run_stack_cb(void *ctx, __s32 id, __u64 *ips, size_t max)
{
	struct profile_ctx *p = ctx;

	bool user = p->r->dwarf || (p->r->kernel_unwind && id >= 0 && (id & STACK_ID_USER_TAG));

	if (user)
		return p->t->stacks ? dwarf_stacks__stack(p->t->stacks, id & ~STACK_ID_USER_TAG,
							  ips, max) :
				      -ENOENT;
	return loader__stack(p->r->loader, id, ips, max);
}

static __u64 run_fn_addr_cb(void *ctx, __u32 fn)
{
	return loader__fn_addr(((struct profile_ctx *)ctx)->r->loader, fn);
}

static const char *run_fn_lib_cb(void *ctx, __u32 fn)
{
	return alloc_symbols__obj(loader__alloc_symbols(((struct profile_ctx *)ctx)->r->loader),
				  fn);
}

static size_t run_py_frames_cb(void *ctx, __u32 py_stack, const char *const **names,
			       const __u32 **flags)
{
	return py_stacks__frames(((struct profile_ctx *)ctx)->t->py, py_stack, names, flags);
}

void run__stack_source(struct profile_ctx *pc, struct stack_source *src)
{
	*src = (struct stack_source){ run_stack_cb, run_fn_addr_cb, pc,
				      loader__libc_path(pc->r->loader), run_fn_lib_cb,
				      run_py_frames_cb };
}

/* Is the image's malloc glibc's (its own when resolved, else the run's first one)? */
static bool run__glibc_malloc(struct run *r, const struct tracee *t)
{
	return t->malloc_kind ? t->malloc_kind == TRACEE_MALLOC_GLIBC :
	       alloc_symbols__glibc_malloc(loader__alloc_symbols(r->loader));
}

/* Arena forensics apply to an image whose malloc is glibc's, outside workload windows. */
bool run__arenas_apply(struct run *r, const struct tracee *t)
{
	return !r->out.workloads && run__glibc_malloc(r, t);
}

void run__measure_arenas_at_exit(struct run *r, struct tracee *t)
{
	const struct collector *c = t->session ? session__open(t->session) : NULL;
	struct dhat_arenas *a;
	int err;

	if (!c || !run__arenas_apply(r, t))
		return;
	a = t->exit_arenas ? t->exit_arenas : calloc(1, sizeof(*a));
	if (!a)
		return;
	dhat_arenas__release(a);
	err = arenas__measure(t->tgid, c, a);
	if (err) {
		vlog("pid %d: arenas not measured at exit: %s\n", (int)t->tgid, strerror(-err));
		free(a);
		a = NULL;
	}
	t->exit_arenas = a;
}

/* The arenas for the profile c of t: measured now while it lives, else at its exit stop;
 * else, in now, why there are none: another allocator (named), or a --pid target gone
 * before they could be read (no exit stop to read them at). Measuring on every RSS sample
 * instead would copy the whole heap from the trace loop (docs/OOM.md): not done. */
static const struct dhat_arenas *run__arenas(struct run *r, struct tracee *t,
					     const struct collector *c, struct dhat_arenas *now,
					     bool died)
{
	const struct alloc_symbols *s = loader__alloc_symbols(r->loader);
	const char *lib = *t->malloc_lib ? t->malloc_lib : s ? s->path : "";
	int err = 0;

	if (r->out.workloads)
		return NULL;
	if (!run__glibc_malloc(r, t)) {
		snprintf(now->allocator, sizeof(now->allocator), "%s",
			 strrchr(lib, '/') ? strrchr(lib, '/') + 1 : lib);
		return *now->allocator ? now : NULL;
	}
	if (!t->ended) {
		err = arenas__measure(t->tgid, c, now);
		if (!err)
			return now;
		vlog("pid %d: arenas not measured: %s\n", (int)t->tgid, strerror(-err));
	}
	/* a death is written when its record is read: the process may not be reaped yet */
	if (t->exit_arenas || !r->args->pid || !(t->ended || died || err == -ESRCH))
		return t->exit_arenas;
	snprintf(now->not_measured, sizeof(now->not_measured), "gone");
	return now;
}

/* report__print_file with --suppressions (checked when parsed, read again here: a report
 * is printed once or a few times per run). */
static int print_report(struct run *r, const char *path, struct report_opts *ropts, char *err,
			size_t errsz)
{
	struct suppress *supp = NULL;
	int ret;

	if (r->args->suppressions && !(supp = suppress__load(r->args->suppressions, err, errsz)))
		return -EINVAL;
	ropts->supp = supp;
	ret = report__print_file(r->report_out, path, ropts, err, errsz);
	ropts->supp = NULL;
	suppress__free(supp);
	return ret;
}

/* -o FILE: the other images go into FILE.d/ (tracee.h), made when the first one is written,
 * as the invoking user under sudo (who must be allowed to create it where FILE goes; the
 * writer then walks it as any output path, output.h). 0 or -errno (logged). */
/* An existing FILE.d is used only when it is the acting user's (or root's) own directory that
 * nobody else may write: one planted beside FILE in a shared directory (/tmp) would hand the
 * other images' profiles, their command lines and stacks, to whoever made it. */
static bool images_dir_trusted(const char *dir)
{
	const struct sudo_user *u = sudo_user__get();
	uid_t me = u && u->active ? u->uid : geteuid();
	struct stat st;

	if (lstat(dir, &st)) {
		elog("cannot use %s: %s\n", safe_text__term(dir), strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode) || (st.st_uid != me && st.st_uid != 0) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		elog("%s exists and is not a directory of yours that only you may write: the other "
		     "images' profiles are not written there\n", safe_text__term(dir));
		return false;
	}
	return true;
}

static int run__images_dir(const struct run *r, const char *path)
{
	const char *o = r->args->output;
	struct sudo_saved saved;
	char dir[PATH_MAX];
	int err;

	if (!o || strstr(o, "%p") || r->out.workloads)
		return 0;
	snprintf(dir, sizeof(dir), "%s.d", o);
	if (strncmp(path, dir, strlen(dir)) || path[strlen(dir)] != '/')
		return 0;
	err = sudo_user__enter(&saved);
	if (err)
		return err;
	err = mkdir(dir, 0755) && errno != EEXIST ? -errno : 0;
	sudo_user__leave(&saved);
	if (err)
		elog("cannot create %s: %s\n", safe_text__term(dir), strerror(-err));
	else if (!images_dir_trusted(dir))
		err = -EPERM;
	return err;
}

/* session_profile_fn, ctx = the tracee: write the DHAT file and its conversions; windowed,
 * print the seed's report now (otherwise at the end: run__print_reports). */
int run__on_profile(void *ctx, struct collector *c, const char *name, __u64 iterations)
{
	struct tracee *t = ctx;
	struct run *r = tracees__owner(t->set);
	struct profile_ctx pc = { r, t };
	struct stack_source src;
	struct frames_ctx fc = { .sym = t->sym, .src = &src };
	struct dhat_meta meta = { .cmd = t->cmdline, .pid = t->tgid, .skip = r->args->skip,
				  .skip_cnt = r->args->skip_cnt };
	struct probe_counters probes;
	struct sample_counters sampling;
	const struct workload_info *w = name ? workloads__find(&r->workloads, name) : NULL;
	struct report_opts ropts = { .top = r->args->top, .exact_bytes = r->args->exact_bytes };
	struct profile_output_opts out = r->out;
	struct dhat_mappings maps;
	struct dhat_arenas arenas = { 0 };
	char path[PATH_MAX], err[512];
	bool written;

	if (r->args->top_mode && !r->args->output)
		return 0; /* tracer top writes a profile only when -o asks for one */
	run__stack_source(&pc, &src);
	/* An image that exec'd away must not take the new image's maps. */
	if (t->sym)
		tracee__refresh_sym(t);
	if (*t->path) {
		out.output = tracee__profile_path(t);
		if (!tracee__final(t) && !r->args->all_images && !r->out.snapshot &&
		    collector__totals(c)->total_blocks < IMAGE_MIN_BLOCKS) {
			t->too_small = true; /* a row in the closing table, no file */
			t->totals = *collector__totals(c);
			return 0;
		}
		if (!tracee__final(t) && run__images_dir(r, out.output))
			r->write_failures++;
	}
	/* A dropped record's profile is unknown: charge it to the one open when it was lost;
	 * likewise a process seen but not traced. */
	run__counters(r, &probes);
	meta.lost.n[DHAT_LOST_DROPPED] = probes.dropped - r->dropped_written;
	r->dropped_written = probes.dropped;
	meta.lost.n[DHAT_LOST_UNTRACED] = probes.untraced_procs - r->untraced_written;
	r->untraced_written = probes.untraced_procs;
	/* -- CMD, --pid, --cgroup trace mappings too (workloads do not): say when they could
	 * not, so the heap-against-RSS figures are not read as complete. */
	meta.lost.n[DHAT_LOST_NO_MAPPINGS] = !r->out.workloads &&
					     !death_probes__has_mappings(r->death);
	loader__sample_counters(r->loader, &sampling);
	meta.lost.n[DHAT_LOST_SAMPLE_OVERFLOW] = sampling.overflow - r->overflow_written;
	r->overflow_written = sampling.overflow;
	meta.death = t->session ? session__death(t->session) : NULL;
	meta.lost.n[DHAT_LOST_NO_ALLOC_CALLS] = run__allocator_silent(r);
	meta.rss = rss_sampler__samples(t->rss, &meta.rss_cnt);
	/* An image whose allocator was not resolved on its own uses the run's first one. */
	meta.glibc_chunks = t->malloc_kind ? t->malloc_kind == TRACEE_MALLOC_GLIBC :
			    alloc_symbols__glibc_malloc(loader__alloc_symbols(r->loader));
	meta.mappings = mappings__summary(t->maps, t->sym, &maps) ? NULL : &maps;
	meta.arenas = run__arenas(r, t, c, &arenas, meta.death != NULL);
	if (profile_output__write(&out, c, name, &fc, &meta, name ? name : t->cmdline, path,
				  sizeof(path), &written))
		r->write_failures++;
	dhat_mappings__release(&maps);
	dhat_arenas__release(&arenas);
	r->cut_short += fc.cut_short;
	r->py_mismatched += fc.py_mismatched;
	r->stacks_judged += fc.stacks;
	if (!written)
		return 0; /* keep tracing: later windows may still be written */
	r->profiles_written++;
	snprintf(t->written_path, sizeof(t->written_path), "%s", path);
	t->written = true;
	t->totals = *collector__totals(c);
	if (!r->reports_inline)
		return 0;
	ropts.title = name && *name ? name : t->cmdline;
	ropts.unit = w ? w->unit : NULL;
	ropts.iterations = w ? iterations : 0;
	if (!r->report_out)
		return 0;
	if (print_report(r, path, &ropts, err, sizeof(err)))
		elog("report: %s\n", err);
	fflush(r->report_out);
	return 0;
}

/* Once a second, only on a terminal (main.c): elapsed time, event rate, live bytes of the
 * open profile, drops, rewritten in place; run__clear_progress erases it. */
void run__show_progress(struct run *r, __u64 *last_ns, __u64 *last_events)
{
	struct tracee *busiest = tracees__busiest(r->tracees);
	const struct collector_totals *t = busiest ? session__current(busiest->session) : NULL;
	struct probe_counters pc;
	char live[UNITS_BYTES_SZ];
	__u64 now = clock__mono_ns();
	unsigned long long secs = r->start_ns ? (now - r->start_ns) / 1000000000ull : 0;

	if (now - *last_ns < 1000000000ull)
		return;
	run__counters(r, &pc);
	fprintf(stderr,
		"\r\033[Ktracer: %llu:%02llu elapsed, %.0f events/s, live %s in %llu blocks, "
		"dropped %llu",
		secs / 60, secs % 60,
		(double)(pc.events - *last_events) * 1e9 / (double)(now - *last_ns),
		units__bytes(t ? t->live_bytes : 0, r->args->exact_bytes, live, sizeof(live)),
		t ? (unsigned long long)t->live_blocks : 0ull, (unsigned long long)pc.dropped);
	fflush(stderr);
	*last_ns = now;
	*last_events = pc.events;
	r->progress_shown = true;
}

void run__clear_progress(struct run *r)
{
	if (!r->progress_shown)
		return;
	/* Carriage return and erase-line: the summary takes the line, no blank line left. */
	fputs("\r\033[K", stderr);
	fflush(stderr);
	r->progress_shown = false;
}

/* The probes counted as the allocator's entry points actually probed: an alias (glibc's
 * memalign and aligned_alloc) is one probe. */
void run__announce_attach(struct run *r)
{
	const struct alloc_symbols *s = loader__alloc_symbols(r->loader);
	pid_t pid = target__pid(r->target);
	char cmd[256] = "", more[64] = "";
	unsigned probes = 0, others = 0;
	size_t cnt;
	const pid_t *pids = target__pids(r->target, &cnt);

	for (__u32 fn = 0; s && fn < FN_COUNT; fn++)
		probes += s->off[fn] && s->owner[fn] == fn;
	for (size_t i = 1; i < cnt; i++)
		others += loader__is_traced(r->loader, pids[i]);
	if (others)
		snprintf(more, sizeof(more), " and %u more process%s", others,
			 others > 1 ? "es" : "");
	if (!target__read_cmdline(pid, cmd, sizeof(cmd)))
		snprintf(cmd, sizeof(cmd), "?");
	ilog("attached to pid %d (%s)%s: %u probes; Ctrl-C to stop\n", (int)pid,
	     safe_text__term(cmd), more, probes);
}

/* The closing summary of the trace on stderr. */
void run__print_counters(struct run *r)
{
	struct session_stats stats;
	struct trace_summary s = { .dwarf = r->dwarf, .session = &stats,
				   .cut_short = r->cut_short,
				   .stacks = r->stacks_judged };

	tracees__stats(r->tracees, &stats);
	run__counters(r, &s.probes);
	s.sample_bytes = r->args->sample_bytes;
	loader__sample_counters(r->loader, &s.sampling);
	s.python = tracees__py_stats(r->tracees, &s.py_names);
	loader__py_counters(r->loader, &s.py);
	s.py_mismatched = r->py_mismatched;
	s.kernel = r->kernel_unwind;
	if (r->dwarf || r->kernel_unwind) {
		loader__snapshot_counters(r->loader, &s.snapshots);
		tracees__unwind_stats(r->tracees, &s.unwind);
	}
	if (r->kernel_unwind)
		loader__unwind_counters(r->loader, &s.kunwind, &s.tables);
	trace_summary__print(r->counters_out, &s);
	if (tracees__pre_exec_records(r->tracees))
		vlog("%llu records of the held child before its exec: dropped\n",
		     (unsigned long long)tracees__pre_exec_records(r->tracees));
	if (tracees__unread_image_records(r->tracees))
		ilog("%llu records of images exec'd away before they could be read: dropped\n",
		     (unsigned long long)tracees__unread_image_records(r->tracees));
}

/* No silent empty profile: name a traced image none of whose probes fired (alloc_check.h).
 * The first target's image: the probes' hit addresses are per run, not per image. */
/* What alloc_check judges: the first target's image (hit addresses are per run). */
static void allocator_calls(const struct run *r, struct alloc_check_in *in)
{
	*in = (struct alloc_check_in){ .pid = target__pid(r->target),
				       .cmd = target__cmdline(r->target),
				       .syms = loader__alloc_symbols(r->loader),
				       .lib = r->args->lib };
	for (__u32 fn = 0; fn < FN_COUNT; fn++)
		in->hit[fn] = loader__fn_addr(r->loader, fn) != 0;
}

bool run__allocator_silent(const struct run *r)
{
	struct alloc_check_in in;

	allocator_calls(r, &in);
	return alloc_check__silent(&in);
}

void run__warn_no_allocator_call(struct run *r)
{
	struct alloc_check_in in;

	allocator_calls(r, &in);
	alloc_check__warn(stderr, &in);
}

/* Count the unnamed frames of the profile at path (debug_hint.h): the reports end with how
 * to get them named. */
static void run__scan_unnamed(const char *path, struct debug_hint *h)
{
	struct dhat_profile *p = dhat_profile__load(path, NULL, 0);

	if (p)
		debug_hint__scan(h, p->ftbl, p->ftbl_cnt);
	dhat_profile__free(p);
}

/* The closing reports (not windowed): the list of images when there is more than one, then
 * the report of the one with the most allocations, or of each with --report all; then, if
 * frames of them stayed unnamed, the line saying what would name them. */
void run__print_reports(struct run *r)
{
	static struct debug_hint hint; /* 16 KiB: not on the stack */
	struct report_opts ropts = { .top = r->args->top, .exact_bytes = r->args->exact_bytes };
	size_t cnt = tracees__count(r->tracees);
	const struct tracee *top = tracee_summary__top(r->tracees);
	char err[512];

	if (r->reports_inline || !r->report_out)
		return;
	if (cnt > 1)
		tracee_summary__print(r->report_out, r->tracees);
	for (size_t i = 0; i < cnt; i++) {
		const struct tracee *t = tracees__at(r->tracees, i);

		/* An image that died (a signal, the OOM killer) is always named, top or not. */
		if (!t->written || (t != top && !t->died && !r->args->report_all))
			continue;
		ropts.title = t->cmdline;
		if (print_report(r, t->written_path, &ropts, err, sizeof(err)))
			elog("report: %s\n", err);
		run__scan_unnamed(t->written_path, &hint);
	}
	debug_hint__print(r->report_out, &hint);
	fflush(r->report_out);
}

/*
 * Choose where the report and the counters go (see --summary and -q in --help): --summary
 * PATH ("-": stdout), else stderr, so that the command's stdout stays byte for byte its own
 * under -- CMD and --pid; with --workload the report is the run's output and stays on stdout.
 * -q without --summary prints neither. Returns 0 or -errno (the message is logged).
 */
int run__open_summary(struct run *r, struct output *o)
{
	const struct tracer_opts *a = r->args;
	int err;

	if (a->summary) {
		err = output__open(o, a->summary, OUTPUT_STDOUT_DASH);
		if (err) {
			elog("--summary %s: %s\n", safe_text__term(a->summary),
			     err == -EPERM ? "not a file the tracer may replace (a device, a FIFO, "
					     "someone else's file)" :
					     strerror(-err));
			return err;
		}
		r->report_out = r->counters_out = o->f;
		return 0;
	}
	if (a->verbosity < 0)
		return 0;
	/* tracer top: the view was the report; the counters still say what was lost */
	r->report_out = a->top_mode ? NULL : a->workload ? stdout : stderr;
	r->counters_out = stderr;
	return 0;
}

/* Write t's open profile as it is at now, as snapshot r->snapshots. False if none was
 * written (none open, or the write failed: logged). The drop counters stay the whole
 * profile's too. */
static bool write_snapshot(struct run *r, struct tracee *t, __u64 now, const char *why)
{
	__u64 dropped_written = r->dropped_written, untraced_written = r->untraced_written;
	struct collector *c = session__snapshot(t->session, now);
	size_t written = r->profiles_written;

	if (!c) {
		if (errno != ENOENT)
			elog("%s: no snapshot of pid %d: %s\n", why, (int)t->tgid, strerror(errno));
		return false;
	}
	r->out.snapshot = r->snapshots;
	run__on_profile(t, c, NULL, 0);
	r->out.snapshot = 0;
	r->dropped_written = dropped_written;
	r->untraced_written = untraced_written;
	collector__free(c);
	return r->profiles_written > written;
}

void run__snapshot_at_rss(struct run *r)
{
	struct tracee *t;
	__u64 rss;

	if (!r->args->snapshot_at_rss || r->rss_snapshot_done)
		return;
	t = tracees__live(r->tracees, target__pid(r->target));
	rss = t ? rss_sampler__rss(t->rss) : 0;
	if (!t || rss < r->args->snapshot_at_rss)
		return;
	r->rss_snapshot_done = true;
	r->snapshots++;
	ilog("RSS %llu bytes reached --snapshot-at-rss: writing a snapshot\n",
	     (unsigned long long)rss);
	write_snapshot(r, t, clock__mono_ns(), "--snapshot-at-rss");
}

void run__snapshot_now(struct run *r, const char *why)
{
	__u64 now = clock__mono_ns();
	bool any = false;

	r->snapshots++;
	for (size_t i = 0; i < tracees__count(r->tracees); i++) {
		struct tracee *t = tracees__at(r->tracees, i);

		if (t->session && session__in_profile(t->session) &&
		    write_snapshot(r, t, now, why)) {
			ilog("%s: snapshot %u of pid %d written to %s\n", why, r->snapshots,
			     (int)t->tgid, t->written_path);
			any = true;
		}
	}
	if (!any)
		ilog("%s: no profile is open: no snapshot written\n", why);
}

void run__counters(const struct run *r, struct probe_counters *out)
{
	loader__counters(r->loader, out);
	out->dropped += death_probes__mappings_dropped(r->death);
}

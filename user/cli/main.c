// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer - out-of-process heap-allocation tracer writing DHAT profiles.
 *
 * main is the lifecycle of a run: options -> target (spawned held, or attached) -> loader
 * (BPF) -> poll loop -> session (windows) -> collector -> profile output and report.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc_check.h"
#include "alloc_symbols.h"
#include "alloc_watch.h"
#include "cli.h"
#include "collector.h"
#include "dwarf_stacks.h"
#include "environment.h"
#include "fp_detect.h"
#include "frames.h"
#include "loader.h"
#include "loader_window.h"
#include "log.h"
#include "options.h"
#include "output.h"
#include "procmaps.h"
#include "profile_output.h"
#include "report.h"
#include "session.h"
#include "symbolizer.h"
#include "target.h"
#include "trace_summary.h"
#include "tracee.h"
#include "tracee_summary.h"
#include "tracer_exit.h"
#include "workloads.h"

#define POLL_INTERVAL_MS 20
#define MAPS_REFRESH_NS 1000000000ull

/* Everything one tracing run owns. */
struct run {
	const struct tracer_opts *args;
	struct profile_output_opts out;
	struct target *target;
	struct loader *loader;
	struct window_probes *window; /* --start-at/--stop-at */
	struct tracees *tracees;      /* one per process image: session, symbolizer, stacks */
	bool follow;		      /* process trees are followed (not --no-follow) */
	bool reports_inline;	      /* windowed: each profile's report as it is written */
	struct alloc_watch *alloc_watch; /* dlopen'd allocators (alloc_watch.h) */
	bool dwarf;		      /* stacks are snapshots unwound here (--unwind) */
	struct workloads workloads;   /* --workload: the driver's table */
	__u64 cut_short, stacks_judged; /* frames_ctx's, summed over the profiles */
	__u64 dropped_written;		/* records dropped before the last profile was written */
	__u64 untraced_written;		/* processes not traced, likewise */
	int write_failures;
	size_t profiles_written;
	bool progress_shown; /* a progress line is on the terminal */
	/* Where the tracer's own report and closing counters go, never the traced command's
	 * stdout (open_summary); NULL: not printed (-q). */
	FILE *report_out, *counters_out;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = sig;
}

/* SIGCHLD: a traced process stopped (fork, exec, exit, a signal for it): its handler only
 * interrupts the poll's epoll_wait, so the stop is handled now, not at the next 20 ms tick
 * (a tracee waits stopped until then: 20 ms per fork of a shell loop). */
static void on_sigchld(int sig)
{
	(void)sig;
}

/* A profile being written: the run and the image it belongs to. */
struct profile_ctx {
	struct run *r;
	struct tracee *t;
};

/* stack_source callbacks, ctx = struct profile_ctx: stack ids are BPF's, or the image's
 * resolver's in dwarf mode (one kind per run). */
static int run_stack_cb(void *ctx, __s32 id, __u64 *ips, size_t max)
{
	struct profile_ctx *p = ctx;

	if (p->r->dwarf)
		return p->t->stacks ? dwarf_stacks__stack(p->t->stacks, id, ips, max) : -ENOENT;
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

/* session_profile_fn, ctx = the tracee: write the DHAT file and its conversions; windowed,
 * print the seed's report now (otherwise at the end: print_reports). */
static int on_profile(void *ctx, struct collector *c, const char *name, __u64 iterations)
{
	struct tracee *t = ctx;
	struct run *r = tracees__owner(t->set);
	struct profile_ctx pc = { r, t };
	struct stack_source src = { run_stack_cb, run_fn_addr_cb, &pc, loader__libc_path(r->loader),
				    run_fn_lib_cb };
	struct frames_ctx fc = { .sym = t->sym, .src = &src };
	struct dhat_meta meta = { .cmd = t->cmdline, .pid = t->tgid };
	struct probe_counters probes;
	const struct workload_info *w = name ? workloads__find(&r->workloads, name) : NULL;
	struct report_opts ropts = { .top = r->args->top, .exact_bytes = r->args->exact_bytes };
	struct profile_output_opts out = r->out;
	char path[PATH_MAX], err[512];
	bool written;

	/* An image that exec'd away must not take the new image's maps. */
	if (t->sym && !t->ended)
		symbolizer__refresh_maps(t->sym);
	if (*t->path)
		out.output = t->path;
	/* A dropped record's profile is unknown: charge it to the one open when it was lost;
	 * likewise a process seen but not traced. */
	loader__counters(r->loader, &probes);
	meta.lost.n[DHAT_LOST_DROPPED] = probes.dropped - r->dropped_written;
	r->dropped_written = probes.dropped;
	meta.lost.n[DHAT_LOST_UNTRACED] = probes.untraced_procs - r->untraced_written;
	r->untraced_written = probes.untraced_procs;
	if (profile_output__write(&out, c, name, &fc, &meta, name ? name : t->cmdline, path,
				  sizeof(path), &written))
		r->write_failures++;
	r->cut_short += fc.cut_short;
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
	if (report__print_file(r->report_out, path, &ropts, err, sizeof(err)))
		elog("report: %s\n", err);
	fflush(r->report_out);
	return 0;
}

/* Whether every object syms probes is probed already (the loader's first image). */
static bool objects_probed(const struct alloc_symbols *probed, const struct alloc_symbols *syms)
{
	for (__u32 i = 0; i < syms->obj_cnt; i++) {
		bool found = false;

		for (__u32 j = 0; probed && j < probed->obj_cnt && !found; j++)
			found = !strcmp(syms->objs[i], probed->objs[j]);
		if (!found)
			return false;
	}
	return true;
}

/*
 * The allocator of a new process image, resolved as its dynamic linker will (the executable,
 * preloads, DT_NEEDED: alloc_symbols__for_exec). When it lies in objects not probed yet (a
 * static executable, jemalloc linked in, Rust's shims), probes on them are attached to this
 * process (inherited by what it creates). With a hold point (spawned, follow) the image has
 * not run yet.
 */
static void attach_allocator_for_image(struct run *r, pid_t pid, const char *exe)
{
	struct alloc_symbols *syms;
	int err;

	if (r->args->lib)
		return;
	syms = malloc(sizeof(*syms));
	if (!syms || alloc_symbols__for_exec(pid, syms) ||
	    objects_probed(loader__alloc_symbols(r->loader), syms)) {
		free(syms);
		return;
	}
	err = loader__attach_image(r->loader, pid, syms);
	if (err)
		elog("pid %d (%s): cannot probe its allocator in %s: %s\n", (int)pid, exe,
		     syms->path, strerror(-err));
	else
		ilog("pid %d (%s): probing its allocator in %s\n", (int)pid, exe, syms->path);
	free(syms);
}

/* tracee_exec_fn: an image opened by an exec record, without a hold point (--pid,
 * --cgroup): its allocator as early as the record arrives. */
static void on_image_exec(void *owner, struct tracee *t)
{
	attach_allocator_for_image(owner, t->tgid, t->exe);
}

/* loader_record_fn: every record to the process images (tracee.h). */
static int on_record(void *ctx, const void *data, size_t sz)
{
	return tracees__handle(((struct run *)ctx)->tracees, data, sz);
}

/* Records up to now, so the tracee of pid is the one its hold point is about. */
static struct tracee *drain_for(struct run *r, pid_t pid)
{
	if (!r->tracees) /* given up before the trace began */
		return NULL;
	if (r->loader)
		loader__poll(r->loader, 0, on_record, r);
	return tracees__live(r->tracees, pid);
}

/* target_stop_fn: a process of the tree is about to exit; read its maps while they exist. */
static void on_exit_stop(void *ctx, pid_t pid)
{
	struct tracee *t = drain_for(ctx, pid);

	if (!t || t->ended)
		return;
	if (!t->sym)
		t->sym = symbolizer__new(pid);
	else
		symbolizer__refresh_maps(t->sym);
	if (t->stacks)
		dwarf_stacks__refresh_maps(t->stacks);
}

/* target_stop_fn (follow): pid exec'd and waits before its first instruction: its image's
 * allocator is probed now, so none of its calls is missed. */
static void on_exec_stop(void *ctx, pid_t pid)
{
	struct run *r = ctx;
	struct tracee *t = drain_for(r, pid);

	if (t)
		attach_allocator_for_image(r, pid, t->exe);
}

/* Once a second on a terminal: event rate, live bytes of the open profile, drops. */
static void show_progress(struct run *r, __u64 *last_ns, __u64 *last_events)
{
	struct tracee *busiest = tracees__busiest(r->tracees);
	const struct collector_totals *t = busiest ? session__current(busiest->session) : NULL;
	struct probe_counters pc;
	__u64 now = mono_now_ns();

	if (now - *last_ns < 1000000000ull)
		return;
	loader__counters(r->loader, &pc);
	fprintf(stderr, "\r\033[Ktracer: %.0f events/s, live %.1f KiB in %llu blocks, dropped %llu",
		(double)(pc.events - *last_events) * 1e9 / (double)(now - *last_ns),
		t ? (double)t->live_bytes / 1024.0 : 0.0,
		t ? (unsigned long long)t->live_blocks : 0ull, (unsigned long long)pc.dropped);
	*last_ns = now;
	*last_events = pc.events;
	r->progress_shown = true;
}

/* --cgroup: the processes that entered the cgroup since the last look (not those its
 * traced processes forked: the fork tracepoint follows them). */
static void add_new_procs(struct run *r)
{
	pid_t pids[256];
	int n = target__new_procs(r->target, pids, 256);

	if (n > 0)
		loader__poll(r->loader, 0, on_record, r); /* their FORK records first */
	for (int i = 0; i < n; i++) {
		int err;

		if (tracees__live(r->tracees, pids[i]) || loader__is_traced(r->loader, pids[i]) ||
		    (r->follow && loader__is_traced(r->loader, target__ppid(pids[i]))))
			continue;
		err = loader__add_process(r->loader, pids[i]);
		if (err) {
			if (err != -ESRCH)
				elog("cannot trace pid %d: %s\n", (int)pids[i], strerror(-err));
			continue;
		}
		tracees__open(r->tracees, pids[i], 0, NULL, mono_now_ns());
	}
}

/* Poll until the target exits, a signal arrives, or the duration ends. *wait_status: the
 * child's wait status (0 for an attached process). Returns 0 or -errno. */
static int trace_loop(struct run *r, int *wait_status, bool progress)
{
	__u64 deadline = r->args->duration_s > 0 ?
				 mono_now_ns() + (__u64)(r->args->duration_s * 1e9) : 0;
	__u64 last_ns = mono_now_ns(), last_events = 0, last_maps_ns = mono_now_ns();
	bool alive = true;
	int n;

	*wait_status = 0;
	while (alive && !stop_requested && (!deadline || mono_now_ns() < deadline)) {
		n = loader__poll(r->loader, POLL_INTERVAL_MS, on_record, r);
		if (n < 0 && n != -EINTR) {
			elog("reading events: %s\n", strerror(-n));
			return n;
		}
		alive = target__alive(r->target, wait_status);
		/* Symbolization happens when a profile closes, often after the target is gone:
		 * keep the maps current (dlopen'd libraries) while it is alive. Cheap (~0.2 ms). */
		if (alive && mono_now_ns() - last_maps_ns > MAPS_REFRESH_NS) {
			tracees__refresh_maps(r->tracees);
			alloc_watch__refresh(r->alloc_watch);
			last_maps_ns = mono_now_ns();
		}
		if (alive)
			add_new_procs(r);
		if (progress)
			show_progress(r, &last_ns, &last_events);
	}
	if (r->progress_shown)
		fputc('\n', stderr);
	if (alive) /* interrupted: stop the child we started, and reap it */
		target__wait(r->target, true, wait_status);
	/* What the target produced until now is drained by loader__stop (run_trace), after
	 * the programs are silenced: a drain here could chase a live target forever. */
	return 0;
}

/* The closing summary of the trace on stderr. */
static void print_counters(struct run *r)
{
	struct session_stats stats;
	struct trace_summary s = { .dwarf = r->dwarf, .session = &stats,
				   .cut_short = r->cut_short,
				   .stacks = r->stacks_judged };

	tracees__stats(r->tracees, &stats);
	loader__counters(r->loader, &s.probes);
	if (r->dwarf) {
		loader__snapshot_counters(r->loader, &s.snapshots);
		tracees__unwind_stats(r->tracees, &s.unwind);
	}
	trace_summary__print(r->counters_out, &s);
	if (tracees__pre_exec_records(r->tracees))
		vlog("%llu records of the held child before its exec: dropped\n",
		     (unsigned long long)tracees__pre_exec_records(r->tracees));
}

/* No silent empty profile: name a traced image none of whose probes fired (alloc_check.h).
 * The first target's image: the probes' hit addresses are per run, not per image. */
static void warn_no_allocator_call(struct run *r)
{
	struct alloc_check_in in = { .pid = target__pid(r->target),
				     .cmd = target__cmdline(r->target),
				     .syms = loader__alloc_symbols(r->loader),
				     .lib = r->args->lib };

	for (__u32 fn = 0; fn < FN_COUNT; fn++)
		in.hit[fn] = loader__fn_addr(r->loader, fn) != 0;
	alloc_check__warn(stderr, &in);
}

/* Attach --start-at/--stop-at probes to the target's functions. */
static int attach_window_symbols(struct run *r)
{
	struct window_probes_opts wopts = {
		.pid = target__pid(r->target),
		.ringbuf_fd = loader__ringbuf_fd(r->loader),
		.start = r->args->start_at,
		.stop = r->args->stop_at,
	};
	char exe[PATH_MAX];

	target__exe(r->target, exe, sizeof(exe)); /* not found: the name, the attach says so */
	wopts.executable = exe;
	r->window = window_probes__new(&wopts);
	return r->window ? 0 : -errno;
}

/*
 * fp or dwarf for this run (one kind of stack id per run). auto: DWARF unwinding unless the
 * target executable keeps frame pointers (fp_detect.h), where BPF's frame-pointer walk is
 * complete and cheaper. Allocations made by libc on the program's behalf (strdup, getline,
 * ...) are charged to their caller in both modes; only code without frame pointers between
 * the allocator and main (callbacks from qsort, -O2 builds, Rust) needs dwarf.
 */
static bool choose_unwind(const struct run *r)
{
	struct fp_census c;
	char exe[PATH_MAX];
	int err;

	if (r->args->unwind != UNWIND_AUTO)
		return r->args->unwind == UNWIND_DWARF;
	err = target__exe(r->target, exe, sizeof(exe));
	if (!err)
		err = fp_detect__census(exe, &c);
	if (err) {
		vlog("--unwind auto: cannot read the target executable's code (%s): dwarf\n",
		     strerror(-err));
		return true;
	}
	vlog("--unwind auto: %zu of %zu functions of %s%s keep frame pointers: %s\n", c.with_fp,
	     c.funcs, exe, c.rust ? " (Rust: its crates do not)" : "",
	     fp_detect__has_fp(&c) ? "fp" : "dwarf");
	return !fp_detect__has_fp(&c);
}

/* The exit status of a trace that ran to its end (see --help). */
static int trace_exit_status(const struct run *r, int err, int wait_status, bool windowed,
			     bool any_window)
{
	bool child = target__is_child(r->target);
	struct probe_counters pc;
	int ret;

	loader__counters(r->loader, &pc);
	if (err || r->write_failures) {
		ret = TRACER_EXIT_FAILURE;
	} else if (child && !windowed) {
		ret = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) :
		      WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status) : TRACER_EXIT_FAILURE;
		/* -- CMD: the command's status, but a success with dropped records is not one:
		 * 4, as in the other modes (print_counters says why). */
		if (ret == TRACER_EXIT_OK && pc.dropped)
			ret = TRACER_EXIT_INCOMPLETE;
	} else if (child && (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status))) {
		if (!stop_requested)
			elog("workload driver failed (status %d)\n", wait_status);
		ret = TRACER_EXIT_FAILURE;
	} else {
		ret = pc.dropped ? TRACER_EXIT_INCOMPLETE : TRACER_EXIT_OK;
	}
	if (any_window && !r->profiles_written && ret == TRACER_EXIT_OK) {
		elog("no measurement window was seen: nothing written\n");
		ret = TRACER_EXIT_FAILURE;
	}
	return ret;
}

/* Start the target: argv spawned and held, the --pid processes, or the --cgroup's. */
static int start_target(struct run *r, char *const argv[])
{
	struct target_opts topts = { .drop_privs = !r->args->as_root, .follow = r->follow,
				     .on_exit_stop = on_exit_stop, .on_exec_stop = on_exec_stop,
				     .ctx = r };
	pid_t missing = 0;

	if (argv) {
		r->target = target__spawn(argv, &topts);
		if (!r->target) {
			elog("cannot start %s: %s\n", argv[0], strerror(errno));
			return TRACER_EXIT_FAILURE;
		}
		return TRACER_EXIT_OK;
	}
	if (r->args->cgroup) {
		r->target = target__attach_cgroup(r->args->cgroup);
		if (!r->target && (errno == ENOENT || errno == ESRCH)) {
			elog("cgroup %s: %s\n", r->args->cgroup,
			     errno == ENOENT ? "no such cgroup (no cgroup.procs in it)" :
					       "holds no process");
			return TRACER_EXIT_USAGE;
		}
	} else {
		r->target = target__attach_pids(r->args->pids, r->args->pid_cnt, &missing);
		if (!r->target && errno == ESRCH) {
			elog("no such process: %d\n", (int)missing);
			return TRACER_EXIT_USAGE;
		}
	}
	if (!r->target) {
		elog("cannot attach: %s\n", strerror(errno));
		return TRACER_EXIT_FAILURE;
	}
	return TRACER_EXIT_OK;
}

/* The attached targets besides the first (loader__new probed that one): probes and an
 * image each; their maps are read now, while they certainly live. */
static int add_targets(struct run *r)
{
	size_t cnt;
	const pid_t *pids = target__pids(r->target, &cnt);
	int err;

	for (size_t i = 0; i < cnt; i++) {
		if (i) {
			err = loader__add_process(r->loader, pids[i]);
			if (err == -ESRCH) {
				vlog("pid %d exited before it could be traced\n", (int)pids[i]);
				continue;
			}
			if (err) {
				elog("cannot trace pid %d: %s\n", (int)pids[i], strerror(-err));
				return err;
			}
		}
		if (!tracees__open(r->tracees, pids[i], 0, NULL, mono_now_ns()))
			return -ENOMEM;
	}
	return 0;
}

/* The closing reports (not windowed): the list of images when there is more than one, then
 * the report of the one with the most allocations, or of each with --report all. */
static void print_reports(struct run *r)
{
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

		if (!t->written || (t != top && !r->args->report_all))
			continue;
		ropts.title = t->cmdline;
		if (report__print_file(r->report_out, t->written_path, &ropts, err, sizeof(err)))
			elog("report: %s\n", err);
	}
	fflush(r->report_out);
}

/* Trace the target: spawned from argv (held until attached), or running processes. */
static int run_trace(struct run *r, char *const argv[], const char *usdt_binary, bool windowed)
{
	struct loader_opts lopts = {
		.libc_path = r->args->lib,
		.usdt_binary = usdt_binary,
		.window_gated = windowed,
		.ringbuf_sz = r->args->ringbuf_sz,
		.stack_copy_sz = r->args->stack_sz,
	};
	struct session_opts sopts = { .windowed = windowed, .on_profile = on_profile };
	struct tracees_opts tops = { .output = r->out.output, .name_paths = !r->out.workloads,
				     .owner = r };
	/* bpf_ktime_get_ns() is CLOCK_MONOTONIC: profile times share the origin of start_ns. */
	struct alloc_symbols syms;
	int wait_status = 0, err, stop_err, ret;
	size_t target_cnt;
	pid_t pid;

	/* The workload driver is one process whose windows are the profiles. */
	r->follow = !r->args->no_follow && !usdt_binary;
	r->reports_inline = windowed;
	ret = start_target(r, argv);
	if (ret)
		return ret;
	pid = lopts.pid = target__pid(r->target);
	target__pids(r->target, &target_cnt);
	lopts.follow = r->follow;
	lopts.inherit = target_cnt > 1 || r->args->cgroup;
	r->dwarf = lopts.unwind_dwarf = choose_unwind(r);
	/* A held child has not exec'd: its allocator is resolved from the command's files (a
	 * running process's by the loader, from its maps). -ENOENT: no such command, which
	 * target__release reports. */
	if (argv && !lopts.libc_path) {
		err = target__resolve_allocator(r->target, &syms);
		if (err && err != -ENOENT)
			return TRACER_EXIT_FAILURE;
		lopts.syms = err ? NULL : &syms;
	}
	r->loader = loader__new(&lopts);
	if (!r->loader) {
		err = errno;
		/* An attached process that exited (or became a zombie) while we attached is gone,
		 * whatever the loader tripped over (a zombie has no maps: "no libc"; a process
		 * between releasing its memory and its exit notification fails the uprobe attach
		 * with EINVAL): give its pidfd 200 ms to say so. */
		if (!argv && err != ESRCH && target__gone_within(r->target, 200))
			err = ESRCH;
		if (!argv && err == ESRCH)
			elog("cannot attach to pid %d: it exited before the probes were attached\n",
			     (int)pid);
		else
			elog("cannot attach to pid %d: %s\n", (int)pid, strerror(err));
		return err == ESRCH ? TRACER_EXIT_USAGE :
		       err == EPERM ? TRACER_EXIT_UNSUPPORTED : TRACER_EXIT_FAILURE;
	}
	if (r->args->start_at || r->args->stop_at) {
		err = attach_window_symbols(r);
		if (err)
			return err == -ENOENT || err == -ESRCH ? TRACER_EXIT_USAGE :
								 TRACER_EXIT_FAILURE;
		sopts.windowed = true;
		sopts.single_window = true;
		sopts.open_at_start = !r->args->start_at;
	}
	sopts.start_ns = mono_now_ns();
	tops.sopts = sopts;
	tops.dwarf = r->dwarf;
	tops.held_root = argv && r->follow ? pid : 0;
	tops.on_exec = argv ? NULL : on_image_exec; /* spawned: at the exec hold point */
	r->tracees = tracees__new(&tops);
	if (!r->tracees) {
		elog("out of memory\n");
		return TRACER_EXIT_FAILURE;
	}
	if (!argv && add_targets(r))
		return TRACER_EXIT_FAILURE;
	err = target__release(r->target);
	if (err) {
		elog("cannot run %s: %s\n", argv[0], strerror(-err));
		return err == -ENOENT ? TRACER_EXIT_USAGE : TRACER_EXIT_FAILURE;
	}
	/* --no-follow: one image, opened once exec is done (the executable is mapped); with
	 * follow the child's exec record opens it, at its place in the stream. */
	if (argv && !r->follow && !tracees__live(r->tracees, pid))
		tracees__open(r->tracees, pid, 0, NULL, sopts.start_ns);
	r->alloc_watch = alloc_watch__new(pid, loader__alloc_symbols(r->loader));
	vlog("attached to pid %d\n", (int)pid);

	err = trace_loop(r, &wait_status,
			 !windowed && tracer_verbosity >= 0 && isatty(STDERR_FILENO));
	/* Stop probing before symbolizing and writing: a live target (--pid, --duration)
	 * would otherwise keep paying for probes, and could fill the ring with records nobody
	 * reads (counted as dropped) while the profile is written. The window probes share the
	 * ring, so they go first. Unmapping the ring also lowers the peak RSS. */
	window_probes__free(r->window);
	r->window = NULL;
	stop_err = loader__stop(r->loader, on_record, r);
	if (stop_err < 0) {
		elog("reading the last events: %s\n", strerror(-stop_err));
		err = err ?: stop_err;
	}
	vlog("closing the open profiles (%s)\n", stop_requested ? "interrupted" : "target ended");
	err = tracees__close_all(r->tracees, mono_now_ns()) ?: err;
	print_counters(r);
	print_reports(r);
	warn_no_allocator_call(r);
	return trace_exit_status(r, err, wait_status, windowed, sopts.windowed);
}

static int cmd_workload(struct run *r)
{
	const char *name = r->args->workload;
	char *argv[5];
	int argc = 0;

	/* Privileges first: an unprivileged user may not even see the driver's directory. */
	if (strcmp(name, "list") && env_check(0))
		return TRACER_EXIT_UNSUPPORTED;
	if (workloads__load(&r->workloads))
		return TRACER_EXIT_FAILURE;
	if (!strcmp(name, "list")) {
		workloads__print(&r->workloads, stdout);
		return TRACER_EXIT_OK;
	}
	if (strcmp(name, "all") && !workloads__find(&r->workloads, name)) {
		elog("unknown workload: %s (try --workload list)\n", name);
		return TRACER_EXIT_USAGE;
	}
	argv[argc++] = r->workloads.driver;
	argv[argc++] = "--quiet";
	if (tracer_verbosity >= 0 && isatty(STDERR_FILENO))
		argv[argc++] = "--progress";
	argv[argc++] = (char *)name;
	argv[argc] = NULL;
	/* The driver runs as root too: it only builds a fixture under /tmp. */
	return run_trace(r, argv, r->workloads.driver, true);
}

/*
 * Choose where the report and the counters go (see --summary and -q in --help): --summary
 * PATH ("-": stdout), else stderr, so that the command's stdout stays byte for byte its own
 * under -- CMD and --pid; with --workload the report is the run's output and stays on stdout.
 * -q without --summary prints neither. Returns 0 or -errno (the message is logged).
 */
static int open_summary(struct run *r, struct output *o)
{
	const struct tracer_opts *a = r->args;
	int err;

	if (a->summary) {
		err = output__open(o, a->summary, OUTPUT_STDOUT_DASH);
		if (err) {
			elog("--summary %s: %s\n", a->summary, strerror(-err));
			return err;
		}
		r->report_out = r->counters_out = o->f;
		return 0;
	}
	if (a->verbosity < 0)
		return 0;
	r->report_out = a->workload ? stdout : stderr;
	r->counters_out = stderr;
	return 0;
}

int main(int argc, char **argv)
{
	struct tracer_opts args;
	struct run r = { .args = &args };
	struct output summary = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	int ret;

	/* Offline subcommands need neither root nor BPF. */
	if (argc > 1 && !strcmp(argv[1], "report"))
		return cli_report(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "export"))
		return cli_export(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return cli_diff(argc - 1, argv + 1);

	ret = options__parse(argc, argv, &args);
	if (ret != OPT_GO_ON)
		return ret;
	tracer_verbosity = args.verbosity;
	r.out = (struct profile_output_opts){
		.output = args.output,
		.workloads = args.workload != NULL,
		.all_workloads = args.workload && !strcmp(args.workload, "all"),
		.formats = args.formats,
	};
	if (profile_output__check_dir(&r.out) || open_summary(&r, &summary))
		return TRACER_EXIT_USAGE;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* SA_RESTART: every other call goes on; epoll_wait is never restarted (signal(7)). */
	sigaction(SIGCHLD, &(struct sigaction){ .sa_handler = on_sigchld, .sa_flags = SA_RESTART },
		  NULL);
	if (args.workload) {
		ret = cmd_workload(&r);
	} else {
		ret = env_check(0) ? TRACER_EXIT_UNSUPPORTED :
						     run_trace(&r, args.cmd, NULL, false);
	}
	/* The target first: a held child's exit stop may still create the symbolizer. */
	target__free(r.target);
	window_probes__free(r.window);
	loader__free(r.loader);
	tracees__free(r.tracees);
	alloc_watch__free(r.alloc_watch);
	if (summary.f) {
		int err = output__close(&summary, 0);

		if (err) {
			elog("cannot write --summary %s: %s\n", args.summary, strerror(-err));
			ret = ret ?: TRACER_EXIT_FAILURE;
		}
	}
	return ret;
}

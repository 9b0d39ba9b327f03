// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer - out-of-process heap-allocation tracer writing DHAT profiles.
 *
 * main is the lifecycle of a run: options -> target (spawned held, or attached) -> loader
 * (BPF) -> poll loop -> session (windows) -> collector -> profile output and report.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc_check.h"
#include "alloc_symbols.h"
#include "alloc_watch.h"
#include "cfi_table.h"
#include "cli.h"
#include "debug_fetch.h"
#include "clock.h"
#include "collector.h"
#include "death_probes.h"
#include "dwarf_stacks.h"
#include "environment.h"
#include "fp_detect.h"
#include "frames.h"
#include "host_check.h"
#include "loader.h"
#include "loader_window.h"
#include "log.h"
#include "module_share.h"
#include "options.h"
#include "output.h"
#include "profile_output.h"
#include "py_runtime.h"
#include "session.h"
#include "symbolizer.h"
#include "target.h"
#include "trace_summary.h"
#include "tracee.h"
#include "tracee_summary.h"
#include "trap_cost.h"
#include "tracer_exit.h"
#include "run.h"
#include "workloads.h"

#define POLL_INTERVAL_MS 20
#define MAPS_REFRESH_NS 1000000000ull

/* The first ending signal, and how many came: a second one kills a -- CMD at once. */
static volatile sig_atomic_t stop_requested, stop_signals;

static void on_signal(int sig)
{
	if (!stop_requested)
		stop_requested = sig;
	if (stop_signals < 2)
		stop_signals++;
}

/* SIGUSR1: a snapshot is asked for; the loop writes it (run__snapshot_now). */
static volatile sig_atomic_t snapshot_requested;

static void on_sigusr1(int sig)
{
	(void)sig;
	snapshot_requested = 1;
}

/* Signals that end the trace with its profile written: Ctrl-C, kill, Ctrl-\, and a closed
 * terminal or SSH session. */
static const int ending_signals[] = { SIGINT, SIGTERM, SIGQUIT, SIGHUP };

/* SIGCHLD: a traced process stopped (fork, exec, exit, a signal for it): its handler only
 * interrupts the poll's epoll_wait, so the stop is handled now, not at the next 20 ms tick
 * (a tracee waits stopped until then: 20 ms per fork of a shell loop). */
static void on_sigchld(int sig)
{
	(void)sig;
}

/* The end of a trace that a signal or --duration asked for. A spawned child gets SIGTERM
 * and the trace goes on while it exits (its last records still count); one that outlives
 * --kill-after, or a second signal, is SIGKILLed with the processes it started. True when
 * the loop stops now (an attached target: it is only let go). */
static bool stop_target(struct run *r, __u64 *kill_at)
{
	if (!target__is_child(r->target))
		return true;
	if (!*kill_at) {
		vlog("ending pid %d: SIGTERM\n", (int)target__pid(r->target));
		target__stop(r->target, false);
		*kill_at = clock__mono_ns() + (__u64)(r->args->kill_after_s * 1e9);
	} else if (*kill_at != UINT64_MAX && (stop_signals > 1 || clock__mono_ns() >= *kill_at)) {
		vlog("pid %d still runs: SIGKILL\n", (int)target__pid(r->target));
		target__stop(r->target, true);
		*kill_at = UINT64_MAX; /* once */
	}
	return false;
}

/* Poll until the target exits, or a signal or the duration ends it. *wait_status: the
 * child's wait status (0 for an attached process). Returns 0 or -errno. */
static int trace_loop(struct run *r, int *wait_status, bool progress)
{
	__u64 deadline = r->args->duration_s > 0 ?
				 clock__mono_ns() + (__u64)(r->args->duration_s * 1e9) : 0;
	__u64 last_ns = clock__mono_ns(), last_events = 0, last_maps_ns = clock__mono_ns();
	__u64 kill_at = 0;
	bool alive = true;
	int n;

	*wait_status = 0;
	while (alive) {
		if ((stop_requested || (deadline && clock__mono_ns() >= deadline)) &&
		    stop_target(r, &kill_at))
			break;
		n = loader__poll(r->loader, POLL_INTERVAL_MS, run__on_record, r);
		if (n < 0 && n != -EINTR) {
			elog("reading events: %s\n", strerror(-n));
			return n;
		}
		tracees__close_exited(r->tracees); /* exited, no EV_DEATH in the batch */
		alive = target__alive(r->target, wait_status);
		tracees__sample_rss(r->tracees, clock__mono_ns());
		run__snapshot_at_rss(r);
		if (snapshot_requested) {
			snapshot_requested = 0;
			run__snapshot_now(r, "SIGUSR1");
		}
		if (r->top) {
			run__top_tick(r, clock__mono_ns());
			/* q: detach from a --pid target, SIGTERM a -- CMD, as Ctrl-C does */
			if (run__top_quit(r) && !stop_requested)
				stop_requested = SIGTERM;
		} else {
			run__interval_tick(r, clock__mono_ns());
		}
		/* Symbolization happens when a profile closes, often after the target is gone:
		 * keep the maps current (dlopen'd libraries) while it is alive. Cheap (~0.2 ms). */
		if (alive && clock__mono_ns() - last_maps_ns > MAPS_REFRESH_NS) {
			tracees__refresh_maps(r->tracees);
			alloc_watch__refresh(r->alloc_watch);
			last_maps_ns = clock__mono_ns();
		}
		if (alive)
			run__add_new_procs(r);
		if (progress)
			run__show_progress(r, &last_ns, &last_events);
	}
	run__clear_progress(r);
	/* What the target produced until now is drained by loader__stop (run_trace), after
	 * the programs are silenced: a drain here could chase a live target forever. */
	return 0;
}

/* The exit status of a trace that ran to its end (see --help). */
static int trace_exit_status(const struct run *r, int err, int wait_status, bool windowed,
			     bool any_window)
{
	/* top's q ends a -- CMD as a detach ends --pid: its status is not the run's */
	bool child = target__is_child(r->target) && !run__top_quit(r);
	struct probe_counters pc;
	int ret;

	run__counters(r, &pc);
	if (err || r->write_failures) {
		ret = TRACER_EXIT_FAILURE;
	} else if (child && !windowed) {
		ret = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) :
		      WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status) : TRACER_EXIT_FAILURE;
		/* -- CMD: the command's status, but a success with dropped records is not one:
		 * 4, as in the other modes (run__print_counters says why). */
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

/* Trace the target: spawned from argv (held until attached), or running processes. */
/* collector_opts.thread_name: /proc/TGID/task/TID/comm, read when the collector first sees
 * the thread allocate (it may be gone by the time the profile is written). The kernel's own
 * text, at most 15 bytes; printed through safe_text like every name from the target. */
static void read_thread_name(void *ctx, __u32 tgid, __u32 tid, char *buf, size_t sz)
{
	char path[64];
	ssize_t n;
	int fd;

	(void)ctx;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", tgid ? tgid : tid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	n = read(fd, buf, sz - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
}

/* py_stacks_opts callbacks (ctx = struct run): BPF's side of Python frames. */
static int run_py_layout(void *ctx, pid_t tgid, const struct py_layout *l)
{
	struct run *r = ctx;

	return r->loader ? loader__set_py_layout(r->loader, tgid, l) : -ENOENT;
}

static int run_py_read(void *ctx, __u32 id, struct py_stack_val *out)
{
	struct run *r = ctx;

	return r->loader ? loader__py_stack(r->loader, id, out) : -ENOENT;
}

/* --python with --pid: each target must be a CPython we can read, before anything is
 * attached. 0 or a TRACER_EXIT_* status. */
static int require_python(const struct run *r)
{
	for (size_t i = 0; r->args->python == TRACER_PY_REQUIRE && i < r->args->pid_cnt; i++) {
		const char *why = NULL;
		struct py_runtime *rt = py_runtime__open(r->args->pids[i], &why);

		if (!rt) {
			elog("--python: pid %d is not a CPython whose frames can be read%s%s\n",
			     (int)r->args->pids[i], why ? ": " : "", why ? why : "");
			return TRACER_EXIT_USAGE;
		}
		py_runtime__free(rt);
	}
	return 0;
}

/* The unwind mode into the run and the loader's options (set once, and again where --unwind
 * auto gives up kernel unwinding). */
static void use_unwind(struct run *r, struct loader_opts *lopts, enum unwind_mode mode)
{
	r->dwarf = lopts->unwind_dwarf = mode == UNWIND_DWARF;
	r->kernel_unwind = lopts->unwind_kernel = mode == UNWIND_KERNEL;
}

static int run_trace(struct run *r, char *const argv[], const char *usdt_binary, bool windowed)
{
	struct loader_opts lopts = {
		.libc_path = r->args->lib,
		.usdt_binary = usdt_binary,
		.window_gated = windowed,
		.ringbuf_sz = r->args->ringbuf_sz,
		.stack_copy_sz = r->args->stack_sz,
		.dense_stacks = r->args->dense_stacks,
		.sample_bytes = r->args->sample_bytes,
		.paused = true, /* until the death probes share the ring (loader__resume) */
		.no_python = r->args->python == TRACER_PY_OFF,
	};
	struct session_opts sopts = { .windowed = windowed, .on_profile = run__on_profile,
				      .sample_bytes = r->args->sample_bytes,
				      .thread_name = read_thread_name };
	struct tracees_opts tops = { .output = r->out.output, .name_paths = !r->out.workloads,
				     .owner = r, .python = (enum py_mode)r->args->python,
				     .py = { run_py_read, run_py_layout, r } };
	/* bpf_ktime_get_ns() is CLOCK_MONOTONIC: profile times share the origin of start_ns. */
	struct alloc_symbols syms;
	struct py_stacks_stats py;
	int wait_status = 0, err, stop_err, ret;
	size_t target_cnt;
	pid_t pid;

	/* The workload driver is one process whose windows are the profiles. */
	r->follow = !r->args->no_follow && !usdt_binary;
	/* Windows (the workloads', --start-at/--stop-at) are reported as they close, under the
	 * window's name; whole processes at the end, the busiest first. */
	r->reports_inline = windowed || r->args->start_at || r->args->stop_at;
	if (!argv && (ret = require_python(r)))
		return ret;
	ret = run__start_target(r, argv);
	if (ret)
		return ret;
	pid = lopts.pid = target__pid(r->target);
	target__pids(r->target, &target_cnt);
	lopts.follow = r->follow;
	lopts.inherit = target_cnt > 1 || r->args->cgroup;
	lopts.hold_children = r->follow && target__holds_births(r->target);
	use_unwind(r, &lopts, run__choose_unwind(r, false));
	/* auto: kernel mode falls back to stack copies, so it needs a ring that holds one; a
	 * --ringbuf-size too small for that gets the choice without kernel unwinding. */
	if (r->kernel_unwind && r->args->unwind == UNWIND_AUTO && lopts.ringbuf_sz &&
	    lopts.ringbuf_sz < loader__ringbuf_min(&lopts)) {
		vlog("--unwind auto: --ringbuf-size %zu holds no fallback stack copy: no kernel "
		     "unwinding\n", lopts.ringbuf_sz);
		use_unwind(r, &lopts, run__choose_unwind(r, true));
	}
	lopts.unwind_cache_dir = cfi_table__default_cache_dir();
	/* a held command has not exec'd: its maps are the tracer's until its exec */
	lopts.unwind_held = argv != NULL;
	/* Known once the unwind mode is: a usage error, not an attach failure. */
	if (lopts.ringbuf_sz && lopts.ringbuf_sz < loader__ringbuf_min(&lopts)) {
		elog("--ringbuf-size %zu is too small for dwarf unwinding with %u-byte stack "
		     "copies: at least %zu\n", lopts.ringbuf_sz,
		     lopts.stack_copy_sz ?: LOADER_DEFAULT_STACK_COPY_SZ,
		     loader__ringbuf_min(&lopts));
		return TRACER_EXIT_USAGE;
	}
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
	if (!r->loader && r->kernel_unwind && r->args->unwind == UNWIND_AUTO) {
		/* auto: the BPF unwinder did not load here; today's choice instead */
		vlog("--unwind auto: no in-kernel unwinding (%s)\n", strerror(errno));
		use_unwind(r, &lopts, run__choose_unwind(r, true));
		r->loader = loader__new(&lopts);
	}
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
	r->death = death_probes__start(loader__ringbuf_fd(r->loader), pid, r->follow);
	loader__resume(r->loader); /* the death probes are in: nobody read the ring meanwhile */
	if (!argv && run__probe_targets(r))
		return TRACER_EXIT_FAILURE;
	/* Said as soon as every target's probes record: the rest of the set-up (symbolizers,
	 * the trap cost) must not delay the user's sign that the attach worked. */
	if (r->args->pid)
		run__announce_attach(r);
	if (r->args->start_at || r->args->stop_at) {
		err = run__attach_window_symbols(r);
		if (err)
			return err == -ENOENT || err == -ESRCH ? TRACER_EXIT_USAGE :
								 TRACER_EXIT_FAILURE;
		sopts.windowed = true;
		sopts.single_window = true;
		sopts.open_at_start = !r->args->start_at;
	}
	sopts.start_ns = clock__mono_ns();
	tops.sopts = sopts;
	tops.dwarf = r->dwarf || r->kernel_unwind; /* kernel: for the snapshots it falls back to */
	tops.tag_user_ids = r->kernel_unwind;
	if (tops.dwarf && !r->args->dense_stacks) {
		tops.hint_fn = run__set_snap_hint;
		tops.hint_ctx = r;
	}
	tops.held_root = argv && r->follow ? pid : 0;
	tops.await_death = r->death != NULL;
	tops.rss = true;
	tops.on_exec = argv ? NULL : run__on_image_exec; /* spawned: at the exec hold point */
	r->tracees = tracees__new(&tops);
	if (!r->tracees) {
		elog("out of memory\n");
		return TRACER_EXIT_FAILURE;
	}
	if (!argv && run__open_targets(r))
		return TRACER_EXIT_FAILURE;
	trap_cost__check(); /* a spawned target is still held: it does not compete */
	err = target__release(r->target);
	if (err) {
		elog("cannot run %s: %s\n", argv[0], strerror(-err));
		return err == -ENOENT ? TRACER_EXIT_USAGE : TRACER_EXIT_FAILURE;
	}
	/* --no-follow: one image, opened once exec is done (the executable is mapped); with
	 * follow the child's exec record opens it, at its place in the stream. */
	if (argv && !r->follow && !tracees__live(r->tracees, pid))
		tracees__open(r->tracees, pid, 0, NULL, sopts.start_ns);
	if (argv && !r->follow && r->kernel_unwind) /* exec'd: no EV_PROC_EXEC says so */
		loader__unwind_add(r->loader, pid);
	r->alloc_watch = alloc_watch__new(pid, loader__alloc_symbols(r->loader));
	vlog("attached to pid %d\n", (int)pid);
	r->start_ns = sopts.start_ns;

	if (r->args->top_mode && run__top_start(r)) {
		elog("out of memory\n");
		return TRACER_EXIT_FAILURE;
	}
	err = trace_loop(r, &wait_status, !windowed && !r->top && tracer_verbosity >= 0 &&
						  isatty(STDERR_FILENO));
	run__top_end(r); /* the terminal back before the counters */
	/* Stop probing before symbolizing and writing: a live target (--pid, --duration)
	 * would otherwise keep paying for probes, and could fill the ring with records nobody
	 * reads (counted as dropped) while the profile is written. The window probes share the
	 * ring, so they go first. Unmapping the ring also lowers the peak RSS. */
	window_probes__free(r->window);
	r->window = NULL;
	stop_err = loader__stop(r->loader, run__on_record, r);
	if (stop_err < 0) {
		elog("reading the last events: %s\n", strerror(-stop_err));
		err = err ?: stop_err;
	}
	vlog("closing the open profiles (%s)\n", stop_requested ? "interrupted" : "target ended");
	err = tracees__close_all(r->tracees, clock__mono_ns()) ?: err;
	run__print_reports(r);
	run__print_counters(r);
	run__warn_no_allocator_call(r);
	/* --python with a command: known only once it ran (a --pid target was checked first). */
	if (argv && r->args->python == TRACER_PY_REQUIRE && !tracees__py_stats(r->tracees, &py)) {
		elog("--python: %s ran no CPython whose frames could be read\n", argv[0]);
		return TRACER_EXIT_FAILURE;
	}
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
		return r->workloads.driver[0] ? TRACER_EXIT_FAILURE : TRACER_EXIT_UNSUPPORTED;
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

	if (argc > 1 && !strcmp(argv[1], "top"))
		ret = options__parse_top(argc - 1, argv + 1, &args);
	else
		ret = options__parse(argc, argv, &args);
	if (ret != OPT_GO_ON)
		return ret;
	tracer_verbosity = args.verbosity;
	if (args.check)
		return host_check__run(&args, stdout);
	/* A traced tree's processes map the same files: their modules are loaded once, and
	 * kept a while after a process ends for the next one (a shell loop's children). */
	module_share__keep_idle(32);
	for (size_t i = 0; i < args.debug_dir_cnt; i++)
		if (debug_fetch__add_dir(args.debug_dirs[i]))
			return TRACER_EXIT_FAILURE;
	r.out = (struct profile_output_opts){
		.output = args.output,
		.workloads = args.workload != NULL,
		.all_workloads = args.workload && !strcmp(args.workload, "all"),
		.formats = args.formats,
	};
	if (profile_output__check_dir(&r.out) || run__open_summary(&r, &summary))
		return TRACER_EXIT_USAGE;
	for (size_t i = 0; i < sizeof(ending_signals) / sizeof(ending_signals[0]); i++)
		sigaction(ending_signals[i], &sa, NULL);
	/* A closed pipe on stdout or stderr is a failed write, not a lost profile. */
	signal(SIGPIPE, SIG_IGN);
	/* SA_RESTART: every other call goes on; epoll_wait is never restarted (signal(7)), so
	 * a stop or a SIGUSR1 snapshot is handled now, not at the next tick. */
	sigaction(SIGCHLD, &(struct sigaction){ .sa_handler = on_sigchld, .sa_flags = SA_RESTART },
		  NULL);
	sigaction(SIGUSR1, &(struct sigaction){ .sa_handler = on_sigusr1, .sa_flags = SA_RESTART },
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
	death_probes__free(r.death);
	tracees__free(r.tracees); /* first: a tracee's stack hints are deleted in the loader */
	loader__free(r.loader);
	alloc_watch__free(r.alloc_watch);
	run__top_free(&r);
	if (summary.f) {
		int err = output__close(&summary, 0);

		if (err) {
			elog("cannot write --summary %s: %s\n", args.summary, strerror(-err));
			ret = ret ?: TRACER_EXIT_FAILURE;
		}
	}
	return ret;
}

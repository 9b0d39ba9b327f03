// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The targets of a run and the process images they become: starting or attaching, hold
 * points, each image's allocator, records routed to images (run.h). */
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
#include "cfi_table.h"
#include "cli.h"
#include "clock.h"
#include "collector.h"
#include "death_probes.h"
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
#include "session.h"
#include "shebang.h"
#include "symbolizer.h"
#include "target.h"
#include "trace_summary.h"
#include "tracee.h"
#include "tracee_summary.h"
#include "tracer_exit.h"
#include "run.h"
#include "workloads.h"
#include "safe_text.h"

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
static void attach_allocator_for_image(struct run *r, struct tracee *t)
{
	struct alloc_symbols *syms;
	pid_t pid = t->tgid;
	const char *exe = t->exe;
	int err;

	if (r->args->lib)
		return;
	syms = malloc(sizeof(*syms));
	*t->malloc_lib = '\0';
	if (syms && !alloc_symbols__for_exec(pid, syms)) {
		t->malloc_kind = alloc_symbols__glibc_malloc(syms) ? TRACEE_MALLOC_GLIBC :
								     TRACEE_MALLOC_OTHER;
		snprintf(t->malloc_lib, sizeof(t->malloc_lib), "%s",
			 strrchr(syms->path, '/') ? strrchr(syms->path, '/') + 1 : syms->path);
	} else {
		t->malloc_kind = TRACEE_MALLOC_UNKNOWN;
	}
	if (!t->malloc_kind || objects_probed(loader__alloc_symbols(r->loader), syms)) {
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
void run__on_image_exec(void *owner, struct tracee *t)
{
	attach_allocator_for_image(owner, t);
}

int run__set_snap_hint(void *ctx, const struct snap_hint_key *k, const struct snap_hint *h)
{
	struct run *r = ctx;

	return r->loader ? loader__set_snap_hint(r->loader, k, h) : -ESRCH;
}

/* loader_record_fn: every record to the process images (tracee.h). */
int run__on_record(void *ctx, const void *data, size_t sz)
{
	struct run *r = ctx;
	const struct proc_event *e = data;

	if (sz < sizeof(__u32))
		return 0;
	/* A followed child's end is recorded too (its image waits for it: tracee.h). The death
	 * probes add it themselves at the fork; this covers a fork made before they loaded. */
	if (e->type == EV_PROC_FORK && sz >= sizeof(*e) && r->death)
		death_probes__add_pid(r->death, (pid_t)e->tgid);
	/* --unwind kernel: a new process or image described to BPF at its place in the stream
	 * (BPF dropped an exec'd one's description at the exec: its stacks go as snapshots
	 * until here) */
	if (r->kernel_unwind && sz >= sizeof(*e) &&
	    (e->type == EV_PROC_FORK || e->type == EV_PROC_EXEC))
		loader__unwind_add(r->loader, (pid_t)e->tgid);
	if (r->kernel_unwind && sz >= sizeof(*e) && e->type == EV_PROC_EXIT)
		loader__unwind_forget(r->loader, (pid_t)e->tgid);
	return tracees__handle(r->tracees, data, sz);
}

/* Records up to now, so the tracee of pid is the one its hold point is about. */
static struct tracee *drain_for(struct run *r, pid_t pid)
{
	if (!r->tracees) /* given up before the trace began */
		return NULL;
	if (r->loader)
		loader__poll(r->loader, 0, run__on_record, r);
	return tracees__live(r->tracees, pid);
}

/* target_stop_fn: a process of the tree is about to exit; read its maps while they exist. */
static void on_exit_stop(void *ctx, pid_t pid)
{
	struct tracee *t = drain_for(ctx, pid);

	if (!t || t->ended)
		return;
	tracee__refresh_sym(t);
	if (t->stacks)
		dwarf_stacks__refresh_maps(t->stacks);
	mappings__refresh_maps(t->maps);
	run__measure_arenas_at_exit(ctx, t);
}

/* target_stop_fn (follow): pid exec'd and waits before its first instruction: its image's
 * allocator is probed now, so none of its calls is missed. */
static void on_exec_stop(void *ctx, pid_t pid)
{
	struct run *r = ctx;
	struct tracee *t = drain_for(r, pid);

	if (t)
		attach_allocator_for_image(r, t);
	if (r->kernel_unwind) /* before its first instruction: its first stacks unwind in BPF */
		loader__unwind_add(r->loader, pid);
}

/* target_stop_fn (follow): pid was born in the tree and waits before its first
 * instruction: with per-process probes it gets its own now. */
static void on_birth_stop(void *ctx, pid_t pid)
{
	struct run *r = ctx;

	loader__add_child(r->loader, pid, target__ppid(pid));
}

/* target_stop_fn (follow): pid is gone: its own probes go too. */
static void on_reaped(void *ctx, pid_t pid)
{
	struct run *r = ctx;

	loader__process_gone(r->loader, pid);
}

/* One more process traced on its own (a --pid target after the first, a process joining
 * the cgroup): its allocator probes, its death recorded, and with --unwind kernel its
 * description for BPF (without it every stack of it goes as a snapshot). 0 or -errno. */
static int add_process(struct run *r, pid_t pid)
{
	int err = loader__add_process(r->loader, pid);

	if (err)
		return err;
	if (r->death)
		death_probes__add_pid(r->death, pid);
	if (r->kernel_unwind) /* failed (gone, no tables): its stacks go as snapshots */
		loader__unwind_add(r->loader, pid);
	return 0;
}

/* --cgroup: the processes that entered the cgroup since the last look (not those its
 * traced processes forked: the fork tracepoint follows them). */
void run__add_new_procs(struct run *r)
{
	pid_t pids[256];
	int n = target__new_procs(r->target, pids, 256);

	if (n > 0)
		loader__poll(r->loader, 0, run__on_record, r); /* their FORK records first */
	for (int i = 0; i < n; i++) {
		int err;

		if (tracees__live(r->tracees, pids[i]) || loader__is_traced(r->loader, pids[i]) ||
		    (r->follow && loader__is_traced(r->loader, target__ppid(pids[i]))))
			continue;
		err = add_process(r, pids[i]);
		if (err) {
			if (err != -ESRCH)
				elog("cannot trace pid %d: %s\n", (int)pids[i], strerror(-err));
			continue;
		}
		tracees__open(r->tracees, pids[i], 0, NULL, clock__mono_ns());
		vlog("pid %d joined the cgroup: tracing it\n", (int)pids[i]);
	}
}

/* Attach --start-at/--stop-at probes to the target's functions. */
int run__attach_window_symbols(struct run *r)
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

/* A script (pyenv's python3 shim, a "#!/usr/bin/env python3" program) into the interpreter
 * that runs it: the mode is chosen from code, not from the script's text. */
static void follow_scripts(char *exe, size_t sz)
{
	char script[PATH_MAX];
	int n;

	snprintf(script, sizeof(script), "%s", exe);
	n = shebang__resolve(exe, sz);
	if (n > 0)
		vlog("--unwind auto: %s is a script run by %s\n", safe_text__term(script),
		     safe_text__term(exe));
	else if (n == -ELOOP)
		vlog("--unwind auto: %s: scripts nested beyond %d: choosing from %s\n",
		     safe_text__term(script), SHEBANG_DEPTH_MAX, safe_text__term(exe));
}

/* See run.h. */
enum unwind_mode run__choose_unwind(const struct run *r, bool no_kernel)
{
	struct cfi_table *t;
	struct fp_census c;
	char exe[PATH_MAX];
	const char *why;
	int err;

	if (r->args->unwind != UNWIND_AUTO)
		return r->args->unwind;
	err = target__exe(r->target, exe, sizeof(exe));
	if (!err)
		follow_scripts(exe, sizeof(exe));
	if (!err && !no_kernel) {
		/* compiled into the cache now: the loader reads it back */
		t = cfi_table__load(exe, cfi_table__default_cache_dir(), &why);
		if (t) {
			vlog("--unwind auto: %s has CFI tables (%u rows): kernel\n",
			     safe_text__term(exe), t->n_rows);
			cfi_table__free(t);
			return UNWIND_KERNEL;
		}
		vlog("--unwind auto: %s: %s: no kernel unwinding\n", safe_text__term(exe), why);
	}
	if (!err)
		err = fp_detect__census(exe, &c);
	if (err) {
		vlog("--unwind auto: cannot read the target executable's code (%s): dwarf\n",
		     strerror(-err));
		return UNWIND_DWARF;
	}
	vlog("--unwind auto: %zu of %zu functions of %s%s keep frame pointers: %s\n", c.with_fp,
	     c.funcs, safe_text__term(exe), c.rust ? " (Rust: its crates do not)" : "",
	     fp_detect__has_fp(&c) ? "fp" : "dwarf");
	return fp_detect__has_fp(&c) ? UNWIND_FP : UNWIND_DWARF;
}

/* Start the target: argv spawned and held, the --pid processes, or the --cgroup's. */
int run__start_target(struct run *r, char *const argv[])
{
	struct target_opts topts = { .drop_privs = !r->args->as_root, .follow = r->follow,
				     .on_exit_stop = on_exit_stop, .on_exec_stop = on_exec_stop,
				     .on_birth_stop = on_birth_stop, .on_reaped = on_reaped,
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
		for (size_t i = 0; i < r->args->pid_cnt; i++)
			if (target__is_kernel_thread(r->args->pids[i])) {
				elog("pid %d is a kernel thread: it has no user space to trace\n",
				     (int)r->args->pids[i]);
				return TRACER_EXIT_USAGE;
			}
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

/* See run.h. */
int run__probe_targets(struct run *r)
{
	size_t cnt;
	const pid_t *pids = target__pids(r->target, &cnt);
	int err;

	for (size_t i = 1; i < cnt; i++) {
		err = add_process(r, pids[i]);
		if (err == -ESRCH) {
			vlog("pid %d exited before it could be traced\n", (int)pids[i]);
			continue;
		}
		if (err) {
			elog("cannot trace pid %d: %s\n", (int)pids[i], strerror(-err));
			return err;
		}
	}
	return 0;
}

/* See run.h. */
int run__open_targets(struct run *r)
{
	size_t cnt;
	const pid_t *pids = target__pids(r->target, &cnt);

	for (size_t i = 0; i < cnt; i++)
		if ((!i || loader__is_traced(r->loader, pids[i])) &&
		    !tracees__open(r->tracees, pids[i], 0, NULL, clock__mono_ns()))
			return -ENOMEM;
	return 0;
}

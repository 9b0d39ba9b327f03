/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * loader_attach - the ways the loader attaches the allocator probes (the attach modes of
 * loader.c's header comment), each behind one struct attach_ops with its state its own:
 *   loader_multi.c    session: one session uprobe-multi link per object (+ free's entries)
 *                     multi:   uprobe-multi entry and return links per object
 *   loader_tree.c     tree:    session links per process of a followed tree, made while the
 *                              caller holds each new process at its birth (hold_children)
 *   loader_each.c     each:    one link per probe (kernels without uprobe-multi)
 *   loader_inherit.c  inherit: inherited perf events through tracefs
 * loader.c picks the first mode, loads the programs the mode asks for (session, multi) and
 * falls back along ->fallback when the kernel refuses it; it owns what every mode shares
 * (the skeleton, the fork/exec/exit tracepoints, the ring) and runs the detach jobs.
 * Used by the loader only.
 */
#ifndef TRACER_LOADER_ATTACH_H
#define TRACER_LOADER_ATTACH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "alloc_symbols.h"
#include "clock.h"
#include "events.h"
#include "py_sites.h"

struct bpf_link;
struct bpf_program;
struct tree_links;

/* Entry probes of one object at most: a function's each, and pymalloc's inlined copies
 * (entry-only, FN_PY_SITE_*, py_sites.h). */
#define PLAN_ENTRIES_MAX (FN_COUNT + PY_SITES_MAX)

/* The probes of one object: entry sites and cookies. A function with a return probe has
 * its entry probe on its first instruction too, with the same cookie: ret_* are also the
 * session probes; eonly_* are the entry-only probes (free, pymalloc's inlined copies). */
struct probe_plan {
	__u32 fns[PLAN_ENTRIES_MAX];
	size_t entry_off[PLAN_ENTRIES_MAX], ret_off[FN_COUNT], eonly_off[PLAN_ENTRIES_MAX];
	__u64 entry_cookie[PLAN_ENTRIES_MAX], ret_cookie[FN_COUNT], eonly_cookie[PLAN_ENTRIES_MAX];
	size_t entry_cnt, ret_cnt, eonly_cnt;
	__u32 ret_fns[FN_COUNT];
};

/* Every probed object's plan, objs[] order (alloc_symbols.h). */
struct probe_plans {
	struct probe_plan obj[ALLOC_OBJ_MAX];
	size_t cnt;
};

/* One link to tear down: a raw link fd, a libbpf link, or every link of a tree. */
struct detach_job {
	int fd;			 /* -1: none */
	struct bpf_link *link;
	struct tree_links *tree; /* per-process links: all of them */
	pthread_t thread;
	bool threaded;
};

/* A detach job for each open link fd of fds[0..*cnt), into jobs; the fds are handed over
 * (-1) and *cnt emptied. Returns the jobs added. */
static inline size_t detach_jobs__fds(int *fds, size_t *cnt, struct detach_job *jobs)
{
	size_t n = 0;

	for (size_t i = 0; i < *cnt; i++) {
		if (fds[i] >= 0)
			jobs[n++] = (struct detach_job){ .fd = fds[i] };
		fds[i] = -1;
	}
	*cnt = 0;
	return n;
}

/* Most detach jobs one mode adds: room for any (multi: 2 an object; tree: those and its
 * processes' links as one job; each: a return and an entry a function). */
#define ATTACH_DETACH_JOBS_MAX (2 * ALLOC_OBJ_MAX + FN_COUNT + PLAN_ENTRIES_MAX + 1)

struct attach_ops;

/* The mode the allocator probes are attached in, at work. */
struct attach {
	const struct attach_ops *ops;
	void *state; /* the mode's own (ops->new) */
	/* The programs loaded for the mode (NULL: not loaded for it), reloaded on fallback. */
	struct bpf_program *entry, *ret, *session;
	const struct alloc_symbols *syms; /* the target's probed objects (borrowed) */
};

struct attach_ops {
	const char *name; /* as -v names the mode */
	bool session;	  /* alloc_session in place of alloc_return: one probe a function */
	bool multi;	  /* the programs are loaded for uprobe-multi links */
	/* Can follow a process tree: with loader_opts.follow, the loader attaches the fork,
	 * exec and exit tracepoints before ->attach. */
	bool follows;
	/* Detached in the background: programs may still run past loader__stop's flag. */
	bool detach_async;
	/* Tried when the kernel refuses this mode (the programs reloaded for it); NULL: the
	 * last resort, whose load failure is logged. */
	const struct attach_ops *fallback;

	/* The mode's state, empty; NULL + errno. */
	void *(*new)(void);
	/* Attach the probes of plans to process pid (no_ret: entries only, the benchmarks'
	 * floor). 0 or -errno (-ESRCH: gone; anything else: try the fallback). */
	int (*attach)(struct attach *a, const struct probe_plans *plans, pid_t pid, bool no_ret);
	/* loader__add_process: the probes on pid too. NULL: -ENOTSUP. */
	int (*add_process)(struct attach *a, pid_t pid);
	/* loader__add_child: pid, held at its birth, gets its own probes. NULL: nothing to
	 * do (they are inherited). */
	int (*add_child)(struct attach *a, pid_t pid, pid_t parent);
	/* loader__process_gone: pid's own probes go. NULL: nothing to do. */
	void (*process_gone)(struct attach *a, pid_t pid);
	/* loader__attach_image: plans (of syms) on pid and what it creates. NULL: -ENOTSUP. */
	int (*attach_image)(struct attach *a, pid_t pid, const struct alloc_symbols *syms,
			    const struct probe_plans *plans);
	/* Hand every link to jobs (at most ATTACH_DETACH_JOBS_MAX; the loader closes them in
	 * parallel) or begin closing them in the background. Returns the jobs added; the
	 * state holds no link after it (a second call adds none). */
	size_t (*detach)(struct attach *a, struct detach_job *jobs);
	/* Wait for what detach began, free the state. Accepts NULL. */
	void (*free)(void *state);
};

extern const struct attach_ops loader_session__ops, loader_multi__ops, loader_tree__ops,
    loader_each__ops, loader_inherit__ops;

/* One object's session links for pid (loader_multi.c): a session link on the functions
 * with a return probe, a uprobe-multi link on the entry-only ones, appended to fds[*n]
 * (room for 2). -errno when the kernel refuses (the links made are in fds). */
int loader_multi__session_obj(const struct attach *a, const char *path,
			      const struct probe_plan *p, pid_t pid, int *fds, size_t *n);

/* The one monotonic clock (clock.h), in ms, for the loader's timing logs. */
static inline double loader__mono_ms(void)
{
	return (double)clock__mono_ns() / 1e6;
}

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * loader_inherit - allocator probes that follow a process tree. Each probe is a tracefs
 * uprobe event (uprobe_events, group tracer_<tracer pid>_<tag>; tracefs reached even where the
 * host has it unmounted: tracefs.h), opened as a perf event on every
 * traced task with attr.inherit: the kernel copies inherited events into every task a
 * traced one creates (threads, fork, vfork) before the new task runs, and they stay across
 * exec, so a child's calls into the probed file hit the probes with no race and no work
 * here. Those perf events only say "this mm is traced". The BPF program (with its cookie)
 * hangs off the uprobe's trace event, attached once through a perf event on an idle child
 * of the tracer (see carrier_pid()), so it runs once per hit whichever task's event let
 * the hit through.
 *
 * Why not the uprobe PMU (perf_event_open type "uprobe", config1 = path pointer): an
 * inherited copy re-reads the path from config1 in the FORKING process's memory, where
 * the tracer's pointer means nothing: fork(2) fails with EFAULT (kernel 6.18, checked:
 * perf_uprobe_init() strndup_user()s attr.uprobe_path again for each inherited copy).
 * A tracefs event is named by its id alone, which every copy can use.
 * Used by the loader only (it owns the programs).
 */
#ifndef TRACER_LOADER_INHERIT_H
#define TRACER_LOADER_INHERIT_H

#include <stdbool.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

struct bpf_program;
struct bpf_link;

/* One probe of a set: where, which program, what cookie. */
struct inherit_probe {
	size_t off;	/* file offset in the probed object */
	__u64 cookie;	/* bpf_get_attach_cookie() (COOKIE_* in alloc_events.h) */
	bool retprobe;	/* a return probe (program: the set's ret) */
};

/* One tracefs uprobe event: made once, opened on each task. */
struct inherit_event {
	char *path;	/* probed object */
	size_t off;	/* file offset */
	bool retprobe;
	int id;		/* tracefs event id (perf config) */
	unsigned seq;	/* its name: <group>/e<seq> */
	bool has_prog;	/* the BPF program is attached to one of its perf events */
};

/* Every event, link and plain perf event made so far; freed together. */
struct inherit_links {
	struct bpf_link **v;	 /* perf events carrying the program */
	size_t cnt, cap;
	int *fds;		 /* perf events without it */
	size_t fd_cnt, fd_cap;
	struct inherit_event *ev;
	size_t ev_cnt, ev_cap;
	char group[48];		 /* the tracefs group: tracer_<pid>_<random tag>; "" before the
				  * first event */
	pid_t carrier;		 /* the idle child whose perf events carry the programs */
	int carrier_fd;		 /* its pidfd, -1: none (signalled through it) */
	int tracefs;		 /* tracefs's root (tracefs.h), once the first event is made */
	bool closing, threaded;	 /* loader_inherit__detach began; in a thread */
	pthread_t thread;
};

/*
 * Attach every probe to every thread of process pid (threads listed from /proc/PID/task,
 * re-listed until no new one appears: a thread created meanwhile by a thread not yet
 * covered would be missed otherwise). Return probes first. Links are appended to ls.
 * Returns 0 or -errno (-ESRCH: the process is gone).
 */
int loader_inherit__attach(struct inherit_links *ls, struct bpf_program *entry,
			   struct bpf_program *ret, const char *path,
			   const struct inherit_probe *probes, size_t cnt, pid_t pid);

/* Begin detaching every probe: a thread closes the perf events and deletes the tracefs
 * events (each close waits 30-140 ms, in 8 threads: see loader_inherit.c); the programs must be silenced
 * first. Idempotent. */
void loader_inherit__detach(struct inherit_links *ls);

/* Detach (if not begun), wait until it is done, and free ls's memory. */
void loader_inherit__wait(struct inherit_links *ls);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracefs - the kernel's tracing filesystem, whether or not the host has it mounted.
 *
 * The inherited uprobes (loader_inherit.c) need tracefs: uprobe_events to make an event,
 * events/.../id for its perf type. Minimal hosts and containers often have nothing mounted at
 * /sys/kernel/tracing. The tracer then never touches the host's mounts; it reaches tracefs, best
 * first, as mounted   /sys/kernel/tracing or /sys/kernel/debug/tracing, where tracefs is mounted;
 *   detached  a mount of its own made with fsopen/fsmount (kernel >= 5.2) that is attached
 *             to no mount table at all: no other process can see it, and it goes when the
 *             tracer's descriptor closes;
 *   private   mounted in a mount namespace of one short-lived thread of the tracer's
 *             (unshare(CLONE_NEWNS), mounts made private first): the namespace dies with
 *             the thread, the descriptor keeps the mount usable.
 * tracefs has one superblock: all three see the same uprobe_events and event ids.
 * TRACER_REFUSE (environment.h) forces the later ways, for the tests: "tracefs" ignores a
 * mounted one, "fsmount" refuses the detached mount.
 */
#ifndef TRACER_TRACEFS_H
#define TRACER_TRACEFS_H

#include <stddef.h>

enum tracefs_via {
	TRACEFS_NONE,
	TRACEFS_MOUNTED,
	TRACEFS_DETACHED,
	TRACEFS_PRIVATE,
};

/* A descriptor of tracefs's root, reached once per process the first time it is asked
 * for (then cached; never closed before exit). -errno when no way works (each way's
 * failure is logged at -v). Thread-safe. */
int tracefs__root(void);

/* How tracefs__root() reached it (TRACEFS_NONE before it was asked, or when it failed). */
enum tracefs_via tracefs__via(void);

/* A one-word name of a way, for messages and --check: "mounted at PATH", "detached". */
const char *tracefs__via_name(enum tracefs_via via);

/* Append text to the tracefs file rel (e.g. "uprobe_events"). 0 or -errno. */
int tracefs__append(int root, const char *rel, const char *text);

/* The integer in the tracefs file rel (e.g. "events/G/E/id"). 0 or -errno. */
int tracefs__read_int(int root, const char *rel, int *out);

/* Up to sz - 1 bytes of the tracefs file rel into buf, NUL-terminated, with open/read
 * only (safe in a child forked from a threaded process). Returns the length or -errno. */
long tracefs__read(int root, const char *rel, char *buf, size_t sz);

/* Try each way afresh, without caching (tracer --check): the way that works, or
 * TRACEFS_NONE; *why (if not NULL) is the last failure's errno. */
enum tracefs_via tracefs__probe(int *why);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tree_links - the uprobe links of each process of a followed tree, when every process has
 * links of its own (session uprobes: the loader's "per-process" follow mode).
 *
 * A uprobe-multi link filters on ONE process, so a tree traced with session uprobes needs a
 * link set per process: made while the new process is held at its birth (ptrace, before its
 * first instruction), closed once it is reaped. Closing a uprobe link waits for RCU grace
 * periods (50-130 ms here), so closes go to background threads (8, side by side: the grace
 * periods of concurrent closes overlap) and never hold up the tracee or the record loop.
 * Used by the loader only (it makes the links).
 */
#ifndef TRACER_TREE_LINKS_H
#define TRACER_TREE_LINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Most link fds one process holds (a session and an entry-only link per probed object). */
#define TREE_LINKS_PER_PROC 64

struct tree_links;

/* NULL on ENOMEM. */
struct tree_links *tree_links__new(void);

/* pid's links (n <= TREE_LINKS_PER_PROC fds, owned from now on) on the objects of the bit
 * mask objs (the caller's numbering), added to those it has. -ENOMEM (fds closed) or -E2BIG
 * (too many: fds closed). */
int tree_links__add(struct tree_links *t, pid_t pid, const int *fds, size_t n, unsigned objs);

/* The objects pid has links on (0: none, or no such pid). */
unsigned tree_links__objs(const struct tree_links *t, pid_t pid);

/* True if pid has links here. */
bool tree_links__has(const struct tree_links *t, pid_t pid);

/* Processes with links. */
size_t tree_links__count(const struct tree_links *t);

/* pid is gone: its links are closed in the background. No-op for an unknown pid. */
void tree_links__drop(struct tree_links *t, pid_t pid);

/* Close every link (in parallel with what is still closing) and wait until all are closed.
 * Idempotent; the table stays usable (empty). */
void tree_links__close_all(struct tree_links *t);

/* close_all, then free. Accepts NULL. */
void tree_links__free(struct tree_links *t);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dwarf_stacks - turns the EV_STACK_SNAPSHOT records of `tracer --unwind dwarf` into the
 * plain alloc_events the session and collector already take.
 *
 * Each snapshot (registers + stack copy, bpf/alloc_events.h) is unwound with the target's
 * CFI (unwind.h), the PC list is interned in a stack_table, and the record leaves as an
 * EV_ALLOC/EV_REALLOC whose stack_id is the interned id. Program points, merge rules and the
 * DHAT output therefore work exactly as with BPF frame-pointer stack ids; only the
 * stack_source handed to frames__describe changes (dwarf_stacks__stack).
 *
 * Every PC of a list is a return address, as in frame-pointer mode: the probe fires at the
 * allocator's return, so ip is the return address into the caller.
 *
 * Plain records only: no BPF, unit-testable. Not thread-safe.
 */
#ifndef TRACER_DWARF_STACKS_H
#define TRACER_DWARF_STACKS_H

#include <stddef.h>
#include <sys/types.h>

#include "events.h"
#include "stack_hints.h"

struct dwarf_stacks;

struct dwarf_stacks_stats {
	__u64 snapshots;     /* EV_STACK_SNAPSHOT records resolved */
	__u64 unwound;	     /* of those, unwound into a stack id */
	__u64 partial;	     /* unwinds that stopped on an error (copy too short, no CFI,
			      * unknown code) rather than at the outermost frame */
	__u64 short_copies;  /* snapshots whose copy ended at the end of readable stack */
	__u64 failures;	     /* no stack id: no unwinder (target gone before the first
			      * snapshot), unwind or intern error; record sent with -errno */
	__u64 frames;	     /* PCs produced, summed */
	__u64 unwind_ns;     /* time spent unwinding and interning, summed */
	__u64 max_unwind_ns; /* slowest single snapshot */
	__u64 stack_bytes;   /* stack bytes received, summed (sparse: the words sent) */
	__u64 sparse;	     /* snapshots that came sparse (stack hints) */
	__u64 hint_misses;   /* sparse snapshots whose unwind read a word not sent (cut), or
			      * whose offsets were out of order (no stack) */
	size_t hint_sites;   /* call sites (ip, dist) with hints: one has up to
			      * SNAP_HINT_VARIANTS paths */
	__u64 hints_set;     /* hints handed to the sink (new, or another path) */
	__u64 hint_refusals; /* dense unwinds that could not become a hint: a path no words
			      * vouch for (unwinder__last_reads), more than SNAP_HINT_MAX
			      * words, or refused by the sink (map full: the key stays dense) */
	size_t distinct;     /* distinct stacks interned */
};

/*
 * Resolver for process pid. The unwinder is created now if the process exists (its modules
 * are opened eagerly, so unwinding works after it exited), else at the first snapshot.
 * NULL + errno (ENOMEM) on failure.
 */
struct dwarf_stacks *dwarf_stacks__new(pid_t pid);

/* Accepts NULL. Deletes the hints it set (the process is gone or exec'd). */
void dwarf_stacks__free(struct dwarf_stacks *ds);

/*
 * Learn stack hints from now on, into fn (stack_hints.h; NULL: stop): after each dense
 * snapshot, the path its unwind took becomes one of its site's hints; a sparse snapshot
 * that misses a word anyway has its site's hints deleted until dense ones teach them
 * again. Sparse snapshots resolve with or without a sink. 0 or -errno (ENOMEM).
 */
int dwarf_stacks__set_hint_sink(struct dwarf_stacks *ds, stack_hint_fn fn, void *ctx);

/*
 * Re-read the target's maps (after exec or dlopen; at its exit stop). Creates the unwinder
 * if it does not exist yet. 0 or -errno (-ESRCH: the process is gone).
 */
int dwarf_stacks__refresh_maps(struct dwarf_stacks *ds);

/*
 * Resolve one EV_STACK_SNAPSHOT record, dense or sparse (data, sz as read from the ring
 * buffer) into *out: the alloc_event it stands for, with type = the snapshot's ev_type and stack_id = the
 * interned stack id, or -errno when no stack could be produced (counted in failures; the
 * collector counts it as a stack failure, the event itself is kept).
 * Returns 0, or -EINVAL for a malformed record (*out untouched).
 */
int dwarf_stacks__resolve(struct dwarf_stacks *ds, const void *data, size_t sz,
			  struct alloc_event *out);

/* A stack_source.stack (frames.h): the PCs of an id from dwarf_stacks__resolve, innermost
 * first, all return addresses. ctx is the struct dwarf_stacks. Count or -ENOENT. */
int dwarf_stacks__stack(void *ctx, __s32 stack_id, __u64 *ips, size_t max);

/* Copy the counters to *st. */
void dwarf_stacks__stats(const struct dwarf_stacks *ds, struct dwarf_stacks_stats *st);

#endif

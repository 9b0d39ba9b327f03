/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * stack_hints - what one traced process's dense stack copies taught: for each call site
 * (ip, dist), up to SNAP_HINT_VARIANTS paths the unwinder took from it, handed to a sink
 * (the BPF map snap_hints) so that BPF sends later copies that take one of those paths
 * sparse (bpf/alloc_events.h, "Stack hints").
 *
 * A path is the words an unwind read and, among them, the words that steered it with the
 * values they held. A new path of a site takes a free variant, or the one set longest ago.
 *
 * Plain data and a callback: no BPF, unit-testable. Not thread-safe.
 */
#ifndef TRACER_STACK_HINTS_H
#define TRACER_STACK_HINTS_H

#include <stdbool.h>
#include <sys/types.h>

#include "events.h"
#include "unwind.h"

/*
 * Where hints go: h is the hint for key k (k->variant included), or NULL to delete it.
 * Returns 0 or -errno; after a refused set the site is not offered again.
 */
typedef int (*stack_hint_fn)(void *ctx, const struct snap_hint_key *k, const struct snap_hint *h);

struct stack_hints;

/* Hints of process tgid into fn. NULL + errno (ENOMEM, EINVAL without fn). */
struct stack_hints *stack_hints__new(pid_t tgid, stack_hint_fn fn, void *ctx);

/* Deletes every hint it set (the process is gone or exec'd), then frees. Accepts NULL. */
void stack_hints__free(struct stack_hints *sh);

enum stack_hint_result {
	HINT_KEPT = 0,	 /* the path was a hint already, or the site is refused */
	HINT_NEW = 1,	 /* the path became a hint */
	HINT_REFUSED = 2, /* it could not: no words vouch for it, more than SNAP_HINT_MAX words,
			   * or the sink refused (then the site stays dense) */
};

/*
 * A dense copy (stack, of stack_len bytes) taken at (ip, dist) with rbp bp was unwound;
 * rd is what the unwinder read (NULL: unwinder__last_reads said no). Its path becomes one
 * of the site's hints.
 */
enum stack_hint_result stack_hints__learn(struct stack_hints *sh, __u64 ip, __u64 dist,
					  __u64 bp, const struct unwind_reads *rd,
					  const unsigned char *stack, size_t stack_len);

/* Sites with hints or refused ones (at most SNAP_HINTS_MAX: a process with more learns no
 * more). */
size_t stack_hints__sites(const struct stack_hints *sh);

/* A sparse copy of (ip, dist) read a word not sent: the site's hints are deleted until a
 * dense copy teaches them again. */
void stack_hints__forget(struct stack_hints *sh, __u64 ip, __u64 dist);

#endif

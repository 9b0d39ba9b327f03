/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * trap_cost - what one uprobe trap costs on this host, timed at start-up.
 *
 * Every allocator call the tracer sees costs its target one or two uprobe traps, and a trap
 * costs 0.65 us on one host and 6 us on another of the same kind (docs/BENCHMARKS.md, "Where
 * the floor comes from"). The tracer times a few hundred traps in its OWN process (a
 * counting no-op BPF program on an empty function of its own, a uprobe-multi link for this
 * process only: the target is untouched) and says so when they are expensive. Raw bpf(2):
 * no libbpf, so the decision and its message are unit-tested without root.
 */
#ifndef TRACER_TRAP_COST_H
#define TRACER_TRAP_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Above this a trap is "expensive": 3x the cost on a host where they are cheap. */
#define TRAP_COST_SLOW_NS 2000.0

/*
 * Time batches of calls to a probed empty function in this process (thread CPU time) and
 * put the cheapest batch's cost per call, less the same code unprobed, in *ns. Returns 0 or
 * -errno (not root, no uprobe-multi: kernel < 6.6, the probe site not found, -EIO: the
 * program did not count every call). ~0.5 ms here; the link is closed in the background.
 */
int trap_cost__measure(double *ns);

/*
 * The advice for a measured trap cost: when ns is above slow_ns, writes one line (with the
 * figure and the --sample-bytes hint, no trailing newline) into buf and returns true; else
 * returns false and leaves buf empty.
 */
bool trap_cost__advice(double ns, double slow_ns, char *buf, size_t sz);

/* Can this kernel make a uprobe-multi link of attach_type (BPF_TRACE_UPROBE_MULTI, or
 * TRACE_UPROBE_SESSION of uprobe_multi.h), its program loaded for it? On this process's
 * own probe site. 0 or the kernel's -errno (tracer --check). */
int trap_cost__try_link(uint32_t attach_type);

/* Measure once and log: the figure at -v, the advice (unless -q) when traps are slow. */
void trap_cost__check(void);

#endif

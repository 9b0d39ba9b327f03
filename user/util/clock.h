/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * clock - the one monotonic clock of the tracer, in nanoseconds.
 *
 * CLOCK_MONOTONIC because bpf_ktime_get_ns() reads it: a time taken here and one in a BPF
 * record share their origin, so deadlines, RSS samples and the profile's start compare with
 * event times directly. Not for CPU time (trap_cost.c measures the thread's own).
 */
#ifndef TRACER_CLOCK_H
#define TRACER_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC now, ns. */
static inline uint64_t clock__mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif

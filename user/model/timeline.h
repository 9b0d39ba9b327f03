/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * timeline - a bounded series of live heap bytes over time, for the heap-over-time chart,
 * and beside it the same heap counted in allocator chunks (collector.h: live_chunk_bytes).
 * Time is cut into equal buckets; each point keeps the highest value of its bucket (each
 * series its own), so peaks survive; a series never below the other at any moment stays
 * so point by point. When the series is full, neighbouring points merge pairwise and
 * the bucket width doubles: memory stays fixed (TIMELINE_MAX_POINTS) however long the trace.
 */
#ifndef TRACER_TIMELINE_H
#define TRACER_TIMELINE_H

#include <stddef.h>

#include <linux/types.h>

#define TIMELINE_MAX_POINTS 2048

struct timeline {
	__u64 t_ns[TIMELINE_MAX_POINTS];    /* bucket start, ns since the window start */
	__u64 bytes[TIMELINE_MAX_POINTS];   /* highest live bytes seen in the bucket */
	__u64 chunks[TIMELINE_MAX_POINTS];  /* highest live chunk bytes seen in the bucket */
	size_t cnt;
	__u64 width_ns; /* bucket width; doubles on every compaction */
};

/* Start an empty series with the given initial bucket width (0: 1 µs). */
void timeline__init(struct timeline *tl, __u64 width_ns);
/* Record live bytes and live chunk bytes at time t_ns (non-decreasing across calls). */
void timeline__note(struct timeline *tl, __u64 t_ns, __u64 live_bytes, __u64 chunk_bytes);

#endif

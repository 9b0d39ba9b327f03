// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "timeline.h"

void timeline__init(struct timeline *tl, __u64 width_ns)
{
	tl->cnt = 0;
	tl->width_ns = width_ns ? width_ns : 1000;
}

/* Merge points pairwise into buckets twice as wide. */
static void timeline__compact(struct timeline *tl)
{
	size_t out = 0;

	tl->width_ns *= 2;
	for (size_t i = 0; i < tl->cnt; i++) {
		__u64 start = tl->t_ns[i] / tl->width_ns * tl->width_ns;

		if (out && tl->t_ns[out - 1] == start) {
			if (tl->bytes[i] > tl->bytes[out - 1])
				tl->bytes[out - 1] = tl->bytes[i];
			continue;
		}
		tl->t_ns[out] = start;
		tl->bytes[out] = tl->bytes[i];
		out++;
	}
	tl->cnt = out;
}

void timeline__note(struct timeline *tl, __u64 t_ns, __u64 live_bytes)
{
	__u64 start = t_ns / tl->width_ns * tl->width_ns;

	if (tl->cnt && tl->t_ns[tl->cnt - 1] == start) {
		if (live_bytes > tl->bytes[tl->cnt - 1])
			tl->bytes[tl->cnt - 1] = live_bytes;
		return;
	}
	while (tl->cnt == TIMELINE_MAX_POINTS) {
		timeline__compact(tl);
		start = t_ns / tl->width_ns * tl->width_ns;
		if (tl->cnt && tl->t_ns[tl->cnt - 1] == start) {
			if (live_bytes > tl->bytes[tl->cnt - 1])
				tl->bytes[tl->cnt - 1] = live_bytes;
			return;
		}
	}
	tl->t_ns[tl->cnt] = start;
	tl->bytes[tl->cnt] = live_bytes;
	tl->cnt++;
}

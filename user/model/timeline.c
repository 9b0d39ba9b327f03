// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "timeline.h"

void timeline__init(struct timeline *tl, __u64 width_ns)
{
	tl->cnt = 0;
	tl->width_ns = width_ns ? width_ns : 1000;
}

/* Point i keeps the highest of each series. */
static void keep_max(struct timeline *tl, size_t i, __u64 bytes, __u64 chunks)
{
	if (bytes > tl->bytes[i])
		tl->bytes[i] = bytes;
	if (chunks > tl->chunks[i])
		tl->chunks[i] = chunks;
}

/* Merge points pairwise into buckets twice as wide. */
static void timeline__compact(struct timeline *tl)
{
	size_t out = 0;

	tl->width_ns *= 2;
	for (size_t i = 0; i < tl->cnt; i++) {
		__u64 start = tl->t_ns[i] / tl->width_ns * tl->width_ns;

		if (out && tl->t_ns[out - 1] == start) {
			keep_max(tl, out - 1, tl->bytes[i], tl->chunks[i]);
			continue;
		}
		tl->t_ns[out] = start;
		tl->bytes[out] = tl->bytes[i];
		tl->chunks[out] = tl->chunks[i];
		out++;
	}
	tl->cnt = out;
}

void timeline__note(struct timeline *tl, __u64 t_ns, __u64 live_bytes, __u64 chunk_bytes)
{
	__u64 start = t_ns / tl->width_ns * tl->width_ns;

	if (tl->cnt && tl->t_ns[tl->cnt - 1] == start) {
		keep_max(tl, tl->cnt - 1, live_bytes, chunk_bytes);
		return;
	}
	while (tl->cnt == TIMELINE_MAX_POINTS) {
		timeline__compact(tl);
		start = t_ns / tl->width_ns * tl->width_ns;
		if (tl->cnt && tl->t_ns[tl->cnt - 1] == start) {
			keep_max(tl, tl->cnt - 1, live_bytes, chunk_bytes);
			return;
		}
	}
	tl->t_ns[tl->cnt] = start;
	tl->bytes[tl->cnt] = live_bytes;
	tl->chunks[tl->cnt] = chunk_bytes;
	tl->cnt++;
}

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dhat_rss - the target's resident memory over the trace, next to the heap: one extra
 * top-level object that dh_view ignores (it reads only the keys it knows), written when the
 * tracer sampled the process (user/trace/rss_sampler.h):
 *
 *   ,"rss":{"unit":"bytes","t":[0,10012,...]      <- µs since the profile's start, as te
 *          ,"anon":[...],"file":[...],"shmem":[...],"swap":[...]
 *          ,"atEnd":{"t":170001,"anon":66912256,"file":1363968,"shmem":0,"swap":0}}
 *
 * "atEnd" is the last sample at or before te (the end, or the death): with Σeb, the heap
 * live then, it splits RSS into live heap, what the allocator holds beyond it (its overhead,
 * known from the heap in chunks, "cbEnd" of heapTimeline; free chunks not returned; and any
 * mapping made outside malloc, which is anonymous too) and file-backed and shared pages. Readers treat the object as optional and lenient.
 */
#ifndef TRACER_DHAT_RSS_H
#define TRACER_DHAT_RSS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DHAT_RSS_KEY "rss"

/* One sample of /proc/PID/status, bytes. */
struct dhat_rss_sample {
	uint64_t t_ns;	/* when (CLOCK_MONOTONIC, the BPF clock) */
	uint64_t anon;	/* RssAnon: private anonymous pages (the heap lives here) */
	uint64_t file;	/* RssFile: mapped files (code, libraries, file mappings) */
	uint64_t shmem; /* RssShmem: shared memory, tmpfs */
	uint64_t swap;	/* VmSwap: anonymous pages swapped out */
};

/* What a reader keeps: the "atEnd" sample, t in the file's time unit (µs since start). */
struct dhat_rss_end {
	uint64_t t, anon, file, shmem, swap;
};

/* Write ,"rss":{...} for the samples of s[cnt] that fall in [start_ns, start_ns + te_ns].
 * Nothing when none does. */
void dhat_rss__write(FILE *f, const struct dhat_rss_sample *s, size_t cnt, uint64_t start_ns,
		     uint64_t te_ns);

/* Reader: one member of "atEnd". Unknown keys and values that are not integers are ignored. */
void dhat_rss__set_end(struct dhat_rss_end *e, const char *key, bool u_ok, uint64_t u);

/* What the RSS split of the report is made of. */
struct dhat_rss_split {
	const struct dhat_rss_end *e; /* RSS at te */
	uint64_t live_bytes;	      /* the heap live then (Σeb) */
	const char *when;	      /* "death", "exit" or "end" */
	uint64_t te;		      /* the file's te, to say how old the sample was (0: the
				       * figures are of that very moment) */
	const uint64_t *outside_malloc; /* anonymous bytes the process mapped itself
					 * (dhat_mappings.h), or NULL when unknown */
	const uint64_t *chunk_bytes;	/* the heap live then in malloc chunks ("cbEnd" of
					 * heapTimeline), or NULL when unknown */
	const uint64_t *arena_free;	/* free bytes glibc's arenas keep, measured
					 * (dhat_arenas.h), or NULL when unknown */
	bool exact_bytes;		/* sizes as exact integers (--bytes), not KiB/MiB/... */
};

/* How RSS split at te, indented two spaces, for the report: RSS, live heap, memory mapped
 * outside malloc, the allocator's overhead (chunk bytes - live bytes) and the rest of the
 * anonymous memory (free chunks, ...), file and shared, swap. The anonymous RSS beyond the
 * heap goes to the overhead first (resident as the heap is), then to the mappings (virtual:
 * only as far as touched), the rest to free chunks. An unknown part is not split out. */
void dhat_rss__print_split(FILE *out, const struct dhat_rss_split *s);

#endif

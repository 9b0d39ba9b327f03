/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dhat_writer - writes one collector's profile as DHAT JSON (dhatFileVersion 2), the format
 * dh_view.html loads. Layout follows Valgrind's dh_main.c (comma-first). An annotated
 * sample of the output lives at the top of dhat_writer.c.
 *
 *  - "mode":"ebpf-heap", "verb":"Allocated", bklt true, bkacc false,
 *    "tu":"µs", "Mtu":"s", "tuth":10; te/tg/tl in µs since the window start;
 *  - ftbl[0] = "[root]"; frame strings de-duplicated, indices in first-seen order;
 *  - program points whose final frame lists are identical are merged into one
 *    (tb/tbk/tl/gb/gbk/eb/ebk add exactly; mb/mbk take the largest of the members' mb and
 *    the merged gb and eb: a lower bound of the true merged peak that keeps gb,eb <= mb);
 *  - frames NULL: each PP is named by its allocator and stack id ("malloc", "[stack 7]");
 *    an empty frame list is written as the single frame "[no stack]";
 *  - "lost" (dhat_lost.h): what the profile is missing, only when something is;
 *  - "sampled" (dhat_sampled.h): --sample-bytes' mean, when the figures are estimates;
 *  - "death" (dhat_death.h): how the process ended, when the trace saw it;
 *  - "rss" (dhat_rss.h): the target's RSS over the profile, when it was sampled;
 *  - "mappings" (dhat_mappings.h): memory it mapped itself, apart from the heap's blocks;
 *  - "arenas", "arenaSettings" (dhat_arenas.h): glibc's arenas at te, pins by written PP;
 *  - "skip" (dhat_skip.h): the trace's --skip patterns, which report applies by default;
 *  - "heapTimeline": live bytes over time, and with glibc's malloc the same in its chunks.
 */
#ifndef TRACER_DHAT_WRITER_H
#define TRACER_DHAT_WRITER_H

#include <stdio.h>

#include "collector.h"
#include "dhat_arenas.h"
#include "dhat_death.h"
#include "dhat_lost.h"
#include "dhat_mappings.h"
#include "dhat_rss.h"
#include "dhat_skip.h"
#include "strvec.h"

/* Fill out with pp's frames, innermost first, as DHAT frame strings
 * ("0xADDR: fn (file:line)"). Returns 0, DHAT_FRAMES_CUT_SHORT when the stack stops before
 * the thread's entry (counted in the file's "lost" object), or -errno. */
typedef int (*pp_frames_fn)(void *ctx, const struct pp_stats *pp, struct strvec *out);
#define DHAT_FRAMES_CUT_SHORT 1

struct dhat_meta {
	const char *mode; /* NULL: "ebpf-heap" */
	const char *cmd;  /* the traced command line */
	int pid;	  /* the traced process */
	/* What the collector cannot know (dropped records, untraced processes). The writer
	 * adds the collector's unknown frees and stack failures and the program points the
	 * frames callback found cut short, and writes the "lost" object when any is not 0. */
	struct dhat_lost lost;
	const struct dhat_death *death; /* how the process ended, or NULL: no "death" object */
	/* The target's RSS samples, oldest first (those within the profile are written as the
	 * "rss" object), or NULL. */
	const struct dhat_rss_sample *rss;
	size_t rss_cnt;
	const struct dhat_mappings *mappings; /* the process's own mappings at te, or NULL */
	/* glibc's arenas at te, program points as the collector's indices, or NULL */
	const struct dhat_arenas *arenas;
	/* The image allocates with glibc's malloc: "heapTimeline" also gets the heap counted
	 * in its chunks ("cb", "cbEnd": collector.h's live_chunk_bytes). */
	bool glibc_chunks;
	/* --skip patterns to record ("skip"), or NULL/0. */
	const char *const *skip;
	size_t skip_cnt;
};

/* Write c (finished) to f. Returns 0 or -errno. */
int dhat__write(FILE *f, const struct collector *c, pp_frames_fn frames, void *ctx,
		const struct dhat_meta *meta);

/* Write c to path through output__open (see output.h: a temporary file renamed over path,
 * never through a symlink, owned by the invoking user under sudo); a ".gz" suffix writes
 * gzip. On failure nothing is left behind and an existing profile stays intact. Returns 0
 * or -errno: -ELOOP (path is a symlink), -EISDIR, -EPERM (not a regular file, or owned by
 * someone else), or the error of the failed step. */
int dhat__write_path(const char *path, const struct collector *c, pp_frames_fn frames, void *ctx,
		     const struct dhat_meta *meta);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dhat_lost - what a traced profile is missing, recorded in the file itself as one extra
 * top-level object that dh_view ignores (it reads only the keys it knows):
 *
 *   ,"lost":{"droppedRecords":0,"unknownFrees":3,"stackFailures":0,"cutShortStacks":2
 *           ,"untracedProcesses":0,"noAllocatorCalls":0,"sampledMapFull":0
 *           ,"mappingsNotTraced":0}
 *
 * The writer adds it only when one of the counts is not zero, so a complete profile is
 * byte for byte what it always was. Valgrind's and dhat-rs's files never have it: readers
 * treat it as optional, and a value they do not understand as absent.
 */
#ifndef TRACER_DHAT_LOST_H
#define TRACER_DHAT_LOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The top-level key. */
#define DHAT_LOST_KEY "lost"

/* The counts, in the order they are written and described. */
enum dhat_lost_kind {
	DHAT_LOST_DROPPED,	  /* ring-buffer records dropped while this profile was open
				   * (the kernel cannot say whose they were: any may have been) */
	DHAT_LOST_UNKNOWN_FREES,  /* frees of blocks whose allocation was not seen (made before
				   * the attach or the window): their bytes are not in the file */
	DHAT_LOST_STACK_FAILURES, /* allocations whose stack could not be taken */
	DHAT_LOST_CUT_SHORT,	  /* program points whose stack stops before the thread's entry */
	DHAT_LOST_UNTRACED,	  /* processes seen but not traced */
	DHAT_LOST_NO_ALLOC_CALLS, /* 1: no probe of the resolved allocator ever fired (the run's
				   * warning, alloc_check.h): an empty profile that may not be */
	DHAT_LOST_SAMPLE_OVERFLOW, /* --sample-bytes: sampled blocks whose records were dropped
				    * because BPF's sampled-block map was full */
	DHAT_LOST_NO_MAPPINGS,	   /* 1: the mmap/brk probes could not attach: memory mapped
				    * outside malloc is not attributed (no "mappings") */
	DHAT_LOST_CNT
};

struct dhat_lost {
	uint64_t n[DHAT_LOST_CNT]; /* by enum dhat_lost_kind */
};

/* JSON member names ("droppedRecords", ...), by enum dhat_lost_kind. */
extern const char *const dhat_lost_keys[DHAT_LOST_CNT];

/* Whether any count is not zero. */
bool dhat_lost__any(const struct dhat_lost *l);

/* ,"lost":{...}\n with every count, when any is not zero; nothing otherwise. */
void dhat_lost__write(FILE *f, const struct dhat_lost *l);

/* One member of a read "lost" object: a known key with a non-negative integer (u_ok) sets its
 * count; anything else is ignored (the viewer ignores the object: so does the reader). */
void dhat_lost__set(struct dhat_lost *l, const char *key, bool u_ok, uint64_t u);

/* The kinds that make the file's figures wrong (records dropped, allocations without a
 * stack, processes not traced), as a mask of (1u << enum dhat_lost_kind). Unknown frees and
 * cut-short stacks are not among them: a free of a block allocated before tracing began
 * changes nothing in the file, and a short stack still names its call site. */
#define DHAT_LOST_INCOMPLETE                                                                     \
	(1u << DHAT_LOST_DROPPED | 1u << DHAT_LOST_STACK_FAILURES | 1u << DHAT_LOST_UNTRACED |      \
	 1u << DHAT_LOST_NO_ALLOC_CALLS | 1u << DHAT_LOST_SAMPLE_OVERFLOW)

/* Whether any count of the kinds in mask is not zero. */
bool dhat_lost__any_of(const struct dhat_lost *l, unsigned mask);

/* The non-zero counts of the kinds in mask for humans into buf, e.g. "2 ring-buffer records
 * dropped, 3 frees of blocks whose allocation was not traced"; "" if none. */
void dhat_lost__describe(const struct dhat_lost *l, unsigned mask, char *buf, size_t sz);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dhat_arenas - glibc's arenas at te, against the heap's live blocks: why RSS stays high
 * after the frees (issue #34). Two extra top-level members that dh_view ignores, written
 * when the image's malloc is glibc's and its memory could be read (user/trace/arenas.h):
 *
 *   ,"arenas":[{"arena":"main","systemBytes":69632000,"inUseBytes":9027584
 *              ,"freeBytes":60604416,"fastBytes":432,"topFreeBytes":135168
 *              ,"trimmableBytes":56852480,"residentBytes":69640192,"pinPp":3,"pinBytes":64
 *              ,"fragmenters":[{"pp":2,"bytes":52690944,"blocks":96}]}
 *             ,{"arena":"0x7f3a04000000",...}]
 *   ,"arenaSettings":{"mmapThreshold":131072,"mmapThresholdSource":"default"
 *                    ,"arenaMax":8,"arenaMaxSource":"MALLOC_ARENA_MAX"
 *                    ,"source":"chunk walk","mainArenaChecked":"debuginfo"}
 *
 * Bytes, integers. arena: "main" (the brk heap) or the arena's first heap (64 MiB aligned)
 * in hex. systemBytes: what the arena holds from the kernel (malloc_info's <system
 * type="current">); inUseBytes: the live blocks' chunks, headers included; freeBytes: free
 * but kept (malloc_info's fast + rest, the top included); topFreeBytes: the free chunk at
 * the top (main arena: mallinfo2's keepcost); trimmableBytes: what malloc_trim(0) would give
 * back (the main arena's top beyond MINSIZE, whole free pages inside free chunks);
 * residentBytes: the arena's mappings' Rss now; pinPp: index into "pps" of the program point
 * of the highest live block, the one that keeps the top from shrinking (absent: none);
 * pinBytes: that block's size; fragmenters: program points whose live blocks alone keep
 * whole pages from being trimmable (bytes: those pages), most first. fastBytes: of
 * freeBytes, the chunks in the fastbins (malloc_info's "fast"); fastbinCut: fastbin lists
 * whose walk ended early, torn by the running target or corrupt (absent: none);
 * tcacheBytes: the chunks held by the tcache found at the arena's first chunk (the first
 * thread to use the arena, while it lives), not in freeBytes since malloc_info counts them
 * in use (absent: none found; docs/ACCURACY.md).
 * arenaSettings: the mmap threshold seen (glibc raises it to the chunk of an mmapped block
 * freed) and M_ARENA_MAX from the target's environment (absent: not set or unreadable);
 * source: how the free chunks were known ("chunk walk": read from the target's memory,
 * "live blocks": the gaps between live blocks, docs/ACCURACY.md); mainArenaChecked: how the
 * main arena's malloc_state was found: "debuginfo" (libc's main_arena symbol, the arenas'
 * next ring agreeing), "debuginfo (ring disagreed)" (the symbol's used),
 * "debuginfo (no ring)" (one arena), "ring" (no debug info: by shape; absent: not found).
 * With no arena, "arenas" is [] and "arenaSettings" says why instead:
 *   ,"arenaSettings":{"allocator":"libjemalloc.so.2"}  <- malloc is not glibc's
 *   ,"arenaSettings":{"notMeasured":"gone"}            <- the process ended before they
 *                                                          could be read (--pid: no exit stop)
 * Readers treat both as optional and lenient: a member that is not an integer reads as
 * absent.
 */
#ifndef TRACER_DHAT_ARENAS_H
#define TRACER_DHAT_ARENAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DHAT_ARENAS_KEY		"arenas"
#define DHAT_ARENA_SETTINGS_KEY "arenaSettings"
#define DHAT_ARENAS_MAX		256 /* more are not kept (glibc's default: 8 per core) */
#define DHAT_ARENA_FRAG_MAX	4   /* fragmenters kept per arena */

struct dhat_arena_frag {
	int64_t pp;	 /* program point: the collector's index (writer) or pps' (reader) */
	uint64_t bytes;	 /* whole pages its blocks alone keep from being free */
	uint64_t blocks; /* its live blocks in the arena */
};

struct dhat_arena {
	char name[24]; /* "main" or "0x..." */
	uint64_t system, in_use, free, top_free, trimmable, resident;
	uint64_t fast;	   /* of free: the fastbins' chunks */
	uint64_t fast_cut; /* fastbin lists whose walk ended early (torn or corrupt) */
	uint64_t tcache;   /* not in free: the tcache found at the arena's first chunk holds */
	bool has_tcache;   /* that tcache was found */
	int64_t pin_pp;	    /* program point of the highest live block, -1: none */
	uint64_t pin_bytes; /* that block's size */
	struct dhat_arena_frag frag[DHAT_ARENA_FRAG_MAX];
	size_t frag_cnt;
};

struct dhat_arenas {
	struct dhat_arena *v; /* by address: main first */
	size_t cnt;
	uint64_t mmap_threshold;	/* 0: unknown */
	char mmap_threshold_src[24];	/* "default", "freed mmapped block", "MALLOC_..." */
	uint64_t arena_max;		/* 0: not set (glibc's default) or unknown */
	char arena_max_src[32];		/* where arena_max was read; "" when not */
	char source[24];		/* "chunk walk" or "live blocks" */
	char main_checked[32];		/* how the main arena was found; "" when not */
	/* No arena (cnt 0), and why: */
	char allocator[64];		/* malloc is this library's, not glibc's; "" */
	char not_measured[16];		/* "gone": the process ended first (--pid); "" */
	bool has_settings;
};

/* Write ,"arenas":[...] and ,"arenaSettings":{...}; pp_map maps a collector program point
 * to its written index (NULL: written as they are; an index out of map_cnt: left out). */
void dhat_arenas__write(FILE *f, const struct dhat_arenas *a, const size_t *pp_map,
			size_t map_cnt);

/* Free what a owns; a stays. Accepts NULL. */
void dhat_arenas__release(struct dhat_arenas *a);

/* Reader: a new arena appended (zeroed, pin_pp -1), or NULL on -ENOMEM or past
 * DHAT_ARENAS_MAX. */
struct dhat_arena *dhat_arenas__add(struct dhat_arenas *a);
/* Reader: one scalar member of an arena object. */
void dhat_arena__set(struct dhat_arena *ar, const char *key, const char *str, bool u_ok,
		     uint64_t u);
/* Reader: one member of a fragmenter object. */
void dhat_arena_frag__set(struct dhat_arena_frag *fr, const char *key, bool u_ok, uint64_t u);
/* Reader: one member of "arenaSettings". */
void dhat_arenas__set(struct dhat_arenas *a, const char *key, const char *str, bool u_ok,
		      uint64_t u);

/* Writes the name of program point pp (an index into pps) to out, terminal-safe. */
typedef void (*dhat_arenas_site_fn)(FILE *out, void *ctx, int64_t pp);

/* The arenas in one sentence, two lines indented two spaces: what they hold, free and live;
 * what malloc_trim(0) would return; how much is resident (the section's start, and each
 * --interval table's). Nothing without an arena. */
void dhat_arenas__summary(FILE *out, const struct dhat_arenas *a, bool exact_bytes);

/* The report's "heap vs RSS" section, indented two spaces: the arenas in one sentence, then
 * each by free bytes, its pin and the fragmenters; the settings. when: "end", "exit" or
 * "death". With no arena, one line when the file says why (not glibc's malloc, or gone
 * before they were read), else nothing. */
void dhat_arenas__print(FILE *out, const struct dhat_arenas *a, const char *when, bool exact_bytes,
			dhat_arenas_site_fn site, void *ctx);

#endif

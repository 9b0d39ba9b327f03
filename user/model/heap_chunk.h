/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * heap_chunk - the bytes a heap block really takes in glibc's malloc (x86-64): its chunk,
 * header and rounding included, computed from what the probes see (the requested size and
 * the block's address), since they cannot call malloc_usable_size in the target.
 *
 *   chunk = max(MINSIZE 32, (req + SIZE_SZ 8 + MALLOC_ALIGN_MASK 15) & ~15)
 *   mmapped chunk (req's chunk >= 128 KiB and the block 16 bytes into a page):
 *         (chunk + 8 + 4095) & ~4095, a whole number of pages
 *
 * Checked against each chunk's own size field and malloc_usable_size (glibc 2.36): exact
 * for malloc, calloc and realloc, but a chunk taken whole from a free list when splitting
 * it would leave less than MINSIZE, and an aligned one (memalign family) keeping a tail of
 * MINSIZE: up to 32 bytes more (docs/ACCURACY.md). Whether a large block was mmapped is
 * told by its address, not the mmap threshold, which glibc raises as blocks are freed.
 */
#ifndef TRACER_HEAP_CHUNK_H
#define TRACER_HEAP_CHUNK_H

#include <stdbool.h>
#include <stdint.h>

/* The chunk of a block of req bytes (as the collector records them: malloc(0) is 1) at
 * addr, made by allocator function fn (enum alloc_fn: pvalloc rounds req to pages). */
uint64_t heap_chunk__glibc(uint64_t addr, uint64_t req, uint32_t fn);

/* Whether a block at addr whose chunk (heap_chunk__glibc) is chunk bytes is one of glibc's
 * own mmaps rather than a chunk of an arena. */
bool heap_chunk__glibc_mmapped(uint64_t addr, uint64_t chunk);

#endif

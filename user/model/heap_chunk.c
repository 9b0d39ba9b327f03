// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* glibc's chunk sizes: see heap_chunk.h. The constants are malloc.c's on x86-64. */
#include "heap_chunk.h"

#include "events.h"

#define SIZE_SZ		  8ull
#define MALLOC_ALIGN_MASK 15ull
#define MINSIZE		  32ull
#define PAGE		  4096ull
#define MMAP_THRESHOLD	  (128ull << 10) /* DEFAULT_MMAP_THRESHOLD_MIN: it only grows */

uint64_t heap_chunk__glibc(uint64_t addr, uint64_t req, uint32_t fn)
{
	uint64_t nb;

	/* pymalloc's own blocks (up to 512 bytes, 16-byte size classes) live in its arenas,
	 * not in a malloc chunk: what they take is the size class. */
	if (FN_IS_PY(fn) && req <= 512)
		return (req + 15) & ~(uint64_t)15;
	if (fn == FN_PVALLOC)
		req = (req + PAGE - 1) & ~(PAGE - 1);
	nb = (req + SIZE_SZ + MALLOC_ALIGN_MASK) & ~MALLOC_ALIGN_MASK;
	if (nb < MINSIZE)
		nb = MINSIZE;
	/* An mmapped chunk starts on a page; its user pointer is 2 * SIZE_SZ into it. */
	if (nb >= MMAP_THRESHOLD && addr % PAGE == 2 * SIZE_SZ)
		return (nb + SIZE_SZ + PAGE - 1) & ~(PAGE - 1);
	return nb;
}

bool heap_chunk__glibc_mmapped(uint64_t addr, uint64_t chunk)
{
	return chunk >= MMAP_THRESHOLD && addr % PAGE == 2 * SIZE_SZ && chunk % PAGE == 0;
}

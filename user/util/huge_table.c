// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "huge_table.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE (2u << 20) /* x86-64's PMD page */

/* Whether a table of this many bytes is mapped apart (2 MiB-aligned, huge pages asked for)
 * rather than calloc'ed: one huge page at least, so that it can hold one. */
static int is_huge(size_t bytes)
{
	return bytes >= HUGE_PAGE;
}

/* What a huge table maps: its bytes rounded up to whole huge pages. */
static size_t mapped_len(size_t bytes)
{
	return (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
}

void *huge_table__alloc(size_t n, size_t sz)
{
	size_t bytes, len, span;
	uintptr_t base, start;
	void *m;

	if (sz && n > SIZE_MAX / sz) {
		errno = ENOMEM;
		return NULL;
	}
	bytes = n * sz;
	if (!is_huge(bytes))
		return calloc(n, sz);
	/* Over-map by a huge page and trim to 2 MiB alignment: THP backs only aligned 2 MiB
	 * ranges. Anonymous memory is zeroed. */
	len = mapped_len(bytes);
	span = len + HUGE_PAGE;
	if (len < bytes || span < len) {
		errno = ENOMEM;
		return NULL;
	}
	m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	base = (uintptr_t)m;
	start = (base + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (start > base)
		munmap(m, start - base);
	if (base + span > start + len)
		munmap((void *)(start + len), base + span - (start + len));
	/* A refusal (THP "never", an old kernel) leaves small pages: the same table, slower. */
	(void)madvise((void *)start, len, MADV_HUGEPAGE);
	return (void *)start;
}

void huge_table__free(void *p, size_t n, size_t sz)
{
	if (!p)
		return;
	if (is_huge(n * sz))
		munmap(p, mapped_len(n * sz));
	else
		free(p);
}

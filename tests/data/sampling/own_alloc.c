// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A preloaded allocator whose realloc never calls its own exported malloc or free (all go
 * through internal functions), unlike glibc's: for tests/sampling_e2e.c, where an
 * unsampled realloc of such an allocator must keep its return trap. A bump allocator over
 * one large mapping with a size header, and a free list per size (the test program uses
 * a handful of sizes). Not thread-safe (the test program has one thread).
 */
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA (1ul << 30)

static char *arena, *next;

/* Freed blocks by size: LISTS sizes at most, each a stack threaded through the blocks. */
#define LISTS 32
static struct {
	size_t n;
	void *head;
} lists[LISTS];

static void **list_of(size_t n, int make)
{
	for (int i = 0; i < LISTS; i++) {
		if (lists[i].n == n)
			return &lists[i].head;
		if (!lists[i].n && make) {
			lists[i].n = n;
			return &lists[i].head;
		}
	}
	return NULL;
}

__attribute__((noinline)) static void *own_alloc(size_t n)
{
	size_t *h;

	if (!arena) {
		arena = mmap(NULL, ARENA, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (arena == MAP_FAILED)
			return arena = NULL;
		next = arena;
	}
	n = (n + 15) & ~(size_t)15;
	void **l = list_of(n, 0);

	if (l && *l) {
		void *p = *l;

		*l = *(void **)p;
		return p;
	}
	if ((size_t)(next - arena) + n + 16 > ARENA)
		return NULL;
	h = (size_t *)next;
	*h = n;
	next += n + 16;
	return h + 2;
}

void *malloc(size_t n)
{
	return own_alloc(n);
}

__attribute__((noinline)) static void own_free(void *p)
{
	void **l;

	if (!p || !(l = list_of(((size_t *)p)[-2], 1)))
		return;
	*(void **)p = *l;
	*l = p;
}

void free(void *p)
{
	own_free(p);
}

void *calloc(size_t k, size_t n)
{
	void *p = own_alloc(k * n);

	if (p)
		memset(p, 0, k * n);
	return p;
}

void *realloc(void *p, size_t n)
{
	void *q;

	if (!p)
		return own_alloc(n);
	q = own_alloc(n);
	if (q) {
		size_t old = ((size_t *)p)[-2];

		memcpy(q, p, old < n ? old : n);
		own_free(p);
	}
	return q;
}

// SPDX-License-Identifier: MIT
/*
 * alloc_script.h - the fixed set of allocator calls made by jemalloc_static.c and
 * mimalloc_prog.c, so both programs make the same calls and only the allocator differs.
 *
 * The program counts its own calls and requested bytes and prints them with write(2):
 * printf would malloc a stdout buffer and add a block the script does not count.
 * Counting follows Valgrind DHAT: every malloc/calloc/realloc/posix_memalign that returns a
 * block is one block of the requested size (a realloc is a new block of its new size).
 */
#ifndef ALLOC_SCRIPT_H
#define ALLOC_SCRIPT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

struct alloc_counts {
	unsigned long blocks; /* blocks returned by the allocator */
	unsigned long bytes;  /* bytes requested in those blocks */
	unsigned long frees;  /* free() calls on a non-NULL pointer */
	unsigned long live_blocks, live_bytes; /* still allocated at exit (the leak) */
};

/* Stops the compiler from proving a block unused and dropping the call. */
static void *volatile alloc_sink;

NOINLINE static void *as_count(struct alloc_counts *c, void *p, size_t n)
{
	if (p) {
		c->blocks++;
		c->bytes += n;
		memset(p, 0x5a, n);
	}
	alloc_sink = p;
	return p;
}

NOINLINE static void as_free(struct alloc_counts *c, void *p)
{
	if (p)
		c->frees++;
	free(p);
}

/* The script: 15 malloc, 2 calloc, 3 realloc, 2 posix_memalign; one malloc(777) leaks. */
static void alloc_script_run(struct alloc_counts *c)
{
	static const size_t sizes[] = { 1, 16, 24, 100, 4096, 100000 };
	void *blk[8], *a;
	size_t i;
	char *r;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		blk[i] = as_count(c, malloc(sizes[i]), sizes[i]);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		as_free(c, blk[i]);
	for (i = 0; i < 7; i++) /* a small-size burst, freed in reverse */
		blk[i] = as_count(c, malloc(32 + 8 * i), 32 + 8 * i);
	while (i--)
		as_free(c, blk[i]);
	as_free(c, as_count(c, calloc(10, 24), 240));
	as_free(c, as_count(c, calloc(1, 65536), 65536));
	r = as_count(c, malloc(50), 50);
	r = as_count(c, realloc(r, 500), 500);
	r = as_count(c, realloc(r, 5000), 5000);
	r = as_count(c, realloc(r, 20), 20);
	as_free(c, r);
	if (posix_memalign(&a, 64, 1000) == 0)
		as_free(c, as_count(c, a, 1000));
	if (posix_memalign(&a, 4096, 8192) == 0)
		as_free(c, as_count(c, a, 8192));
	as_count(c, malloc(777), 777); /* the leak */
	c->live_blocks = 1;
	c->live_bytes = 777;
}

/* Print the counts on stdout with write(2), prefixed by NAME. */
static void alloc_script_print(const char *name, const struct alloc_counts *c)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "%s: blocks %lu bytes %lu frees %lu live %lu/%lu\n", name,
			 c->blocks, c->bytes, c->frees, c->live_blocks, c->live_bytes);

	if (n > 0 && write(1, buf, (size_t)n) < 0)
		_exit(1);
}

#endif

// SPDX-License-Identifier: MIT
/*
 * exec_chain - allocations two noinline calls deep, then (with an argument) an exec of the
 * program named, in the same process. Built twice without PIE and frame pointers
 * (tests/unwind_modes.cmake): PAD 256 and PAD 4096 give the same code at the same addresses
 * except mid()'s frame size, so the second image's return addresses are the first's with
 * other CFI rows. An in-kernel unwinder that kept a row of the first image for the second
 * (its per-CPU row cache across an exec) unwinds the second one wrong.
 */
#include <stdlib.h>
#include <unistd.h>

#ifndef PAD
#define PAD 256
#endif
#define NOINLINE __attribute__((noinline))

static void *volatile sink;

NOINLINE void *leaf(size_t n)
{
	void *p = malloc(n);

	sink = p;
	return p;
}

/* The frame whose size differs between the two builds (CFA = rsp + PAD + ...). */
NOINLINE void *mid(size_t n)
{
	volatile char pad[PAD];
	void *p;

	pad[7] = (char)n;
	p = leaf(n + (size_t)pad[7]);
	sink = p;
	return p;
}

int main(int argc, char **argv)
{
	for (int i = 0; i < 200; i++)
		free(mid((size_t)i + 1));
	if (argc > 1)
		execv(argv[1], argv + 1);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * levels - allocations three noinline calls deep, built -O2 -fomit-frame-pointer (see
 * tests/dwarf.cmake): a frame-pointer walk stops in the first frame, a DWARF unwind must
 * name level3 <- level2 <- level1 <- main exactly as Valgrind does. Two call sites in main
 * reach the levels, so equal inner frames with different callers stay separate program
 * points. Exit status 0.
 */
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static void *volatile sink;
static volatile int depth_sink;

/* Innermost: malloc, calloc and a realloc, with a stack buffer so the frame is not tiny. */
NOINLINE void *level3(size_t n, int kind)
{
	volatile char pad[64];
	void *p;

	pad[n & 63] = (char)n;
	if (kind == 0)
		p = malloc(n);
	else if (kind == 1)
		p = calloc(n, 2);
	else
		p = realloc(malloc(n), 3 * n);
	sink = p;
	depth_sink += pad[(n + 1) & 63];
	return p;
}

/* Keeps values across the call: callee-saved registers, CFA = rsp + N. */
NOINLINE void *level2(size_t n, int kind)
{
	void *p = level3(n + 8, kind);

	depth_sink += (int)n;
	return p;
}

NOINLINE void *level1(size_t n, int kind)
{
	void *p = level2(n * 2, kind);

	depth_sink += kind;
	return p;
}

int main(int argc, char **argv)
{
	void *keep[6];
	int i;

	(void)argv;
	for (i = 0; i < 3; i++)
		keep[i] = level1(16 + (size_t)argc, i); /* first call site */
	for (i = 0; i < 3; i++)
		keep[3 + i] = level1(100, i); /* second call site */
	free(keep[0]);
	free(keep[4]);
	sink = keep;
	return depth_sink == -1;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Traced by debuginfo_e2e: `debuginfo_prog N` makes N allocations (default 32) in one named
 * function, kept until exit. Built with -g, then split into a stripped binary (no symbols at
 * all: its frames are only named through the separate debug file) and that debug file.
 */
#include <stdlib.h>

__attribute__((noinline)) void *debuginfo_leaf_alloc(size_t sz)
{
	void *p = malloc(sz);

	/* Kept visible to the compiler: the call stays a call. */
	__asm__ volatile("" : : "r"(p) : "memory");
	return p;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 32;

	for (int i = 0; i < n; i++)
		debuginfo_leaf_alloc(64 + (size_t)i);
	return 0;
}

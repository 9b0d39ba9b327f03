// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A profile that loses things, deterministically: traced with --start-at window_open, the
 * block allocated before the window is an unknown free inside it; with --unwind dwarf
 * --stack-size 64, deep()'s 4 KiB frame is beyond the copied stack, so its allocation's
 * stack stops at deep (cut short before the entry).
 */
#include <stdlib.h>

__attribute__((noinline)) void window_open(void)
{
	__asm__ volatile("");
}

__attribute__((noinline)) static void *deep(size_t n)
{
	volatile char buf[4096];
	void *p;

	buf[0] = 1;
	p = malloc(n);
	buf[sizeof(buf) - 1] = 2;
	return p;
}

int main(void)
{
	void *early = malloc(10);

	window_open();
	free(early);
	free(deep(20));
	free(malloc(30));
	return 0;
}

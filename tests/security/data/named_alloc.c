// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A traced program as an attacker writes it, for tests/security: the function that
 * allocates is named with terminal escape sequences (an OSC that retitles the terminal, a
 * clear-screen CSI), through a quoted asm label, as any compiler-generated name could be.
 *
 *   named_alloc        allocate three blocks through that function and exit
 *   named_alloc wait   print "ready ADDR" (the function's address) and wait for stdin to
 *                      close, so a test can symbolize the running process
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVIL_NAME "\"evil\033]0;pwned\007\033[2J\""

__attribute__((noinline)) void *evil_alloc(size_t n) __asm__(EVIL_NAME);

__attribute__((noinline)) void *evil_alloc(size_t n)
{
	void *p = malloc(n);

	__asm__ volatile("" ::: "memory"); /* keep the call a call */
	return p;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "wait")) {
		printf("ready %p\n", (void *)evil_alloc);
		fflush(stdout);
		while (getchar() != EOF)
			;
		return 0;
	}
	for (int i = 0; i < 3; i++)
		free(evil_alloc(100 + (size_t)i));
	return 0;
}

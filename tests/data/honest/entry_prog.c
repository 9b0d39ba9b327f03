// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Allocates at three sites, from main and from two helpers, with frame pointers; the build
 * strips it (honest.cmake), so no frame of it is named, not even main. Every stack still
 * reaches the entry (__libc_start_call_main, _start): none may be counted as cut short.
 */
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static char *copy(const char *s)
{
	char *p = malloc(strlen(s) + 1);

	return p ? strcpy(p, s) : NULL;
}

__attribute__((noinline)) static void *table(size_t n)
{
	return calloc(n, sizeof(long));
}

int main(void)
{
	for (int i = 0; i < 10; i++) {
		char *s = copy("entry");
		void *t = table(16);
		void *b = malloc(100 + i);

		free(s);
		free(t);
		free(b);
	}
	return 0;
}

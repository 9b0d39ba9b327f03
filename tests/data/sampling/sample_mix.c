// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program whose heap figures are known exactly, for tests/sampling_e2e.c: ROUNDS
 * times, one block of each size in SIZES from its own function (its own program point),
 * then the 200-byte block grown to 400 bytes by realloc and a 3000-byte block made by
 * realloc(NULL, 3000) (glibc: a tail jump to malloc); every LEAK_EVERY-th round's
 * blocks stay live to the end, all others are freed. No stdio: nothing else allocates.
 * The constants are repeated in the test (sampling_e2e.c, MIX_*).
 */
#include <stdlib.h>
#include <string.h>

#define ROUNDS	   20000
#define LEAK_EVERY 100

/* One function per size: each is a program point of its own. */
#define ALLOC_FN(n)                                                                                \
	__attribute__((noinline)) static char *alloc_##n(void)                                     \
	{                                                                                          \
		return malloc(n);                                                                  \
	}
ALLOC_FN(24)
ALLOC_FN(200)
ALLOC_FN(1500)
ALLOC_FN(9000)
ALLOC_FN(70000)

__attribute__((noinline)) static char *alloc_r3000(void)
{
	char *volatile none = NULL; /* else the compiler makes realloc(NULL, n) a malloc(n) */

	return realloc(none, 3000);
}

__attribute__((noinline)) static char *grow_400(char *p)
{
	return realloc(p, 400);
}

int main(void)
{
	for (int r = 0; r < ROUNDS; r++) {
		char *b[6] = {alloc_24(),   alloc_200(),   alloc_1500(),
			      alloc_9000(), alloc_70000(), alloc_r3000()};

		b[1] = grow_400(b[1]);
		for (int i = 0; i < 6; i++) {
			if (!b[i])
				return 1;
			b[i][0] = (char)r; /* touched: not optimized away */
		}
		if (r % LEAK_EVERY == 0)
			continue;
		for (int i = 0; i < 6; i++)
			free(b[i]);
	}
	return 0;
}

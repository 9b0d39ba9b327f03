// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The prog.c example of dhat-format.md §7.1, run under `valgrind --tool=dhat` by
 * tests/report_unit.c to check that the report reads a real Valgrind file:
 * total 526 bytes in 7 blocks, t-gmax 280 bytes in 2 blocks, t-end 32 bytes in 1 block.
 * Built with -O0 so that no allocation is optimized away.
 */
#include <stdlib.h>
#include <string.h>

static void *volatile sink;

static long *make_table(void)
{
	long *t = calloc(10, sizeof(long));

	t[0] = 1;
	return t;
}

static char *grow_buffer(void)
{
	char *b = malloc(100);

	memset(b, 'x', 100);
	b = realloc(b, 200);
	b = realloc(b, 50);
	return b;
}

int main(void)
{
	long *table = make_table();
	char *buf = grow_buffer();
	char *small[3];

	for (int i = 0; i < 3; i++) {
		small[i] = malloc(32);
		small[i][0] = (char)i;
	}
	free(small[0]);
	free(small[1]);
	free(table);
	free(buf);
	sink = small[2]; /* leaked on purpose */
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Run twice under `valgrind --tool=dhat` by tests/diff_unit.c, as `vg_diff_prog 1` and
 * `vg_diff_prog 2`, to diff two real Valgrind files that differ in known ways:
 *
 *	stack                          N=1               N=2               change
 *	make_table (calloc 80)         80 B / 1          80 B / 1          unchanged
 *	grow (malloc N*100, realloc)   100+200 / 2       200+400 / 2       +300 B, 0 blocks
 *	small (N*3 x malloc 32)        96 / 3, 1 leaked  192 / 6, 2 leaked +96 B +3 blocks, end +32
 *	only_once (malloc 500, N==1)   500 / 1           -                 removed
 *	only_twice (malloc 1000, N>1)  -                 1000 / 1 leaked   added, end +1000
 *
 * Built with -O0 so that no allocation is optimized away; no other allocation happens.
 */
#include <stdlib.h>
#include <string.h>

static void *volatile sink[16];

static long *make_table(void)
{
	long *t = calloc(10, sizeof(long));

	t[0] = 1;
	return t;
}

static char *grow(int n)
{
	char *b = malloc((size_t)n * 100);

	memset(b, 'x', (size_t)n * 100);
	return realloc(b, (size_t)n * 200);
}

static void small(int n)
{
	char *p[16];

	for (int i = 0; i < 3 * n; i++)
		p[i] = malloc(32);
	for (int i = 0; i < 3 * n; i++) {
		if (i % 3 == 2)
			sink[i] = p[i]; /* leaked: one per 3 */
		else
			free(p[i]);
	}
}

static void only_once(void)
{
	free(malloc(500));
}

static void only_twice(void)
{
	sink[15] = malloc(1000); /* leaked */
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	long *table;
	char *buf;

	if (n < 1 || n > 4)
		return 2;
	table = make_table();
	buf = grow(n);
	small(n);
	if (n == 1)
		only_once();
	else
		only_twice();
	free(buf);
	free(table);
	return 0;
}

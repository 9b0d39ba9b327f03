// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Traced by tests/diff_ci_e2e.c, built three ways: as is (110,640 bytes in 151 blocks);
 * with a comment line inserted at the top (every line moves, nothing else changes); with
 * -DTABLE_ROWS=112, the planted regression (load_table 100,000 -> 112,000 bytes, the total
 * +12,000, +10.8%). deep() allocates 20 calls down, deeper than Valgrind's 12 frames, for
 * the Valgrind-vs-ours --depth check.
 */
#include <stdlib.h>
#include <string.h>

#ifndef TABLE_ROWS
#define TABLE_ROWS 100
#endif

static void *volatile keep[256];

static void load_table(void)
{
	for (int i = 0; i < TABLE_ROWS; i++) {
		keep[i] = malloc(1000);
		memset(keep[i], 'x', 1000);
	}
}

static void parse(void)
{
	for (int i = 0; i < 50; i++)
		free(malloc(200));
}

static void deep(int n)
{
	if (n)
		deep(n - 1);
	else
		free(malloc(640));
}

int main(void)
{
	load_table();
	parse();
	deep(20);
	for (int i = 0; i < TABLE_ROWS; i++)
		free(keep[i]);
	return 0;
}

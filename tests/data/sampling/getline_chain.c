// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Realloc chains through a libc helper, for tests/sampling_e2e.c: ROUNDS times, a
 * memory stream of two lines, a short one read by first_line() (getline mallocs the line
 * buffer: a block born in the helper) and a 3000-character one read by second_line() into
 * the same buffer (getline grows it by realloc: a block from before the helper, resized in
 * it). So every block first_line's getline makes is realloc'd by second_line's, the chain
 * sampled mode must mark (bpf/alloc.bpf.c, net_emit).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS	 20000
#define LONG_LEN 3000

static char text[3 + LONG_LEN + 2];

__attribute__((noinline)) static ssize_t first_line(char **line, size_t *n, FILE *f)
{
	return getline(line, n, f);
}

__attribute__((noinline)) static ssize_t second_line(char **line, size_t *n, FILE *f)
{
	return getline(line, n, f);
}

int main(void)
{
	memcpy(text, "ab\n", 3);
	memset(text + 3, 'x', LONG_LEN);
	text[3 + LONG_LEN] = '\n';
	for (int r = 0; r < ROUNDS; r++) {
		FILE *f = fmemopen(text, 3 + LONG_LEN + 1, "r");
		char *line = NULL;
		size_t n = 0;

		if (!f || first_line(&line, &n, f) != 3 || second_line(&line, &n, f) != LONG_LEN + 1)
			return 1;
		free(line);
		fclose(f);
	}
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * libc_paths - allocations made through libc code that has no frame pointers (Debian's
 * libc): strdup, a qsort comparator that allocates, getline. Built -O2
 * -fomit-frame-pointer like the other DWARF fixtures. With `tracer --unwind dwarf` every
 * stack must run through libc back to main. Exit status 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static void *volatile sink;

/* strdup: a libc helper charged to its caller. */
NOINLINE static char *dup_site(const char *s)
{
	char *p = strdup(s);

	sink = p;
	return p;
}

/* Called by qsort's merge sort (libc, no frame pointers): 24 bytes per comparison. */
NOINLINE static int cmp_alloc(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	int *scratch = malloc(24);

	sink = scratch;
	scratch[0] = x - y;
	free(scratch);
	return (x > y) - (x < y);
}

NOINLINE static void sort_site(int n)
{
	int *v = malloc((size_t)n * sizeof(*v));

	for (int i = 0; i < n; i++)
		v[i] = (i * 7919) % n;
	qsort(v, (size_t)n, sizeof(*v), cmp_alloc);
	sink = v;
	free(v);
}

/* getline on a stream: the line buffer (and the stream's own buffer) come from libc. */
NOINLINE static size_t line_site(FILE *f)
{
	char *line = NULL;
	size_t cap = 0, total = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, f)) > 0)
		total += (size_t)n;
	sink = line;
	free(line);
	return total;
}

int main(int argc, char **argv)
{
	FILE *f = fopen(argv[0], "r"); /* any readable file: our own binary */
	char *d = dup_site(argv[0]);

	sort_site(32 + argc);
	if (f) {
		line_site(f);
		fclose(f);
	}
	free(d);
	return 0;
}

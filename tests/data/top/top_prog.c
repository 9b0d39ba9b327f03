// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A steady allocator for `tracer top` (tests/top_e2e.c): every 10 ms grow_cache keeps one
 * more 1 KiB block (live bytes that only grow: the top row by live bytes) and churn_buffers
 * allocates and frees eight 256-byte blocks (the top row by count, nothing left live).
 * Writes nothing on stdout (top draws there). Runs until killed, or argv[1] seconds.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Global and written: no compiler may drop the kept blocks. */
void *kept[1 << 16];
size_t kept_cnt;

__attribute__((noinline)) static void grow_cache(void)
{
	void *p = malloc(1024);

	if (p)
		memset(p, 1, 1024);
	if (kept_cnt < sizeof(kept) / sizeof(kept[0]))
		kept[kept_cnt++] = p;
	else
		free(p);
}

__attribute__((noinline)) static void churn_buffers(void)
{
	for (int i = 0; i < 8; i++) {
		char *volatile p = malloc(256);

		if (p)
			p[0] = (char)i;
		free(p);
	}
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 600;
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	for (long turn = 0; turn < (long)(secs * 100); turn++) {
		grow_cache();
		churn_buffers();
		nanosleep(&tick, NULL);
	}
	return 0;
}

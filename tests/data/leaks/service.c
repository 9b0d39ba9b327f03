// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A long-running "service" for the --interval / SIGUSR1 tests (tests/leaks_e2e_test.c): every
 * 10 ms it leaks one 1 KiB block at leak_slowly, and churn_young allocates a 4 KiB block that
 * it frees 4 turns later (blocks that never grow older than ~40 ms). It writes READY_FILE
 * (argv[1]) after its first turn and runs until killed, or argv[2] seconds (a bound).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RING 4

/* Global and written: no compiler may drop the leaked blocks (an unread static could be). */
void *leaked[1 << 16];
size_t leaked_cnt;

__attribute__((noinline)) static void leak_slowly(void)
{
	void *p = malloc(1024);

	if (p)
		memset(p, 1, 1024);
	if (leaked_cnt < sizeof(leaked) / sizeof(leaked[0]))
		leaked[leaked_cnt++] = p;
}

__attribute__((noinline)) static void churn_young(void **ring, size_t turn)
{
	free(ring[turn % RING]);
	ring[turn % RING] = malloc(4096);
	if (ring[turn % RING])
		memset(ring[turn % RING], 2, 4096);
}

int main(int argc, char **argv)
{
	void *ring[RING] = { 0 };
	double bound = argc > 2 ? atof(argv[2]) : 600;
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	if (argc < 2) {
		fprintf(stderr, "usage: %s READY_FILE [SECONDS]\n", argv[0]);
		return 2;
	}
	for (size_t turn = 0; turn < (size_t)(bound * 100); turn++) {
		leak_slowly();
		churn_young(ring, turn);
		if (turn == 0) {
			FILE *f = fopen(argv[1], "w");

			if (f)
				fclose(f);
		}
		nanosleep(&tick, NULL);
	}
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A long-running "service" for the --interval / SIGUSR1 tests (tests/leaks_e2e.c): every
 * 10 ms it leaks one 1 KiB block at leak_slowly, and churn_young allocates a 4 KiB block that
 * it frees 4 turns later (blocks that never grow older than ~40 ms). After each turn's
 * allocations it appends a line to READY_FILE (argv[1]): the file appears after the first
 * turn, and its lines tell a test that turns ran after some moment (say, the tracer's
 * attach). Runs until killed, or argv[2] seconds (a bound).
 */
#include <fcntl.h>
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
	int ready = -1;

	if (argc < 2) {
		fprintf(stderr, "usage: %s READY_FILE [SECONDS]\n", argv[0]);
		return 2;
	}
	for (size_t turn = 0; turn < (size_t)(bound * 100); turn++) {
		leak_slowly();
		churn_young(ring, turn);
		if (ready < 0)
			ready = open(argv[1], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (ready >= 0 && write(ready, "\n", 1) != 1)
			return 1;
		nanosleep(&tick, NULL);
	}
	return 0;
}

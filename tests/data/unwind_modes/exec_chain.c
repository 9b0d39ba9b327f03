// SPDX-License-Identifier: MIT
/*
 * exec_chain - allocations two noinline calls deep, then (with an argument) an exec of the
 * program named, in the same process. Built twice without PIE and frame pointers
 * (tests/unwind_modes.cmake): PAD 256 and PAD 4096 give the same code at the same addresses
 * except mid()'s frame size, so the second image's return addresses are the first's with
 * other CFI rows. An in-kernel unwinder that kept a row of the first image for the second
 * (its per-CPU row cache across an exec) unwinds the second one wrong.
 *
 *   exec_chain [PROGRAM ARGS...]           200 blocks, then exec PROGRAM if given
 *   exec_chain --together SELF OTHER N     create the file SELF, wait for OTHER to exist,
 *                                          then N blocks on the first CPU it may run on,
 *                                          yielding it after each one
 * --together runs the two builds at once, on one CPU, taking turns (kernel_unwind_e2e): two
 * processes whose return addresses are equal and whose rows differ, in one CPU's row cache.
 * mid()'s pad is filled, so a row of the other build reads no zero (an end of stack) there.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef PAD
#define PAD 256
#endif
#define NOINLINE __attribute__((noinline))

static void *volatile sink;
/* A size the compiler cannot see: the same memset call in both builds (a constant one is
 * inlined for one PAD and not the other, which moves the code). */
static volatile size_t pad_len = PAD;

NOINLINE void *leaf(size_t n)
{
	void *p = malloc(n);

	sink = p;
	return p;
}

/* The frame whose size differs between the two builds (CFA = rsp + PAD + ...). */
NOINLINE void *mid(size_t n)
{
	volatile char pad[PAD];
	void *p;

	memset((char *)pad, 0x5a, pad_len);
	pad[7] = (char)n;
	p = leaf(n + (size_t)pad[7]);
	sink = p;
	return p;
}

/* No stdio, no allocation: only mid()'s blocks are in the profile. */
static int together(const char *self, const char *other, int n)
{
	struct timespec ms = { 0, 1000 * 1000 };
	cpu_set_t set;
	struct stat st;
	int fd, cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set); cpu++)
		;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return 1;
	fd = open(self, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return 1;
	close(fd);
	while (stat(other, &st))
		nanosleep(&ms, NULL);
	for (int i = 0; i < n; i++) {
		free(mid((size_t)(i & 255) + 1));
		sched_yield();
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--together"))
		return together(argv[2], argv[3], atoi(argv[4]));
	for (int i = 0; i < 200; i++)
		free(mid((size_t)i + 1));
	if (argc > 1)
		execv(argv[1], argv + 1);
	return 0;
}

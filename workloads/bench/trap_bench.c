// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * trap_bench - what one probe trap costs on this host (workloads/bench/run.sh --traps).
 *
 *   trap_bench push N      N calls of an empty function starting with a push (like malloc):
 *                          run untraced, then with a no-op uprobe or uretprobe on trap_bench_push
 *   trap_bench test N      the same, starting with a test (like free): trap_bench_test
 *   trap_bench syscall N   N getppid() system calls: a kernel entry and exit without a trap,
 *                          to tell "every kernel entry is slow" from "traps are slow"
 *
 * Prints "<mode> calls=N ns_per_call=X wall_ns_per_call=Y" on stdout, timed around the loop
 * alone (start-up and the tool's attach are outside it), best of 5 rounds. ns_per_call is
 * the thread's CPU time (user + kernel, the trap handler included): on a loaded machine the
 * wall time also counts the time other processes ran, which a trap-heavy loop gives up at
 * every return to user space.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The probe sites, empty functions: push first (as malloc: the kernel emulates a push, one
 * trap a hit) and test first (as free: single-stepped out of line, a second exception). */
void trap_bench_push(void);
void trap_bench_test(void);
__asm__(".text\n"
	".globl trap_bench_push\n.type trap_bench_push, @function\n"
	"trap_bench_push:\n	push %rbp\n	pop %rbp\n	ret\n"
	".size trap_bench_push, . - trap_bench_push\n"
	".globl trap_bench_test\n.type trap_bench_test, @function\n"
	"trap_bench_test:\n	test %rdi, %rdi\n	ret\n"
	".size trap_bench_test, . - trap_bench_test\n");

static double now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	double best = 0, best_wall = 0;

	if (argc != 3 || n <= 0 || (strcmp(argv[1], "push") && strcmp(argv[1], "test") &&
				      strcmp(argv[1], "syscall"))) {
		fprintf(stderr, "usage: trap_bench push|test|syscall N\n");
		return 2;
	}
	for (int round = 0; round < 5; round++) {
		double c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), w0 = now_ns(CLOCK_MONOTONIC), t, w;

		if (!strcmp(argv[1], "push"))
			for (long i = 0; i < n; i++)
				trap_bench_push();
		else if (!strcmp(argv[1], "test"))
			for (long i = 0; i < n; i++)
				trap_bench_test();
		else
			for (long i = 0; i < n; i++)
				syscall(SYS_getppid);
		t = (now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / (double)n;
		w = (now_ns(CLOCK_MONOTONIC) - w0) / (double)n;
		if (round == 0 || t < best)
			best = t;
		if (round == 0 || w < best_wall)
			best_wall = w;
	}
	printf("%s calls=%ld ns_per_call=%.1f wall_ns_per_call=%.1f\n", argv[1], n, best, best_wall);
	return 0;
}

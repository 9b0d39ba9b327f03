// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Symbolizer throughput: 100k distinct addresses spread over the executable mappings of a
 * process, cold and then cached. Prints the rates; asserts only that every address got
 * frames (no timing assertions: CI machines vary).
 *  - C: a fixture process's binary, libsymfix, libc with its debug file, ld.so, vdso;
 *  - Rust: rsfix (tests/unwind.cmake, when rustc is found), std's code with its inlined
 *    frames named by their demangled linkage names.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_timeout.h"
#include "symbolizer.h"
#include "symbolizer_fixture.h"

#define BENCH_ADDRS 100000

struct range {
	unsigned long long start, end;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The executable mappings of pid (only those of path only, if not NULL). Returns the count. */
static int exec_ranges(pid_t pid, const char *only, struct range *r, int max,
		       unsigned long long *total)
{
	char path[64], line[4096], perms[8];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	*total = 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s", &r[n].start, &r[n].end, perms) != 3 ||
		    perms[2] != 'x' || strstr(line, "[vsyscall]") || (only && !strstr(line, only)))
			continue;
		*total += r[n].end - r[n].start;
		n++;
	}
	fclose(f);
	return n;
}

/* Symbolize every address once; returns the total frames. */
static long run(struct symbolizer *s, const unsigned long long *addrs, int cnt, struct strvec *out)
{
	long frames = 0;

	for (int i = 0; i < cnt; i++) {
		int n = symbolizer__frames(s, addrs[i], true, out);

		cr_assert_gt(n, 0, "address 0x%llx: %d", addrs[i], n);
		frames += n;
		strvec__clear(out);
	}
	return frames;
}

/*
 * Symbolize BENCH_ADDRS addresses spread over r[0..n) with a new symbolizer for pid, once
 * cold and once cached, and print the rates under label.
 */
static void bench(const char *label, pid_t pid, const struct range *r, int n,
		  unsigned long long total)
{
	static unsigned long long addrs[BENCH_ADDRS];
	unsigned long long stride = total / BENCH_ADDRS ? total / BENCH_ADDRS : 1;
	struct strvec out = {0};
	struct symbolizer *s;
	double t0, t1, t2, t3;
	long frames;
	int cnt = 0;

	for (int i = 0; i < n && cnt < BENCH_ADDRS; i++) {
		for (unsigned long long a = r[i].start + 1; a < r[i].end && cnt < BENCH_ADDRS;
		     a += stride)
			addrs[cnt++] = a;
	}
	cr_assert_gt(cnt, 0);
	t0 = now_s();
	s = symbolizer__new(pid);
	cr_assert_not_null(s);
	t1 = now_s();
	frames = run(s, addrs, cnt, &out);
	t2 = now_s();
	run(s, addrs, cnt, &out);
	t3 = now_s();
	fprintf(stderr,
		"symbolizer bench (%s): %d distinct addresses over %d mappings (%llu KiB): "
		"new %.1f ms, cold %.1f ms (%.0f addr/s, %.2f frames/addr), cached %.1f ms "
		"(%.0f addr/s)\n",
		label, cnt, n, total / 1024, (t1 - t0) * 1e3, (t2 - t1) * 1e3, cnt / (t2 - t1),
		(double)frames / cnt, (t3 - t2) * 1e3, cnt / (t3 - t2));
	strvec__release(&out);
	symbolizer__free(s);
}

Test(symbolizer_bench, distinct_addresses_100k, .timeout = TEST_TIMEOUT(120))
{
	struct range r[64];
	unsigned long long total;
	struct symfix fix;
	int n;

	cr_assert_eq(symfix__start(&fix, SYMFIX_DIR "/symfix_pie"), 0);
	n = exec_ranges(fix.pid, NULL, r, 64, &total);
	bench("C", fix.pid, r, n, total);
	symfix__stop(&fix);
}

/*
 * The Rust fixture's own mapping only: std's code, where most frames are inlined ones. It
 * is only mapped, never run: a ptrace stop at its exec, killed once the symbolizer has it.
 */
Test(symbolizer_bench, rust_distinct_addresses_100k, .timeout = TEST_TIMEOUT(120))
{
#ifndef SYMBENCH_RUST_BIN
	cr_skip_test("no Rust fixture (rustc not found when configuring)");
#else
	struct range r[8];
	unsigned long long total;
	pid_t pid;
	int n, st;

	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execl(SYMBENCH_RUST_BIN, SYMBENCH_RUST_BIN, (char *)NULL);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSTOPPED(st), "no exec stop: 0x%x", st);
	n = exec_ranges(pid, SYMBENCH_RUST_BIN, r, 8, &total);
	cr_assert_gt(n, 0);
	bench("Rust", pid, r, n, total);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
#endif
}

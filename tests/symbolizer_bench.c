// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Symbolizer throughput: 100k distinct addresses spread over every executable mapping of a
 * fixture process (its binary, libsymfix, libc with its debug file, ld.so, vdso), cold and
 * then cached. Prints the rates; asserts only that every address got frames (no timing
 * assertions: CI machines vary).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* The executable mappings of pid. Returns the count. */
static int exec_ranges(pid_t pid, struct range *r, int max, unsigned long long *total)
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
		    perms[2] != 'x' || strstr(line, "[vsyscall]"))
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

Test(symbolizer_bench, distinct_addresses_100k, .timeout = 120)
{
	static unsigned long long addrs[BENCH_ADDRS];
	struct range r[64];
	unsigned long long total, stride;
	struct strvec out = {0};
	struct symbolizer *s;
	struct symfix fix;
	double t0, t1, t2, t3;
	long frames;
	int n, cnt = 0;

	cr_assert_eq(symfix__start(&fix, SYMFIX_DIR "/symfix_pie"), 0);
	n = exec_ranges(fix.pid, r, 64, &total);
	stride = total / BENCH_ADDRS ? total / BENCH_ADDRS : 1;
	for (int i = 0; i < n && cnt < BENCH_ADDRS; i++) {
		for (unsigned long long a = r[i].start + 1; a < r[i].end && cnt < BENCH_ADDRS;
		     a += stride)
			addrs[cnt++] = a;
	}
	t0 = now_s();
	s = symbolizer__new(fix.pid);
	cr_assert_not_null(s);
	t1 = now_s();
	frames = run(s, addrs, cnt, &out);
	t2 = now_s();
	run(s, addrs, cnt, &out);
	t3 = now_s();
	fprintf(stderr,
		"symbolizer bench: %d distinct addresses over %d mappings (%llu KiB): "
		"new %.1f ms, cold %.1f ms (%.0f addr/s, %.2f frames/addr), cached %.1f ms "
		"(%.0f addr/s)\n",
		cnt, n, total / 1024, (t1 - t0) * 1e3, (t2 - t1) * 1e3, cnt / (t2 - t1),
		(double)frames / cnt, (t3 - t2) * 1e3, cnt / (t3 - t2));
	strvec__release(&out);
	symbolizer__free(s);
	symfix__stop(&fix);
}

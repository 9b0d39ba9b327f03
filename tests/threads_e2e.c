/*
 * End-to-end: who allocated and how big (#35 item 7). tests/data/threads/workers.c runs four
 * threads named worker-0..3 that allocate 100 x 24 B, 50 x 200 B, 20 x 3000 B and
 * 5 x 40000 B (the last ones kept to the end):
 *  - `report --by-thread` lists the four names, each with its own total and worker-3 with
 *    its blocks live at the end;
 *  - `report --sizes` has each worker's count in its power-of-two bucket (16..32 B,
 *    128..256 B, 2..4 KiB, 32..64 KiB), the worker's site the top one.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e_util.h"
#include "test_timeout.h"

static char *dir, *by_thread, *sizes;

/* Trace the workers once; both views of the one profile. */
static void trace_once(void)
{
	char line[2048], *log = NULL;
	int st;

	if (dir)
		return;
	dir = e2e_tmpdir("threads");
	snprintf(line, sizeof(line), "%s -q -o %s/w.json -- %s >/dev/null 2>&1", TRACER_BIN, dir,
		 WORKERS_BIN);
	st = e2e_run(line, &log);
	cr_assert_eq(st, 0, "%s exited %d:\n%s", line, st, log ? log : "");
	free(log);
	snprintf(line, sizeof(line), "%s report --by-thread %s/w.json 2>&1", TRACER_BIN, dir);
	cr_assert_eq(e2e_run(line, &by_thread), 0, "%s", by_thread ? by_thread : "");
	snprintf(line, sizeof(line), "%s report --sizes %s/w.json 2>&1", TRACER_BIN, dir);
	cr_assert_eq(e2e_run(line, &sizes), 0, "%s", sizes ? sizes : "");
}

/* The line of out that contains needle, copied (static), or "". */
static const char *line_of(const char *out, const char *needle)
{
	static char buf[1024];
	const char *p = strstr(out, needle), *b, *e;

	if (!p)
		return "";
	for (b = p; b > out && b[-1] != '\n'; b--)
		;
	e = strchr(p, '\n');
	snprintf(buf, sizeof(buf), "%.*s", (int)(e ? e - b : (long)strlen(b)), b);
	return buf;
}

Test(threads_e2e, by_thread_names_the_four_workers, .timeout = TEST_TIMEOUT(120))
{
	static const char *const want[4][2] = {
		{ "worker-0", "  2.34 KiB       100 allocs" },
		{ "worker-1", "  9.77 KiB        50 allocs" },
		{ "worker-2", " 58.59 KiB        20 allocs" },
		{ "worker-3", "195.31 KiB         5 allocs" },
	};

	E2E_REQUIRE_ROOT();
	trace_once();
	cr_assert(strstr(by_thread, "by thread ("), "%s", by_thread);
	for (int w = 0; w < 4; w++) {
		const char *l = line_of(by_thread, want[w][0]);

		cr_expect(strstr(l, want[w][1]), "%s: want \"%s\" in \"%s\"\n%s", want[w][0],
			  want[w][1], l, by_thread);
		cr_expect(strstr(l, "work (workers.c:"), "%s's top site: %s", want[w][0], l);
	}
	cr_expect(strstr(line_of(by_thread, "worker-3"), "end     195.31 KiB"), "%s", by_thread);
	cr_expect(strstr(line_of(by_thread, "worker-0"), "end            0 B"), "%s", by_thread);
}

Test(threads_e2e, sizes_buckets_match_the_known_sizes, .timeout = TEST_TIMEOUT(120))
{
	static const char *const want[4][2] = {
		{ "    16 B .. 32 B ", "100 allocs" },
		{ "    128 B .. 256 B ", "50 allocs" },
		{ "    2.00 KiB .. 4.00 KiB ", "20 allocs" },
		{ "    32.00 KiB .. 64.00 KiB ", "5 allocs" },
	};

	E2E_REQUIRE_ROOT();
	trace_once();
	for (int w = 0; w < 4; w++) {
		const char *l = line_of(sizes, want[w][0]);

		/* other allocations may share a bucket (libc's): at least the worker's */
		cr_expect(*l, "no bucket %s:\n%s", want[w][0], sizes);
		cr_expect(strstr(l, "work (workers.c:"), "bucket %s's top site: %s\n%s",
			  want[w][0], l, sizes);
		cr_expect(strstr(l, want[w][1]) || strstr(l, "in work (workers.c:"), "%s", l);
	}
	cr_expect(strstr(line_of(sizes, "    32.00 KiB .. 64.00 KiB "),
			 "       5 allocs     195.31 KiB   5 in work (workers.c:"),
		  "%s", sizes);
	cr_expect(strstr(line_of(sizes, "    16 B .. 32 B "), "100 in work (workers.c:"), "%s",
		  sizes);
}

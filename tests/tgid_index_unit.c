// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tgid_index: a process's newest entry, through growth and overwrites, against a plain
 * array that remembers the same. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>

#include "tgid_index.h"

Test(tgid_index, empty_and_unknown)
{
	struct tgid_index x = {0};

	cr_expect_eq(tgid_index__get(&x, 1), -1);
	cr_expect_eq(tgid_index__set(&x, 0, 1), -EINVAL);
	cr_expect_eq(tgid_index__set(&x, -5, 1), -EINVAL);
	cr_expect_eq(tgid_index__get(&x, 0), -1);
	cr_assert_eq(tgid_index__set(&x, 42, 7), 0);
	cr_expect_eq(tgid_index__get(&x, 42), 7);
	cr_expect_eq(tgid_index__get(&x, 43), -1);
	tgid_index__release(&x);
	cr_expect_eq(tgid_index__get(&x, 42), -1);
}

/* 20,000 entries over 3,000 pids, appended in order as the tracer's images are (a pid
 * reused by later processes, or exec'ing, gets newer entries): every pid's answer is the
 * last index set for it. */
Test(tgid_index, newest_entry_through_growth)
{
	enum { PIDS = 3000, ENTRIES = 20000 };
	static long want[PIDS + 1];
	struct tgid_index x = {0};
	unsigned int seed = 7;

	for (int p = 0; p <= PIDS; p++)
		want[p] = -1;
	for (size_t i = 0; i < ENTRIES; i++) {
		pid_t pid = 1 + (pid_t)(rand_r(&seed) % PIDS);

		cr_assert_eq(tgid_index__set(&x, pid, i), 0);
		want[pid] = (long)i;
	}
	for (pid_t p = 1; p <= PIDS; p++)
		cr_expect_eq(tgid_index__get(&x, p), want[p], "pid %d", (int)p);
	cr_expect_eq(tgid_index__get(&x, PIDS + 1), -1);
	tgid_index__release(&x);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* trap_cost: the advice on a measured trap cost (unit), and the measurement itself (root). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "test_timeout.h"
#include "trap_cost.h"

Test(trap_cost, cheap_traps_get_no_advice, .timeout = TEST_TIMEOUT(10))
{
	char buf[320] = "stale";

	cr_expect_not(trap_cost__advice(650.0, TRAP_COST_SLOW_NS, buf, sizeof(buf)));
	cr_expect_str_empty(buf);
	cr_expect_not(trap_cost__advice(TRAP_COST_SLOW_NS, TRAP_COST_SLOW_NS, buf, sizeof(buf)));
	/* A failed measurement is never advice. */
	cr_expect_not(trap_cost__advice(NAN, TRAP_COST_SLOW_NS, buf, sizeof(buf)));
}

Test(trap_cost, expensive_traps_say_the_figure_and_the_way_out, .timeout = TEST_TIMEOUT(10))
{
	char buf[320];

	cr_assert(trap_cost__advice(6234.0, TRAP_COST_SLOW_NS, buf, sizeof(buf)));
	cr_expect(strstr(buf, "6.2 us") != NULL, "%s", buf);
	cr_expect(strstr(buf, "--sample-bytes") != NULL, "%s", buf);
	cr_expect(strchr(buf, '\n') == NULL, "one line, the caller ends it: %s", buf);
}

Test(trap_cost, a_short_buffer_is_cut_not_overrun, .timeout = TEST_TIMEOUT(10))
{
	char buf[16];

	memset(buf, 'x', sizeof(buf));
	cr_assert(trap_cost__advice(6234.0, TRAP_COST_SLOW_NS, buf, 12));
	cr_expect_eq(strlen(buf), 11);
	cr_expect_eq(buf[12], 'x');
}

Test(trap_cost, measures_its_own_probe_hits, .timeout = TEST_TIMEOUT(30))
{
	double ns = -1;

	if (geteuid() != 0)
		cr_skip_test("needs root: a uprobe and a BPF program");
	/* 0 only when the program counted every call it timed (else -EIO). */
	cr_assert_eq(trap_cost__measure(&ns), 0);
	cr_expect(ns >= 0 && isfinite(ns), "%f", ns);
	/* Again in the same process: the first left nothing behind that fails the second. */
	cr_assert_eq(trap_cost__measure(&ns), 0);
}

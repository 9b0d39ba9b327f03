// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The tracer's start-up trap timing, end to end: -v prints the figure, the advice follows
 * the figure (present above the threshold, absent below), and -q says neither. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e_util.h"
#include "test_timeout.h"
#include "trap_cost.h"

Test(trap_cost_e2e, the_figure_at_v_and_the_advice_only_when_slow, .timeout = TEST_TIMEOUT(120))
{
	char cmd[1024], *out = NULL, *dir = e2e_tmpdir("trapcost"), *line;
	double ns = -1;

	E2E_REQUIRE_ROOT();
	snprintf(cmd, sizeof(cmd), "%s -v -o %s/p.json -- true 2>&1", TRACER_BIN, dir);
	cr_assert_eq(e2e_run(cmd, &out), 0, "%s", out);
	line = strstr(out, "trap cost: ");
	cr_assert(line && sscanf(line, "trap cost: %lf ns per uprobe trap", &ns) == 1, "%s", out);
	cr_expect(ns >= 0, "%s", out);
	cr_expect_eq(strstr(out, "--sample-bytes") != NULL, ns > TRAP_COST_SLOW_NS, "%s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), "%s -q -o %s/p.json -- true 2>&1", TRACER_BIN, dir);
	cr_assert_eq(e2e_run(cmd, &out), 0, "%s", out);
	cr_expect(strstr(out, "uprobe trap") == NULL, "%s", out);
	free(out);
	free(dir);
}

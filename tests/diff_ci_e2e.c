// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `tracer diff` as a CI gate on real traces (root + BTF: label bpf). tests/data/e2e/
 * diff_prog.c is compiled three ways and each binary traced by the tracer:
 *	base       as is
 *	moved      a comment line inserted at the top: the same program, every line moved
 *	regressed  -DTABLE_ROWS=112: load_table allocates 12,000 more bytes (+10.8% in total)
 * --fail-if must pass base -> moved and fail base -> regressed. The same binary under
 * Valgrind's DHAT (12 frames) against our (deeper) trace: no stack added or removed.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e_util.h"
#include "test_timeout.h"

#define SRC TESTS_SRC_DIR "/data/e2e/diff_prog.c"

/* Build variant name of diff_prog.c into dir/name/prog (same basename in every variant, so
 * unnamed frames "(in prog)" agree) with cflags, the source first prefixed by prefix_line
 * (may be NULL), then trace it into dir/name.json. */
static void build_and_trace(const char *dir, const char *name, const char *prefix_line,
			    const char *cflags)
{
	char cmd[8192], *out = NULL;

	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/%s && { %s%s%s cat %s; } > %s/%s/diff_prog.c && "
		 "%s -O0 -g %s -o %s/%s/prog %s/%s/diff_prog.c 2>&1",
		 dir, name, prefix_line ? "printf '%s\\n' '" : "", prefix_line ? prefix_line : "",
		 prefix_line ? "';" : "", SRC, dir, name, CC_BIN, cflags, dir, name, dir, name);
	cr_assert_eq(e2e_run(cmd, &out), 0, "%s\n%s", cmd, out ? out : "");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s -q -o %s/%s.json -- %s/%s/prog 2>&1", TRACER_BIN, dir, name,
		 dir, name);
	cr_assert_eq(e2e_run(cmd, &out), 0, "%s\n%s", cmd, out ? out : "");
	free(out);
}

/* `tracer diff dir/old.json dir/new.json args 2>dir/err`: status; stdout and stderr. */
static int diff(const char *dir, const char *old, const char *new, const char *args, char **out,
		char **err)
{
	char cmd[8192], path[4200];
	int st;

	snprintf(path, sizeof(path), "%s/diff.err", dir);
	snprintf(cmd, sizeof(cmd), "%s diff %s/%s.json %s/%s.json %s 2>%s", TRACER_BIN, dir, old,
		 dir, new, args, path);
	st = e2e_run(cmd, out);
	snprintf(cmd, sizeof(cmd), "cat %s", path);
	cr_assert_eq(e2e_run(cmd, err), 0);
	return st;
}

Test(diff_ci_e2e, fail_if_passes_a_rebuild_and_fails_a_regression, .timeout = TEST_TIMEOUT(300))
{
	const char *gate = "--fail-if 'total-bytes>+5%' --fail-if 'site-total-bytes>+5%' "
			   "--fail-if 'peak-bytes>+5%'";
	char *dir, *out = NULL, *err = NULL;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("diffci");
	build_and_trace(dir, "base", NULL, "");
	build_and_trace(dir, "moved", "/* one comment line: every line below moves */", "");
	build_and_trace(dir, "regressed", NULL, "-DTABLE_ROWS=112");

	cr_expect_eq(diff(dir, "base", "moved", gate, &out, &err), 0, "%s%s", out, err);
	cr_expect_str_eq(err, "");
	cr_expect(strstr(out, "program points by change in BYTES: 0 changed (0 added, 0 removed)"),
		  "%s", out);
	free(out);
	free(err);

	/* The lines did move in the traces: matched by line, the same gate fails. */
	cr_expect_eq(
	    diff(dir, "base", "moved", "--match line --fail-if 'site-total-bytes>+5%'", &out, &err),
	    1, "%s%s", out, err);
	cr_expect(strstr(out, "load_table (diff_prog.c:22)") &&
		      strstr(out, "load_table (diff_prog.c:21)"),
		  "%s", out);
	free(out);
	free(err);

	cr_expect_eq(diff(dir, "base", "regressed", gate, &out, &err), 1, "%s%s", out, err);
	cr_expect(strstr(err, "tracer: diff: --fail-if 'total-bytes>+5%' exceeded: 110,640 -> "
			      "122,640 (+12,000, +10.8%)\n"),
		  "%s", err);
	cr_expect(strstr(err, "--fail-if 'site-total-bytes>+5%' exceeded at 1 program point; the "
			      "largest: load_table (diff_prog.c:21)"),
		  "%s", err);
	free(out);
	free(err);
	free(dir);
}

Test(diff_ci_e2e, valgrind_against_ours_cut_to_valgrinds_depth, .timeout = TEST_TIMEOUT(300))
{
	char *dir, cmd[8192], *out = NULL, *err = NULL;

	E2E_REQUIRE_ROOT();
	if (e2e_run("valgrind --version >/dev/null 2>&1", NULL) != 0) {
		cr_assert(!e2e_in_ci(), "CI=true: valgrind is required");
		cr_skip_test("valgrind is not installed");
	}
	dir = e2e_tmpdir("diffvg");
	build_and_trace(dir, "base", NULL, "");
	snprintf(cmd, sizeof(cmd),
		 "valgrind --tool=dhat --dhat-out-file=%s/vg.json %s/base/prog >/dev/null 2>&1",
		 dir, dir);
	cr_assert_eq(e2e_run(cmd, NULL), 0, "%s", cmd);

	cr_expect_eq(diff(dir, "vg", "base", "", &out, &err), 0, "%s%s", out, err);
	cr_expect(strstr(out, "note: stacks cut to their 12 innermost frames"), "%s", out);
	cr_expect(strstr(out, "program points by change in BYTES: 0 changed (0 added, 0 removed), "
			      "3 unchanged"),
		  "%s", out);
	free(out);
	free(err);
	/* whole stacks: deep()'s stack, cut by Valgrind, is "removed" and "added" */
	cr_expect_eq(diff(dir, "vg", "base", "--depth 1000", &out, &err), 0, "%s%s", out, err);
	cr_expect(strstr(out, "(1 added, 1 removed)"), "%s", out);
	free(out);
	free(err);
	free(dir);
}

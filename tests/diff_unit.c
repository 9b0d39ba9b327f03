// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests for user/diff.c and `tracer diff` (cli_diff.c): two real Valgrind runs of one
 * program with an argument that changes its allocations in known ways (golden text, JSON
 * checked field by field), two synthetic files with ASLR-shifted addresses, PPs that
 * collapse to one text, added and removed stacks (golden text and JSON), and bad input.
 * UPDATE_GOLDEN=1 rewrites the golden files. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "dhat_reader.h"
#include "diff.h"
#include "report.h"
#include "test_util.h"

#define DATA TESTS_SRC_DIR "/data/report/"

#define EXPECT_GOLDEN(golden, text)                                                                \
	cr_expect_eq(tu_golden(golden, text, strlen(text)), 0,                                     \
		     "output differs from %s (UPDATE_GOLDEN=1 to accept):\n%s", golden, text)

static int run_diff(const char *old, const char *new, const struct diff_opts *opts, char **out,
		    char *err, size_t errsz)
{
	size_t n = 0;
	FILE *f = open_memstream(out, &n);
	int ret;

	cr_assert_not_null(f);
	ret = diff__print_files(f, old, new, opts, err, errsz);
	fclose(f);
	return ret;
}

static cJSON *get(cJSON *o, const char *path)
{
	char buf[128], *save, *k;

	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); o && k; k = strtok_r(NULL, ".", &save))
		o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, atoi(k)) : cJSON_GetObjectItem(o, k);
	cr_assert_not_null(o, "no %s", path);
	return o;
}

static double num(cJSON *o, const char *path)
{
	return get(o, path)->valuedouble;
}

/* Two runs of vg_diff_prog under Valgrind (see its header for the expected changes), run
 * from its directory so that "cmd" reads ./dhat_vg_diff_prog N in the golden output. */
static void valgrind_runs(char *old, char *new, size_t sz)
{
	char dir[512], bin[512], cmd[4096];
	const char *slash = strrchr(VG_DIFF_PROG, '/');

	if (system("valgrind --version >/dev/null 2>&1") != 0)
		cr_skip_test("valgrind is not installed");
	tu_scratch(dir, sizeof(dir), "vgdiff");
	snprintf(bin, sizeof(bin), "%.*s", (int)(slash - VG_DIFF_PROG), VG_DIFF_PROG);
	snprintf(old, sz, "%s/vg_1.json", dir);
	snprintf(new, sz, "%s/vg_2.json", dir);
	for (int n = 1; n <= 2; n++) {
		snprintf(
		    cmd, sizeof(cmd),
		    "cd %s && valgrind --tool=dhat --dhat-out-file=%s .%s %d >%s/vg%d.log 2>&1",
		    bin, n == 1 ? old : new, slash, n, dir, n);
		cr_assert_eq(system(cmd), 0, "%s failed", cmd);
	}
}

Test(diff, valgrind_runs_golden_text)
{
	char old[700], new[700], err[512] = "", *out = NULL;

	valgrind_runs(old, new, sizeof(old));
	cr_assert_eq(run_diff(old, new, NULL, &out, err, sizeof(err)), 0, "%s", err);
	EXPECT_GOLDEN(DATA "diff_vg.golden.txt", out);
	free(out);
}

Test(diff, valgrind_runs_json)
{
	char old[700], new[700], err[512] = "", *out = NULL;
	struct diff_opts opts = {.json = true};
	cJSON *j, *rows;

	valgrind_runs(old, new, sizeof(old));
	cr_assert_eq(run_diff(old, new, &opts, &out, err, sizeof(err)), 0, "%s", err);
	j = cJSON_Parse(out);
	cr_assert_not_null(j, "%s", out);
	cr_expect_eq(num(j, "totals.blocks.old"), 7);
	cr_expect_eq(num(j, "totals.blocks.new"), 10);
	cr_expect_eq(num(j, "totals.blocks.delta"), 3);
	cr_expect_eq(num(j, "totals.bytes.delta"), 896);      /* 976 -> 1872 */
	cr_expect_eq(num(j, "totals.peak_bytes.delta"), 732); /* 812 -> 1544 */
	cr_expect_eq(num(j, "totals.end_bytes.delta"), 1032); /* 32 -> 1064 */
	cr_expect_eq(num(j, "changed"), 4);
	cr_expect_eq(num(j, "added"), 1);
	cr_expect_eq(num(j, "removed"), 1);
	cr_expect_eq(num(j, "unchanged"), 1);
	rows = get(j, "rows");
	cr_assert_eq(cJSON_GetArraySize(rows), 4);
	/* by |Δbytes|: only_twice +1000, only_once -500, grow +300, small +96 */
	cr_expect_str_eq(get(rows, "0.status")->valuestring, "added");
	cr_expect(strstr(get(rows, "0.site")->valuestring, "only_twice (vg_diff_prog.c:"));
	cr_expect_eq(num(rows, "0.delta.eb"), 1000);
	cr_expect_str_eq(get(rows, "1.status")->valuestring, "removed");
	cr_expect_eq(num(rows, "1.delta.tb"), -500);
	cr_expect_eq(num(rows, "1.new.pps"), 0);
	cr_expect_eq(num(rows, "2.delta.tb"), 300);
	cr_expect_eq(num(rows, "2.delta.tbk"), 0);
	cr_expect_eq(num(rows, "3.delta.tbk"), 3);
	cr_expect_eq(num(rows, "3.delta.eb"), 32);
	/* frames without addresses, innermost first */
	cr_expect(!strncmp(get(rows, "3.frames.0")->valuestring, "malloc (in ", 11));
	cr_expect(!strncmp(get(rows, "3.frames.1")->valuestring, "small (vg_diff_prog.c:", 22));
	cJSON_Delete(j);
	free(out);
}

/* Synthetic: every address differs (ASLR), two NEW PPs collapse to one text (their malloc
 * frames differ only in address), one stack added, one removed, one unchanged, one with
 * only its peak/end bytes changed; thousands separators. */
Test(diff, synthetic_golden_text_and_json)
{
	struct diff_opts opts = {0};
	char err[512] = "", *out = NULL;
	cJSON *j;

	cr_assert_eq(
	    run_diff(DATA "diff_old.json", DATA "diff_new.json", &opts, &out, err, sizeof(err)), 0,
	    "%s", err);
	EXPECT_GOLDEN(DATA "diff_synth.golden.txt", out);
	cr_expect(strstr(out, "      +1,234,567      +1,200  +1,234,567           0   new_helper "
			      "(new.c:7)  <-  main (main.c:5)  [added]\n"),
		  "%s", out);
	free(out);

	opts.json = true;
	cr_assert_eq(
	    run_diff(DATA "diff_old.json", DATA "diff_new.json", &opts, &out, err, sizeof(err)), 0,
	    "%s", err);
	j = cJSON_Parse(out);
	cr_assert_not_null(j, "%s", out);
	/* parse_line: 1000/10 -> (1500/15 + 700/7) = 2200/22 from two collapsed NEW PPs */
	for (int i = 0; i < cJSON_GetArraySize(get(j, "rows")); i++) {
		cJSON *r = cJSON_GetArrayItem(get(j, "rows"), i);

		if (!strncmp(get(r, "site")->valuestring, "parse_line", 10)) {
			cr_expect_eq(num(r, "new.pps"), 2);
			cr_expect_eq(num(r, "new.tb"), 2200);
			cr_expect_eq(num(r, "delta.tbk"), 12);
		}
	}
	/* rows are streamed one by one: the text must still be cJSON_Print's, byte for byte */
	char *again = cJSON_Print(j);
	cr_expect(!strncmp(out, again, strlen(again)) && !strcmp(out + strlen(again), "\n"),
		  "streamed:\n%s\nreprinted:\n%s", out, again);
	free(again);
	/* The paths depend on the checkout: compare under the names alone. */
	cJSON_ReplaceItemInObject(get(j, "old"), "file", cJSON_CreateString("diff_old.json"));
	cJSON_ReplaceItemInObject(get(j, "new"), "file", cJSON_CreateString("diff_new.json"));
	free(out);
	out = cJSON_Print(j);
	cJSON_Delete(j);
	EXPECT_GOLDEN(DATA "diff_synth.golden.json", out);
	free(out);

	opts.sort = DIFF_SORT_BLOCKS;
	opts.json = false;
	opts.top = 2;
	cr_assert_eq(
	    run_diff(DATA "diff_old.json", DATA "diff_new.json", &opts, &out, err, sizeof(err)), 0,
	    "%s", err);
	cr_expect(strstr(out, "program points by change in BLOCKS: 4 changed (1 added, "
			      "1 removed), 1 unchanged\n"),
		  "%s", out);
	cr_expect(strstr(out, "    ... 2 more (--top N)\n"), "%s", out);
	free(out);
}

Test(diff, identical_files_have_no_changes)
{
	char err[512] = "", *out = NULL;

	cr_assert_eq(
	    run_diff(DATA "diff_new.json", DATA "diff_new.json", NULL, &out, err, sizeof(err)), 0,
	    "%s", err);
	cr_expect(strstr(out, "program points by change in BYTES: 0 changed (0 added, 0 removed), "
			      "4 unchanged\n"),
		  "%s", out);
	/* 5 PPs, 4 stacks: two of them differ only in an address */
	cr_expect(strstr(out, "  total bytes       :      1,242,067       1,242,067           0\n"),
		  "%s", out);
	free(out);
}

/* Files of different modes: the difference is said, peak/end columns need both bklt. */
Test(diff, different_modes)
{
	char err[512] = "", *out = NULL;

	cr_assert_eq(
	    run_diff(DATA "vg_adhoc.json", DATA "rust_adhoc.json", NULL, &out, err, sizeof(err)), 0,
	    "%s", err);
	cr_expect(strstr(out, "  note: the files count different things"), "%s", out);
	cr_expect(!strstr(out, "peak live"), "%s", out);
	cr_expect(strstr(out, "  total events      : "), "%s", out);
	free(out);
}

Test(diff, cli_exit_codes)
{
	char *out, *errs;

	const char *ok_argv[] = {
	    "diff", DATA "diff_old.json", DATA "diff_new.json", "--top=1", "--sort", "end", NULL};
	cr_expect_eq(tu_run_cli(cli_diff, ok_argv, &out, &errs), 0, "%s", errs);
	cr_expect(strstr(out, "program points by change in END BYTES"), "%s", out);
	cr_expect(strstr(out, "read_config (conf.c:20)"), "%s", out);
	cr_expect_str_eq(errs, "");
	free(out);
	free(errs);

	const char *json_argv[] = {
	    "diff", "-j", DATA "diff_old.json", DATA "diff_new.json", "--skip", "parse_", NULL};
	cr_expect_eq(tu_run_cli(cli_diff, json_argv, &out, &errs), 0, "%s", errs);
	cJSON *j = cJSON_Parse(out);
	cr_expect_not_null(j, "%s", out);
	cr_expect(strstr(out, "\"site\":\t\"main (main.c:5)\""), "%s", out);
	cJSON_Delete(j);
	free(out);
	free(errs);

	const char *bad_argv[] = {"diff", DATA "diff_old.json", DATA "vg_diff_prog.c", NULL};
	cr_expect_eq(tu_run_cli(cli_diff, bad_argv, &out, &errs), 2);
	cr_expect_str_eq(out, "");
	cr_expect(!strncmp(errs, "tracer: ", 8) && strstr(errs, "vg_diff_prog.c:1:1: not valid "
								"JSON"),
		  "%s", errs);
	cr_expect_eq(strchr(errs, '\n'), errs + strlen(errs) - 1, "one line: %s", errs);
	free(out);
	free(errs);

	static const char *const usage_cases[][6] = {
	    {"diff", NULL},
	    {"diff", DATA "diff_old.json", NULL},
	    {"diff", "a", "b", "c", NULL},
	    {"diff", "a", "b", "--sort", "lifetime", NULL},
	    {"diff", "a", "b", "--top", "-1", NULL},
	    {"diff", "a", "b", "--what", NULL},
	    {"diff", DATA "diff_old.json", DATA "nope.json", NULL},
	};
	for (size_t i = 0; i < sizeof(usage_cases) / sizeof(usage_cases[0]); i++) {
		cr_expect_eq(tu_run_cli(cli_diff, usage_cases[i], &out, &errs), 2, "case %zu", i);
		cr_expect_str_eq(out, "", "case %zu", i);
		cr_expect(*errs, "case %zu: silent", i);
		free(out);
		free(errs);
	}
	const char *help_argv[] = {"diff", "-h", NULL};
	cr_expect_eq(tu_run_cli(cli_diff, help_argv, &out, &errs), 0);
	cr_expect(strstr(out, "Usage: tracer diff OLD NEW"), "%s", out);
	free(out);
	free(errs);
}

/* Stacks that share "site <- caller" are told apart as the report tells them apart (site.h):
 * a different allocator in brackets, a caller further up with its depth (#N callers above the
 * site); the second stack, parse calling itself, is folded to a prefix of the first and reads
 * as the site alone. */
Test(diff, same_site_stacks_are_told_apart)
{
	static const char text[] =
		"{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\",\"bklt\":false,"
		"\"bkacc\":false,\"tu\":\"i\",\"Mtu\":\"M\",\"cmd\":\"x\",\"pid\":1,\"te\":1,"
		"\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1,3,4,5,6]},{\"tb\":2,\"tbk\":1,\"fs\":[1,3,4,5,7]},"
		"{\"tb\":3,\"tbk\":1,\"fs\":[2,3,4,5,6]},{\"tb\":4,\"tbk\":1,\"fs\":[8,9]}],"
		"\"ftbl\":[\"[root]\",\"0x1: malloc (in libc)\",\"0x2: calloc (in libc)\","
		"\"0x3: sb_reserve (util.c:31)\",\"0x4: sb_add (util.c:43)\",\"0x5: parse (p.c:1)\","
		"\"0x6: main (m.c:1)\",\"0x7: parse (p.c:1)\",\"0x8: solo (s.c:1)\","
		"\"0x9: main (m.c:2)\"]}";
	struct dhat_profile *p = dhat_profile__parse(text, sizeof(text) - 1, "t", NULL, 0);
	struct dhat_profile *e = dhat_profile__parse(text, sizeof(text) - 1, "t", NULL, 0);
	struct diff *d;
	const char *want[] = {
		"sb_reserve (util.c:31)  <-  sb_add (util.c:43)  <-  ...  <-  #3 main (m.c:1)",
		"sb_reserve (util.c:31)  <-  sb_add (util.c:43)",
		"sb_reserve (util.c:31)  <-  sb_add (util.c:43)  [calloc (in libc)]",
		"solo (s.c:1)  <-  main (m.c:2)",
	};

	cr_assert(p && e);
	d = diff__new(p, e, NULL);
	cr_assert_not_null(d);
	cr_assert_eq(d->row_cnt, 4);
	for (size_t i = 0; i < 4; i++)
		cr_expect_str_eq(d->rows[i].site, want[i], "row %zu", i);
	diff__free(d);
	dhat_profile__free(e);
	dhat_profile__free(p);
}

/* --match function folds a call site that moved (or a new one) into the old row: the row
 * shows NEW's line, both when they differ, for the side's PP of most bytes. */
Test(diff, moved_line_shows_old_and_new)
{
	static const char old_text[] =
		"{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\",\"bklt\":false,"
		"\"bkacc\":false,\"tu\":\"i\",\"Mtu\":\"M\",\"cmd\":\"x\",\"pid\":1,\"te\":1,"
		"\"pps\":[{\"tb\":10,\"tbk\":1,\"fs\":[1,2]},{\"tb\":5,\"tbk\":1,\"fs\":[3,4]}],"
		"\"ftbl\":[\"[root]\",\"0x1: f (a.c:10)\",\"0x2: main (m.c:1)\","
		"\"0x3: g (b.c:7)\",\"0x4: main (m.c:2)\"]}";
	/* f's old line kept (1 byte) beside its new call site (30 bytes); g unmoved */
	static const char new_text[] =
		"{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\",\"bklt\":false,"
		"\"bkacc\":false,\"tu\":\"i\",\"Mtu\":\"M\",\"cmd\":\"x\",\"pid\":1,\"te\":1,"
		"\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1,2]},{\"tb\":30,\"tbk\":1,\"fs\":[5,2]},"
		"{\"tb\":5,\"tbk\":1,\"fs\":[3,4]}],"
		"\"ftbl\":[\"[root]\",\"0x1: f (a.c:10)\",\"0x2: main (m.c:1)\","
		"\"0x3: g (b.c:7)\",\"0x4: main (m.c:2)\",\"0x5: f (a.c:12)\"]}";
	struct dhat_profile *o = dhat_profile__parse(old_text, sizeof(old_text) - 1, "o", NULL, 0);
	struct dhat_profile *n = dhat_profile__parse(new_text, sizeof(new_text) - 1, "n", NULL, 0);
	struct diff_opts line = { .match = DIFF_MATCH_LINE };
	struct diff *d;

	cr_assert(o && n);
	d = diff__new(o, n, NULL);
	cr_assert_not_null(d);
	cr_assert_eq(d->row_cnt, 2);
	cr_expect_str_eq(d->rows[0].site, "f (a.c:10 -> a.c:12)  <-  main (m.c:1)");
	cr_expect_eq(d->rows[0].new.tb, 31);
	cr_expect_str_eq(d->rows[1].site, "g (b.c:7)  <-  main (m.c:2)");
	diff__free(d);

	/* by line the new call site is a row of its own, shown as it is */
	d = diff__new(o, n, &line);
	cr_assert_not_null(d);
	cr_assert_eq(d->row_cnt, 3);
	cr_expect_str_eq(d->rows[0].site, "f (a.c:10)  <-  main (m.c:1)");
	cr_expect_str_eq(d->rows[2].site, "f (a.c:12)  <-  main (m.c:1)");
	diff__free(d);
	dhat_profile__free(n);
	dhat_profile__free(o);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of `tracer diff` for CI (cli_diff.c, diff.c, export_diff_svg.c): --fail-if
 * exit statuses on a planted regression and on a rebuild whose lines moved, threshold
 * parsing, --depth between Valgrind's truncated stacks and deeper ones, the Markdown table
 * (golden) and the differential flame graph, checked in headless Chromium.
 * Fixtures: tests/data/report/ci_*.json, one small program "app" profiled four ways:
 *	ci_base        load_table 100,000 B, parse 20,000 B
 *	ci_moved       the same, every line one further down and every address moved
 *	ci_regressed   load_table 112,000 B: total bytes +10.0% exactly, the site +12%
 *	ci_shift       load_table 110,000 B, parse 10,000 B: total unchanged
 * UPDATE_GOLDEN=1 rewrites the golden files.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "diff.h"
#include "export_helpers.h"
#include "test_timeout.h"
#include "test_util.h"

#define DATA  TESTS_SRC_DIR "/data/report/"
#define VG_LS TESTS_SRC_DIR "/data/export/valgrind_ls.json"

/* `tracer diff OLD NEW EXTRA...`: its exit status; stdout and stderr in *out, *errs. */
static int diff_cli(const char *old, const char *new, const char *const *extra, char **out,
		    char **errs)
{
	const char *argv[16] = {"diff", old, new};
	size_t n = 3;

	for (; extra && *extra; extra++) {
		cr_assert_lt(n, 15);
		argv[n++] = *extra;
	}
	argv[n] = NULL;
	return tu_run_cli(cli_diff, argv, out, errs);
}

static size_t lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

Test(diff_ci, rebuilt_program_with_moved_lines_passes)
{
	static const char *const gate[] = {
	    "--fail-if", "total-bytes>+5%",   "--fail-if", "site-total-bytes>+1%",
	    "--fail-if", "site-end-bytes>+0", NULL};
	static const char *const by_line[] = {"--match", "line", "--fail-if",
					      "site-total-bytes>+1%", NULL};
	char *out, *errs;

	cr_expect_eq(diff_cli(DATA "ci_base.json", DATA "ci_moved.json", gate, &out, &errs), 0,
		     "%s", errs);
	cr_expect_str_eq(errs, "");
	cr_expect(strstr(out, "0 changed (0 added, 0 removed), 2 unchanged\n"), "%s", out);
	free(out);
	free(errs);

	/* What diff did before --match function: every row removed and added again, and any
	 * per-site gate trips on the "new" sites. */
	cr_expect_eq(diff_cli(DATA "ci_base.json", DATA "ci_moved.json", by_line, &out, &errs), 1);
	cr_expect(strstr(out, "4 changed (2 added, 2 removed), 0 unchanged\n"), "%s", out);
	cr_expect(strstr(out, "  note: stacks matched by function and file:line\n"), "%s", out);
	cr_expect(strstr(errs, "--fail-if 'site-total-bytes>+1%' exceeded at 2 program points; "
			       "the largest: load_table (app.c:11)  <-  main (app.c:31): 0 -> "
			       "100,000 (+100,000, new)\n"),
		  "%s", errs);
	free(out);
	free(errs);
}

/* Each expression against the planted +10% (load_table +12%): exceeded or not. */
Test(diff_ci, planted_regression_fails_the_gate)
{
	static const struct {
		const char *expr;
		int status;
	} cases[] = {
	    {"total-bytes>+5%", 1},	  {"total-bytes>+10%", 0}, /* +10.0% is not more */
	    {"total-bytes>+9.9%", 1},	  {"total-bytes>12000", 0},
	    {"total-bytes>+11999", 1},	  {"total-bytes>+11KiB", 1},
	    {"total-bytes>+12KiB", 0},	  {"total-bytes>+1MiB", 0},
	    {"total-blocks>+0", 0},	  {"peak-bytes>+5%", 1}, /* 55,000 -> 61,000 */
	    {"end-bytes>+0", 0},	  {"site-total-bytes>+10%", 1},
	    {"site-total-bytes>+12%", 0}, {"site-peak-bytes>+5999", 1},
	    {"site-peak-bytes>+6000", 0}, {"site-total-blocks>+0", 0},
	};
	char *out, *errs;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *extra[] = {"--fail-if", cases[i].expr, NULL};
		int st =
		    diff_cli(DATA "ci_base.json", DATA "ci_regressed.json", extra, &out, &errs);

		cr_expect_eq(st, cases[i].status, "%s: exit %d\n%s", cases[i].expr, st, errs);
		/* the exceeded threshold is named, on one line; nothing otherwise */
		cr_expect_eq(lines(errs), (size_t)cases[i].status, "%s: %s", cases[i].expr, errs);
		if (cases[i].status)
			cr_expect(strstr(errs, cases[i].expr), "%s: %s", cases[i].expr, errs);
		cr_expect(strstr(out, "total bytes       :        120,000         132,000     "
				      "+12,000 (+10.0%)\n"),
			  "%s", out);
		free(out);
		free(errs);
	}

	/* several gates: one line per exceeded one, status 1 */
	const char *two[] = {"--fail-if", "total-bytes>+5%",	   "--fail-if", "total-blocks>+1",
			     "--fail-if", "site-total-bytes>+10%", "--format",	"json",
			     NULL};
	cr_expect_eq(diff_cli(DATA "ci_base.json", DATA "ci_regressed.json", two, &out, &errs), 1);
	cr_expect_str_eq(errs,
			 "tracer: diff: --fail-if 'total-bytes>+5%' exceeded: 120,000 -> 132,000 "
			 "(+12,000, +10.0%)\n"
			 "tracer: diff: --fail-if 'site-total-bytes>+10%' exceeded at 1 program "
			 "point; the largest: load_table (app.c:10)  <-  main (app.c:30): 100,000 "
			 "-> 112,000 (+12,000, +12.0%)\n");
	cJSON *j = cJSON_Parse(out);
	cr_expect_not_null(j, "the output is still the JSON asked for: %s", out);
	cJSON_Delete(j);
	free(out);
	free(errs);
}

Test(diff_ci, bad_fail_if_is_a_usage_error)
{
	static const char *const bad[] = {
	    "",
	    "total-bytes",
	    "total-bytes>",
	    "bytes>+5%",
	    "site-total>+1%",
	    "total-bytes>+5%%",
	    "total-bytes>+x",
	    "total-bytes>-5%",
	    "total-blocks>+1MiB",
	    "total-bytes>+5 %",
	    "total-bytes>+1XiB",
	    "site-site-end-bytes>+1",
	    "Total-Bytes>+5%",
	    "total-bytes<+5%",
	};
	char *out, *errs;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *extra[] = {"--fail-if", bad[i], NULL};

		cr_expect_eq(
		    diff_cli(DATA "ci_base.json", DATA "ci_regressed.json", extra, &out, &errs), 2,
		    "'%s'", bad[i]);
		cr_expect_str_eq(out, "", "'%s'", bad[i]);
		cr_expect_eq(lines(errs), 1, "'%s': one line: %s", bad[i], errs);
		cr_expect(strstr(errs, "--fail-if"), "'%s': %s", bad[i], errs);
		free(out);
		free(errs);
	}
	/* a metric the files cannot answer: Valgrind ad-hoc files have no block lifetimes */
	const char *peak[] = {"--fail-if", "peak-bytes>+5%", NULL};
	cr_expect_eq(diff_cli(DATA "vg_adhoc.json", DATA "vg_adhoc.json", peak, &out, &errs), 2);
	cr_expect_str_eq(out, "");
	cr_expect(strstr(errs, "peak-bytes needs block lifetimes"), "%s", errs);
	free(out);
	free(errs);
}

Test(diff_ci, threshold_parsing)
{
	static const struct {
		const char *text;
		enum diff_metric m;
		bool site, pct;
		double pct_limit;
		uint64_t abs_limit;
	} cases[] = {
	    {"total-bytes>+5%", DIFF_M_BYTES, false, true, 5, 0},
	    {"site-end-bytes>+2.5%", DIFF_M_END, true, true, 2.5, 0},
	    {"peak-bytes>+1MiB", DIFF_M_PEAK, false, false, 0, 1048576},
	    {"peak-bytes>+512KiB", DIFF_M_PEAK, false, false, 0, 524288},
	    {"total-bytes>+1000", DIFF_M_BYTES, false, false, 0, 1000},
	    {"total-bytes>+1.5M", DIFF_M_BYTES, false, false, 0, 1572864},
	    /* units.h: the syntax of every size option, KB as KiB (powers of 1024) */
	    {"total-bytes>+2GB", DIFF_M_BYTES, false, false, 0, 2ull << 30},
	    {"total-bytes>+3kB", DIFF_M_BYTES, false, false, 0, 3072},
	    {"total-bytes>+64K", DIFF_M_BYTES, false, false, 0, 65536},
	    {"site-total-blocks>100", DIFF_M_BLOCKS, true, false, 0, 100},
	    {"end-bytes>+0B", DIFF_M_END, false, false, 0, 0},
	};
	struct diff_threshold t;
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(diff_threshold__parse(cases[i].text, &t, err, sizeof(err)), 0,
			     "%s: %s", cases[i].text, err);
		cr_expect_eq(t.metric, cases[i].m, "%s", cases[i].text);
		cr_expect_eq(t.site, cases[i].site, "%s", cases[i].text);
		cr_expect_eq(t.pct, cases[i].pct, "%s", cases[i].text);
		cr_expect_eq(t.pct_limit, cases[i].pct_limit, "%s", cases[i].text);
		cr_expect_eq(t.abs_limit, cases[i].abs_limit, "%s: %llu", cases[i].text,
			     (unsigned long long)t.abs_limit);
	}
}

/* Our profile of what Valgrind saw in valgrind_ls.json: the same stacks and counts, written
 * as ours (mode ebpf-heap, libc's malloc rather than Valgrind's replacement), except that
 * the stacks Valgrind cut at its frame limit go on to main and _start. Written to path;
 * Valgrind's deepest stack in *limit. */
static void deepen_valgrind_file(const char *path, size_t *limit)
{
	cJSON *j, *ftbl, *pps, *pp;
	size_t len;
	char *text = tu_slurp(VG_LS, &len);
	int base;

	cr_assert_not_null(text);
	j = cJSON_Parse(text);
	free(text);
	cr_assert_not_null(j);
	cJSON_ReplaceItemInObject(j, "mode", cJSON_CreateString("ebpf-heap"));
	ftbl = cJSON_GetObjectItem(j, "ftbl");
	pps = cJSON_GetObjectItem(j, "pps");
	for (int i = 0; i < cJSON_GetArraySize(ftbl); i++) {
		cJSON *f = cJSON_GetArrayItem(ftbl, i);
		char *vg = strstr(f->valuestring, "(in /usr/libexec/valgrind/vgpreload_dhat");
		char buf[512];

		if (!vg)
			continue;
		snprintf(buf, sizeof(buf), "%.*s(in /usr/lib/x86_64-linux-gnu/libc.so.6)",
			 (int)(vg - f->valuestring), f->valuestring);
		cJSON_ReplaceItemInArray(ftbl, i, cJSON_CreateString(buf));
	}
	*limit = 0;
	cJSON_ArrayForEach(pp, pps)
	{
		size_t n = (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(pp, "fs"));

		*limit = n > *limit ? n : *limit;
	}
	base = cJSON_GetArraySize(ftbl);
	cJSON_AddItemToArray(ftbl, cJSON_CreateString("0x10a3f0: main (ls.c:5400)"));
	cJSON_AddItemToArray(ftbl, cJSON_CreateString("0x4a2fd90: __libc_start_call_main "
						      "(libc_start_call_main.h:58)"));
	cJSON_AddItemToArray(ftbl, cJSON_CreateString("0x10a5e4: _start (in /usr/bin/ls)"));
	cJSON_ArrayForEach(pp, pps)
	{
		cJSON *fs = cJSON_GetObjectItem(pp, "fs");

		if ((size_t)cJSON_GetArraySize(fs) < *limit)
			continue; /* complete already: it reached its outermost frame */
		for (int k = 0; k < 3; k++)
			cJSON_AddItemToArray(fs, cJSON_CreateNumber(base + k));
	}
	text = cJSON_Print(j);
	ex_write_file(path, text, strlen(text));
	free(text);
	cJSON_Delete(j);
}

Test(diff_ci, depth_defaults_to_the_shallower_producer)
{
	static const char *const whole[] = {"--depth", "1000", NULL};
	static const char *const json[] = {"--json", NULL};
	char ours[4200], note[256], *out, *errs;
	size_t limit;
	cJSON *j;

	snprintf(ours, sizeof(ours), "%s/ls.ours.json", ex_artifacts());
	deepen_valgrind_file(ours, &limit);
	cr_assert_gt(limit, 0);

	cr_expect_eq(diff_cli(VG_LS, ours, NULL, &out, &errs), 0, "%s", errs);
	cr_expect(strstr(out, "0 changed (0 added, 0 removed), "), "%s", out);
	snprintf(note, sizeof(note),
		 "  note: stacks cut to their %zu innermost frames (the shallower file's depth: "
		 "the files come from different producers; --depth N to change)\n",
		 limit);
	cr_expect(strstr(out, note), "%s", out);
	free(out);
	free(errs);

	/* Whole stacks: every cut stack is "removed" and comes back "added". */
	cr_expect_eq(diff_cli(VG_LS, ours, whole, &out, &errs), 0, "%s", errs);
	cr_expect_null(strstr(out, "(0 added, 0 removed)"), "%s", out);
	cr_expect(strstr(out, "[added]") && strstr(out, "[removed]"), "%s", out);
	free(out);
	free(errs);

	cr_expect_eq(diff_cli(VG_LS, ours, json, &out, &errs), 0, "%s", errs);
	j = cJSON_Parse(out);
	cr_assert_not_null(j);
	cr_expect_eq(cJSON_GetObjectItem(j, "depth")->valuedouble, (double)limit);
	cr_expect_eq(cJSON_GetObjectItem(j, "added")->valuedouble, 0);
	cJSON_Delete(j);
	free(out);
	free(errs);

	/* same producer (Valgrind's heap and copy modes): whole stacks */
	cr_expect_eq(diff__default_depth(&(struct dhat_profile){.mode = "heap"},
					 &(struct dhat_profile){.mode = "copy"}),
		     0);
}

Test(diff_ci, markdown_golden)
{
	static const char *const md[] = {"--format", "markdown", NULL};
	char *out, *errs;

	cr_expect_eq(diff_cli(DATA "ci_base.json", DATA "ci_regressed.json", md, &out, &errs), 0);
	cr_expect_eq(tu_golden(DATA "ci_regressed.golden.md", out, strlen(out)), 0,
		     "differs from ci_regressed.golden.md (UPDATE_GOLDEN=1 to accept):\n%s", out);
	free(out);
	free(errs);
}

/* A '|' in a frame (C++ operator|) must not split the Markdown table's cells. */
Test(diff_ci, markdown_escapes_pipes)
{
	static const char text[] =
	    "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\",\"bklt\":false,"
	    "\"bkacc\":false,\"tu\":\"i\",\"Mtu\":\"M\",\"cmd\":\"x\",\"pid\":1,\"te\":1,"
	    "\"pps\":[{\"tb\":%d,\"tbk\":1,\"fs\":[1,2]}],"
	    "\"ftbl\":[\"[root]\",\"0x1: operator|(Set, Set) (set.cc:3)\",\"0x2: main (m.c:1)\"]}";
	char a[1024], b[1024], *out = NULL;
	size_t n = 0;
	struct dhat_profile *p, *q;
	struct diff *d;
	FILE *f;

	snprintf(a, sizeof(a), text, 10);
	snprintf(b, sizeof(b), text, 20);
	p = dhat_profile__parse(a, strlen(a), "a", NULL, 0);
	q = dhat_profile__parse(b, strlen(b), "b", NULL, 0);
	cr_assert(p && q);
	d = diff__new(p, q, NULL);
	cr_assert_not_null(d);
	f = open_memstream(&out, &n);
	cr_assert_eq(diff__print(f, d, &(struct diff_opts){.format = DIFF_FMT_MARKDOWN}), 0);
	fclose(f);
	cr_expect(strstr(out, "| +10 | 0 | `operator\\|(Set, Set) (set.cc:3)  <-  main (m.c:1)` "
			      "|  |\n"),
		  "%s", out);
	free(out);
	diff__free(d);
	dhat_profile__free(q);
	dhat_profile__free(p);
}

/* The fill of the first frame named name: the fill attribute of its <rect>. */
static char *fill_of(const char *svg, const char *name)
{
	char key[128];
	const char *t, *f;

	snprintf(key, sizeof(key), "<title>%s\n", name);
	t = strstr(svg, key);
	cr_assert_not_null(t, "no frame %s", name);
	f = strstr(t, "fill=\"");
	cr_assert_not_null(f);
	f += 6;
	return strndup(f, strcspn(f, "\""));
}

static void rgb(const char *fill, int *r, int *g, int *b)
{
	cr_assert_eq(sscanf(fill, "rgb(%d,%d,%d)", r, g, b), 3, "%s", fill);
}

Test(diff_ci, differential_flame_graph, .timeout = TEST_TIMEOUT(300))
{
	static const char *const svg_args[] = {"--format", "svg", NULL};
	char path[4200], png[4200], *svg, *errs, *fill, *dom;
	int r, g, b;
	struct stat st;

	cr_assert_eq(diff_cli(DATA "ci_base.json", DATA "ci_shift.json", svg_args, &svg, &errs), 0,
		     "%s", errs);
	snprintf(path, sizeof(path), "%s/ci_shift.diff.svg", ex_artifacts());
	ex_write_file(path, svg, strlen(svg));
	/* load_table grew 100,000 -> 110,000: red; parse shrank 20,000 -> 10,000: blue; both
	 * changes are the largest, so fully saturated. main and "all" did not change: white. */
	fill = fill_of(svg, "load_table");
	rgb(fill, &r, &g, &b);
	cr_expect(r == 255 && g == 0 && b == 0, "load_table: %s", fill);
	free(fill);
	fill = fill_of(svg, "parse");
	rgb(fill, &r, &g, &b);
	cr_expect(r == 0 && g == 0 && b == 255, "parse: %s", fill);
	free(fill);
	fill = fill_of(svg, "main");
	cr_expect_str_eq(fill, "rgb(255,255,255)");
	free(fill);
	fill = fill_of(svg, "all");
	cr_expect_str_eq(fill, "rgb(255,255,255)");
	free(fill);
	cr_expect(strstr(svg, "<title>load_table\nnew 110,000 bytes (91.67%), old 100,000 bytes, "
			      "+10,000 (+10.0%)</title>"),
		  "%s", svg);
	cr_expect(strstr(svg, "<title>parse\nnew 10,000 bytes (8.33%), old 20,000 bytes, "
			      "-10,000 (-50.0%)</title>"));
	free(svg);
	free(errs);

	if (!ex_have("chromium")) {
		cr_assert(!ex_ci(), "CI=true: chromium is required");
		cr_skip("chromium not installed: the rendering is not checked");
	}
	dom = ex_chromium(path, "?z=%5Eparse%24", NULL, 1200, 400);
	cr_assert(dom, "chromium --dump-dom failed");
	cr_expect_null(strstr(dom, "parsererror"), "Chromium could not parse the SVG:\n%.2000s",
		       dom);
	/* the script ran: the zoom put parse across the width and dimmed its callers */
	cr_expect(strstr(dom, ">Reset Zoom</text>"));
	cr_expect(strstr(dom, "<g class=\"f parent\""), "%.3000s", dom);
	cr_expect(strstr(dom, ">parse</text>"), "label drawn");
	free(dom);
	snprintf(png, sizeof(png), "%s/ci_shift.diff.png", ex_artifacts());
	free(ex_chromium(path, NULL, png, 1200, 260));
	cr_expect(stat(png, &st) == 0 && st.st_size > 1000, "screenshot %s", png);
	fprintf(stderr, "[diff_ci] differential flame graph and screenshot in %s\n",
		ex_artifacts());
}

/* A sampled pair: site A grew 6% (within its sampling noise), B 50% (beyond it). */
static void write_sampled(const char *path, unsigned a_tb, unsigned b_tb)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "{\"dhatFileVersion\":2,\"mode\":\"ebpf-heap\",\"verb\":\"Allocated\","
		 "\"bklt\":false,\"bkacc\":false,\"tu\":\"\xc2\xb5s\",\"Mtu\":\"s\","
		 "\"cmd\":\"app\","
		 "\"pid\":1,\"te\":10,\"sampled\":{\"meanBytes\":4096},\"pps\":["
		 "{\"tb\":%u,\"tbk\":40,\"tbSe\":5000,\"tbkSe\":3,\"fs\":[1,2]},"
		 "{\"tb\":%u,\"tbk\":10,\"tbSe\":1000,\"tbkSe\":1,\"fs\":[1,3]}],"
		 "\"ftbl\":[\"[root]\",\"0x1: malloc (in libc)\",\"0x2: site_a (app.c:1)\","
		 "\"0x3: site_b (app.c:2)\"]}",
		 a_tb, b_tb);
	cr_assert_eq(tu_spit(path, text, strlen(text)), 0);
}

/* Between sampled profiles, a change no larger than its sampling noise (1.96 sqrt of the
 * two sides' variances) is said to be within noise, and --fail-if does not count it: a CI
 * gate on sampled profiles must not fail on the sampling alone. */
Test(diff_ci, sampling_noise_is_not_a_regression)
{
	static const char *const site_gate[] = {"--fail-if", "site-total-bytes>+5%", NULL};
	static const char *const total_gate[] = {"--fail-if", "total-bytes>+5%", NULL};
	char dir[512], old[600], new[600], *out = NULL, *errs = NULL;
	const char *a, *b;

	tu_scratch(dir, sizeof(dir), "diff-noise");
	snprintf(old, sizeof(old), "%s/old.json", dir);
	snprintf(new, sizeof(new), "%s/new.json", dir);
	write_sampled(old, 100000, 20000);
	write_sampled(new, 106000, 30000);

	cr_expect_eq(diff_cli(old, new, NULL, &out, &errs), 0, "%s", errs);
	a = strstr(out, "site_a (app.c:1)");
	b = strstr(out, "site_b (app.c:2)");
	cr_assert(a && b, "%s", out);
	cr_expect(!strncmp(a + strlen("site_a (app.c:1)"), "  [within noise]\n", 17), "%s", out);
	cr_expect(b[strlen("site_b (app.c:2)")] == '\n', "%s", out);
	/* noise of the total: 1.96 sqrt(2 (5000^2 + 1000^2)) = 14,134 */
	cr_expect(strstr(out, "total bytes \xc2\xb1" "14,134"), "%s", out);
	free(out);
	free(errs);

	/* B exceeds by more than its noise (10,000 - 2,772 > 5% of 20,000); A's +6% does
	 * not once its noise (13,859) is taken off. */
	cr_expect_eq(diff_cli(old, new, site_gate, &out, &errs), 1, "%s", errs);
	cr_expect(strstr(errs, "exceeded at 1 program point; the largest: site_b"), "%s", errs);
	cr_expect(strstr(errs, "not counted at 1 program point: exceeded only with the sampling "
			       "noise"),
		  "%s", errs);
	free(out);
	free(errs);
	/* The total: +16,000 (+13.3%), but +1,866 (1.6%) once the noise (14,133.8) is off. */
	cr_expect_eq(diff_cli(old, new, total_gate, &out, &errs), 0, "%s", errs);
	cr_expect(strstr(errs, "not counted: 120,000 -> 136,000 (+16,000, +13.3%) exceeds it "
			       "only with its sampling noise (\xc2\xb1"
			       "14,134); beyond the noise: +1,866"),
		  "%s", errs);
	free(out);
	free(errs);
}

/* #35: the diff flame graph's colour is relative to the largest change and white means
 * unchanged, so parse's +0.2% (20,000 -> 20,040) beside load_table's +50% is near white, not
 * the pink flamegraph.pl gives any change; and its leaves leave out the allocator (malloc),
 * as the other exports do. Fixture: data/report/ci_small.json against ci_base.json. */
Test(diff_ci, diff_flame_graph_colour_scale_and_no_plumbing, .timeout = TEST_TIMEOUT(300))
{
	static const char *const svg_args[] = {"--format", "svg", NULL};
	char *svg, *errs, *fill;
	int r, g, b;

	cr_assert_eq(diff_cli(DATA "ci_base.json", DATA "ci_small.json", svg_args, &svg, &errs), 0,
		     "%s", errs);
	fill = fill_of(svg, "load_table");
	rgb(fill, &r, &g, &b);
	/* main above it, the largest change, holds parse's +40 too */
	cr_expect(r == 255 && g <= 1 && b <= 1, "load_table, near the largest change: %s", fill);
	free(fill);
	fill = fill_of(svg, "parse");
	rgb(fill, &r, &g, &b);
	cr_expect(r == 255 && g >= 250 && b >= 250, "parse +0.2%%: near white, not %s", fill);
	free(fill);
	cr_expect(!strstr(svg, "<title>malloc"), "malloc is a frame of the graph:\n%s", svg);
	free(svg);
	free(errs);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests for user/report.c and user/dhat_reader.c: golden summary of a file we write,
 * a real Valgrind DHAT file, dhat-rs layout, gzip input, plumbing/sorting rules, and bad
 * input that must give one clear line and -EINVAL, never a crash. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "dhat_fixture.h"
#include "dhat_invariants.h"
#include "dhat_reader.h"
#include "dhat_writer.h"
#include "report.h"
#include "test_util.h"

/* Run report__print_file; returns its status, the output and the error line. */
static int run_report(const char *path, const struct report_opts *opts, char **out,
		      char *err, size_t errsz)
{
	size_t n = 0;
	FILE *f = open_memstream(out, &n);
	int ret;

	cr_assert_not_null(f);
	ret = report__print_file(f, path, opts, err, errsz);
	fclose(f);
	return ret;
}

/* Write text to a scratch file named name; returns its path (static buffer). */
static const char *put(const char *name, const char *text)
{
	static char path[700];
	char dir[512];

	tu_scratch(dir, sizeof(dir), "report");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cr_assert_eq(tu_spit(path, text, strlen(text)), 0);
	return path;
}

static const char *write_fixture(const char *name)
{
	static char path[700];
	char dir[512];
	struct collector *c = fixture_prog_c();
	struct dhat_meta meta = { .cmd = "./prog", .pid = 7 };

	tu_scratch(dir, sizeof(dir), "report");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct dhat_inv_expect exp = dhat_inv_expect_from(collector__totals(c));
	char msg[512];

	cr_assert_eq(dhat__write_path(path, c, fixture_frames, NULL, &meta), 0);
	cr_assert_eq(dhat_check_invariants(path, &exp, msg, sizeof(msg)), 0, "%s", msg);
	collector__free(c);
	return path;
}

Test(report, golden_summary_of_our_file)
{
	struct report_opts opts = { .title = "prog-c", .unit = "one run of prog.c",
				    .iterations = 4 };
	const char *path = write_fixture("prog.json");
	char err[256] = "", *out = NULL;

	cr_assert_eq(run_report(path, &opts, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(tu_golden(TESTS_SRC_DIR "/data/report_prog_c.golden.txt", out, strlen(out)),
		     0, "summary differs from tests/data/report_prog_c.golden.txt "
			"(UPDATE_GOLDEN=1 to accept):\n%s", out);
	free(out);
}

/* Defaults: title = file name, no unit line, no per-iteration figures; gzip input. */
Test(report, defaults_and_gzip_input)
{
	const char *path = write_fixture("prog.json.gz");
	char err[256] = "", *out = NULL;

	cr_assert_eq(run_report(path, NULL, &out, err, sizeof(err)), 0, "%s", err);
	static const char want[] =
		"\n==============================================================\n"
		"  prog.json.gz\n"
		"--------------------------------------------------------------\n"
		"  total allocations :            7\n"
		"  total bytes       :          526\n"
		"  peak live blocks  :            2\n"
		"  peak live bytes   :          280\n"
		"\n  top program points by TOTAL BYTES\n";

	cr_expect(!strncmp(out, want, strlen(want)), "%s", out);
	free(out);
}

/* Per-iteration figures round like Rust's {:.0}: half to even on the exact value. */
Test(report, per_iteration_rounding)
{
	const char *path = put("round.json",
		"{\"dhatFileVersion\":2,\"mode\":\"ad-hoc\",\"verb\":\"Occurred\",\"bklt\":false,"
		"\"bkacc\":false,\"tu\":\"instrs\",\"Mtu\":\"Minstr\",\"cmd\":\"x\",\"pid\":1,"
		"\"te\":1,\"pps\":[{\"tb\":7,\"tbk\":5,\"fs\":[1]}],\"ftbl\":[\"[root]\",\"g\"]}");
	struct report_opts opts = { .iterations = 2 };
	char err[256] = "", *out = NULL;

	cr_assert_eq(run_report(path, &opts, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out, "  total allocations :            5   (           2 per iter)\n"),
		  "%s", out);
	cr_expect(strstr(out, "  total bytes       :            7   (           4 per iter)\n"),
		  "%s", out);
	free(out);
}

/* A real Valgrind DHAT file (mode "heap", rb/wb/acc present), produced right now. */
Test(report, reads_real_valgrind_file)
{
	char dir[512], file[700], cmd[2048], err[256] = "", *out = NULL;
	struct report_opts opts = { .title = "valgrind prog.c" };
	struct dhat_profile *p;

	if (system("valgrind --version >/dev/null 2>&1") != 0)
		cr_skip_test("valgrind is not installed");
	tu_scratch(dir, sizeof(dir), "valgrind");
	snprintf(file, sizeof(file), "%s/dhat.out.json", dir);
	snprintf(cmd, sizeof(cmd), "valgrind --tool=dhat --dhat-out-file=%s %s >%s/vg.log 2>&1",
		 file, VG_PROG, dir);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);

	p = dhat_profile__load(file, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_expect_str_eq(p->mode, "heap");
	cr_expect(p->bklt && p->bkacc);
	cr_expect_eq(p->total_bytes, 526);
	cr_expect_eq(p->total_blocks, 7);
	cr_expect_eq(p->gmax_bytes, 280);
	cr_expect_eq(p->gmax_blocks, 2);
	cr_expect_eq(p->end_bytes, 32);
	cr_expect_eq(p->end_blocks, 1);
	cr_expect(p->tg <= p->te);
	dhat_profile__free(p);

	cr_assert_eq(run_report(file, &opts, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out, "  total allocations :            7\n"), "%s", out);
	cr_expect(strstr(out, "  total bytes       :          526\n"), "%s", out);
	cr_expect(strstr(out, "  peak live blocks  :            2\n"), "%s", out);
	cr_expect(strstr(out, "  peak live bytes   :          280\n"), "%s", out);
	/* Valgrind's "malloc (in vgpreload...)" frame is plumbing; the site is the caller. */
	cr_expect(strstr(out, "           350 B          3 allocs   grow_buffer (vg_prog.c:"),
		  "%s", out);
	cr_expect(strstr(out, "            80 B          1 allocs   make_table (vg_prog.c:"),
		  "%s", out);
	cr_expect(strstr(out, "  <-  main (vg_prog.c:"), "%s", out);
	cr_expect(!strstr(out, "vgpreload"), "%s", out);
	free(out);
}

/* dhat-rs's layout (PrettyFormatter, tg before te) and its Rust plumbing frames. */
Test(report, reads_dhat_rs_file)
{
	char err[256] = "", *out = NULL;
	struct report_opts opts = { .title = "rust" };

	cr_assert_eq(run_report(TESTS_SRC_DIR "/data/dhat_rs_sample.json", &opts, &out, err,
				sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out, "           350 B          3 allocs   dhat_sample::grow_buffer "
			      "(src/main.rs:14:5)  <-  dhat_sample::main (src/main.rs:30:17)\n"),
		  "%s", out);
	cr_expect(strstr(out, "            32 B          1 allocs   dhat_sample::main "
			      "(src/main.rs:33:21)  <-  core::ops::function::FnOnce::call_once"),
		  "%s", out);
	free(out);
}

#define HDR "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\",\"bklt\":false," \
	    "\"bkacc\":false,\"tu\":\"instrs\",\"Mtu\":\"Minstr\",\"cmd\":\"x\",\"pid\":1,\"te\":1,"

/* Plumbing: C allocator frames match whole symbols (realloc_buffer stays), glibc internals
 * by prefix, extra patterns through report_opts.skip; all-plumbing stacks fall back to the
 * first frame; ties sort by blocks then site text; top limits the rows. */
Test(report, plumbing_sorting_and_top)
{
	const char *path = put("plumb.json", HDR
		"\"pps\":["
		"{\"tb\":100,\"tbk\":2,\"fs\":[1,2,3]},"
		"{\"tb\":100,\"tbk\":5,\"fs\":[4,5,6,7,3]},"
		"{\"tb\":100,\"tbk\":5,\"fs\":[8,9,3]},"
		"{\"tb\":10,\"tbk\":9,\"fs\":[1,4]},"
		"{\"tb\":1,\"tbk\":1,\"fs\":[]}"
		"],\"ftbl\":[\"[root]\","
		"\"0x1: malloc (in /lib/libc.so.6)\","		/* 1 */
		"\"0x2: realloc_buffer (b.c:3)\","		/* 2 */
		"\"0x3: main (m.c:9)\","			/* 3 */
		"\"0x4: strdup (in /lib/libc.so.6)\","		/* 4 */
		"\"0x5: __libc_something (in /lib/libc.so.6)\"," /* 5 */
		"\"0x6: _int_malloc (in /lib/libc.so.6)\","	/* 6 */
		"\"0x7: xstrdup (u.c:1)\","			/* 7 */
		"\"0x8: my_alloc (a.c:1)\","			/* 8 */
		"\"0x9: build (a.c:20)\""			/* 9 */
		"]}");
	const char *skip[] = { "=my_alloc", "nomatch" };
	struct report_opts opts = { .title = "t", .skip = skip, .skip_cnt = 2 };
	char err[256] = "", *out = NULL;

	cr_assert_eq(run_report(path, &opts, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out,
		"  top program points by TOTAL BYTES\n"
		"             100 B          5 allocs   build (a.c:20)  <-  main (m.c:9)\n"
		"             100 B          5 allocs   xstrdup (u.c:1)  <-  main (m.c:9)\n"
		"             100 B          2 allocs   realloc_buffer (b.c:3)  <-  main (m.c:9)\n"
		"              10 B          9 allocs   malloc (in /lib/libc.so.6)  <-  "
		"strdup (in /lib/libc.so.6)\n"
		"               1 B          1 allocs   <unattributed>\n"
		"\n  top program points by ALLOCATION COUNT\n"
		"            9 allocs            10 B   malloc (in /lib/libc.so.6)  <-  "
		"strdup (in /lib/libc.so.6)\n"
		"            5 allocs           100 B   build (a.c:20)  <-  main (m.c:9)\n"
		"            5 allocs           100 B   xstrdup (u.c:1)  <-  main (m.c:9)\n"
		"            2 allocs           100 B   realloc_buffer (b.c:3)  <-  main (m.c:9)\n"
		"            1 allocs             1 B   <unattributed>\n"), "%s", out);
	free(out);

	opts.top = 2;
	cr_assert_eq(run_report(path, &opts, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out, "xstrdup") && !strstr(out, "realloc_buffer") &&
		  !strstr(out, "<unattributed>"), "%s", out);
	free(out);
}

/* ---- bad input: one line with the location, -EINVAL, nothing printed ---------------- */

struct bad_case {
	const char *name;
	const char *text;
	const char *want; /* expected in the message, after "PATH: " */
};

#define GOOD_TAIL "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1]}],\"ftbl\":[\"[root]\",\"f\"]}"
#define BKLT_HDR "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\",\"bklt\":true," \
		 "\"bkacc\":false,\"tu\":\"instrs\",\"Mtu\":\"Minstr\",\"cmd\":\"x\",\"pid\":1," \
		 "\"te\":10,"

static const struct bad_case BAD[] = {
	{ "not_json", "{\"dhatFileVersion\":2,\n  oops", "not valid JSON (line 2, column " },
	{ "empty", "", "empty file" },
	{ "blank", " \n\t\n", "empty file" },
	{ "trailing_garbage", HDR GOOD_TAIL " x", "not valid JSON: unexpected data after the top-level value" },
	{ "top_array", "[1,2]", "top level is an array, expected an object" },
	{ "version_1", "{\"dhatFileVersion\":1,\"mode\":\"heap\",\"verb\":\"Allocated\","
		       "\"bklt\":false,\"bkacc\":false,\"tu\":\"i\",\"Mtu\":\"M\",\"cmd\":\"x\","
		       "\"pid\":1,\"te\":1," GOOD_TAIL, "dhatFileVersion is 1, expected 2" },
	{ "version_3", "{\"dhatFileVersion\":3,\"mode\":\"heap\",\"verb\":\"Allocated\","
		       "\"bklt\":false,\"bkacc\":false,\"tu\":\"i\",\"Mtu\":\"M\",\"cmd\":\"x\","
		       "\"pid\":1,\"te\":1," GOOD_TAIL, "dhatFileVersion is 3, expected 2" },
	{ "missing_top", "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\","
			 "\"bklt\":false,\"bkacc\":false,\"tu\":\"i\",\"cmd\":\"x\","
			 "\"pid\":1,\"te\":1," GOOD_TAIL, "missing field \"Mtu\"" },
	{ "missing_tg", BKLT_HDR "\"tuth\":1," GOOD_TAIL, "missing field \"tg\"" },
	{ "missing_tbk", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1]},{\"tb\":1,\"fs\":[]},"
			 "{\"tb\":1,\"tbk\":1,\"fs\":[1,1]},{\"tb\":2,\"fs\":[1]}],"
			 "\"ftbl\":[\"[root]\",\"f\"]}", "pps[1]: missing field \"tbk\"" },
	{ "missing_gb", BKLT_HDR "\"tg\":1,\"tuth\":1,\"pps\":[{\"tb\":1,\"tbk\":1,\"mb\":1,"
			"\"mbk\":1,\"gbk\":1,\"eb\":1,\"ebk\":1,\"fs\":[1]}],"
			"\"ftbl\":[\"[root]\",\"f\"]}", "pps[0]: missing field \"gb\"" },
	{ "missing_rb", "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"A\",\"bklt\":false,"
			"\"bkacc\":true,\"tu\":\"i\",\"Mtu\":\"M\",\"cmd\":\"x\",\"pid\":1,"
			"\"te\":1," GOOD_TAIL, "pps[0]: missing field \"rb\"" },
	{ "string_number", HDR "\"pps\":[{\"tb\":\"100\",\"tbk\":1,\"fs\":[1]}],"
			   "\"ftbl\":[\"[root]\",\"f\"]}",
	  "pps[0]: field \"tb\" is a string, expected a non-negative integer" },
	{ "negative", HDR "\"pps\":[{\"tb\":-5,\"tbk\":1,\"fs\":[1]}],\"ftbl\":[\"[root]\",\"f\"]}",
	  "pps[0]: field \"tb\" is -5, expected a non-negative integer" },
	{ "float", HDR "\"pps\":[{\"tb\":1.5,\"tbk\":1,\"fs\":[1]}],\"ftbl\":[\"[root]\",\"f\"]}",
	  "pps[0]: field \"tb\" is 1.5, expected a non-negative integer" },
	{ "bklt_not_bool", "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"A\",\"bklt\":1,"
			   "\"bkacc\":false,\"tu\":\"i\",\"Mtu\":\"M\",\"cmd\":\"x\",\"pid\":1,"
			   "\"te\":1," GOOD_TAIL,
	  "field \"bklt\" is a number, expected true or false" },
	{ "mode_not_string", "{\"dhatFileVersion\":2,\"mode\":7,\"verb\":\"A\",\"bklt\":false,"
			     "\"bkacc\":false,\"tu\":\"i\",\"Mtu\":\"M\",\"cmd\":\"x\",\"pid\":1,"
			     "\"te\":1," GOOD_TAIL, "field \"mode\" is a number, expected a string" },
	{ "fs_not_array", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":{\"a\":1}}],"
			  "\"ftbl\":[\"[root]\",\"f\"]}",
	  "pps[0]: field \"fs\" is an object, expected an array" },
	{ "pps_not_array", HDR "\"pps\":{},\"ftbl\":[\"[root]\"]}",
	  "field \"pps\" is an object, expected an array" },
	{ "pp_not_object", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1]},3],"
			   "\"ftbl\":[\"[root]\",\"f\"]}", "pps[1] is a number, expected an object" },
	{ "fs_bad_entry", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1,\"2\"]}],"
			  "\"ftbl\":[\"[root]\",\"f\",\"g\"]}",
	  "pps[0]: fs[1] is a string, expected a frame index" },
	{ "index_out_of_range", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1,9]}],"
				"\"ftbl\":[\"[root]\",\"f\"]}",
	  "pps[0]: fs[1] = 9 is out of range (ftbl has 2 frames)" },
	{ "ftbl_not_strings", HDR "\"pps\":[],\"ftbl\":[\"[root]\",null]}",
	  "ftbl[1] is null, expected a string" },
	{ "acc_too_large", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"acc\":[-3,1,65536],\"fs\":[1]}],"
			   "\"ftbl\":[\"[root]\",\"f\"]}",
	  "pps[0]: acc[2] is not an access count (0..65535) or a run length" },
	{ "acc_not_array", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"acc\":5,\"fs\":[1]}],"
			   "\"ftbl\":[\"[root]\",\"f\"]}",
	  "pps[0]: field \"acc\" is a number, expected an array" },
	{ "duplicate_fs", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1,2]},"
			  "{\"tb\":1,\"tbk\":1,\"fs\":[2]},{\"tb\":3,\"tbk\":1,\"fs\":[1,2]}],"
			  "\"ftbl\":[\"[root]\",\"f\",\"g\"]}",
	  "pps[2]: same \"fs\" as pps[0] (a repeated location)" },
};

Test(report, bad_input_one_line_einval)
{
	for (size_t i = 0; i < sizeof(BAD) / sizeof(BAD[0]); i++) {
		char name[64], err[512] = "", want[700], *out = NULL;
		const char *path;
		int ret;

		snprintf(name, sizeof(name), "%s.json", BAD[i].name);
		path = put(name, BAD[i].text);
		ret = run_report(path, NULL, &out, err, sizeof(err));
		snprintf(want, sizeof(want), "%s: %s", path, BAD[i].want);
		cr_expect_eq(ret, -EINVAL, "%s: ret %d (%s)", BAD[i].name, ret, err);
		cr_expect(!strncmp(err, want, strlen(want)), "%s:\n  got  '%s'\n  want '%s'",
			  BAD[i].name, err, want);
		cr_expect(!strchr(err, '\n'), "%s: message spans lines", BAD[i].name);
		cr_expect(!out || !*out, "%s: printed a report anyway", BAD[i].name);
		free(out);
	}
}

/* Deep nesting, a huge index, a missing file, corrupt gzip: clear errors, no crash. */
Test(report, hostile_input_no_crash)
{
	char dir[512], path[700], err[512], *out = NULL;
	size_t depth = 200000;
	char *deep = malloc(2 * depth + 1);

	for (size_t i = 0; i < depth; i++)
		deep[i] = '[', deep[depth + i] = ']';
	deep[2 * depth] = '\0';
	cr_expect_eq(run_report(put("deep.json", deep), NULL, &out, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "not valid JSON"), "%s", err);
	free(deep);
	free(out);

	cr_expect_eq(run_report(put("huge_index.json", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,"
				    "\"fs\":[1e300]}],\"ftbl\":[\"[root]\",\"f\"]}"),
				NULL, &out, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "fs[0] is a number, expected a frame index"), "%s", err);
	free(out);

	tu_scratch(dir, sizeof(dir), "report");
	snprintf(path, sizeof(path), "%s/missing.json", dir);
	unlink(path);
	cr_expect_eq(run_report(path, NULL, &out, err, sizeof(err)), -ENOENT);
	cr_expect(strstr(err, "missing.json: cannot open: No such file or directory"), "%s", err);
	free(out);

	/* gzip header, then garbage */
	cr_expect_eq(run_report(put("corrupt.json.gz", "\x1f\x8b\x08\x00garbage-garbage-garbage"),
				NULL, &out, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "corrupt.json.gz: "), "%s", err);
	cr_expect(!strchr(err, '\n'));
	free(out);

	/* NUL byte inside the text */
	snprintf(path, sizeof(path), "%s/nul.json", dir);
	cr_assert_eq(tu_spit(path, HDR GOOD_TAIL "\0\0", sizeof(HDR GOOD_TAIL) + 1), 0);
	cr_expect_eq(run_report(path, NULL, &out, err, sizeof(err)), -EINVAL, "%s", err);
	free(out);
}

/* What the viewer accepts, so do we: a BOM, the version as a string, extra keys, empty pps,
 * missing tl. */
Test(report, accepts_what_the_viewer_accepts)
{
	const char *path = put("lenient.json",
		"\xef\xbb\xbf{\"dhatFileVersion\":\"2\",\"mode\":\"x\",\"verb\":\"A\",\"bklt\":true,"
		"\"bkacc\":false,\"tu\":\"i\",\"Mtu\":\"M\",\"cmd\":\"x\",\"pid\":1,\"te\":1,"
		"\"tg\":0,\"tuth\":1,\"extra\":[1,2],\"pps\":[],\"ftbl\":[\"[root]\"]}");
	char err[256] = "", *out = NULL;

	cr_expect_eq(run_report(path, NULL, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out, "  total allocations :            0\n"), "%s", out);
	free(out);
}

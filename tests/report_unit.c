// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests for user/report.c, user/dhat_reader.c and `tracer report` (cli_report.c):
 * golden summaries (text and JSON) of a file we write, real Valgrind heap/copy/ad-hoc files,
 * dhat-rs heap and ad-hoc layouts, gzip input, the streaming reader across its read window,
 * plumbing/sorting rules, bad input that must give one clear line (golden) and exit 2, and
 * a replay of the fuzzing corpus. UPDATE_GOLDEN=1 rewrites the golden files. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <zlib.h>

#include "cli.h"
#include "dhat_arenas.h"
#include "dhat_fixture.h"
#include "dhat_invariants.h"
#include "dhat_reader.h"
#include "dhat_writer.h"
#include "diff.h"
#include "report.h"
#include "suppress.h"
#include "test_util.h"

#define DATA TESTS_SRC_DIR "/data/report/"

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

#define EXPECT_GOLDEN(golden, text)                                                                \
	cr_expect_eq(tu_golden(golden, text, strlen(text)), 0,                                      \
		     "output differs from %s (UPDATE_GOLDEN=1 to accept):\n%s", golden, text)

/* --bytes: the exact figures, as before human units; then the default, in KiB/MiB. */
Test(report, golden_summary_of_our_file)
{
	struct report_opts opts = { .title = "prog-c", .unit = "one run of prog.c",
				    .iterations = 4, .exact_bytes = true };
	const char *path = write_fixture("prog.json");
	char err[256] = "", *out = NULL;

	cr_assert_eq(run_report(path, &opts, &out, err, sizeof(err)), 0, "%s", err);
	EXPECT_GOLDEN(TESTS_SRC_DIR "/data/report_prog_c.golden.txt", out);
	free(out);
	opts.exact_bytes = false;
	cr_assert_eq(run_report(path, &opts, &out, err, sizeof(err)), 0, "%s", err);
	EXPECT_GOLDEN(TESTS_SRC_DIR "/data/report_prog_c.human.golden.txt", out);
	free(out);
}

/* report --json of the same file: totals, per-iteration, peak, end, rows with frames. */
Test(report, golden_json_of_our_file)
{
	struct report_opts opts = { .title = "prog-c", .unit = "one run of prog.c",
				    .iterations = 4, .json = true };
	const char *path = write_fixture("prog.json");
	char err[256] = "", *out = NULL;
	cJSON *j;

	cr_assert_eq(run_report(path, &opts, &out, err, sizeof(err)), 0, "%s", err);
	/* The scratch path differs per run: compare with the golden under a fixed name. */
	j = cJSON_Parse(out);
	cr_assert_not_null(j, "not JSON:\n%s", out);
	cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "totals"), "bytes")->valuedouble,
		     526);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "rows")), 3);
	/* rows are streamed one by one: the text must still be cJSON_Print's, byte for byte */
	char *again = cJSON_Print(j);
	cr_expect(!strncmp(out, again, strlen(again)) && !strcmp(out + strlen(again), "\n"),
		  "streamed:\n%s\nreprinted:\n%s", out, again);
	free(again);
	cJSON_ReplaceItemInObject(j, "file", cJSON_CreateString("prog.json"));
	free(out);
	out = cJSON_Print(j);
	EXPECT_GOLDEN(DATA "prog_c.golden.json", out);
	cJSON_Delete(j);
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
		"  total bytes       :        526 B\n"
		"  peak live blocks  :            2\n"
		"  peak live bytes   :        280 B\n"
		"  end live blocks   :            1\n"
		"  end live bytes    :         32 B\n"
		"\n  top program points by TOTAL BYTES\n";

	cr_expect(!strncmp(out, want, strlen(want)), "%s", out);
	free(out);
}

/* Per-iteration figures round like Rust's {:.0}: half to even on the exact value. */
Test(report, per_iteration_rounding)
{
	const char *path = put("round.json",
		"{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\",\"bklt\":false,"
		"\"bkacc\":false,\"tu\":\"instrs\",\"Mtu\":\"Minstr\",\"cmd\":\"x\",\"pid\":1,"
		"\"te\":1,\"pps\":[{\"tb\":7,\"tbk\":5,\"fs\":[1]}],\"ftbl\":[\"[root]\",\"g\"]}");
	struct report_opts opts = { .iterations = 2, .exact_bytes = true };
	char err[256] = "", *out = NULL;

	cr_assert_eq(run_report(path, &opts, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out, "  total allocations :            5   (           2 per iter)\n"),
		  "%s", out);
	cr_expect(strstr(out, "  total bytes       :            7   (           4 per iter)\n"),
		  "%s", out);
	cr_expect(!strstr(out, "peak live"), "no peak lines without bklt:\n%s", out);
	free(out);
	/* human units round the same way */
	opts.exact_bytes = false;
	cr_assert_eq(run_report(path, &opts, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out, "  total bytes       :          7 B   (         4 B per iter)\n"),
		  "%s", out);
	free(out);
}

/* A real Valgrind DHAT file (mode "heap", rb/wb/acc present), produced right now. */
Test(report, reads_real_valgrind_file)
{
	char dir[512], file[700], cmd[2048], err[256] = "", *out = NULL;
	struct report_opts opts = { .title = "valgrind prog.c", .sort = REPORT_SORT_PEAK,
				    .exact_bytes = true };
	struct dhat_profile *p;
	cJSON *j;

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
	cr_expect(p->total_reads > 0 && p->total_writes >= 261); /* 261 in dhat-format.md */
	cr_expect(p->tg <= p->te);
	dhat_profile__free(p);

	cr_assert_eq(run_report(file, &opts, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out, "  total allocations :            7\n"), "%s", out);
	cr_expect(strstr(out, "  total bytes       :          526\n"), "%s", out);
	cr_expect(strstr(out, "  peak live blocks  :            2\n"), "%s", out);
	cr_expect(strstr(out, "  peak live bytes   :          280\n"), "%s", out);
	cr_expect(strstr(out, "  end live bytes    :           32\n"), "%s", out);
	cr_expect(strstr(out, "  total reads       : "), "%s", out);
	cr_expect(strstr(out, "  total writes      : "), "%s", out);
	/* Valgrind's "malloc (in vgpreload...)" frame is plumbing; the site is the caller. */
	cr_expect(strstr(out, "           350 B          3 allocs   grow_buffer (vg_prog.c:"),
		  "%s", out);
	cr_expect(strstr(out, "            80 B          1 allocs   make_table (vg_prog.c:"),
		  "%s", out);
	cr_expect(strstr(out, "  <-  main (vg_prog.c:"), "%s", out);
	cr_expect(!strstr(out, "vgpreload"), "%s", out);
	/* --sort peak: at t-gmax the table (80) and the grown buffer (200) were live */
	cr_expect(strstr(out, "  top program points AT PEAK (t-gmax)\n"
			      "             200 B          1 allocs   grow_buffer (vg_prog.c:"),
		  "%s", out);
	free(out);

	opts.json = true;
	cr_assert_eq(run_report(file, &opts, &out, err, sizeof(err)), 0, "%s", err);
	j = cJSON_Parse(out);
	cr_assert_not_null(j, "%s", out);
	cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "peak"), "bytes")->valuedouble,
		     280);
	cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "end"), "bytes")->valuedouble, 32);
	cr_expect(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "totals"), "reads"));
	cr_expect_str_eq(cJSON_GetObjectItem(j, "sort")->valuestring, "peak");
	cr_expect_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rows"), 0),
					 "gb")->valuedouble, 200);
	cJSON_Delete(j);
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

/* Every mode and every --sort table, against one golden file: Valgrind copy and ad-hoc
 * files (units, no peak/end lines), dhat-rs ad-hoc ("units"/"events"), and the dhat-rs
 * heap sample with --sort peak, end and lifetime. */
Test(report, golden_modes_and_sort_tables)
{
	static const struct {
		const char *file;
		enum report_sort sort;
	} cases[] = {
		{ DATA "vg_copy.json", REPORT_SORT_DEFAULT },
		{ DATA "vg_adhoc.json", REPORT_SORT_DEFAULT },
		{ DATA "rust_adhoc.json", REPORT_SORT_TOTAL_BLOCKS },
		{ TESTS_SRC_DIR "/data/dhat_rs_sample.json", REPORT_SORT_PEAK },
		{ TESTS_SRC_DIR "/data/dhat_rs_sample.json", REPORT_SORT_END },
		{ TESTS_SRC_DIR "/data/dhat_rs_sample.json", REPORT_SORT_LIFETIME },
	};
	char *all = NULL, err[512];
	size_t all_len = 0;
	FILE *f = open_memstream(&all, &all_len);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct report_opts opts = { .sort = cases[i].sort, .top = 5 };
		char *out = NULL;

		cr_assert_eq(run_report(cases[i].file, &opts, &out, err, sizeof(err)), 0, "%s",
			     err);
		fprintf(f, "### %s --sort %s%s", strrchr(cases[i].file, '/') + 1,
			report__sort_name(cases[i].sort), out);
		free(out);
	}
	fclose(f);
	cr_expect(strstr(all, "  total events      :            3\n"
			      "  total units       :           35\n"), "%s", all);
	cr_expect(strstr(all, "  top program points by NUMBER OF BLOCKS\n"), "%s", all);
	EXPECT_GOLDEN(DATA "modes.golden.txt", all);
	free(all);
}

/* --sort peak/end/lifetime need block lifetimes: a clear error on a file without them. */
Test(report, sort_needs_bklt)
{
	struct report_opts opts = { .sort = REPORT_SORT_LIFETIME };
	char err[512] = "", *out = NULL;

	cr_expect_eq(run_report(DATA "vg_adhoc.json", &opts, &out, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "vg_adhoc.json: --sort lifetime needs block lifetimes, and this "
			      "ad-hoc file has none"), "%s", err);
	free(out);
}

#define HDR "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\",\"bklt\":false," \
	    "\"bkacc\":false,\"tu\":\"instrs\",\"Mtu\":\"Minstr\",\"cmd\":\"x\",\"pid\":1,\"te\":1,"

/* Plumbing: C allocator frames match whole symbols (realloc_buffer stays), glibc internals
 * by prefix, extra patterns through report_opts.site.skip; all-plumbing stacks fall back to the
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
	struct report_opts opts = { .title = "t", .site = { .skip = skip, .skip_cnt = 2 } };
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

/* The built-in C++ and Rust plumbing, a C++ return type before std::, --no-default-skip. */
Test(report, plumbing_cpp_and_rust_defaults)
{
	static const struct {
		const char *frame;
		bool plumbing;
	} cases[] = {
		{ "operator new(unsigned long) (in /usr/lib/libstdc++.so.6)", true },
		{ "operator new[](unsigned long) (in /usr/lib/libstdc++.so.6)", true },
		{ "operator delete(void*, unsigned long) (new_op.cc:3)", true },
		{ "_Znwm (in /usr/lib/libstdc++.so.6)", true },
		{ "_Znam (in /usr/lib/libstdc++.so.6)", true },
		{ "std::allocator<int>::allocate(unsigned long) (allocator.h:180)", true },
		{ "__gnu_cxx::new_allocator<int>::allocate(unsigned long, void const*) (a.h:12)",
		  true },
		{ "void std::vector<int, std::allocator<int> >::_M_realloc_insert<int>(int&&) "
		  "(vector.tcc:440)", true },
		{ "alloc::raw_vec::RawVec<T,A>::grow_one (alloc/src/raw_vec.rs:10:9)", true },
		{ "<alloc::vec::Vec<T> as core::clone::Clone>::clone (vec/mod.rs:1:1)", true },
		{ "hashbrown::raw::RawTable<T,A>::reserve_rehash (raw/mod.rs:1:1)", true },
		{ "__rust_alloc (???:0:0)", true },
		{ "__rg_alloc (???:0:0)", true },
		{ "<dhat::Alloc as core::alloc::global::GlobalAlloc>::alloc (dhat/src/lib.rs:1:1)",
		  true },
		{ "__libc_calloc (malloc.c:3650)", true },
		{ "_int_malloc (malloc.c:4000)", true },
		{ "malloc (in /lib/libc.so.6)", true },
		{ "malloc@@GLIBC_2.2.5 (in /lib/libc.so.6)", true },
		{ "mallocator_new (m.c:1)", false },
		{ "Parser::parse(std::string const&) (parser.cc:40)", false },
		{ "kaish::lex::Lexer::next (src/lex.rs:1:1)", false },
		/* Rust qualified paths (v0, legacy): std's by Self, or by a Self with no crate
		 * (primitive, generic) and no trait or a std one; a user type or trait is not. */
		{ "<u8 as <[_]>::to_vec_in::ConvertVec>::to_vec::<alloc::alloc::Global> "
		  "(slice.rs:448)", true },
		{ "<[u8]>::to_vec_in::<alloc::alloc::Global> (slice.rs:400)", true },
		{ "<<alloc::boxed::Box<str> as core::convert::From<&str>>::from as "
		  "core::ops::function::FnOnce<(&str,)>>::call_once (function.rs:250)", true },
		{ "<fn() as core::ops::function::FnOnce<()>>::call_once (function.rs:250)", true },
		{ "<&dyn core::ops::function::Fn<(), Output = i32> + core::marker::Sync as "
		  "core::ops::function::FnOnce<()>>::call_once (function.rs:287)", true },
		{ "<&'static str as core::convert::Into<alloc::string::String>>::into (a.rs:1)",
		  true },
		{ "<str>::to_owned (str.rs:1)", true },
		{ "<fn() -> u8 as core::ops::function::FnOnce<()>>::call_once (f.rs:1)", true },
		{ "<kaish::Node as core::clone::Clone>::clone (src/ast.rs:1:1)", false },
		{ "<u8 as kaish::Encode>::encode (src/enc.rs:1:1)", false },
		{ "<&mut [kaish::Token] as kaish::Parse>::parse (src/p.rs:1:1)", false },
		{ "<kaish::Lexer>::next (src/lex.rs:1:1)", false },
		{ "<T as alloc::slice::hack::ConvertVec>::to_vec (slice.rs:229)", true },
		{ "<&str as alloc::ffi::c_str::CString::new::SpecNewImpl>::spec_new_impl "
		  "(c_str.rs:306)", true },
		{ "<T as kaish::Encode>::encode (src/enc.rs:1:1)", false },
		{ "<<<<<<<<<<<<u8>>>>>>>>>>>>::f (deep.rs:1)", false },
		{ "<u8 as core::clone::Clone (unbalanced.rs:1)", false },
		{ "make_table (prog.c:21)", false },
		{ "???", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(site__is_plumbing(cases[i].frame, NULL), cases[i].plumbing, "%s",
			     cases[i].frame);
	struct site_opts none = { .no_default_skip = true };
	cr_expect(!site__is_plumbing("malloc (in /lib/libc.so.6)", &none));
	cr_expect_str_eq(site__clean_frame("0x10918F: make_table (prog.c:21)"),
			 "make_table (prog.c:21)");
	cr_expect_str_eq(site__clean_frame("0x5571e110fcf1: a::b (src/main.rs:8:5)"),
			 "a::b (src/main.rs:8:5)");
	cr_expect_str_eq(site__clean_frame("note: not an address"), "note: not an address");
	cr_expect_str_eq(site__clean_frame("0x: x"), "0x: x");
}

/* ---- bad input: one line with the location, -EINVAL, nothing printed ---------------- */

struct bad_case {
	const char *name;
	const char *text;
	const char *want; /* expected in the message */
};

#define GOOD_TAIL "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1]}],\"ftbl\":[\"[root]\",\"f\"]}"
#define BKLT_HDR "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\",\"bklt\":true," \
		 "\"bkacc\":false,\"tu\":\"instrs\",\"Mtu\":\"Minstr\",\"cmd\":\"x\",\"pid\":1," \
		 "\"te\":10,"

static const struct bad_case BAD[] = {
	{ "not_json", "{\"dhatFileVersion\":2,\n  oops",
	  "not_json.json:2:3: not valid JSON: expected a key string, found 'o'" },
	{ "empty", "", "empty.json: empty file" },
	{ "blank", " \n\t\n", "empty file" },
	{ "truncated", HDR "\"pps\":[{\"tb\":1,",
	  "not valid JSON: expected a key string, found the end of the file" },
	{ "trailing_comma", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1]},],\"ftbl\":[\"[root]\"]}",
	  "not valid JSON: expected a value, found ']'" },
	{ "unclosed_string", "{\"dhatFileVersion\":2,\"mode\":\"heap\n\"}",
	  ":1:34: not valid JSON: expected '\"' to close the string, found byte 0x0a" },
	{ "bad_escape", "{\"mode\":\"a\\qb\"}", "not valid JSON: expected an escape" },
	{ "bad_number", HDR "\"pps\":[{\"tb\":-,\"tbk\":1,\"fs\":[1]}],\"ftbl\":[\"[root]\"]}",
	  "not valid JSON: expected a digit, found ','" },
	{ "leading_zero", HDR "\"pps\":[{\"tb\":01,\"tbk\":1,\"fs\":[1]}],\"ftbl\":[\"[root]\"]}",
	  "not valid JSON: expected ',' or '}', found '1'" },
	{ "comment", "// DHAT\n{}", "1:1: not valid JSON: expected a value, found '/'" },
	{ "trailing_garbage", HDR GOOD_TAIL " x",
	  "not valid JSON: unexpected data after the top-level value" },
	{ "top_array", "[1,2]", "top_array.json:1:1: top level is an array, expected an object" },
	{ "version_1", "{\"dhatFileVersion\":1,\"mode\":\"heap\",\"verb\":\"Allocated\","
		       "\"bklt\":false,\"bkacc\":false,\"tu\":\"i\",\"Mtu\":\"M\",\"cmd\":\"x\","
		       "\"pid\":1,\"te\":1," GOOD_TAIL, ":1:20: dhatFileVersion is 1, expected 2" },
	{ "version_3_string", "{\"dhatFileVersion\":\"3\",\"mode\":\"heap\",\"verb\":\"A\","
			      "\"bklt\":false,\"bkacc\":false,\"tu\":\"i\",\"Mtu\":\"M\","
			      "\"cmd\":\"x\",\"pid\":1,\"te\":1," GOOD_TAIL,
	  "dhatFileVersion is \"3\", expected 2" },
	{ "missing_top", "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\","
			 "\"bklt\":false,\"bkacc\":false,\"tu\":\"i\",\"cmd\":\"x\","
			 "\"pid\":1,\"te\":1," GOOD_TAIL, "missing field \"Mtu\"" },
	{ "missing_tg", BKLT_HDR "\"tuth\":1," GOOD_TAIL,
	  "missing field \"tg\" (required when \"bklt\" is true)" },
	{ "missing_tbk", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1]},\n{\"tb\":1,\"fs\":[]},"
			 "{\"tb\":1,\"tbk\":1,\"fs\":[1,1]},{\"tb\":2,\"fs\":[1]}],"
			 "\"ftbl\":[\"[root]\",\"f\"]}", ":2:1: pps[1]: missing field \"tbk\"" },
	/* pps before the header: bklt is only known at the end, the check still happens */
	{ "missing_gb_pps_first", "{\"pps\":[{\"tb\":1,\"tbk\":1,\"mb\":1,\"mbk\":1,\"gbk\":1,"
				  "\"eb\":1,\"ebk\":1,\"fs\":[1]}],\"ftbl\":[\"[root]\",\"f\"],"
				  "\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"A\","
				  "\"bklt\":true,\"bkacc\":false,\"tu\":\"i\",\"Mtu\":\"M\","
				  "\"cmd\":\"x\",\"pid\":1,\"te\":10,\"tg\":1,\"tuth\":1}",
	  ":1:9: pps[0]: missing field \"gb\"" },
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
	{ "above_u64", HDR "\"pps\":[{\"tb\":18446744073709551616,\"tbk\":1,\"fs\":[1]}],"
		       "\"ftbl\":[\"[root]\",\"f\"]}",
	  "pps[0]: field \"tb\" is 18446744073709551616, expected a non-negative integer" },
	{ "array_as_number", HDR "\"pps\":[{\"tb\":[1],\"tbk\":1,\"fs\":[1]}],"
			     "\"ftbl\":[\"[root]\",\"f\"]}",
	  "pps[0]: field \"tb\" is an array, expected a non-negative integer" },
	{ "bklt_not_bool", "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"A\",\"bklt\":1,"
			   "\"bkacc\":false,\"tu\":\"i\",\"Mtu\":\"M\",\"cmd\":\"x\",\"pid\":1,"
			   "\"te\":1," GOOD_TAIL,
	  "field \"bklt\" is 1, expected true or false" },
	{ "mode_not_string", "{\"dhatFileVersion\":2,\"mode\":7,\"verb\":\"A\",\"bklt\":false,"
			     "\"bkacc\":false,\"tu\":\"i\",\"Mtu\":\"M\",\"cmd\":\"x\",\"pid\":1,"
			     "\"te\":1," GOOD_TAIL, "field \"mode\" is 7, expected a string" },
	{ "duplicate_top_key", HDR "\"te\":2," GOOD_TAIL, "key \"te\" given twice" },
	{ "duplicate_pp_key", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"tb\":2,\"fs\":[1]}],"
			      "\"ftbl\":[\"[root]\",\"f\"]}", "pps[0]: key \"tb\" given twice" },
	{ "fs_not_array", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":{\"a\":1}}],"
			  "\"ftbl\":[\"[root]\",\"f\"]}",
	  "pps[0]: field \"fs\" is an object, expected an array" },
	{ "pps_not_array", HDR "\"pps\":{},\"ftbl\":[\"[root]\"]}",
	  "field \"pps\" is an object, expected an array" },
	{ "pp_not_object", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1]},3],"
			   "\"ftbl\":[\"[root]\",\"f\"]}", "pps[1] is 3, expected an object" },
	{ "fs_bad_entry", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1,\"2\"]}],"
			  "\"ftbl\":[\"[root]\",\"f\",\"g\"]}",
	  "pps[0]: fs[1] is a string, expected a frame index" },
	{ "index_out_of_range", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1,9]}],"
				"\"ftbl\":[\"[root]\",\"f\"]}",
	  "pps[0]: fs[1] = 9 is out of range (ftbl has 2 frames)" },
	{ "index_huge", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1e300]}],"
			"\"ftbl\":[\"[root]\",\"f\"]}",
	  "pps[0]: fs[0] is 1e300, expected a frame index" },
	{ "ftbl_not_strings", HDR "\"pps\":[],\"ftbl\":[\"[root]\",null]}",
	  "ftbl[1] is null, expected a string" },
	{ "acc_too_large", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"acc\":[-3,1,65536],\"fs\":[1]}],"
			   "\"ftbl\":[\"[root]\",\"f\"]}",
	  "pps[0]: acc[2] is not an access count (0..65535) or a run length" },
	{ "acc_not_array", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"acc\":5,\"fs\":[1]}],"
			   "\"ftbl\":[\"[root]\",\"f\"]}",
	  "pps[0]: field \"acc\" is 5, expected an array" },
	{ "duplicate_fs", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1,2]},\n"
			  "{\"tb\":1,\"tbk\":1,\"fs\":[2]},\n{\"tb\":3,\"tbk\":1,\"fs\":[1,2]}],"
			  "\"ftbl\":[\"[root]\",\"f\",\"g\"]}",
	  ":3:1: pps[2]: same \"fs\" as pps[0] at line 1 (a repeated location)" },
	/* #31: a crafted counter wrapped the total (16 EiB site under a 283 KiB total). */
	{ "total_wraps", HDR "\"pps\":[{\"tb\":18446744073709551615,\"tbk\":1,\"fs\":[1]},\n"
			 "{\"tb\":289700,\"tbk\":3,\"fs\":[2]}],"
			 "\"ftbl\":[\"[root]\",\"f\",\"g\"]}",
	  ":2:1: pps[1]: \"tb\": 289700 takes the file's total past 64 bits" },
	/* ... and the lifetimes, which diff sums per row. */
	{ "tl_wraps", HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"tl\":18446744073709551615,\"fs\":[1]},\n"
		      "{\"tb\":1,\"tbk\":1,\"tl\":2,\"fs\":[2]}],"
		      "\"ftbl\":[\"[root]\",\"f\",\"g\"]}",
	  ":2:1: pps[1]: \"tl\": 2 takes the file's total past 64 bits" },
};

/* Every bad case through the file loader: -EINVAL, one line naming the file, and the whole
 * set of lines (through dhat_profile__parse, with fixed names) against a golden file. */
Test(report, bad_input_one_line_einval)
{
	char *all = NULL;
	size_t all_len = 0;
	FILE *golden = open_memstream(&all, &all_len);

	for (size_t i = 0; i < sizeof(BAD) / sizeof(BAD[0]); i++) {
		char name[64], err[512] = "", *out = NULL;
		const char *path;
		struct dhat_profile *p;
		int ret;

		snprintf(name, sizeof(name), "%s.json", BAD[i].name);
		path = put(name, BAD[i].text);
		ret = run_report(path, NULL, &out, err, sizeof(err));
		cr_expect_eq(ret, -EINVAL, "%s: ret %d (%s)", BAD[i].name, ret, err);
		cr_expect(!strncmp(err, path, strlen(path)), "%s: %s", BAD[i].name, err);
		cr_expect(strstr(err, BAD[i].want), "%s:\n  got  '%s'\n  want '%s'", BAD[i].name,
			  err, BAD[i].want);
		cr_expect(!strchr(err, '\n'), "%s: message spans lines", BAD[i].name);
		cr_expect(!out || !*out, "%s: printed a report anyway", BAD[i].name);
		free(out);

		p = dhat_profile__parse(BAD[i].text, strlen(BAD[i].text), name, err, sizeof(err));
		cr_expect_null(p, "%s", BAD[i].name);
		fprintf(golden, "%s\n", err);
	}
	fclose(golden);
	EXPECT_GOLDEN(DATA "errors.golden.txt", all);
	free(all);
}

/* A repeated location stops the reader where it is read: what follows it, here a syntax
 * error and no ftbl at all, is never looked at (the reader once parsed the whole file
 * first: 24 s and 1.8 GB for a 1 GB file of repeats). */
Test(report, repeated_location_stops_at_the_first_repeat)
{
	static const char text[] = HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1,2]},\n"
				       "{\"tb\":1,\"tbk\":1,\"fs\":[2]},\n"
				       "{\"tb\":3,\"tbk\":1,\"fs\":[1,2]},\n"
				       "{\"tb\":4,\"tbk\":1,\"fs\":[1,2]},\n"
				       "{\"tb\": this is not JSON";
	static const char unique[] = HDR "\"pps\":[{\"tb\":1,\"tbk\":1,\"fs\":[1,2]},\n"
					 "{\"tb\":1,\"tbk\":1,\"fs\":[2]},\n"
					 "{\"tb\":3,\"tbk\":1,\"fs\":[1]},\n"
					 "{\"tb\":4,\"tbk\":1,\"fs\":[2,1]},\n"
					 "{\"tb\": this is not JSON";
	static const char want[] =
	    ":3:1: pps[2]: same \"fs\" as pps[0] at line 1 (a repeated location)";
	char err[512] = "", *out = NULL;
	const char *path = put("repeat_then_garbage.json", text);
	struct dhat_profile *p;

	cr_expect_eq(run_report(path, NULL, &out, err, sizeof(err)), -EINVAL, "%s", err);
	cr_expect(!strncmp(err, path, strlen(path)) && strstr(err, want), "got '%s'", err);
	free(out);
	p = dhat_profile__parse(text, strlen(text), "t.json", err, sizeof(err));
	cr_expect_null(p);
	cr_expect_str_eq(err, "t.json:3:1: pps[2]: same \"fs\" as pps[0] at line 1 (a "
			      "repeated location)");
	/* Without the repeats, the same tail is the syntax error it is. */
	p = dhat_profile__parse(unique, strlen(unique), "t.json", err, sizeof(err));
	cr_expect_null(p);
	cr_expect(strstr(err, "t.json:5:9: not valid JSON: expected 'true', found 'h'"), "got '%s'",
		  err);
}

/* Deep nesting, a missing file, corrupt and truncated gzip, a NUL byte: clear errors. */
Test(report, hostile_input_no_crash)
{
	char dir[512], path[700], err[512], *out = NULL, *gz_text;
	size_t depth = 200000;
	char *deep = malloc(2 * depth + 1);
	gzFile gz;

	for (size_t i = 0; i < depth; i++)
		deep[i] = '[', deep[depth + i] = ']';
	deep[2 * depth] = '\0';
	cr_expect_eq(run_report(put("deep.json", deep), NULL, &out, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "deep.json:1:257: not valid JSON: nested deeper than 256 levels"),
		  "%s", err);
	free(deep);
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
	cr_expect(strstr(err, "corrupt.json.gz: corrupt gzip data: "), "%s", err);
	cr_expect(!strchr(err, '\n'));
	free(out);

	/* a valid gzip stream cut short */
	snprintf(path, sizeof(path), "%s/cut.json.gz", dir);
	gz = gzopen(path, "wb");
	gz_text = malloc(60000);
	/* pseudo-random letters: they do not compress below the cut (and stay under
	 * DHAT_STRING_MAX) */
	for (size_t i = 0, x = 1; i < 60000; i++, x = x * 6364136223846793005u + 1)
		gz_text[i] = (char)('a' + (x >> 33) % 26);
	gzwrite(gz, HDR "\"x\":\"", (unsigned)strlen(HDR "\"x\":\""));
	gzwrite(gz, gz_text, 60000);
	gzwrite(gz, "\"," GOOD_TAIL, (unsigned)strlen("\"," GOOD_TAIL));
	gzclose(gz);
	free(gz_text);
	cr_expect_eq(run_report(path, NULL, &out, err, sizeof(err)), 0, "%s", err);
	free(out);
	cr_assert_eq(truncate(path, 2000), 0);
	cr_expect_eq(run_report(path, NULL, &out, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "cut.json.gz: corrupt gzip data: unexpected end of file"), "%s",
		  err);
	free(out);

	/* #31: a 1 MB gzip file holding a 1 GiB string took 2.1 GB. A string is refused at
	 * DHAT_STRING_MAX, and a file's text at DHAT_INFLATE_RATIO_MAX times its size (here
	 * 200 MB of blanks in 200 KB: refused at the 64 MiB floor, not read to the end). */
	snprintf(path, sizeof(path), "%s/long.json.gz", dir);
	gz = gzopen(path, "wb");
	gz_text = malloc(1 << 20);
	memset(gz_text, 'a', 1 << 20);
	gzwrite(gz, HDR "\"x\":\"", (unsigned)strlen(HDR "\"x\":\""));
	for (int i = 0; i < 100; i++)
		gzwrite(gz, gz_text, 1 << 20);
	gzclose(gz);
	cr_expect_eq(run_report(path, NULL, &out, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "a string longer than 65536 bytes"), "%s", err);
	free(out);
	snprintf(path, sizeof(path), "%s/bomb.json.gz", dir);
	gz = gzopen(path, "wb");
	memset(gz_text, ' ', 1 << 20);
	gzwrite(gz, HDR, (unsigned)strlen(HDR));
	for (int i = 0; i < 200; i++)
		gzwrite(gz, gz_text, 1 << 20);
	gzclose(gz);
	free(gz_text);
	cr_expect_eq(run_report(path, NULL, &out, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "bomb.json.gz: decompresses to more than 67108864 bytes"), "%s",
		  err);
	free(out);

	/* NUL byte after the object */
	snprintf(path, sizeof(path), "%s/nul.json", dir);
	cr_assert_eq(tu_spit(path, HDR GOOD_TAIL "\0\0", sizeof(HDR GOOD_TAIL) + 1), 0);
	cr_expect_eq(run_report(path, NULL, &out, err, sizeof(err)), -EINVAL, "%s", err);
	cr_expect(strstr(err, "unexpected data after the top-level value"), "%s", err);
	free(out);

	/* a directory */
	cr_expect_eq(run_report(dir, NULL, &out, err, sizeof(err)), -EISDIR, "%s", err);
	cr_expect(strstr(err, ": cannot read: Is a directory"), "%s", err);
	free(out);
}

/* What the viewer accepts, so do we: a BOM, the version as a string, extra keys of any
 * shape, empty pps, missing tl, integers written as floats, the largest u64, escapes. */
Test(report, accepts_what_the_viewer_accepts)
{
	const char *path = put("lenient.json",
		"\xef\xbb\xbf{\"dhatFileVersion\":\"2\",\"mode\":\"x\",\"verb\":\"A\",\"bklt\":true,"
		"\"bkacc\":false,\"tu\":\"\\u00b5s\",\"Mtu\":\"M\",\"cmd\":\"a\\\"b\\\\c\\ud83d\\ude00"
		"\",\"pid\":1,\"te\":1.0,\"tg\":0,\"tuth\":1e1,\"extra\":[1,{\"a\":[true,null]}],"
		"\"pps\":[{\"tb\":18446744073709551615,\"tbk\":2E0,\"mb\":0,\"mbk\":0,\"gb\":0,"
		"\"gbk\":0,\"eb\":0,\"ebk\":0,\"fs\":[]}],\"ftbl\":[\"[root]\"]}");
	char err[256] = "", *out = NULL;
	struct dhat_profile *p;

	struct report_opts exact = { .exact_bytes = true };

	cr_expect_eq(run_report(path, &exact, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out, "  total blocks      :            2\n"), "%s", out); /* verb "A" */
	cr_expect(strstr(out, "  total bytes       : 18446744073709551615\n"), "%s", out);
	free(out);
	cr_expect_eq(run_report(path, NULL, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out, "  total bytes       :    16.00 EiB\n"), "%s", out);
	free(out);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_expect_str_eq(p->tu, "\xc2\xb5s");
	cr_expect_str_eq(p->cmd, "a\"b\\c\xf0\x9f\x98\x80");
	cr_expect_eq(p->tuth, 10);
	cr_expect(!p->pps[0].has_tl);
	dhat_profile__free(p);
}

/* rb/wb live beside the PPs, only from the first PP that has one: PPs before it, between and
 * after read 0, frames and has_tl stay each PP's own. */
Test(report, reads_and_writes_kept_aside)
{
	static const char text[] =
	    "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\",\"bklt\":false,"
	    "\"bkacc\":true,\"tu\":\"i\",\"Mtu\":\"M\",\"cmd\":\"x\",\"pid\":1,\"te\":1,\"pps\":["
	    "{\"tb\":1,\"tbk\":1,\"rb\":0,\"wb\":0,\"fs\":[1]},"
	    "{\"tb\":2,\"tbk\":1,\"tl\":3,\"rb\":0,\"wb\":0,\"fs\":[2,1]},"
	    "{\"tb\":3,\"tbk\":1,\"rb\":5,\"wb\":0,\"fs\":[]},"
	    "{\"tb\":4,\"tbk\":1,\"rb\":0,\"wb\":0,\"fs\":[2]},"
	    "{\"tb\":5,\"tbk\":1,\"rb\":0,\"wb\":7,\"fs\":[1,2]},"
	    "{\"tb\":6,\"tbk\":1,\"rb\":0,\"wb\":0,\"fs\":[3]}],"
	    "\"ftbl\":[\"[root]\",\"f\",\"g\",\"h\"]}";
	static const uint64_t rb[] = {0, 0, 5, 0, 0, 0}, wb[] = {0, 0, 0, 0, 7, 0};
	char err[256] = "";
	struct dhat_profile *p = dhat_profile__parse(text, strlen(text), "t.json", err, sizeof(err));

	cr_assert_not_null(p, "%s", err);
	cr_assert_eq(p->pp_cnt, 6);
	cr_expect_eq(p->total_reads, 5);
	cr_expect_eq(p->total_writes, 7);
	for (size_t k = 0; k < p->pp_cnt; k++) {
		cr_expect_eq(dhat_profile__pp_rb(p, &p->pps[k]), rb[k], "pps[%zu]", k);
		cr_expect_eq(dhat_profile__pp_wb(p, &p->pps[k]), wb[k], "pps[%zu]", k);
		cr_expect_eq(p->pps[k].tb, k + 1);
		cr_expect_eq(p->pps[k].has_tl, k == 1, "pps[%zu]", k);
	}
	cr_expect_eq(p->pps[2].fs_cnt, 0);
	cr_assert_eq(p->pps[4].fs_cnt, 2);
	cr_expect_str_eq(dhat_profile__pp_frame(p, &p->pps[4], 0), "f");
	cr_expect_str_eq(dhat_profile__pp_frame(p, &p->pps[4], 1), "g");
	cr_expect_str_eq(dhat_profile__pp_frame(p, &p->pps[5], 0), "h");
	dhat_profile__free(p);
}

/* The streaming reader refills a 256 KiB window: strings, escapes, numbers and an error
 * position that straddle window edges must read the same from a file, a .gz and memory. */
Test(report, streaming_matches_in_memory_parse)
{
	const size_t nframes = 5000;
	char *text = NULL, dir[512], path[700], gzpath[700], err[512], err2[512];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct dhat_profile *a, *b, *c;
	gzFile gz;

	fputs(HDR "\n\"pps\":[", f);
	for (size_t i = 1; i < nframes; i++)
		fprintf(f, "%s{\"tb\":%zu,\"tbk\":%zu,\"fs\":[%zu,%zu]}\n", i > 1 ? "," : "",
			i * 1000003, i, i, nframes - i);
	fputs("],\"ftbl\":[\"[root]\"", f);
	for (size_t i = 1; i < nframes; i++) {
		fprintf(f, ",\"0x%zX: fn_%zu \\\"q\\\" \\u00e9\\t", i, i);
		for (size_t k = 0; k < i % 200; k++)
			fputc('a' + (int)(k % 26), f);
		fputs(" (f.c:1)\"", f);
	}
	fputs("]}\n", f);
	fclose(f);
	cr_assert_gt(len, 600000u); /* more than two windows */

	tu_scratch(dir, sizeof(dir), "stream");
	snprintf(path, sizeof(path), "%s/big.json", dir);
	snprintf(gzpath, sizeof(gzpath), "%s/big.json.gz", dir);
	cr_assert_eq(tu_spit(path, text, len), 0);
	gz = gzopen(gzpath, "wb");
	gzwrite(gz, text, (unsigned)len);
	gzclose(gz);

	a = dhat_profile__parse(text, len, "mem", err, sizeof(err));
	b = dhat_profile__load(path, err, sizeof(err));
	c = dhat_profile__load(gzpath, err, sizeof(err));
	cr_assert(a && b && c, "%s", err);
	cr_expect_eq(a->pp_cnt, nframes - 1);
	cr_expect_eq(a->ftbl_cnt, nframes);
	for (const struct dhat_profile *x = b; x; x = x == b ? c : NULL) {
		cr_expect_eq(x->pp_cnt, a->pp_cnt);
		cr_expect_eq(x->ftbl_cnt, a->ftbl_cnt);
		cr_expect_eq(x->total_bytes, a->total_bytes);
		for (size_t i = 0; i < a->ftbl_cnt && i < x->ftbl_cnt; i++)
			cr_expect_str_eq(x->ftbl[i], a->ftbl[i]);
		for (size_t i = 0; i < a->pp_cnt && i < x->pp_cnt; i++)
			cr_expect(x->pps[i].tb == a->pps[i].tb && x->pps[i].fs_cnt == 2 &&
				  dhat_profile__pp_fs(x, &x->pps[i])[1] ==
				      dhat_profile__pp_fs(a, &a->pps[i])[1]);
	}
	cr_expect_str_eq(a->ftbl[7], "0x7: fn_7 \"q\" \xc3\xa9\tabcdefg (f.c:1)");
	dhat_profile__free(a);
	dhat_profile__free(b);
	dhat_profile__free(c);

	/* Break it near the end: same line:column from memory and from the file. */
	text[len - 3] = '?'; /* the ']' closing ftbl */
	cr_assert_eq(tu_spit(path, text, len), 0);
	cr_expect_null(dhat_profile__parse(text, len, path, err, sizeof(err)));
	cr_expect_null(dhat_profile__load(path, err2, sizeof(err2)));
	cr_expect_str_eq(err, err2);
	cr_expect(strstr(err, "not valid JSON"), "%s", err);
	free(text);
}

/* ---- the CLI: exit status, one line on stderr --------------------------------------- */

Test(report, cli_report_exit_codes)
{
	const char *bad = put("cli_bad.json", HDR "\"pps\":[{\"tb\":1}],\"ftbl\":[\"[root]\"]}");
	char bad_path[700], *out, *errs;
	cJSON *j;

	snprintf(bad_path, sizeof(bad_path), "%s", bad);
	const char *ok_argv[] = { "report", DATA "vg_adhoc.json", "--top", "2", NULL };
	cr_expect_eq(tu_run_cli(cli_report, ok_argv, &out, &errs), 0);
	cr_expect(strstr(out, "  total events      :            3\n"), "%s", out);
	cr_expect_str_eq(errs, "");
	free(out);
	free(errs);

	const char *bad_argv[] = { "report", bad_path, NULL };
	cr_expect_eq(tu_run_cli(cli_report, bad_argv, &out, &errs), 2);
	cr_expect_str_eq(out, "");
	cr_expect(!strncmp(errs, "tracer: ", 8) && strstr(errs, "cli_bad.json:1:") &&
		  strstr(errs, "pps[0]: missing field \"tbk\"\n"), "%s", errs);
	cr_expect_eq(strchr(errs, '\n'), errs + strlen(errs) - 1, "one line: %s", errs);
	free(out);
	free(errs);

	const char *json_argv[] = { "report", "--json", "-s", "lifetime",
				    TESTS_SRC_DIR "/data/dhat_rs_sample.json", NULL };
	cr_expect_eq(tu_run_cli(cli_report, json_argv, &out, &errs), 0, "%s", errs);
	j = cJSON_Parse(out);
	cr_expect_not_null(j, "%s", out);
	cr_expect_str_eq(cJSON_GetObjectItem(j, "sort")->valuestring, "lifetime");
	cr_expect_str_eq(cJSON_GetObjectItem(j, "mode")->valuestring, "rust-heap");
	cJSON_Delete(j);
	free(out);
	free(errs);

	const char *skip_argv[] = { "report", DATA "vg_adhoc.json", "--skip", "g ", "--skip=f",
				    NULL };
	cr_expect_eq(tu_run_cli(cli_report, skip_argv, &out, &errs), 0, "%s", errs);
	/* all three are main's now, told apart by what main called (g directly, or through f
	 * from two addresses on one line) */
	cr_expect(strstr(out, "   main (adhoc.c:4)  [g (adhoc.c:2)]\n"), "%s", out);
	cr_expect(strstr(out, "   main (adhoc.c:4)  [f (adhoc.c:3)]  [at 0x1093C4]\n"), "%s", out);
	cr_expect(strstr(out, "   main (adhoc.c:4)  [f (adhoc.c:3)]  [at 0x1093BA]\n"), "%s", out);
	free(out);
	free(errs);

	static const char *const usage_cases[][6] = {
		{ "report", NULL },
		{ "report", "a.json", "b.json", NULL },
		{ "report", "a.json", "--top", "0", NULL },
		{ "report", "a.json", "--top", NULL },
		{ "report", "a.json", "--sort", "size", NULL },
		{ "report", "a.json", "--bogus", NULL },
		{ "report", DATA "vg_adhoc.json", "--sort", "peak", NULL },
		{ "report", DATA "does-not-exist.json", NULL },
	};
	for (size_t i = 0; i < sizeof(usage_cases) / sizeof(usage_cases[0]); i++) {
		cr_expect_eq(tu_run_cli(cli_report, usage_cases[i], &out, &errs), 2, "case %zu", i);
		cr_expect_str_eq(out, "", "case %zu", i);
		cr_expect(*errs, "case %zu: silent", i);
		free(out);
		free(errs);
	}
	const char *help_argv[] = { "report", "--help", NULL };
	cr_expect_eq(tu_run_cli(cli_report, help_argv, &out, &errs), 0);
	cr_expect(strstr(out, "Usage: tracer report FILE"), "%s", out);
	free(out);
	free(errs);
}

/* ---- the fuzzing corpus, replayed in the normal suite ------------------------------- */

/* Every file of tests/fuzz/corpus/dhat_reader (seeds and the inputs that once crashed the
 * fuzzers) through what the fuzz targets do: parse, print every way, diff the two halves. */
Test(report, fuzz_corpus_replay)
{
	const char *cdir = TESTS_SRC_DIR "/fuzz/corpus/dhat_reader";
	FILE *null = fopen("/dev/null", "w");
	DIR *d = opendir(cdir);
	struct dirent *e;
	size_t files = 0, parsed = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		char path[1024], err[512];
		struct dhat_profile *p, *a, *b;
		size_t len, half, rest;
		char *text;
		const char *sep;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", cdir, e->d_name);
		text = tu_slurp(path, &len);
		cr_assert_not_null(text, "%s", path);
		files++;
		p = dhat_profile__parse(text, len, e->d_name, err, sizeof(err));
		if (p) {
			parsed++;
			for (int s = REPORT_SORT_DEFAULT; s <= REPORT_SORT_LIFETIME; s++) {
				struct report_opts o = { .sort = (enum report_sort)s, .top = 3 };

				cr_expect_eq(report__print(null, p, &o), 0, "%s", path);
				o.json = true;
				cr_expect_eq(report__print(null, p, &o), 0, "%s", path);
			}
		} else {
			cr_expect(err[0] && !strchr(err, '\n'), "%s: '%s'", path, err);
		}
		dhat_profile__free(p);

		sep = memmem(text, len, "\n--\n", 4);
		half = sep ? (size_t)(sep - text) : len / 2;
		rest = sep ? half + 4 : half;
		a = dhat_profile__parse(text, half, "old", err, sizeof(err));
		b = a ? dhat_profile__parse(text + rest, len - rest, "new", err, sizeof(err)) : NULL;
		if (a && b) {
			struct diff *df = diff__new(a, b, NULL);
			struct diff_opts o = { .top = 4 };

			cr_assert_not_null(df);
			cr_expect_eq(diff__print(null, df, &o), 0);
			o.json = true;
			cr_expect_eq(diff__print(null, df, &o), 0);
			diff__free(df);
		}
		dhat_profile__free(b);
		dhat_profile__free(a);
		free(text);
	}
	closedir(d);
	fclose(null);
	cr_expect_geq(files, 10u);
	cr_expect_geq(parsed, 5u);
}

/* ---- the "lost" object (dhat_lost.h) ------------------------------------------------- */

/* Read when it is an object; anything odd in it (a float, a negative, a string, a nested
 * value, an unknown member, a non-object) is ignored, never a reason to reject the file:
 * dh_view ignores the key. Files without it (Valgrind's, dhat-rs's) have has_lost false. */
Test(report, lost_object_is_optional_and_lenient)
{
	static const struct {
		const char *lost;
		bool has;
		uint64_t dropped, unknown, cut;
	} cases[] = {
		{ "", false, 0, 0, 0 },
		{ "\"lost\":{\"droppedRecords\":5,\"unknownFrees\":2,\"cutShortStacks\":1},", true,
		  5, 2, 1 },
		{ "\"lost\":{\"droppedRecords\":1.5,\"unknownFrees\":-2,\"cutShortStacks\":\"3\","
		  "\"new\":{\"a\":[1]},\"stackFailures\":[]},",
		  true, 0, 0, 0 },
		{ "\"lost\":{},", true, 0, 0, 0 },
		{ "\"lost\":[1,2],", false, 0, 0, 0 },
		{ "\"lost\":\"everything\",", false, 0, 0, 0 },
	};
	char text[1024], err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dhat_profile *p;

		snprintf(text, sizeof(text), "%s%s%s", HDR, cases[i].lost, GOOD_TAIL);
		p = dhat_profile__parse(text, strlen(text), "lost", err, sizeof(err));
		cr_assert_not_null(p, "%s: %s", text, err);
		cr_expect_eq(p->has_lost, cases[i].has, "%s", text);
		cr_expect_eq(p->lost.n[DHAT_LOST_DROPPED], cases[i].dropped, "%s", text);
		cr_expect_eq(p->lost.n[DHAT_LOST_UNKNOWN_FREES], cases[i].unknown, "%s", text);
		cr_expect_eq(p->lost.n[DHAT_LOST_CUT_SHORT], cases[i].cut, "%s", text);
		dhat_profile__free(p);
	}
	/* Broken JSON inside it is still a syntax error, as JSON.parse says. */
	snprintf(text, sizeof(text), "%s\"lost\":{\"droppedRecords\":1,}%s", HDR, GOOD_TAIL);
	cr_expect_null(dhat_profile__parse(text, strlen(text), "lost", err, sizeof(err)));
	cr_expect(strstr(err, "not valid JSON"), "%s", err);
}

/* `tracer report` warns on stderr, before the report, when the file records a loss, names
 * each count, and carries the object into --json; a file that lost nothing gets no warning. */
Test(report, cli_report_warns_about_what_was_lost)
{
	const char *path = put("lost.json", HDR "\"lost\":{\"droppedRecords\":4,\"unknownFrees\":0,"
					       "\"stackFailures\":0,\"cutShortStacks\":2,"
					       "\"untracedProcesses\":1}," GOOD_TAIL);
	char lost_path[700], *out, *errs;
	cJSON *j, *lost;

	snprintf(lost_path, sizeof(lost_path), "%s", path);
	const char *argv[] = { "report", lost_path, NULL };
	cr_expect_eq(tu_run_cli(cli_report, argv, &out, &errs), 0, "%s", errs);
	/* Drops and untraced processes make the figures wrong: a warning. A short stack does
	 * not: a note, after it. */
	cr_expect(strstr(errs, "tracer: warning: ") &&
		  strstr(errs, "lost.json is incomplete, its trace missed: 4 ring-buffer records "
			       "dropped, 1 processes seen but not traced\n"),
		  "%s", errs);
	cr_expect(strstr(errs, "tracer: note: ") &&
		  strstr(errs, "lost.json records 2 program points whose stack stops before the "
			       "thread's entry\n"),
		  "%s", errs);
	cr_expect(strstr(out, "  total allocations :            1\n"), "the report follows: %s", out);
	free(out);
	free(errs);

	const char *json_argv[] = { "report", "--json", lost_path, NULL };
	cr_expect_eq(tu_run_cli(cli_report, json_argv, &out, &errs), 0, "%s", errs);
	j = cJSON_Parse(out);
	cr_assert_not_null(j, "%s", out);
	lost = cJSON_GetObjectItem(j, "lost");
	cr_assert_not_null(lost, "%s", out);
	cr_expect_eq(cJSON_GetObjectItem(lost, "droppedRecords")->valuedouble, 4);
	cr_expect_eq(cJSON_GetObjectItem(lost, "untracedProcesses")->valuedouble, 1);
	cJSON_Delete(j);
	free(out);
	free(errs);

	path = put("complete.json", HDR "\"lost\":{\"droppedRecords\":0}," GOOD_TAIL);
	snprintf(lost_path, sizeof(lost_path), "%s", path);
	cr_expect_eq(tu_run_cli(cli_report, argv, &out, &errs), 0, "%s", errs);
	cr_expect_str_eq(errs, "");
	free(out);
	free(errs);
}

/* A function calling itself is one frame: runs of one function (lines may differ) keep their
 * innermost frame; unknown code ("???") is never folded; C++ signatures are one function. */
Test(report, recursion_folded)
{
	const char *f[] = {
		"PyUnicode_New (unicodeobject.c:1425)", "PyUnicode_New (unicodeobject.c:1410)",
		"walk (t.c:3)", "walk (t.c:3)", "walk (t.c:9)", "???", "???",
		"f(int) (a.cc:1)", "f(int) (a.cc:2)", "f(long) (a.cc:5)", "main (m.c:1)",
	};
	const char *want[] = {
		"PyUnicode_New (unicodeobject.c:1425)", "walk (t.c:3)", "???", "???",
		"f(int) (a.cc:1)", "f(long) (a.cc:5)", "main (m.c:1)",
	};
	size_t n = site__fold(f, sizeof(f) / sizeof(f[0]));
	char *site;

	cr_assert_eq(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++)
		cr_expect_str_eq(f[i], want[i], "frame %zu", i);

	const char *py[] = {
		"malloc (in /lib/libc.so.6)",	      "_PyObject_Malloc (obmalloc.c:2003)",
		"_PyObject_Malloc (obmalloc.c:1996)", "PyUnicode_New (unicodeobject.c:1425)",
		"PyUnicode_New (unicodeobject.c:1410)", "unicode_result (u.c:7)",
	};
	site = site__name(py, 6, NULL);
	cr_expect_str_eq(site, "PyUnicode_New (unicodeobject.c:1425)  <-  unicode_result (u.c:7)");
	free(site);
}

/* Rows that would print the same site show the first frame that tells them apart: below the
 * site (the plumbing each called, nearest the site first), else above its caller ("#N"
 * callers up), else (equal text, different addresses) their addresses. */
Test(report, alike_rows_told_apart)
{
	const char *path = put("alike.json", HDR
		"\"pps\":["
		/* Rust-like: one line of build(), four std paths */
		"{\"tb\":400,\"tbk\":4,\"fs\":[1,2,3,6,7]},"
		"{\"tb\":300,\"tbk\":3,\"fs\":[1,2,4,6,7]},"
		"{\"tb\":200,\"tbk\":2,\"fs\":[1,5,6,7]},"
		/* kaish-like: sb_reserve <- sb_add from two callers */
		"{\"tb\":90,\"tbk\":9,\"fs\":[1,8,9,10,11]},"
		"{\"tb\":80,\"tbk\":8,\"fs\":[1,8,9,12,11]},"
		/* same text, different addresses */
		"{\"tb\":7,\"tbk\":1,\"fs\":[1,13,11]},"
		"{\"tb\":6,\"tbk\":1,\"fs\":[1,14,11]}"
		"],\"ftbl\":[\"[root]\","
		"\"0x1: malloc (in /lib/libc.so.6)\","				/* 1 */
		"\"0x2: alloc::alloc::alloc (alloc.rs:95)\","			/* 2 */
		"\"0x3: hashbrown::raw::RawTable::reserve_rehash (mod.rs:1)\","	/* 3 */
		"\"0x4: alloc::vec::Vec::from_iter (spec.rs:2)\","		/* 4 */
		"\"0x5: alloc::fmt::format (fmt.rs:3)\","			/* 5 */
		"\"0x10: rs::build (rs.rs:5)\","				/* 6 */
		"\"0x11: rs::main (rs.rs:9)\","					/* 7 */
		"\"0x20: sb_reserve (util.c:31)\","				/* 8 */
		"\"0x21: sb_add (util.c:43)\","					/* 9 */
		"\"0x22: expand_word (expand.c:10)\","				/* 10 */
		"\"0x23: main (m.c:1)\","					/* 11 */
		"\"0x24: eval_pipe (eval.c:20)\","				/* 12 */
		"\"0xA1: leaf (l.c:4)\","					/* 13 */
		"\"0xA7: leaf (l.c:4)\""					/* 14 */
		"]}");
	struct report_opts opts = { .title = "t" };
	char err[256] = "", *out = NULL;

	cr_assert_eq(run_report(path, &opts, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out,
		"  top program points by TOTAL BYTES\n"
		"             400 B          4 allocs   "
		"rs::build (rs.rs:5)  <-  rs::main (rs.rs:9)  "
		"[hashbrown::raw::RawTable::reserve_rehash (mod.rs:1)]\n"
		"             300 B          3 allocs   "
		"rs::build (rs.rs:5)  <-  rs::main (rs.rs:9)  "
		"[alloc::vec::Vec::from_iter (spec.rs:2)]\n"
		"             200 B          2 allocs   "
		"rs::build (rs.rs:5)  <-  rs::main (rs.rs:9)  "
		"[alloc::fmt::format (fmt.rs:3)]\n"
		"              90 B          9 allocs   "
		"sb_reserve (util.c:31)  <-  sb_add (util.c:43)"
		"  <-  #2 expand_word (expand.c:10)\n"
		"              80 B          8 allocs   "
		"sb_reserve (util.c:31)  <-  sb_add (util.c:43)"
		"  <-  #2 eval_pipe (eval.c:20)\n"
		"               7 B          1 allocs   "
		"leaf (l.c:4)  <-  main (m.c:1)  [at 0xA1]\n"
		"               6 B          1 allocs   "
		"leaf (l.c:4)  <-  main (m.c:1)  [at 0xA7]\n"),
		"%s", out);
	free(out);
}

/* The still-live section: sites with many blocks live at the end, or old ones, by bytes live
 * at the end; absent when nothing is live; a line saying so when nothing live is suspect. */
Test(report, still_live_section)
{
#define LIVE_HDR "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\",\"bklt\":true," \
		 "\"bkacc\":false,\"tu\":\"µs\",\"Mtu\":\"s\",\"cmd\":\"x\",\"pid\":1,\"te\":1000," \
		 "\"tg\":10,\"tuth\":1,"
#define PP(tb, tbk, tl, eb, ebk, f)                                                             \
	"{\"tb\":" #tb ",\"tbk\":" #tbk ",\"tl\":" #tl ",\"mb\":0,\"mbk\":0,\"gb\":0,\"gbk\":0," \
	"\"eb\":" #eb ",\"ebk\":" #ebk ",\"fs\":[" #f "]}"
	const char *path = put("live.json", LIVE_HDR "\"pps\":["
		PP(4000, 40, 20000, 1000, 10, 1) ","	/* many: 10 live; age 500 = 50% */
		PP(64, 1, 900, 64, 1, 2) ","		/* old: lived 90% of the run */
		PP(32, 1, 10, 32, 1, 3) ","		/* one young block: not a suspect */
		PP(99999, 99, 100, 0, 0, 4)		/* freed it all */
		"],\"ftbl\":[\"[root]\",\"many (a.c:1)\",\"old (b.c:2)\",\"young (c.c:3)\","
		"\"churn (d.c:4)\"]}");
	char err[256] = "", *out = NULL;

	cr_assert_eq(run_report(path, NULL, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out,
		"\n  still live at the end (leak suspects by bytes x age: 2+ allocs, living half "
		"the run, or 16 KiB+)\n"
		"            1000 B         10 allocs  age  50%   many (a.c:1)\n"
		"              64 B          1 allocs  age  90%   old (b.c:2)\n"), "%s", out);
	cr_expect(!strstr(strstr(out, "still live"), "young") &&
		  !strstr(strstr(out, "still live"), "churn"), "%s", out);
	free(out);
	/* put() reuses one path: each file is read before the next is written */
	path = put("none.json", LIVE_HDR "\"pps\":[" PP(5, 1, 1, 0, 0, 1)
		"],\"ftbl\":[\"[root]\",\"f (a.c:1)\"]}");
	cr_assert_eq(run_report(path, NULL, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(!strstr(out, "still live"), "%s", out);
	free(out);
	path = put("young.json", LIVE_HDR "\"pps\":[" PP(5, 1, 1, 5, 1, 1)
		"],\"ftbl\":[\"[root]\",\"f (a.c:1)\"]}");
	cr_assert_eq(run_report(path, NULL, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out, "still live at the end (leak suspects by bytes x age: 2+ allocs, "
			      "living half the run, or 16 KiB+)\n    none: 1 allocs live, none of "
			      "them many, old or big\n"),
		  "%s", out);
	free(out);
}

/* Round three (#31): the reader's messages named the file raw: `tracer report` on a file
 * named "\e]0;X\a\e[2J.json" retitled and cleared the terminal. */
Test(report, error_messages_are_terminal_safe)
{
	char err[512];
	struct dhat_profile *p = dhat_profile__load("/nonexistent/\033]0;X\a\033[2J\n.json", err,
						    sizeof(err));

	cr_assert_null(p);
	cr_expect(strstr(err, "\\x1b]0;X\\x07\\x1b[2J\\x0a.json: cannot open"), "%s", err);
	cr_expect(!strchr(err, '\033') && !strchr(err, '\a') && !strchr(err, '\n'), "%s", err);
}

/* No arena, and why: the file says it ("arenaSettings" alone), the reader keeps it, and the
 * report's heap vs RSS section is one line, the library's name made terminal-safe. */
Test(report, arenas_absent_say_why)
{
	static const struct {
		const char *allocator, *not_measured, *file, *line;
	} CASES[] = {
		{ "libmimalloc.so.2", "", "\"allocator\":\"libmimalloc.so.2\"",
		  "arena forensics: glibc only; libmimalloc.so.2 is not glibc's malloc\n" },
		{ "lib\x1b[31m.so", "", "\"allocator\":",
		  "arena forensics: glibc only; lib\\x1b[31m.so is not glibc's malloc\n" },
		{ "", "gone", "\"notMeasured\":\"gone\"",
		  "heap vs RSS at death: not measured: the process was gone" },
	};

	for (size_t i = 0; i < sizeof(CASES) / sizeof(*CASES); i++) {
		struct dhat_arenas a = { 0 }, back = { 0 };
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		snprintf(a.allocator, sizeof(a.allocator), "%s", CASES[i].allocator);
		snprintf(a.not_measured, sizeof(a.not_measured), "%s", CASES[i].not_measured);
		dhat_arenas__write(f, &a, NULL, 0);
		fclose(f);
		cr_expect(strstr(text, "\"arenas\":\n  []") && strstr(text, CASES[i].file), "%s",
			  text);
		free(text);
		dhat_arenas__set(&back, "allocator", CASES[i].allocator, false, 0);
		if (*CASES[i].not_measured)
			dhat_arenas__set(&back, "notMeasured", CASES[i].not_measured, false, 0);
		if (!*CASES[i].allocator)
			*back.allocator = '\0';
		f = open_memstream(&text, &len);
		dhat_arenas__print(f, &back, "death", true, NULL, NULL);
		fclose(f);
		cr_expect(strstr(text, CASES[i].line) != NULL, "%zu: %s", i, text);
		cr_expect(!strstr(text, "arenas hold"), "%s", text);
		free(text);
	}
}

/* A file's recorded --skip patterns ("skip", dhat_skip.h) apply as if given, after the
 * reader's own; no_recorded_skip (--no-recorded-skip) shows the wrapper again. */
Test(report, recorded_skip_applies_by_default)
{
	const char *path = put("recskip.json", HDR
		"\"skip\":[\"=my_alloc\"],"
		"\"pps\":[{\"tb\":100,\"tbk\":5,\"fs\":[1,2,3]}],"
		"\"ftbl\":[\"[root]\",\"0x1: my_alloc (a.c:1)\",\"0x2: build (a.c:20)\","
		"\"0x3: main (m.c:9)\"]}");
	struct report_opts opts = { .title = "t" };
	char err[256] = "", *out = NULL;

	cr_assert_eq(run_report(path, &opts, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out, "build (a.c:20)  <-  main (m.c:9)") && !strstr(out, "my_alloc"),
		  "%s", out);
	free(out);
	opts.no_recorded_skip = true;
	cr_assert_eq(run_report(path, &opts, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(out, "my_alloc (a.c:1)  <-  build (a.c:20)"), "%s", out);
	free(out);
}

/* Leak suspects that find leaks (#35): ranked by bytes live at the end x age, one big block
 * listed whatever its age (and first), libc's locale data and Rust's runtime start-up
 * suppressed by the built-in list, the program's own patterns by an LSAN-format file, and
 * --leaks: the suspects alone, each with its whole stack. Fixture: data/report/leaks.json. */
Test(report, leak_suspects_ranked_and_suppressed)
{
	struct report_opts o = { .exact_bytes = true };
	char err[256] = "", *out = NULL;
	const char *live;
	struct suppress *supp;

	cr_assert_eq(run_report(DATA "leaks.json", &o, &out, err, sizeof(err)), 0, "%s", err);
	live = strstr(out, "still live at the end");
	cr_assert(live, "%s", out);
	cr_expect(strstr(live,
		"still live at the end (leak suspects by bytes x age: 2+ allocs, living half the "
		"run, or 16 KiB+)\n"
		"          100000 B          1 allocs  age   1%   leaky::keep_forever (src/main.rs:7)  <-  main (leaky.c:40)\n"
		"            1000 B         10 allocs  age  50%   many (a.c:1)  <-  main (leaky.c:40)\n"
		"             200 B          2 allocs  age  80%   mycache_fill (cache.c:7)  <-  main (leaky.c:40)\n"
		"              64 B          1 allocs  age  90%   old (b.c:2)  <-  main (leaky.c:40)\n"
		"  2 sites suppressed (640 B live): one-time allocations of libc, ld.so and "
		"runtimes\n"), "%s", live);
	cr_expect(!strstr(live, "_nl_") && !strstr(live, "std::") && !strstr(live, "young"),
		  "%s", live);
	free(out);

	supp = suppress__load(DATA "leaks.supp", err, sizeof(err));
	cr_assert_not_null(supp, "%s", err);
	o.supp = supp;
	o.leaks_only = true;
	cr_assert_eq(run_report(DATA "leaks.json", &o, &out, err, sizeof(err)), 0, "%s", err);
	cr_expect(!strstr(out, "top program points"), "%s", out);
	cr_expect(strstr(out,
		"          100000 B          1 allocs  age   1%   leaky::keep_forever (src/main.rs:7)  <-  main (leaky.c:40)\n"
		"        malloc (in /lib/x86_64-linux-gnu/libc.so.6)\n"
		"        leaky::keep_forever (src/main.rs:7)\n"
		"        main (leaky.c:40)\n"
		"            1000 B         10 allocs  age  50%   many (a.c:1)  <-  main (leaky.c:40)\n"),
		"%s", out);
	cr_expect(!strstr(out, "mycache"), "%s", out);
	cr_expect(strstr(out, "  3 sites suppressed (840 B live): one-time allocations of libc, "
			      "ld.so and runtimes, --suppressions\n"), "%s", out);
	free(out);
	suppress__free(supp);
}

/* LSAN's pattern rules (suppress.h): anywhere in the function or location, "*", "^", "$";
 * a file with a line that is no "type:PATTERN" is refused with its line number. */
Test(report, suppression_patterns)
{
	char err[256] = "";
	const char *bad;
	struct suppress *s;

	cr_expect(suppress__glob("cache", "mycache_fill", 12));
	cr_expect(suppress__glob("my*fill", "xmycache_fill", 13));
	cr_expect(!suppress__glob("^cache", "mycache_fill", 12));
	cr_expect(suppress__glob("^my", "mycache_fill", 12));
	cr_expect(suppress__glob("fill$", "mycache_fill", 12));
	cr_expect(!suppress__glob("fil$", "mycache_fill", 12));
	cr_expect(suppress__frame(NULL, "0x1: _dl_new_object (dl-object.c:245)", NULL));
	cr_expect(suppress__frame(NULL, "allocate_dtv (dl-tls.c:386)", NULL));
	cr_expect(suppress__frame(NULL, "__libc_setlocale (setlocale.c:1)", NULL));
	cr_expect(!suppress__frame(NULL, "std::rt::lang_start_internal (rt.rs:1)", NULL));
	cr_expect(!suppress__frame(NULL, "main (x.c:1)", NULL));
	cr_expect(!suppress__frame(NULL, "handle_dl_event (x.c:1)", NULL));
	bad = put("bad.supp", "leak:ok\nno pattern here\n");
	s = suppress__load(bad, err, sizeof(err));
	cr_expect_null(s);
	cr_expect(strstr(err, "bad.supp:2: not \"leak:PATTERN\""), "%s", err);
	s = suppress__load(DATA "leaks.supp", err, sizeof(err));
	cr_assert_not_null(s, "%s", err);
	cr_expect(suppress__frame(s, "mycache_fill (cache.c:7)", NULL));
	cr_expect(!suppress__frame(s, "libfoo_init (in /usr/lib/libfoo.so)", NULL));
	suppress__free(s);
}

/* #35: C++ rows drop long template argument lists, keeping the shape; short ones and
 * operator< stay. */
Test(report, long_template_arguments_trimmed)
{
	const char *f[] = {
		"std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, "
		"std::allocator<char> >, std::allocator<std::__cxx11::basic_string<char, "
		"std::char_traits<char>, std::allocator<char> > > >::_M_realloc_insert<"
		"std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > "
		"const&>(iter, x) (stl_vector.h:1287)",
		"fill (m.cpp:15)",
	};
	const char *g[] = { "operator<<(std::ostream&, Pt const&) (p.cpp:3)", "std::vector<int>::f (v.h:1)" };
	char *s = site__name(f, 2, &(struct site_opts){ .no_default_skip = true });

	cr_assert_not_null(s);
	cr_expect_str_eq(s, "std::vector<\xe2\x80\xa6>::_M_realloc_insert<\xe2\x80\xa6>(iter, x) "
			    "(stl_vector.h:1287)  <-  fill (m.cpp:15)");
	free(s);
	s = site__name(g, 2, &(struct site_opts){ .no_default_skip = true });
	cr_expect_str_eq(s, "operator<<(std::ostream&, Pt const&) (p.cpp:3)  <-  std::vector<int>::f "
			    "(v.h:1)");
	free(s);
}

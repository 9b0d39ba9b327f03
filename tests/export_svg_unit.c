// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Exporter tests, part 3: the SVG flame graph and the heap timeline. Each file is checked
 * for well-formedness (xmllint), content (frame names, escaping, widths adding up, axis
 * labels) and then opened in headless Chromium: the DOM after the scripts ran must hold the
 * frames, labels and search result, and a screenshot is kept under TESTS_BIN_DIR/artifacts.
 * Missing xmllint/chromium skip those steps visibly; under CI=true they fail.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_timeout.h"
#include "export_helpers.h"
#include "test_util.h"

static int flame_o(const struct dhat_profile *p, FILE *out, const void *arg)
{
	return export__flamegraph_svg_opts(p, out, arg);
}

/* Tool present, or a visible skip; a failure under CI=true if required (chromium is in
 * deps/; xmllint, from libxml2-utils, is optional: Chromium parses the same files strictly
 * and the DOM checks look for its parsererror). */
static bool need(const char *tool, const char *why, bool required)
{
	if (ex_have(tool))
		return true;
	cr_assert(!required || !ex_ci(), "CI=true: %s is required (%s)", tool, why);
	cr_log_warn("%s not installed: %s not checked", tool, why);
	fprintf(stderr, "[export] SKIP part: %s not installed, %s not checked\n", tool, why);
	return false;
}

static void xmllint_ok(const char *path)
{
	char cmd[4200];
	char *out;
	int st;

	if (!need("xmllint", "XML well-formedness", false))
		return;
	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s' 2>&1", path);
	out = ex_run(cmd, &st);
	cr_expect_eq(st, 0, "%s is not well-formed XML:\n%s", path, out ? out : "");
	free(out);
}

/* Write text to artifacts/name; the full path into path. */
static void save(const char *name, const char *text, size_t len, char *path, size_t sz)
{
	snprintf(path, sz, "%s/%s", ex_artifacts(), name);
	ex_write_file(path, text, len);
}

/* Sum of data-v over frames of depth d. */
static unsigned long long sum_depth(const char *svg, int d, size_t *cnt)
{
	char pat[48];
	unsigned long long sum = 0;
	size_t n = 0;

	snprintf(pat, sizeof(pat), "\" data-d=\"%d\" ", d);
	for (const char *s = strstr(svg, pat); s; s = strstr(s + 1, pat)) {
		const char *v = s;

		while (v > svg && strncmp(v, "data-v=\"", 8))
			v--;
		sum += strtoull(v + 8, NULL, 10);
		n++;
	}
	if (cnt)
		*cnt = n;
	return sum;
}

static char *flame(const char *fixture, const struct export_opts *o, const char *name, char *path,
		   size_t sz, struct dhat_profile **pp)
{
	struct dhat_profile *p = ex_load(fixture);
	size_t len;
	int rc;
	char *svg = ex_capture(p, flame_o, o, &rc, &len);

	cr_assert_eq(rc, 0, "export__flamegraph_svg: %d", rc);
	save(name, svg, len, path, sz);
	xmllint_ok(path);
	if (pp)
		*pp = p;
	else
		dhat_profile__free(p);
	return svg;
}

/* flame() of an in-memory DHAT text: the profile into *pp (freed by the caller). */
static char *flame_json(const char *json, size_t len, const struct export_opts *o, const char *name,
			char *path, size_t sz, struct dhat_profile **pp)
{
	char err[256] = "";
	struct dhat_profile *p = dhat_profile__parse(json, len, name, err, sizeof(err));
	size_t n;
	int rc;
	char *svg;

	cr_assert(p, "%s", err);
	svg = ex_capture(p, flame_o, o, &rc, &n);
	cr_assert_eq(rc, 0);
	save(name, svg, n, path, sz);
	xmllint_ok(path);
	*pp = p;
	return svg;
}

Test(export_svg, flame_prog_frames_and_widths)
{
	char path[4096];
	struct dhat_profile *p;
	char *svg = flame("prog.json", &(struct export_opts){.keep_plumbing = true},
			  "prog.flame.svg", path, sizeof(path), &p);
	static const char *const names[] = {"main",   "make_table", "grow_buffer",
					    "calloc", "malloc",	    "realloc"};
	size_t n;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char t[64];

		snprintf(t, sizeof(t), "<title>%s\n", names[i]);
		cr_expect(strstr(svg, t), "no frame %s", names[i]);
	}
	cr_expect(strstr(svg, "<title>all\n526 bytes (100.00%), 7 blocks</title>"));
	cr_expect(strstr(svg, "<title>realloc\n250 bytes (47.53%), 2 blocks</title>"));
	cr_expect(strstr(svg, "data-total=\"526\""));
	cr_expect(strstr(svg, "Heap flame graph: bytes"));
	cr_expect(strstr(svg, "<script") && strstr(svg, "<style"), "self-contained");
	cr_expect_null(strstr(svg, "http://") == strstr(svg, "http://www.w3.org/2000/svg") ? NULL
											   : "x",
		       "no network reference but the SVG namespace");
	cr_expect_null(strstr(svg, "0x10918F"), "addresses are not frame names");
	/* the root's children tile it: Σ depth-1 widths == Σtb */
	cr_expect_eq(sum_depth(svg, 0, &n), 526);
	cr_expect_eq(n, 1);
	cr_expect_eq(sum_depth(svg, 1, &n), p->total_bytes);
	cr_expect_eq(n, 1, "one 'main'");
	cr_expect_eq(sum_depth(svg, 3, &n), 430, "depth 3: calloc + malloc + realloc");
	cr_expect_eq(n, 3);
	free(svg);
	dhat_profile__free(p);
}

Test(export_svg, flame_escapes_xml)
{
	char path[4096];
	char *svg =
	    flame("odd.json", &(struct export_opts){.title = "odd <&> \"'", .keep_plumbing = true},
		  "odd.flame.svg", path, sizeof(path), NULL);

	cr_expect(strstr(svg, "weird:name&amp;&quot;quoted&quot; &apos;x&apos;"));
	cr_expect(strstr(svg, "std::vector&lt;int, std::allocator&lt;int&gt; &gt;"));
	cr_expect(strstr(svg, "&lt;dhat::Alloc as core::alloc::global::GlobalAlloc&gt;::alloc"));
	cr_expect(strstr(svg, ">odd &lt;&amp;&gt; &quot;&apos;</text>"));
	cr_expect(strstr(svg, "./demo --odd &lt;names&gt; &amp; &quot;quotes&quot;"));
	cr_expect_null(strstr(svg, "<dhat::"));
	cr_expect(strstr(svg, "<title>[libc.so.6]\n"));
	cr_expect(strstr(svg, "<title>[unknown]\n5 bytes"));
	free(svg);
}

Test(export_svg, flame_bad_bytes_stay_well_formed)
{
	/* A control character (JSON \u0001), invalid UTF-8 (0xFF, a lone 0xC3) and a valid
	 * multi-byte name; the reader keeps raw bytes as Valgrind writes them. */
	static const char json[] =
	    "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\",\"bklt\":false,"
	    "\"bkacc\":false,\"tu\":\"instrs\",\"Mtu\":\"Minstr\",\"cmd\":\"x\",\"pid\":1,"
	    "\"te\":1,\"pps\":[{\"tb\":10,\"tbk\":1,\"fs\":[1,2]},{\"tb\":5,\"tbk\":1,"
	    "\"fs\":[3,2]}],\"ftbl\":[\"[root]\",\"0x1: bad\\u0001name\xff\xc3 (a.c:1)\","
	    "\"0x2: main (a.c:2)\",\"0x3: caf\xc3\xa9_\xe2\x82\xac (a.c:3)\"]}";
	char path[4096];
	struct dhat_profile *p;
	char *svg =
	    flame_json(json, sizeof(json) - 1, NULL, "bad-bytes.flame.svg", path, sizeof(path), &p);

	cr_expect(strstr(svg, "bad?name??"), "control char and bad UTF-8 become '?'");
	cr_expect(strstr(svg, "caf\xc3\xa9_\xe2\x82\xac"), "valid UTF-8 is kept");
	free(svg);
	dhat_profile__free(p);
}

/* The <g> of the frame named name (its <title> starts with name + '\n'), and its rect's
 * fill as r, g, b; the test fails if there is none. Returns the <g ...> tag's start. */
static const char *frame_of(const char *svg, const char *name, int *r, int *g, int *b)
{
	char t[512];
	const char *at, *tag, *fill;

	snprintf(t, sizeof(t), "<title>%s\n", name);
	at = strstr(svg, t);
	cr_assert(at, "no frame %s", name);
	for (tag = at; tag > svg && strncmp(tag, "<g class=\"f\"", 12); tag--)
		;
	fill = strstr(at, "fill=\"rgb(");
	cr_assert(fill);
	cr_assert_eq(sscanf(fill, "fill=\"rgb(%d,%d,%d)", r, g, b), 3);
	return tag;
}

/* Does the <g> tag at tag say data-m="mod"? */
static bool frame_module_is(const char *tag, const char *mod)
{
	char want[64];
	const char *end = strchr(tag, '>');

	snprintf(want, sizeof(want), "data-m=\"%s\"", mod);
	return end && strstr(tag, want) && strstr(tag, want) < end;
}

Test(export_svg, flame_colours_by_module)
{
	/* The program (PIE addresses), libc by "(in libc.so.6)" and, for a frame with a file,
	 * by its address next to libc's; another library by its object; "???" unknown. */
	static const char json[] =
	    "{\"dhatFileVersion\":2,\"mode\":\"ebpf-heap\",\"verb\":\"Allocated\",\"bklt\":false,"
	    "\"bkacc\":false,\"tu\":\"\xc2\xb5s\",\"Mtu\":\"s\",\"cmd\":\"/opt/app/bin/app -v\","
	    "\"pid\":1,\"te\":1,\"pps\":["
	    "{\"tb\":100,\"tbk\":1,\"fs\":[1,2,3]},"
	    "{\"tb\":50,\"tbk\":1,\"fs\":[4,5,3]},"
	    "{\"tb\":20,\"tbk\":1,\"fs\":[6,2,3]},"
	    "{\"tb\":10,\"tbk\":1,\"fs\":[7,3]}],"
	    "\"ftbl\":[\"[root]\","
	    "\"0x7F9AEC4CF930: malloc (in /usr/lib/x86_64-linux-gnu/libc.so.6)\","
	    "\"0x55BA29B002EF: build_index (index.c:50)\","
	    "\"0x7F9AEC4C01F4: start_thread (pthread_create.c:442)\","
	    "\"0x7F12AB001000: g_malloc (in /usr/lib/x86_64-linux-gnu/libglib-2.0.so.0.7400.6)\","
	    "\"0x55BA29B00400: load_config (config.c:12)\","
	    "\"0x55BA29B00500: app_helper (in /opt/app/bin/app)\","
	    "\"0x55BA29B00600: ???\"]}";
	const struct export_opts keep = {.keep_plumbing = true};
	char path[4096];
	struct dhat_profile *p;
	const char *tag;
	size_t len;
	int rc, r, g, b;
	char *svg =
	    flame_json(json, sizeof(json) - 1, &keep, "modules.flame.svg", path, sizeof(path), &p);

	/* program: warm (red above blue) */
	tag = frame_of(svg, "build_index", &r, &g, &b);
	cr_expect(frame_module_is(tag, "program"), "%.200s", tag);
	cr_expect(r > 200 && r > b + 100, "build_index rgb(%d,%d,%d) not warm", r, g, b);
	tag = frame_of(svg, "app_helper", &r, &g, &b);
	cr_expect(frame_module_is(tag, "program"), "(in /opt/app/bin/app) is the program");
	cr_expect(r > 200 && r > b + 100);
	/* libc, by object and by address: blue */
	tag = frame_of(svg, "malloc", &r, &g, &b);
	cr_expect(frame_module_is(tag, "libc"), "%.200s", tag);
	cr_expect(b > r + 60 && b > g, "malloc rgb(%d,%d,%d) not blue", r, g, b);
	tag = frame_of(svg, "start_thread", &r, &g, &b);
	cr_expect(frame_module_is(tag, "libc"), "start_thread next to libc: %.200s", tag);
	cr_expect(b > r + 60 && b > g);
	/* another library: green */
	tag = frame_of(svg, "g_malloc", &r, &g, &b);
	cr_expect(frame_module_is(tag, "other libraries"), "%.200s", tag);
	cr_expect(g > r + 60 && g > b, "g_malloc rgb(%d,%d,%d) not green", r, g, b);
	/* unknown: grey */
	tag = frame_of(svg, "???", &r, &g, &b);
	cr_expect(frame_module_is(tag, "unknown"));
	cr_expect(r == g && g == b, "??? rgb(%d,%d,%d) not grey", r, g, b);
	/* the legend names the four */
	cr_expect(strstr(svg, ">program</text>") && strstr(svg, ">libc</text>") &&
		  strstr(svg, ">other libraries</text>") && strstr(svg, ">unknown</text>"));
	free(svg);

	/* By default g_malloc and malloc are plumbing: load_config and build_index are leaves. */
	svg = ex_capture(p, flame_o, NULL, &rc, &len);
	cr_expect_null(strstr(svg, "<title>malloc\n"));
	cr_expect_null(strstr(svg, "<title>g_malloc\n"));
	cr_expect(strstr(svg, "(allocator frames left out)"));
	free(svg);
	dhat_profile__free(p);
}

/* A Python program: libpython's frames are the runtime's colour, not libc's, also those that
 * carry a file:line and sit nearer libpython's object than libc's (libpython is mapped right
 * next to libc: the nearest range, not the first, places them). */
Test(export_svg, flame_colours_libpython_as_runtime)
{
	static const char json[] =
	    "{\"dhatFileVersion\":2,\"mode\":\"ebpf-heap\",\"verb\":\"Allocated\",\"bklt\":false,"
	    "\"bkacc\":false,\"tu\":\"\xc2\xb5s\",\"Mtu\":\"s\",\"cmd\":\"/usr/bin/python3 app.py\","
	    "\"pid\":1,\"te\":1,\"pps\":["
	    "{\"tb\":100,\"tbk\":1,\"fs\":[1,2,3,4]}],"
	    "\"ftbl\":[\"[root]\","
	    "\"0x7F9AEC4CF930: malloc (in /usr/lib/x86_64-linux-gnu/libc.so.6)\","
	    "\"0x7F9AEC6A1000: _PyObject_Malloc (in /usr/lib/x86_64-linux-gnu/libpython3.12.so.1.0)\","
	    "\"0x7F9AEC6A2000: _PyEval_EvalFrameDefault (Python/ceval.c:1000)\","
	    "\"0x55BA29B00400: main (in /usr/bin/python3.12)\"]}";
	const struct export_opts keep = {.keep_plumbing = true};
	char path[4096];
	struct dhat_profile *p;
	const char *tag;
	int r, g, b, lr, lg, lb;
	char *svg =
	    flame_json(json, sizeof(json) - 1, &keep, "python.flame.svg", path, sizeof(path), &p);

	tag = frame_of(svg, "malloc", &lr, &lg, &lb);
	cr_expect(frame_module_is(tag, "libc"), "%.200s", tag);
	tag = frame_of(svg, "_PyObject_Malloc", &r, &g, &b);
	cr_expect(frame_module_is(tag, "runtime"), "libpython by object: %.200s", tag);
	cr_expect(r > g + 40 && b > g + 40, "_PyObject_Malloc rgb(%d,%d,%d) not purple", r, g, b);
	tag = frame_of(svg, "_PyEval_EvalFrameDefault", &r, &g, &b);
	cr_expect(frame_module_is(tag, "runtime"), "libpython by address: %.200s", tag);
	cr_expect(r != lr || g != lg || b != lb);
	/* the interpreter executable is the runtime too, not the program */
	tag = frame_of(svg, "main", &r, &g, &b);
	cr_expect(frame_module_is(tag, "runtime"), "python3.12: %.200s", tag);
	cr_expect(strstr(svg, ">runtime</text>"), "no runtime in the legend");
	free(svg);
	dhat_profile__free(p);
}

Test(export_svg, flame_labels_keep_whole_names)
{
	/* 1000 bytes over 1180 px: A (500) is 590 px wide, about 82 characters, B (100) is
	 * 118 px, about 16: A shows its name without arguments, B its last component. */
	static const char json[] =
	    "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\",\"bklt\":false,"
	    "\"bkacc\":false,\"tu\":\"instrs\",\"Mtu\":\"Minstr\",\"cmd\":\"x\",\"pid\":1,"
	    "\"te\":1,\"pps\":[{\"tb\":500,\"tbk\":1,\"fs\":[1,3]},{\"tb\":100,\"tbk\":1,"
	    "\"fs\":[2,3]},{\"tb\":400,\"tbk\":1,\"fs\":[4,3]}],\"ftbl\":[\"[root]\","
	    "\"0x1: app::Table<std::basic_string<char, std::char_traits<char>, "
	    "std::allocator<char> >, int>::insert_slow(std::basic_string<char, "
	    "std::char_traits<char>, std::allocator<char> > const&, int) (t.cc:1)\","
	    "\"0x2: app::Index<std::basic_string<char> >::rebuild_all(unsigned long) (t.cc:2)\","
	    "\"0x3: main (t.cc:3)\",\"0x4: other_fn (t.cc:4)\"]}";
	char path[4096];
	struct dhat_profile *p;
	char *svg =
	    flame_json(json, sizeof(json) - 1, NULL, "labels.flame.svg", path, sizeof(path), &p);

	cr_expect(strstr(svg, ">app::Table::insert_slow</text>"), "%s", svg);
	cr_expect(strstr(svg, ">rebuild_all</text>"));
	cr_expect(strstr(svg, ">other_fn</text>"));
	/* no label is cut mid-name when a whole form fits */
	cr_expect_null(strstr(svg, "app::Table&lt;std::basic_string&lt;char, std::char_traits.."));
	free(svg);
	dhat_profile__free(p);
}

Test(export_svg, flame_subtitle_names_workload_and_wraps)
{
	struct dhat_profile *p = ex_load("prog.json");
	struct export_opts o = {.workload = "scatter-gather"};
	char long_cmd[1200], path[4096];
	size_t len, lines = 0;
	int rc;
	char *svg;

	/* 30 arguments of 30 characters: 930 bytes, more than three lines of 175 */
	long_cmd[0] = '\0';
	strcat(long_cmd, "./kaish-workloads");
	for (int i = 0; i < 30; i++)
		strcat(long_cmd, " --an-argument-of-30-chars-xxx");
	free(p->cmd);
	p->cmd = strdup(long_cmd);
	svg = ex_capture(p, flame_o, &o, &rc, &len);
	cr_assert_eq(rc, 0);
	save("subtitle.flame.svg", svg, len, path, sizeof(path));
	xmllint_ok(path);
	for (const char *l = strstr(svg, "<text class=\"subtitle\""); l;
	     l = strstr(l + 1, "<text class=\"subtitle\"")) {
		const char *b = strchr(l, '>') + 1, *e = strstr(b, "</text>");

		cr_expect_leq(e - b, 175 + 3, "subtitle line of %zu bytes", (size_t)(e - b));
		if (!lines)
			cr_expect(!strncmp(b, "scatter-gather \xe2\x80\x94 ./kaish-workloads", 35),
				  "first line names the workload: %.80s", b);
		lines++;
	}
	cr_expect_eq(lines, 3, "the command wrapped to 3 lines, the last ending in ...");
	cr_expect(strstr(svg, "...</text>"));
	free(svg);
	dhat_profile__free(p);
}

Test(export_svg, flame_blocks_and_empty)
{
	char path[4096];
	char *svg = flame("prog.json", &(struct export_opts){.weight = EXPORT_WEIGHT_BLOCKS},
			  "prog.blocks.flame.svg", path, sizeof(path), NULL);

	cr_expect(strstr(svg, "Heap flame graph: blocks"));
	cr_expect(strstr(svg, "<title>all\n7 blocks (100.00%), 526 bytes</title>"));
	cr_expect_eq(sum_depth(svg, 1, NULL), 7);
	free(svg);
	svg = flame("empty.json", NULL, "empty.flame.svg", path, sizeof(path), NULL);
	cr_expect(strstr(svg, "no data"));
	free(svg);
	svg = flame("odd.json", &(struct export_opts){.weight = EXPORT_WEIGHT_END_BYTES},
		    "odd.leaked.flame.svg", path, sizeof(path), NULL);
	cr_expect_eq(sum_depth(svg, 0, NULL), 1229, "Σeb");
	free(svg);
}

Test(export_svg, flame_in_chromium, .timeout = TEST_TIMEOUT(300))
{
	char path[4096], png[4200];
	char *svg, *dom;
	struct stat st;
	const struct export_opts keep = {.keep_plumbing = true};

	if (!need("chromium", "rendering in a browser", true))
		cr_skip("chromium not installed");
	svg = flame("odd.json", &keep, "odd.flame.svg", path, sizeof(path), NULL);
	free(svg);
	/* The search runs from the URL (?s=), so the DOM dump shows its result. */
	dom = ex_chromium(path, "?s=%5Emain%24", NULL, 1200, 800);
	cr_assert(dom, "chromium --dump-dom failed");
	cr_expect_null(strstr(dom, "parsererror"), "Chromium could not parse the SVG:\n%.2000s",
		       dom);
	cr_expect(strstr(dom, "Matched: 81.17%"), "search ^main$: 4436 of 5465 bytes\n%.2000s",
		  dom);
	cr_expect(strstr(dom, ">Reset Search</text>"));
	cr_expect(strstr(dom, "fill=\"rgb(230,0,230)\""), "matched frame highlighted");
	cr_expect(strstr(dom, ">demo::fill</text>"), "frame label drawn");
	cr_expect(strstr(dom, ">operator new(unsigned long)</text>"));
	free(dom);
	snprintf(png, sizeof(png), "%s/odd.flame.png", ex_artifacts());
	free(ex_chromium(path, NULL, png, 1200, 800));
	cr_expect(stat(png, &st) == 0 && st.st_size > 1000, "screenshot %s", png);
	snprintf(png, sizeof(png), "%s/odd.flame.search.png", ex_artifacts());
	free(ex_chromium(path, "?s=alloc", png, 1200, 300));
	cr_expect(stat(png, &st) == 0 && st.st_size > 1000, "screenshot %s", png);

	svg = flame("prog.json", &keep, "prog.flame.svg", path, sizeof(path), NULL);
	free(svg);
	/* Zoom (?z=): grow_buffer spans the width, its parent is dimmed, make_table hidden. */
	dom = ex_chromium(path, "?z=%5Egrow_buffer%24", NULL, 1200, 800);
	cr_assert(dom, "chromium --dump-dom failed");
	cr_expect_null(strstr(dom, "parsererror"), "Chromium could not parse the SVG:\n%.2000s",
		       dom);
	cr_expect(strstr(dom, "<g class=\"f parent\" data-o=\"0\" data-v=\"526\" data-d=\"1\" "),
		  "main dimmed as a parent\n%.3000s", dom);
	cr_expect(strstr(dom, "<g class=\"f hide\" data-o=\"350\" data-v=\"80\" data-d=\"2\" "),
		  "make_table hidden");
	/* y: 90 px of heading (title, one subtitle line, totals, legend), then depth 3 - 2 */
	cr_expect(strstr(dom, "<rect x=\"10.0\" y=\"106.0\" width=\"1180.0\""),
		  "grow_buffer (depth 2) full width");
	cr_expect(strstr(dom, ">Reset Zoom</text>"));
	free(dom);
	snprintf(png, sizeof(png), "%s/prog.flame.zoom.png", ex_artifacts());
	free(ex_chromium(path, "?z=%5Egrow_buffer%24", png, 1200, 300));
	snprintf(png, sizeof(png), "%s/prog.flame.png", ex_artifacts());
	free(ex_chromium(path, NULL, png, 1200, 800));
	cr_expect(stat(png, &st) == 0 && st.st_size > 1000, "screenshot %s", png);
	/* Real Valgrind output (ls): deep stacks, many narrow frames. */
	svg = flame("valgrind_ls.json", NULL, "valgrind_ls.flame.svg", path, sizeof(path), NULL);
	cr_expect(strstr(svg, "<title>all\n125,340 bytes (100.00%), 446 blocks</title>"));
	free(svg);
	snprintf(png, sizeof(png), "%s/valgrind_ls.flame.png", ex_artifacts());
	free(ex_chromium(path, NULL, png, 1200, 600));
	cr_expect(stat(png, &st) == 0 && st.st_size > 1000, "screenshot %s", png);
	fprintf(stderr, "[export] flame graph screenshots in %s\n", ex_artifacts());
}

/* --- heap timeline ----------------------------------------------------------------------- */

struct tl_arg {
	const struct heap_timeline *t;
	const char *title;
};

static int timeline_w(const struct dhat_profile *p, FILE *out, const void *arg)
{
	const struct tl_arg *a = arg;

	return export__timeline_svg(a->t, out, a->title);
}

/* A saw-tooth heap growing to peak at 1.8 s of 2.5 s, then freed to 1 MiB. */
static struct heap_timeline *sawtooth(void)
{
	static uint64_t t[1000], b[1000];
	static struct heap_timeline tl;

	for (size_t i = 0; i < 1000; i++) {
		t[i] = 2500 * (i + 1);
		b[i] = (i < 720 ? (uint64_t)i * 4096 + (i % 50) * 20000 : (1u << 20) + i * 100);
	}
	tl = (struct heap_timeline){.t_us = t, .live_bytes = b, .cnt = 1000};
	tl.te_us = 2500000;
	for (size_t i = 0; i < 1000; i++)
		if (b[i] >= tl.peak_bytes) {
			tl.peak_bytes = b[i];
			tl.tg_us = t[i];
		}
	return &tl;
}

static char *timeline(const struct heap_timeline *t, const char *title, const char *name,
		      char *path, size_t sz)
{
	struct tl_arg a = {t, title};
	size_t len;
	int rc;
	char *svg = ex_capture(NULL, timeline_w, &a, &rc, &len);

	cr_assert_eq(rc, 0, "export__timeline_svg: %d", rc);
	save(name, svg, len, path, sz);
	xmllint_ok(path);
	return svg;
}

Test(export_timeline, labels_units_and_tgmax)
{
	char path[4096];
	struct heap_timeline *t = sawtooth();
	char *svg = timeline(t, "kaish <parse> & \"run\"", "timeline.svg", path, sizeof(path));

	cr_expect(strstr(svg, ">time (ms)</text>"));
	cr_expect(strstr(svg, ">live bytes (MiB)</text>"));
	cr_expect(strstr(svg, ">t-gmax ("), "t-gmax label");
	cr_expect(strstr(svg, "id=\"tgmax\""), "t-gmax line");
	cr_expect(strstr(svg, ">kaish &lt;parse&gt; &amp; &quot;run&quot;</text>"));
	cr_expect(strstr(svg, ">2500</text>"), "last x tick at t-end (ms)");
	free(svg);
}

Test(export_timeline, seconds_kib_and_empty)
{
	uint64_t t[3] = {1000000, 20000000, 30000000}, b[3] = {2048, 10240, 0};
	struct heap_timeline tl = {.t_us = t,
				   .live_bytes = b,
				   .cnt = 3,
				   .tg_us = 20000000,
				   .te_us = 40000000,
				   .peak_bytes = 10240};
	struct heap_timeline none = {0};
	char path[4096];
	char *svg = timeline(&tl, NULL, "timeline-long.svg", path, sizeof(path));

	cr_expect(strstr(svg, ">time (s)</text>"));
	cr_expect(strstr(svg, ">live bytes (KiB)</text>"));
	cr_expect(strstr(svg, ">Live heap</text>"));
	cr_expect(strstr(svg, "t-gmax (10.00 KiB)"));
	free(svg);
	svg = timeline(&none, NULL, "timeline-empty.svg", path, sizeof(path));
	cr_expect(strstr(svg, "no samples"));
	cr_expect(strstr(svg, ">live bytes (B)</text>"));
	free(svg);
	tl.t_us = NULL;
	cr_expect_eq(export__timeline_svg(&tl, stdout, NULL), -EINVAL);
	cr_expect_eq(export__timeline_svg(NULL, stdout, NULL), -EINVAL);
}

Test(export_timeline, in_chromium, .timeout = TEST_TIMEOUT(300))
{
	char path[4096], png[4200];
	char *svg, *dom;
	struct stat st;

	if (!need("chromium", "rendering in a browser", true))
		cr_skip("chromium not installed");
	svg = timeline(sawtooth(), "Live heap (synthetic saw-tooth)", "timeline.svg", path,
		       sizeof(path));
	free(svg);
	dom = ex_chromium(path, NULL, NULL, 1000, 500);
	cr_assert(dom, "chromium --dump-dom failed");
	cr_expect_null(strstr(dom, "parsererror"), "Chromium could not parse the SVG:\n%.2000s",
		       dom);
	cr_expect(strstr(dom, ">time (ms)</text>"), "%.1500s", dom);
	cr_expect(strstr(dom, ">live bytes (MiB)</text>"));
	cr_expect(strstr(dom, "t-gmax"));
	free(dom);
	snprintf(png, sizeof(png), "%s/timeline.png", ex_artifacts());
	free(ex_chromium(path, NULL, png, 1000, 500));
	cr_expect(stat(png, &st) == 0 && st.st_size > 1000, "screenshot %s", png);
	fprintf(stderr, "[export] timeline screenshot %s\n", png);
}

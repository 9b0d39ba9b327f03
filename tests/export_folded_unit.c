// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Exporter tests, part 1: frame-string parsing and folded (collapsed) stacks.
 * Invariant checked on every output: the counts add up exactly to the DHAT totals.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export_helpers.h"
#include "report.h"
#include "export_int.h"
#include "test_util.h"

/* Table: frame text -> its parts (dhat-format.md §4 forms, dhat-rs, C++ names). */
static const struct {
	const char *text;
	uint64_t addr;
	const char *fn, *file, *obj;
	uint32_t line, col;
	const char *name; /* export_frame__name(text, false) */
} FRAMES[] = {
    {"0x10918F: make_table (prog.c:21)", 0x10918F, "make_table", "prog.c", NULL, 21, 0,
     "make_table"},
    {"0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_dhat-amd64-linux.so)", 0x48417B4,
     "malloc", NULL, "/usr/libexec/valgrind/vgpreload_dhat-amd64-linux.so", 0, 0, "malloc"},
    {"0x401AB77: ??? (in /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)", 0x401AB77, "???", NULL,
     "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", 0, 0, "[ld-linux-x86-64.so.2]"},
    /* an unnamed frame with its address in the module (symbolizer): the object is OBJ */
    {"0x55D000006E8C: ??? (in /usr/bin/sort+0x6e8c)", 0x55D000006E8C, "???", NULL,
     "/usr/bin/sort", 0, 0, "[sort]"},
    {"0x80483BF: really (in ?\?\?)", 0x80483BF, "really", NULL, NULL, 0, 0, "really"},
    {"0x80483BF: ??? (a.c:20)", 0x80483BF, "???", "a.c", NULL, 20, 0, "???"},
    {"0x80483BF: ???", 0x80483BF, "???", NULL, NULL, 0, 0, "???"},
    {"0x5571e110fcf1: dhat_sample::make_table (rust-sample/src/main.rs:8:5)", 0x5571e110fcf1,
     "dhat_sample::make_table", "rust-sample/src/main.rs", NULL, 8, 5, "dhat_sample::make_table"},
    {"0x401100: f(int) const (a.cpp:3)", 0x401100, "f(int) const", "a.cpp", NULL, 3, 0,
     "f(int) const"},
    {"0x401200: (anonymous namespace)::g() (b.cc:9)", 0x401200, "(anonymous namespace)::g()",
     "b.cc", NULL, 9, 0, "(anonymous namespace)::g()"},
    {"0x401300: operator() (in /lib/x.so)", 0x401300, "operator()", NULL, "/lib/x.so", 0, 0,
     "operator()"},
    {"0x1: a;b (c.c:1)", 0x1, "a;b", "c.c", NULL, 1, 0, "a:b"},
    {"[root]", 0, "[root]", NULL, NULL, 0, 0, "[root]"},
    {"free text (not a location)", 0, "free text (not a location)", NULL, NULL, 0, 0,
     "free text (not a location)"},
    {"0xZZ: x", 0, "0xZZ: x", NULL, NULL, 0, 0, "0xZZ: x"},
};

static bool slice_is(const char *s, size_t n, const char *want)
{
	if (!want)
		return s == NULL;
	return s && strlen(want) == n && !strncmp(s, want, n);
}

Test(export_frame, parse_table)
{
	for (size_t i = 0; i < sizeof(FRAMES) / sizeof(FRAMES[0]); i++) {
		struct export_frame f;
		char *name;

		export_frame__parse(FRAMES[i].text, &f);
		cr_expect_eq(f.addr, FRAMES[i].addr, "%s: addr %#lx", FRAMES[i].text,
			     (unsigned long)f.addr);
		cr_expect(slice_is(f.fn, f.fn_len, FRAMES[i].fn), "%s: fn '%.*s'", FRAMES[i].text,
			  (int)f.fn_len, f.fn);
		cr_expect(slice_is(f.file, f.file_len, FRAMES[i].file), "%s: file '%.*s'",
			  FRAMES[i].text, (int)f.file_len, f.file ? f.file : "");
		cr_expect(slice_is(f.obj, f.obj_len, FRAMES[i].obj), "%s: obj '%.*s'",
			  FRAMES[i].text, (int)f.obj_len, f.obj ? f.obj : "");
		cr_expect_eq(f.line, FRAMES[i].line, "%s: line %u", FRAMES[i].text, f.line);
		cr_expect_eq(f.col, FRAMES[i].col, "%s: col %u", FRAMES[i].text, f.col);
		name = export_frame__name(FRAMES[i].text, false);
		cr_assert(name);
		cr_expect_str_eq(name, FRAMES[i].name, "%s", FRAMES[i].text);
		free(name);
	}
}

Test(export_frame, name_with_location)
{
	char *n = export_frame__name("0x10918F: make_table (prog.c:21)", true);

	cr_expect_str_eq(n, "make_table (prog.c:21)");
	free(n);
	n = export_frame__name("0x4: ??? (in /lib/libc.so.6)", true);
	cr_expect_str_eq(n, "??? (in /lib/libc.so.6)");
	free(n);
}

static int folded_w(const struct dhat_profile *p, FILE *out, const void *arg)
{
	return export__folded(p, out, *(const enum export_weight *)arg);
}

static int folded_o(const struct dhat_profile *p, FILE *out, const void *arg)
{
	return export__folded_opts(p, out, arg);
}

/* Σ of a PP field over the profile, independently of the reader's own sums. */
static unsigned long long pp_sum(const struct dhat_profile *p, enum export_weight w)
{
	unsigned long long s = 0;

	for (size_t i = 0; i < p->pp_cnt; i++)
		s += w == EXPORT_WEIGHT_BYTES	     ? p->pps[i].tb
		     : w == EXPORT_WEIGHT_BLOCKS     ? p->pps[i].tbk
		     : w == EXPORT_WEIGHT_GMAX_BYTES ? p->pps[i].gb
						     : p->pps[i].eb;
	return s;
}

Test(export_folded, sums_equal_dhat_totals)
{
	static const char *const fixtures[] = {"prog.json", "odd.json", "empty.json", "big.json",
					       "valgrind_ls.json"};

	for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
		struct dhat_profile *p = ex_load(fixtures[f]);

		for (enum export_weight w = EXPORT_WEIGHT_BYTES; w <= EXPORT_WEIGHT_END_BYTES;
		     w++) {
			int rc;
			char *out = ex_capture(p, folded_w, &w, &rc, NULL);
			unsigned long long sum = ex_folded_sum(out, NULL);

			cr_assert_eq(rc, 0);
			cr_expect_eq(sum, pp_sum(p, w), "%s, weight %s: folded sum %llu, DHAT %llu",
				     fixtures[f], export_weight__name(w), sum, pp_sum(p, w));
			if (w == EXPORT_WEIGHT_BYTES)
				cr_expect_eq(sum, p->total_bytes, "%s: Σtb", fixtures[f]);
			if (w == EXPORT_WEIGHT_BLOCKS)
				cr_expect_eq(sum, p->total_blocks, "%s: Σtbk", fixtures[f]);
			free(out);
		}
		dhat_profile__free(p);
	}
}

Test(export_folded, identical_stacks_merge)
{
	struct dhat_profile *p = ex_load("prog.json");
	struct export_opts keep = {.keep_plumbing = true};
	struct export_opts loc = {.location = true, .keep_plumbing = true};
	size_t lines;
	int rc;
	char *out = ex_capture(p, folded_o, &keep, &rc, NULL);

	/* realloc at prog.c:29 (200) and prog.c:30 (50): one stack once lines are dropped. */
	cr_expect(strstr(out, "main;grow_buffer;realloc 250\n"), "%s", out);
	ex_folded_sum(out, &lines);
	cr_expect_eq(lines, 4, "5 PPs, 2 of them one stack: %zu lines", lines);
	free(out);

	/* With locations the two reallocs stay apart. */
	out = ex_capture(p, folded_o, &loc, &rc, NULL);
	cr_assert_eq(rc, 0);
	ex_folded_sum(out, &lines);
	cr_expect_eq(lines, 5);
	cr_expect(strstr(out, "main (prog.c:36);grow_buffer (prog.c:29);realloc (in "
			      "/usr/libexec/valgrind/vgpreload_dhat-amd64-linux.so) 200\n"),
		  "%s", out);
	cr_expect_eq(ex_folded_sum(out, NULL), 526);
	free(out);
	dhat_profile__free(p);
}

Test(export_folded, no_duplicate_stacks)
{
	static const char *const fixtures[] = {"prog.json", "odd.json"};

	for (size_t f = 0; f < 2; f++) {
		struct dhat_profile *p = ex_load(fixtures[f]);
		enum export_weight w = EXPORT_WEIGHT_BLOCKS;
		char *out, *lines[64];
		size_t n = 0;
		int rc;

		out = ex_capture(p, folded_w, &w, &rc, NULL);
		for (char *l = strtok(out, "\n"); l && n < 64; l = strtok(NULL, "\n")) {
			*strrchr(l, ' ') = '\0';
			lines[n++] = l;
		}
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				cr_expect_str_neq(lines[i], lines[j], "%s", fixtures[f]);
		free(out);
		dhat_profile__free(p);
	}
}

/* Golden files: tests/data/export/<name>; UPDATE_GOLDEN=1 rewrites them. */
static void golden(const char *fixture, const struct export_opts *o, const char *gold)
{
	struct dhat_profile *p = ex_load(fixture);
	char path[4096];
	size_t len;
	int rc;
	char *out = ex_capture(p, folded_o, o, &rc, &len);

	cr_assert_eq(rc, 0);
	snprintf(path, sizeof(path), "%s/%s", EX_DATA, gold);
	rc = tu_golden(path, out, len);
	cr_expect_eq(rc, 0, "%s differs from golden %s (UPDATE_GOLDEN=1 to rewrite):\n%s", fixture,
		     path, out);
	free(out);
	dhat_profile__free(p);
}

/* The golden files *.folded keep every frame (--keep-plumbing); *.skip.folded are the
 * default, allocator plumbing left out. */
Test(export_folded, golden_prog_bytes)
{
	golden("prog.json", &(struct export_opts){.keep_plumbing = true}, "prog.folded");
	golden("prog.json", &(struct export_opts){.weight = EXPORT_WEIGHT_BYTES},
	       "prog.skip.folded");
}

Test(export_folded, golden_prog_location)
{
	golden("prog.json", &(struct export_opts){.location = true, .keep_plumbing = true},
	       "prog.loc.folded");
}

Test(export_folded, golden_odd_bytes)
{
	/* C++ names, ';' in a name, "???" forms, inlined frames, a PP without frames. */
	golden("odd.json", &(struct export_opts){.keep_plumbing = true}, "odd.folded");
	golden("odd.json", &(struct export_opts){.weight = EXPORT_WEIGHT_BYTES}, "odd.skip.folded");
}

Test(export_folded, golden_odd_blocks)
{
	golden("odd.json",
	       &(struct export_opts){.weight = EXPORT_WEIGHT_BLOCKS, .keep_plumbing = true},
	       "odd.blocks.folded");
}

Test(export_folded, plumbing_left_out_and_kept)
{
	struct dhat_profile *p = ex_load("prog.json");
	const char *const extra[] = {"grow_buffer"};
	struct site_opts skip = {.skip = extra, .skip_cnt = 1};
	struct site_opts none = {.no_default_skip = true};
	struct export_opts o = {0};
	size_t lines;
	int rc;
	char *out = ex_capture(p, folded_o, &o, &rc, NULL);

	/* Default: no stack ends in an allocator; the sum is unchanged. */
	cr_assert_eq(rc, 0);
	cr_expect_null(strstr(out, "malloc"), "%s", out);
	cr_expect_null(strstr(out, "calloc"), "%s", out);
	cr_expect(strstr(out, "main;grow_buffer 350\n"), "malloc 100 + realloc 250:\n%s", out);
	cr_expect(strstr(out, "main;make_table 80\n"), "%s", out);
	cr_expect(strstr(out, "main 96\n"), "%s", out);
	cr_expect_eq(ex_folded_sum(out, &lines), 526);
	cr_expect_eq(lines, 3);
	free(out);

	/* report's --skip adds to the table: grow_buffer goes too. */
	o.skip = &skip;
	out = ex_capture(p, folded_o, &o, &rc, NULL);
	cr_expect(strstr(out, "main 446\n"), "%s", out);
	free(out);

	/* --no-default-skip forgets the table: malloc is back. */
	o.skip = &none;
	out = ex_capture(p, folded_o, &o, &rc, NULL);
	cr_expect(strstr(out, "main;grow_buffer;malloc 100\n"), "%s", out);
	free(out);
	dhat_profile__free(p);
}

Test(export_folded, bad_weight_and_write_error)
{
	struct dhat_profile *p = ex_load("prog.json");
	enum export_weight w = (enum export_weight)42;
	int rc;
	char *out = ex_capture(p, folded_w, &w, &rc, NULL);

	cr_expect_eq(rc, -EINVAL);
	free(out);
	/* A full disk must not pass silently. */
	rc = export__to_path(p, EXPORT_FMT_FOLDED, "/dev/full", NULL);
	cr_expect_lt(rc, 0, "writing to /dev/full returned %d", rc);
	dhat_profile__free(p);
}

Test(export_folded, parse_helpers)
{
	enum export_format f;
	enum export_weight w;

	cr_expect_eq(export_format__parse("pprof", &f), 0);
	cr_expect_eq(f, EXPORT_FMT_PPROF);
	cr_expect_eq(export_format__parse("collapsed", &f), 0);
	cr_expect_eq(f, EXPORT_FMT_FOLDED);
	cr_expect_eq(export_format__parse("flamegraph", &f), 0);
	cr_expect_eq(f, EXPORT_FMT_SVG);
	cr_expect_eq(export_format__parse("png", &f), -EINVAL);
	cr_expect_eq(export_weight__parse("leaked", &w), 0);
	cr_expect_eq(w, EXPORT_WEIGHT_END_BYTES);
	cr_expect_eq(export_weight__parse("blocks", &w), 0);
	cr_expect_eq(w, EXPORT_WEIGHT_BLOCKS);
	cr_expect_eq(export_weight__parse("kg", &w), -EINVAL);
	cr_expect_str_eq(export_weight__name(EXPORT_WEIGHT_GMAX_BYTES), "bytes at t-gmax");
}

Test(export_folded, to_path_roundtrip)
{
	struct dhat_profile *p = ex_load("prog.json");
	char path[4096];
	size_t len;
	char *text;

	snprintf(path, sizeof(path), "%s/prog.folded", ex_artifacts());
	cr_assert_eq(export__to_path(p, EXPORT_FMT_FOLDED, path,
				     &(struct export_opts){.weight = EXPORT_WEIGHT_BLOCKS}),
		     0);
	text = tu_slurp(path, &len);
	cr_assert(text);
	cr_expect_eq(ex_folded_sum(text, NULL), 7);
	free(text);
	dhat_profile__free(p);
}

/* The one plumbing table (user/analyze/plumbing.c), shared by report and the exporters,
 * covers the runtimes' allocator layers; user code with similar names stays visible. */
Test(export_folded, plumbing_table_covers_runtimes)
{
	static const char *const plumbing[] = {
	    "_PyObject_Malloc (obmalloc.c:2003)",
	    "PyObject_Malloc (obmalloc.c:801)",
	    "PyMem_Malloc (obmalloc.c:619)",
	    "_PyMem_RawMalloc (obmalloc.c:63)",
	    "pymalloc_alloc (obmalloc.c:1930)",
	    "_PyObject_GC_NewVar (gcmodule.c:2300)",
	    "alloc::raw_vec::RawVec<T,A>::grow_one (raw_vec.rs:481:13)",
	    "<alloc::raw_vec::RawVec<T,A>>::reserve::do_reserve_and_handle",
	    "hashbrown::raw::RawTable<T,A>::reserve_rehash (mod.rs:1045:17)",
	    "__rdl_alloc (alloc.rs:373:13)",
	    "operator new(unsigned long) (in /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30)",
	    "std::allocator<int>::allocate(unsigned long) (allocator.h:187)",
	    "__gnu_cxx::new_allocator<int>::allocate(unsigned long, void const*) (a.h:127)",
	    "g_malloc (in /usr/lib/x86_64-linux-gnu/libglib-2.0.so.0.7400.6)",
	    "g_malloc0 (gmem.c:163)",
	    "g_slice_alloc (gslice.c:1069)",
	    "g_strdup (gstrfuncs.c:362)",
	    "malloc (in /usr/lib/x86_64-linux-gnu/libc.so.6)",
	};
	static const char *const user[] = {
	    "PyUnicode_New (unicodeobject.c:1211)",
	    "g_main_loop_run (gmain.c:4350)",
	    "realloc_buffer (buf.c:12)",
	    "my_app::alloc_pool (pool.rs:3:5)",
	    "g_strdup_printf_like (x.c:1)",
	    "PyObject_MallocFreeList (x.c:1)",
	};

	for (size_t i = 0; i < sizeof(plumbing) / sizeof(plumbing[0]); i++)
		cr_expect(site__is_plumbing(plumbing[i], NULL), "not plumbing: %s", plumbing[i]);
	for (size_t i = 0; i < sizeof(user) / sizeof(user[0]); i++)
		cr_expect(!site__is_plumbing(user[i], NULL), "plumbing: %s", user[i]);
}

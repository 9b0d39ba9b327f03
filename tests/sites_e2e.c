// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Readable program points (issue 17), end to end: the summary the tracer prints after
 * `tracer -- CMD` (on stderr) for
 *  - a Python one-liner: the top rows are named by CPython's object code, not by obmalloc or
 *    PyMem_ (runtime allocators are plumbing), no row is "f <- f" (recursion folded), no two
 *    rows alike;
 *  - a Rust program with four allocation sites on one line of one function: four rows, each
 *    told apart by the std function it called (HashMap insert, collect, format!, clone);
 *  - a C program leaking at one site: its still-live section names that site, not the site
 *    that allocates more but frees it all;
 *  - `--start-at rs_sites::build`: a demangled Rust name opens the window.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e_util.h"
#include "test_timeout.h"

/* Under CI=true a missing rustc is a failure, so that the Rust tests cannot go green unrun. */
#define SKIP_WITHOUT_RUSTC()                                                                       \
	do {                                                                                       \
		if (e2e_in_ci())                                                           \
			cr_assert_fail("rustc was not found at configure time: the Rust test "     \
				       "cannot run");                                              \
		cr_skip_test("rustc not found at configure time");                                 \
	} while (0)

/* The summary (stderr) of `tracer OPTS -o DIR/NAME.json -- CMD`. */
static char *trace_opts(const char *name, const char *opts, const char *cmd)
{
	char *dir = e2e_tmpdir(name), *log = NULL, line[4096];
	int st;

	snprintf(line, sizeof(line), "%s %s -o %s/%s.json -- %s 2>&1 >/dev/null", TRACER_BIN,
		 opts, dir, name, cmd);
	st = e2e_run(line, &log);
	cr_assert_eq(st, 0, "%s exited %d:\n%s", line, st, log ? log : "");
	free(dir);
	return log;
}

static char *trace(const char *name, const char *cmd)
{
	return trace_opts(name, "", cmd);
}

/* The site texts of the table under heading (up to its blank line), malloc'd, *n of them. */
static char **table_sites(const char *log, const char *heading, size_t *n)
{
	const char *p = strstr(log, heading);
	char **sites = NULL;

	*n = 0;
	cr_assert_not_null(p, "no '%s' in:\n%s", heading, log);
	p = strchr(p, '\n') + 1;
	while (*p == ' ' && p[1] == ' ' && p[2] == ' ') {
		const char *end = strchr(p, '\n'), *s = strstr(p, "allocs");

		/* the site follows the first three spaces after the block count, or in the
		 * still-live table after the age column ("allocs  age   6%   site") */
		if (s) {
			const char *a = s + strlen("allocs");

			a += strspn(a, " ");
			if (!strncmp(a, "age ", 4)) {
				a += 4;
				a += strspn(a, " ");
				s = a + strcspn(a, " ");
			}
		}
		s = s ? strstr(s, "   ") : NULL;
		cr_assert(end && s && s < end, "not a row: %.*s", 200, p);
		s += 3;
		sites = realloc(sites, (*n + 1) * sizeof(*sites));
		sites[(*n)++] = strndup(s, (size_t)(end - s));
		p = end + 1;
	}
	return sites;
}

static void free_sites(char **s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i]);
	free(s);
}

static void expect_all_distinct(char **s, size_t n, const char *log)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			cr_expect_str_neq(s[i], s[j], "rows %zu and %zu alike:\n%s", i, j, log);
}

/* The function of a site's first frame (up to " ("). */
static char *head_fn(const char *site)
{
	const char *e = strstr(site, " (");

	return strndup(site, e ? (size_t)(e - site) : strlen(site));
}

Test(sites_e2e, python_rows_name_object_code, .timeout = TEST_TIMEOUT(180))
{
	static const char *const allocators[] = {
	    "malloc", "calloc", "realloc", "_PyObject_Malloc", "PyObject_Malloc", "PyMem_",
	    "_PyMem_", "pymalloc_", "arena_map_", "_PyObject_New", "PyType_GenericAlloc",
	};
	char *py = NULL, cmd[1024], *log, **s;
	size_t n;
	bool object_code = false;

	E2E_REQUIRE_ROOT();
	/* the interpreter itself, not a pyenv shim script around it */
	cr_assert_eq(e2e_run("python3 -c 'import os, sys; print(os.path.realpath(sys.executable))'",
			     &py), 0, "no python3");
	py[strcspn(py, "\n")] = '\0';
	snprintf(cmd, sizeof(cmd),
		 "%s -c 'd = {}\nfor i in range(20000):\n    d[str(i)] = [i] * 3\n"
		 "s = \"\".join(str(x) for x in range(5000))\n'", py);
	log = trace("python", cmd);
	s = table_sites(log, "top program points by TOTAL BYTES\n", &n);
	cr_assert_geq(n, 5, "%s", log);
	expect_all_distinct(s, n, log);
	for (size_t i = 0; i < n; i++) {
		char *fn = head_fn(s[i]), *caller = strstr(s[i], "  <-  ");

		for (size_t a = 0; a < sizeof(allocators) / sizeof(allocators[0]); a++)
			cr_expect(strncmp(fn, allocators[a], strlen(allocators[a])),
				  "row %zu is named by an allocator: %s", i, s[i]);
		/* recursion folded: never "f (x.c:1)  <-  f (x.c:2)" */
		if (caller) {
			char *cfn = head_fn(caller + 6);

			cr_expect_str_neq(fn, cfn, "row %zu: %s", i, s[i]);
			free(cfn);
		}
		object_code |= strstr(fn, "dict") || strstr(fn, "keys") || strstr(fn, "list") ||
			       strstr(fn, "Unicode") || strstr(fn, "Bytes");
		free(fn);
	}
	cr_expect(object_code, "no top row names CPython's dict/list/str/bytes code:\n%s", log);
	free_sites(s, n);
	free(log);
	free(py);
}

Test(sites_e2e, rust_sites_on_one_line_told_apart, .timeout = TEST_TIMEOUT(180))
{
#ifndef SITES_RS_BIN
	SKIP_WITHOUT_RUSTC();
#else
	static const char *const telling[] = { "HashMap", "collect", "format", "clone" };
	bool seen[4] = { false };
	char *log, **s;
	size_t n, build = 0;

	E2E_REQUIRE_ROOT();
	log = trace("rust", SITES_RS_BIN);
	s = table_sites(log, "top program points by TOTAL BYTES\n", &n);
	expect_all_distinct(s, n, log);
	for (size_t i = 0; i < n; i++) {
		if (strncmp(s[i], "rs_sites::build (", 17))
			continue;
		build++;
		for (size_t t = 0; t < 4; t++)
			if (strstr(s[i], "  [") && strstr(strstr(s[i], "  ["), telling[t]))
				seen[t] = true;
	}
	cr_expect_eq(build, 4, "rows named by rs_sites::build:\n%s", log);
	for (size_t t = 0; t < 4; t++)
		cr_expect(seen[t], "no build row told apart by %s:\n%s", telling[t], log);
	free_sites(s, n);
	free(log);
#endif
}

/* The line of block_calls.cc that holds marker, or 0. */
static int source_line(const char *marker)
{
	char *src = e2e_slurp(BLOCK_CALLS_SRC), *at;
	int line = 1;

	cr_assert_not_null(src, "cannot read %s", BLOCK_CALLS_SRC);
	at = strstr(src, marker);
	for (char *p = src; at && p < at; p++)
		line += *p == '\n';
	free(src);
	return at ? line : 0;
}

/* #35 "two sites on m.cpp:15 were reported at the closing brace": under -O2 a call that
 * ends its block returns to code of another line (here the loop's head, one line for both
 * calls). Caller frames are looked up at the return address minus one: each row names its
 * call's line, and the two rows stay apart. */
Test(sites_e2e, cxx_block_end_calls_name_the_call_line, .timeout = TEST_TIMEOUT(120))
{
	int odd = source_line("// CALL_ODD"), even = source_line("// CALL_EVEN");
	char *log, **s, want_odd[64], want_even[64];
	bool seen_odd = false, seen_even = false;
	size_t n;

	E2E_REQUIRE_ROOT();
	cr_assert(odd && even);
	snprintf(want_odd, sizeof(want_odd), "run(int) (block_calls.cc:%d)", odd);
	snprintf(want_even, sizeof(want_even), "run(int) (block_calls.cc:%d)", even);
	log = trace("blockcalls", BLOCK_CALLS_BIN);
	s = table_sites(log, "top program points by TOTAL BYTES\n", &n);
	expect_all_distinct(s, n, log);
	for (size_t i = 0; i < n; i++) {
		seen_odd = seen_odd || strstr(s[i], want_odd);
		seen_even = seen_even || strstr(s[i], want_even);
	}
	cr_expect(seen_odd, "no row names %s:\n%s", want_odd, log);
	cr_expect(seen_even, "no row names %s:\n%s", want_even, log);
	free_sites(s, n);
	free(log);
}

Test(sites_e2e, leak_named_in_still_live_section, .timeout = TEST_TIMEOUT(120))
{
	char *log, **s;
	size_t n;

	E2E_REQUIRE_ROOT();
	log = trace("leak", LEAK_PROG_BIN);
	s = table_sites(log, "still live at the end", &n);
	cr_assert_geq(n, 1, "%s", log);
	cr_expect(!strncmp(s[0], "leak_some (leak.c:", 18), "first suspect: %s\n%s", s[0], log);
	cr_expect(strstr(log, "     10.00 KiB         40 allocs  age "), "40 x 256 B live:\n%s",
		  log);
	for (size_t i = 0; i < n; i++)
		cr_expect(!strstr(s[i], "churn"), "churn frees all it allocates: %s", s[i]);
	free_sites(s, n);
	free(log);
}

/* #35: for `ls` 11 of 12 leak suspects were glibc's locale data. Under a UTF-8 locale (so
 * that setlocale loads some) the still-live section names none of libc's one-time
 * allocations, says how many it suppressed, and `report --leaks` on the file lists the same
 * suspects with their whole stacks. */
Test(sites_e2e, ls_leak_suspects_are_not_locale_data, .timeout = TEST_TIMEOUT(120))
{
	char *log = NULL, *leaks = NULL, **s, line[1024], *dir;
	const char *live;
	size_t n;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("ls");
	/* the locale in the tracer's environment, which -- CMD inherits: `env LC_ALL=... ls`
	 * would make the first image env's */
	snprintf(line, sizeof(line), "LC_ALL=C.UTF-8 %s -o %s/ls.json -- ls -l /usr "
		 "2>&1 >/dev/null", TRACER_BIN, dir);
	st = e2e_run(line, &log);
	cr_assert_eq(st, 0, "%s exited %d:\n%s", line, st, log ? log : "");
	cr_assert(strstr(log, "_nl_"), "setlocale loaded no locale data:\n%s", log);
	live = strstr(log, "still live at the end");
	cr_assert_not_null(live, "%s", log);
	cr_expect(strstr(live, " suppressed ("), "no suppression note:\n%s", live);
	s = table_sites(log, "still live at the end", &n);
	for (size_t i = 0; i < n; i++)
		cr_expect(!strstr(s[i], "_nl_") && !strstr(s[i], "setlocale") &&
				  !strstr(s[i], "_IO_file_doallocate") && !strstr(s[i], "_dl_"),
			  "a libc one-time allocation is a suspect: %s\n%s", s[i], log);
	snprintf(line, sizeof(line), "%s report --leaks %s/ls.json 2>&1", TRACER_BIN, dir);
	st = e2e_run(line, &leaks);
	cr_assert_eq(st, 0, "%s exited %d:\n%s", line, st, leaks ? leaks : "");
	cr_expect(!strstr(leaks, "top program points"), "%s", leaks);
	cr_expect(!strstr(leaks, "_nl_"), "%s", leaks);
	if (n) /* a suspect's row, then its stack: frames indented by 8 */
		cr_expect(strstr(leaks, "\n        "), "no stacks:\n%s", leaks);
	free_sites(s, n);
	free(dir);
	free(leaks);
	free(log);
}

/* --start-at with the name the report shows (legacy-mangled _ZN8rs_sites5build17h...E in the
 * file): the window opens at build(), so std's start-up allocations are not in it. */
Test(sites_e2e, start_at_demangled_rust_name, .timeout = TEST_TIMEOUT(120))
{
#ifndef SITES_RS_BIN
	SKIP_WITHOUT_RUSTC();
#else
	char *log;

	E2E_REQUIRE_ROOT();
	log = trace_opts("window", "--start-at rs_sites::build", SITES_RS_BIN);
	cr_expect(strstr(log, "\n  rs_sites::build\n"), "no window named rs_sites::build:\n%s",
		  log);
	cr_expect(strstr(log, "   rs_sites::build (rs_sites.rs:"), "%s", log);
	cr_expect(!strstr(log, "pthread_getattr_np"), "start-up allocations in the window:\n%s",
		  log);
	free(log);
#endif
}

/* Heavy C++ STL names are demangled completely, as c++filt prints them: every frame of the
 * profile naming a std::map<std::string, std::vector<std::string>> member is, word for word,
 * a function of the fixture as `nm -C` (binutils' demangler, c++filt's) names it, and no
 * frame stays mangled. */
Test(sites_e2e, heavy_stl_names_read_as_cxxfilt_prints_them, .timeout = TEST_TIMEOUT(120))
{
	char *dir, cmd[2048], path[1024], err[512], *out = NULL, *names = NULL;
	struct dhat_profile *p;
	size_t matched = 0;

	E2E_REQUIRE_ROOT();
	if (e2e_run("nm --version >/dev/null 2>&1", NULL) != 0)
		cr_skip_test("nm (binutils) is not installed");
	dir = e2e_tmpdir("sites-stl");
	snprintf(path, sizeof(path), "%s/stl.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -q -o %s -- %s", TRACER_BIN, path, STL_PROG_BIN);
	cr_assert_eq(e2e_run(cmd, &out), 0, "%s", out);
	free(out);
	/* "ADDR T NAME" lines: NAME runs from the third field to the end of the line. */
	snprintf(cmd, sizeof(cmd), "nm -C --defined-only %s | cut -d' ' -f3-", STL_PROG_BIN);
	cr_assert_eq(e2e_run(cmd, &names), 0);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	for (size_t i = 0; i < p->ftbl_cnt; i++) {
		const char *f = p->ftbl[i], *fn = strstr(f, ": "), *end;
		char line[8192];

		cr_expect_null(strstr(f, "_ZN"), "a mangled frame: %s", f);
		if (!fn || !strstr(fn, "std::map<std::__cxx11::basic_string<char"))
			continue;
		fn += 2;
		end = strrchr(fn, '(');
		while (end && end > fn && end[-1] != ' ') /* the " (file:line)" suffix */
			end = memrchr(fn, '(', (size_t)(end - fn));
		cr_assert_not_null(end, "%s", f);
		snprintf(line, sizeof(line), "\n%.*s\n", (int)(end - 1 - fn), fn);
		cr_expect(strstr(names, line) != NULL, "not as c++filt prints it: %s", f);
		matched++;
	}
	cr_expect_gt(matched, 0, "no std::map<std::string, ...> frame in %s", path);
	dhat_profile__free(p);
	free(names);
	free(dir);
}

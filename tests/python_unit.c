/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * python_unit: the line-table decoders (user/python/py_linetable.c) against the interpreters
 * themselves. tests/data/python/py_lines.py prints, for every code object of lines_sample.py,
 * the raw table and the line each instruction has by the interpreter's own tools; the C
 * decoder must give the same line for every instruction. Debian's python3 always runs;
 * each pyenv version runs when present (else the test skips, saying so).
 * Also: a truncated or garbled table never reads past its end.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "py_linetable.h"
#include "py_layouts.h"
#include "test_timeout.h"

#define LINES_SCRIPT TESTS_SRC_DIR "/data/python/py_lines.py"
#define LINES_SAMPLE TESTS_SRC_DIR "/data/python/lines_sample.py"

static int hexval(char c)
{
	return c >= 'a' ? c - 'a' + 10 : c - '0';
}

/* Check one line of py_lines.py's output; returns the instructions checked. */
static size_t check_code(const char *python, char *row)
{
	char *kind = strtok(row, " "), *first = strtok(NULL, " "), *hex = strtok(NULL, " ");
	char *lines = strtok(NULL, " \n");
	enum py_linetable_kind k;
	size_t len = 0, n = 0;
	__u8 *tab;

	cr_assert(kind && first && hex && lines, "%s: bad row from py_lines.py", python);
	k = !strcmp(kind, "lnotab")   ? PY_LT_LNOTAB
	    : !strcmp(kind, "pep626") ? PY_LT_PEP626
				      : PY_LT_LOCATIONS;
	tab = malloc(strlen(hex) / 2 + 1);
	cr_assert(tab);
	for (const char *h = hex; strcmp(hex, "-") && h[0] && h[1]; h += 2)
		tab[len++] = (__u8)(hexval(h[0]) << 4 | hexval(h[1]));
	for (char *tok = strtok(lines, ","); tok; tok = strtok(NULL, ","), n++) {
		int want = atoi(tok);
		int got = py_linetable__line(k, tab, len, atoi(first), (__u32)(2 * n));

		cr_expect_eq(got, want, "%s %s (code at line %s): offset %zu: line %d, want %d",
			     python, kind, first, 2 * n, got, want);
	}
	free(tab);
	return n;
}

/* Run py_lines.py with python and check every code object it prints. */
static void check_interpreter(const char *python)
{
	char cmd[1024], *row = NULL;
	size_t cap = 0, codes = 0, instrs = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s %s %s", python, LINES_SCRIPT, LINES_SAMPLE);
	p = popen(cmd, "r");
	cr_assert(p, "cannot run %s", cmd);
	while (getline(&row, &cap, p) > 0) {
		instrs += check_code(python, row);
		codes++;
	}
	free(row);
	cr_assert_eq(pclose(p), 0, "%s failed", cmd);
	/* lines_sample.py has 10-12 code objects and hundreds of instructions. */
	cr_assert_geq(codes, 8, "%s: only %zu code objects", python, codes);
	cr_assert_geq(instrs, 100, "%s: only %zu instructions", python, instrs);
}

/* The pyenv interpreter of minor version m, or skip. */
static void check_pyenv(const char *m)
{
	char cmd[256], path[512] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "ls -d /root/.pyenv/versions/%s.*/bin/python%s 2>/dev/null | "
		 "sort -V | tail -n 1",
		 m, m);
	p = popen(cmd, "r");
	cr_assert(p);
	if (!fgets(path, sizeof(path), p))
		path[0] = 0;
	pclose(p);
	path[strcspn(path, "\n")] = 0;
	if (!path[0] || access(path, X_OK))
		cr_skip_test("no pyenv python%s on this host", m);
	check_interpreter(path);
}

Test(python_unit, linetable_debian_python3, .timeout = TEST_TIMEOUT(60))
{
	check_interpreter("/usr/bin/python3");
}

Test(python_unit, linetable_pyenv_3_8, .timeout = TEST_TIMEOUT(60))
{
	check_pyenv("3.8");
}
Test(python_unit, linetable_pyenv_3_9, .timeout = TEST_TIMEOUT(60))
{
	check_pyenv("3.9");
}
Test(python_unit, linetable_pyenv_3_10, .timeout = TEST_TIMEOUT(60))
{
	check_pyenv("3.10");
}
Test(python_unit, linetable_pyenv_3_11, .timeout = TEST_TIMEOUT(60))
{
	check_pyenv("3.11");
}
Test(python_unit, linetable_pyenv_3_12, .timeout = TEST_TIMEOUT(60))
{
	check_pyenv("3.12");
}
Test(python_unit, linetable_pyenv_3_13, .timeout = TEST_TIMEOUT(60))
{
	check_pyenv("3.13");
}

/* A table cut short or made of continuation bytes gives -1, reading nothing past len
 * (the buffer is exactly len bytes; ASan builds catch an overrun). */
Test(python_unit, linetable_truncated_stays_in_bounds)
{
	static const __u8 varint_cut[] = {0x80 | (14 << 3), 0x41}; /* varint continues */
	static const __u8 not_entry[] = {0x01, 0x02};
	static const __u8 odd[] = {4};
	__u8 *t = malloc(sizeof(varint_cut));

	memcpy(t, varint_cut, sizeof(varint_cut));
	cr_expect_eq(py_linetable__line(PY_LT_LOCATIONS, t, sizeof(varint_cut), 10, 0), -1);
	free(t);
	cr_expect_eq(py_linetable__line(PY_LT_LOCATIONS, not_entry, 2, 10, 0), -1);
	cr_expect_eq(py_linetable__line(PY_LT_PEP626, odd, 1, 10, 0), -1);
	cr_expect_eq(py_linetable__line(PY_LT_LNOTAB, odd, 1, 10, 0), 10);
}

/* The generated table covers 3.8-3.13, each entry's version its own. */
Test(python_unit, layouts_table_versions)
{
	for (unsigned int m = 8; m <= 13; m++) {
		const struct py_version_layout *l = py_layouts__find(0x0300 | m);

		cr_assert(l, "no layout for 3.%u", m);
		cr_expect_eq(l->frames.version, 0x0300 | m);
	}
	cr_expect_null(py_layouts__find(0x0307));
	cr_expect_null(py_layouts__find(0x030e));
}

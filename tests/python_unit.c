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
#include <criterion/parameterized.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "py_linetable.h"
#include "py_code.h"
#include "py_detect.h"
#include "py_layouts.h"
#include "py_runtime.h"
#include "py_stack.h"
#include "python_util.h"
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

Test(python_unit, linetable_debian_python3, .timeout = TEST_TIMEOUT(60))
{
	check_interpreter("/usr/bin/python3");
}

ParameterizedTestParameters(python_unit, linetable_pyenv)
{
	return cr_make_param_array(struct pyenv_minor, pyenv_minors, PYENV_MINORS_CNT);
}

ParameterizedTest(struct pyenv_minor *m, python_unit, linetable_pyenv, .timeout = TEST_TIMEOUT(60))
{
	char path[512];

	pyenv_python(m->m, path, sizeof(path));
	check_interpreter(path);
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

/* co_firstlineno and the deltas are the target's: a line past INT_MAX is none (-1), not an
 * int overflow (undefined; a wrapped negative line in practice). */
Test(python_unit, linetable_line_overflow_is_none)
{
	static const __u8 loc[] = {0x80 | 11 << 3, 0, 0}; /* one unit, one-line form: +1 */
	static const __u8 pairs[] = {2, 1};		  /* two bytes, +1 */

	cr_expect_eq(py_linetable__line(PY_LT_LOCATIONS, loc, sizeof(loc), INT_MAX, 0), -1);
	cr_expect_eq(py_linetable__line(PY_LT_PEP626, pairs, sizeof(pairs), INT_MAX, 0), -1);
	cr_expect_eq(py_linetable__line(PY_LT_LNOTAB, pairs, sizeof(pairs), INT_MAX, 2), -1);
	cr_expect_eq(py_linetable__line(PY_LT_LOCATIONS, loc, sizeof(loc), 41, 0), 42);
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

/*
 * The frame namer (py_code.c) on objects laid out as 3.11's, built in this process's own
 * memory (pid = getpid()): names in each string kind, terminal-safe, bounded; the cache hit,
 * refilled when the object's fields change (an address reused), refused when the object is
 * no longer a code object (freed).
 */
struct fake {
	const struct py_version_layout *l;
	char code_type[8], unicode_type[8]; /* stand-ins: only their addresses matter */
	_Alignas(8) __u8 code[512], file[4096], qual[4096 + 128], qual2[256], table[64];
};

/* Make *obj a compact str of kind (1, 2, 4) holding n characters cps, ASCII when asked. */
static void fake_str(struct fake *fk, __u8 *obj, unsigned int kind, bool ascii, const __u32 *cps,
		     __u64 n)
{
	const struct py_code_layout *c = &fk->l->code;
	__u64 type = (__u64)(uintptr_t)fk->unicode_type;
	__u32 state = 1u << c->str_compact_bit | kind << c->str_kind_shift |
		      (ascii ? 1u << c->str_ascii_bit : 0);
	__u8 *data = obj + (ascii ? c->str_ascii_data : c->str_compact_data);

	memcpy(obj + c->ob_type, &type, 8);
	memcpy(obj + c->str_length, &n, 8);
	memcpy(obj + c->str_state, &state, 4);
	for (__u64 i = 0; i < n && i < 64; i++)
		memcpy(data + i * kind, &cps[i], kind);
}

static void fake_ptr(__u8 *obj, __u16 off, const void *p)
{
	__u64 v = (__u64)(uintptr_t)p;

	memcpy(obj + off, &v, 8);
}

static void fake_setup(struct fake *fk)
{
	const struct py_code_layout *c;
	/* "/tmp/ü.py" (latin-1: kind 1, not ASCII), "Box.λ😀" (kind 4), "esc\x1b[2J" (ASCII) */
	static const __u32 file[] = {'/', 't', 'm', 'p', '/', 0xfc, '.', 'p', 'y'};
	static const __u32 qual[] = {'B', 'o', 'x', '.', 0x3bb, 0x1f600};
	static const __u32 qual2[] = {'e', 's', 'c', 0x1b, '[', '2', 'J'};
	/* Location table: units 0-7 at firstlineno (code 13, delta 0), units 8-15 two lines on
	 * (delta +2 as the signed varint 4). */
	static const __u8 table[] = {0x80 | 13 << 3 | 7, 0, 0x80 | 13 << 3 | 7, 4};
	__u64 units = 16, tlen = sizeof(table);
	int first = 40;

	memset(fk, 0, sizeof(*fk));
	fk->l = py_layouts__find(0x030b);
	cr_assert(fk->l);
	c = &fk->l->code;
	fake_str(fk, fk->file, 1, false, file, 9);
	fake_str(fk, fk->qual, 4, false, qual, 6);
	fake_str(fk, fk->qual2, 1, true, qual2, 7);
	fake_ptr(fk->table, c->ob_type, fk->code_type); /* any type: bytes are not checked */
	memcpy(fk->table + c->ob_size, &tlen, 8);
	memcpy(fk->table + c->bytes_sval, table, sizeof(table));
	fake_ptr(fk->code, c->ob_type, fk->code_type);
	memcpy(fk->code + c->ob_size, &units, 8);
	fake_ptr(fk->code, c->co_filename, fk->file);
	fake_ptr(fk->code, c->co_name, fk->qual);
	fake_ptr(fk->code, c->co_qualname, fk->qual);
	fake_ptr(fk->code, c->co_linetable, fk->table);
	memcpy(fk->code + c->co_firstlineno, &first, sizeof(first));
}

Test(python_unit, namer_kinds_cache_reuse_and_free)
{
	static struct fake fk;
	struct py_code_target t;
	struct py_code_cache *cache = py_code_cache__new();
	struct py_code_stats st;
	struct py_frame f = {0};
	char buf[256];
	__u64 base;

	fake_setup(&fk);
	t = (struct py_code_target){.pid = getpid(),
				    .l = fk.l,
				    .code_type = (__u64)(uintptr_t)fk.code_type,
				    .unicode_type = (__u64)(uintptr_t)fk.unicode_type};
	base = (__u64)(uintptr_t)fk.code + fk.l->code.co_code_adaptive;
	f.code = (__u64)(uintptr_t)fk.code;
	f.instr = base + 2 * 9; /* unit 9: the second range */
	cr_assert(py_code__name(cache, &t, &f, buf, sizeof(buf)));
	cr_expect_str_eq(buf, "py: Box.\u03bb\U0001F600 (/tmp/\u00fc.py:42)");
	f.instr = base + 2 * 3;
	cr_assert(py_code__name(cache, &t, &f, buf, sizeof(buf)));
	cr_expect_str_eq(buf, "py: Box.\u03bb\U0001F600 (/tmp/\u00fc.py:40)");
	f.instr = base - 2; /* 3.11's frame before its first instruction: the def line */
	cr_assert(py_code__name(cache, &t, &f, buf, sizeof(buf)));
	cr_expect_str_eq(buf, "py: Box.\u03bb\U0001F600 (/tmp/\u00fc.py:40)");
	f.instr = base + 2 * 16; /* past the code: no line, not a guess */
	cr_assert(py_code__name(cache, &t, &f, buf, sizeof(buf)));
	cr_expect_str_eq(buf, "py: Box.\u03bb\U0001F600 (/tmp/\u00fc.py:0)");
	py_code_cache__stats(cache, &st);
	cr_expect_eq(st.fills, 1);
	cr_expect_eq(st.hits, 3);

	/* Another code object of another length at the address, every pointer field alike:
	 * read afresh (unit 9 is past its 8 units), not named from the entry of 16. */
	{
		__u64 units = 8;

		memcpy(fk.code + fk.l->code.ob_size, &units, 8);
		f.instr = base + 2 * 9;
		cr_assert(py_code__name(cache, &t, &f, buf, sizeof(buf)));
		cr_expect_str_eq(buf, "py: Box.\u03bb\U0001F600 (/tmp/\u00fc.py:0)");
		units = 16;
		memcpy(fk.code + fk.l->code.ob_size, &units, 8);
		cr_assert(py_code__name(cache, &t, &f, buf, sizeof(buf)));
		py_code_cache__stats(cache, &st);
		cr_expect_eq(st.fills, 3);
	}

	/* The address reused by another code object: read afresh, control bytes escaped. */
	fake_ptr(fk.code, fk.l->code.co_qualname, fk.qual2);
	f.instr = base;
	cr_assert(py_code__name(cache, &t, &f, buf, sizeof(buf)));
	cr_expect_str_eq(buf, "py: esc\\x1b[2J (/tmp/\u00fc.py:40)");
	py_code_cache__stats(cache, &st);
	cr_expect_eq(st.fills, 4);

	/* A length the target made up: at most 1024 characters read, the name cut to buf. */
	{
		__u64 huge = 1ull << 40;

		memset(fk.qual + fk.l->code.str_compact_data, 'A', 4 * 1024);
		memcpy(fk.qual + fk.l->code.str_length, &huge, 8);
		fake_ptr(fk.code, fk.l->code.co_qualname, fk.qual);
		cr_assert(py_code__name(cache, &t, &f, buf, sizeof(buf)));
		cr_expect_eq(strlen(buf), sizeof(buf) - 1);
	}

	/* A code point beyond U+10FFFF (a kind-4 str holds any 32 bits) is U+FFFD, as valid
	 * UTF-8: not an overlong 4-byte form of it. */
	{
		static const __u32 beyond[] = {'x', 0x110000, 0xffffffffu};
		static _Alignas(8) __u8 obj[256];

		fake_str(&fk, obj, 4, false, beyond, 3);
		fake_ptr(fk.code, fk.l->code.co_qualname, obj);
		cr_assert(py_code__name(cache, &t, &f, buf, sizeof(buf)));
		cr_expect_str_eq(buf, "py: x\ufffd\ufffd (/tmp/\u00fc.py:40)");
		fake_ptr(fk.code, fk.l->code.co_qualname, fk.qual2);
	}

	/* A length not believed (ob_size 0): an instruction pointer 4 GiB past the code is out
	 * of it, not the instruction it reads as cut to 32 bits. */
	{
		__u64 units = 0;

		memcpy(fk.code + fk.l->code.ob_size, &units, 8);
		fake_ptr(fk.code, fk.l->code.co_qualname, fk.qual2);
		f.instr = base + (1ull << 32) + 2 * 9;
		cr_assert(py_code__name(cache, &t, &f, buf, sizeof(buf)));
		cr_expect_str_eq(buf, "py: esc\\x1b[2J (/tmp/\u00fc.py:0)");
		units = 16;
		memcpy(fk.code + fk.l->code.ob_size, &units, 8);
		fake_ptr(fk.code, fk.l->code.co_qualname, fk.qual);
		f.instr = base;
	}

	/* Freed: no longer a code object, so no name (and not the cached one). */
	fake_ptr(fk.code, fk.l->code.ob_type, fk.unicode_type);
	cr_expect(!py_code__name(cache, &t, &f, buf, sizeof(buf)));
	cr_expect_str_eq(buf, "");
	/* A str where the file should be is required to be a str. */
	fake_ptr(fk.code, fk.l->code.ob_type, fk.code_type);
	fake_ptr(fk.code, fk.l->code.co_filename, fk.table);
	cr_expect(!py_code__name(cache, &t, &f, buf, sizeof(buf)));
	py_code_cache__free(cache);
}

/*
 * 3.13 takes the str's field offsets from the target's _Py_DebugOffsets, bounded only by the
 * struct size the target claims: a state word placed past the compact head is read where it
 * is (within the head read), and one placed far away refuses the name rather than reading
 * past the copy of the head (ASan builds catch such an overrun).
 */
Test(python_unit, namer_str_fields_from_debug_offsets)
{
	static struct fake fk;
	static const __u32 file[] = {'/', 't', 'm', 'p', '/', 0xfc, '.', 'p', 'y'};
	static const __u32 qual[] = {'B', 'o', 'x', '.', 0x3bb, 0x1f600};
	struct py_version_layout moved;
	struct py_code_target t;
	struct py_code_cache *cache;
	struct py_frame f = {0};
	char buf[256];

	for (int far = 0; far < 2; far++) {
		fake_setup(&fk);
		moved = *fk.l;
		moved.code.str_state = far ? 4000 : 100;
		fk.l = &moved;
		fake_str(&fk, fk.file, 1, false, file, 9);
		fake_str(&fk, fk.qual, 4, false, qual, 6);
		t = (struct py_code_target){.pid = getpid(),
					    .l = &moved,
					    .code_type = (__u64)(uintptr_t)fk.code_type,
					    .unicode_type = (__u64)(uintptr_t)fk.unicode_type};
		f.code = (__u64)(uintptr_t)fk.code;
		f.instr = (__u64)(uintptr_t)fk.code + moved.code.co_code_adaptive + 2 * 9;
		cache = py_code_cache__new();
		if (far) {
			cr_expect(!py_code__name(cache, &t, &f, buf, sizeof(buf)));
		} else {
			cr_expect(py_code__name(cache, &t, &f, buf, sizeof(buf)));
			cr_expect_str_eq(buf, "py: Box.\u03bb\U0001F600 (/tmp/\u00fc.py:42)");
		}
		py_code_cache__free(cache);
	}
}

/*
 * py_stack's walk over a thread state in this process's own memory whose frames form a cycle
 * (a target can link them so): the walk stops at its step bound and says the stack was cut,
 * whether the cycle is of C-stack shims (nothing recorded) or of frames (more asked for than
 * the steps give).
 */
Test(python_unit, stack_walk_cycle_is_cut)
{
	static __u64 runtime[1], interp[1], tstate[4], f1[4], f2[4];
	const struct py_layout l = {.runtime_addr = (__u64)(uintptr_t)runtime,
				    .runtime_interp_head = 0,
				    .interp_tstate_head = 0,
				    .tstate_next = 0,
				    .tstate_thread_id = 8,
				    .tstate_cframe = PY_LAYOUT_NONE,
				    .tstate_frame = 16,
				    .frame_back = 0,
				    .frame_code = 8,
				    .frame_instr = 16,
				    .frame_owner = 24,
				    .frame_is_entry = PY_LAYOUT_NONE,
				    .instr_kind = PY_INSTR_CUR_PTR,
				    .owner_cstack = 3,
				    .version = 0x030d};
	struct py_frame frames[4 * PY_FRAMES_MAX];
	bool cut;

	runtime[0] = (__u64)(uintptr_t)interp;
	interp[0] = (__u64)(uintptr_t)tstate;
	tstate[0] = 0;	/* no next thread state */
	tstate[1] = 42; /* pthread_t */
	tstate[2] = (__u64)(uintptr_t)f1;
	f1[0] = (__u64)(uintptr_t)f2;
	f2[0] = (__u64)(uintptr_t)f1;
	f1[1] = f2[1] = 0x1000; /* code */
	for (int shims = 1; shims >= 0; shims--) {
		f1[3] = f2[3] = shims ? 3 : 0; /* owner */
		cut = false;
		cr_expect_eq(py_stack__walk(getpid(), &l, 42, frames, 4 * PY_FRAMES_MAX, &cut),
			     shims ? 0 : 2 * PY_FRAMES_MAX);
		cr_expect(cut, "a cycle of %s read as a whole stack", shims ? "shims" : "frames");
	}
}

/* Where the Python frames are spliced in: the evaluation loop and only it. */
Test(python_unit, eval_loop_names)
{
	cr_expect(py_is_eval_loop("_PyEval_EvalFrameDefault"));
	cr_expect(py_is_eval_loop("_PyEval_EvalFrameDefault.cold"));
	cr_expect(py_is_eval_loop("_TAIL_CALL_LOAD_FAST"));
	cr_expect(!py_is_eval_loop("PyEval_EvalFrameEx"));
	cr_expect(!py_is_eval_loop("PyEval_EvalCode"));
	cr_expect(!py_is_eval_loop("_PyEval_EvalFrameDefaultX"));
	cr_expect(!py_is_eval_loop("_PyEval_EvalFrameDefault.part.0"));
	cr_expect(!py_is_eval_loop(""));
	cr_expect(!py_is_eval_loop(NULL));
}

/* Which file names say "CPython X.Y" (detection's first question). */
Test(python_unit, interpreter_file_names)
{
	static const struct {
		const char *path;
		unsigned int version;
	} cases[] = {
	    {"/usr/bin/python3.11", 0x030b},
	    {"/root/.pyenv/versions/3.8.18/lib/libpython3.8.so.1.0", 0x0308},
	    {"libpython3.7m.so.1.0", 0x0307},
	    {"libpython3.13d.so", 0x030d},
	    {"python2.7", 0x0207},
	    {"/usr/bin/python3", 0}, /* no minor: /proc/PID/exe names the target */
	    {"libpython3.so", 0},    /* the stable-ABI stub, no interpreter */
	    {"python3.11-config", 0},
	    {"libpython3.11.a", 0},
	    {"pythonista", 0},
	    {"/opt/python3.11/bin/uwsgi", 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(py_detect__name_version(cases[i].path), cases[i].version, "%s: %#x",
			     cases[i].path, py_detect__name_version(cases[i].path));
}

/*
 * Python frames without a target (issue #32): the splice of a program point's Python frames
 * into its native ones (py_stacks__splice), --python-only's fold of a profile
 * (python_only__fold), and what CPython's allocator domains ask for (alloc_request.h).
 */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "alloc_request.h"
#include "dhat_reader.h"
#include "py_inline.h"
#include "py_stacks.h"
#include "python_only.h"
#include "strvec.h"

#define EVAL "0x10: _PyEval_EvalFrameDefault (ceval.c:100)"

/* Splice py (flags, n of them) into native[nn] from frame 1: the result must be want[nw],
 * the return ret (1: the counts matched). */
static void check_splice(const char *const *native, size_t nn, const char *const *py,
			 const __u32 *flags, size_t n, int ret, const char *const *want, size_t nw)
{
	struct strvec v = {0};

	for (size_t i = 0; i < nn; i++)
		cr_assert_eq(strvec__push(&v, native[i]), 0);
	cr_expect_eq(py_stacks__splice(&v, 1, py, flags, n), ret);
	cr_assert_eq(v.cnt, nw, "%zu frames, want %zu", v.cnt, nw);
	for (size_t i = 0; i < nw; i++)
		cr_expect_str_eq(v.items[i], want[i], "frame %zu", i);
	strvec__release(&v);
}

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Two evaluation loops, two entry groups: each group where its loop was, innermost first. */
Test(py_stacks, splice_one_group_per_loop)
{
	static const char *const native[] = {
	    "0x1: PyObject_Malloc (in python)",
	    "0x2: new_dict (dictobject.c:1)",
	    EVAL,
	    "0x3: PyObject_Call (call.c:5)",
	    EVAL,
	    "0x5: main (python.c:1)",
	};
	static const char *const py[] = {"py: f (a.py:1)", "py: g (a.py:2)", "py: h (a.py:3)"};
	static const __u32 flags[] = {0, PY_FRAME_F_ENTRY, PY_FRAME_F_ENTRY};
	static const char *const want[] = {
	    "0x1: PyObject_Malloc (in python)",
	    "0x2: new_dict (dictobject.c:1)",
	    "py: f (a.py:1)",
	    "py: g (a.py:2)",
	    "0x3: PyObject_Call (call.c:5)",
	    "py: h (a.py:3)",
	    "0x5: main (python.c:1)",
	};

	check_splice(native, LEN(native), py, flags, LEN(py), 1, want, LEN(want));
}

/* Counts that differ (a native stack cut before the outer loop): every Python frame at the
 * innermost loop, the others left, and said (0). A stripped interpreter's frame ("in"). */
Test(py_stacks, splice_mismatch_goes_innermost)
{
	static const char *const native[] = {
	    "0x1: PyObject_Malloc (in python)",
	    "0x9: _PyEval_EvalFrameDefault (in /usr/bin/python3.11)",
	    "0x3: PyObject_Call (call.c:5)",
	};
	static const char *const py[] = {"py: f (a.py:1)", "py: g (a.py:2)"};
	static const __u32 flags[] = {PY_FRAME_F_ENTRY, PY_FRAME_F_ENTRY};
	static const char *const want[] = {"0x1: PyObject_Malloc (in python)", "py: f (a.py:1)",
					   "py: g (a.py:2)", "0x3: PyObject_Call (call.c:5)"};

	check_splice(native, LEN(native), py, flags, LEN(py), 0, want, LEN(want));
}

/* No loop frame at all: the Python frames go last; none: nothing changes. */
Test(py_stacks, splice_without_loop_frames)
{
	static const char *const native[] = {"0x1: malloc (in libc)", "0x2: f (x.c:1)"};
	static const char *const py[] = {"py: f (a.py:1)"};
	static const __u32 flags[] = {PY_FRAME_F_ENTRY};
	static const char *const want[] = {"0x1: malloc (in libc)", "0x2: f (x.c:1)",
					   "py: f (a.py:1)"};

	check_splice(native, LEN(native), py, flags, 0, 1, native, LEN(native));
	check_splice(native, LEN(native), py, flags, 1, 0, want, LEN(want));
}

/* A cut walk's last group has no entry mark: it still takes a loop frame. */
Test(py_stacks, splice_cut_walk)
{
	static const char *const native[] = {"0x1: malloc (in libc)", EVAL, EVAL};
	static const char *const py[] = {"py: f (a.py:1)", "py: g (a.py:2)"};
	static const __u32 flags[] = {PY_FRAME_F_ENTRY, 0};
	static const char *const want[] = {"0x1: malloc (in libc)", "py: f (a.py:1)",
					   "py: g (a.py:2)"};

	check_splice(native, LEN(native), py, flags, LEN(py), 1, want, LEN(want));
}

#define HDR                                                                                        \
	"{\"dhatFileVersion\":2,\"mode\":\"ebpf-heap\",\"verb\":\"Allocated\",\"bklt\":true,"      \
	"\"bkacc\":false,\"tu\":\"µs\",\"Mtu\":\"s\",\"tuth\":500,\"cmd\":\"python3 a.py\","      \
	"\"pid\":1,\"te\":100,\"tg\":50,"

/* Two points of one Python line (a dict and its keys, through other C functions) become
 * one; a native-only point stays; the figures add up. */
Test(py_stacks, python_only_folds_and_merges)
{
	static const char text[] =
	    HDR "\"pps\":["
		"{\"tb\":64,\"tbk\":1,\"tl\":5,\"mb\":64,\"mbk\":1,\"gb\":64,\"gbk\":1,\"eb\":64,"
		"\"ebk\":1,\"fs\":[1,2,5,6]},"
		"{\"tb\":200,\"tbk\":2,\"tl\":7,\"mb\":100,\"mbk\":1,\"gb\":0,\"gbk\":0,\"eb\":100,"
		"\"ebk\":1,\"fs\":[1,3,5,6]},"
		"{\"tb\":10,\"tbk\":1,\"tl\":1,\"mb\":10,\"mbk\":1,\"gb\":10,\"gbk\":1,\"eb\":0,"
		"\"ebk\":0,\"fs\":[4,7]}],"
		"\"ftbl\":[\"[root]\",\"0x1: PyObject_Malloc (in python)\","
		"\"0x2: new_dict (dictobject.c:1)\",\"0x3: new_keys_object (dictobject.c:2)\","
		"\"0x4: malloc (in libc)\",\"py: f (a.py:3)\",\"py: <module> (a.py:9)\","
		"\"0x5: main (python.c:1)\"]}";
	char err[256];
	struct dhat_profile *p =
	    dhat_profile__parse(text, strlen(text), "t.json", err, sizeof(err));

	cr_assert_not_null(p, "%s", err);
	cr_expect_eq(python_only__fold(p), 2);
	cr_expect_eq(p->pps[0].fs_cnt, 2);
	cr_expect_str_eq(dhat_profile__pp_frame(p, &p->pps[0], 0), "py: f (a.py:3)");
	cr_expect_str_eq(dhat_profile__pp_frame(p, &p->pps[0], 1), "py: <module> (a.py:9)");
	cr_expect_eq(p->pps[0].tb, 264);
	cr_expect_eq(p->pps[0].tbk, 3);
	cr_expect_eq(p->pps[0].eb, 164);
	cr_expect_eq(p->pps[0].ebk, 2);
	cr_expect_eq(p->pps[0].tl, 12);
	cr_expect_eq(p->pps[0].mb, 164); /* at least the merged end */
	cr_expect_eq(p->pps[1].tb, 0);
	cr_expect_eq(p->pps[1].fs_cnt, 0);
	cr_expect_eq(p->pps[2].fs_cnt, 2); /* native only: as it was */
	cr_expect_str_eq(dhat_profile__pp_frame(p, &p->pps[2], 0), "0x4: malloc (in libc)");
	dhat_profile__free(p);
}

/* PyObject/PyMem requests: sizes like malloc/calloc/realloc, realloc(p, 0) keeps a 1-byte
 * block (CPython's rule, not glibc's free), frees ask for nothing. */
Test(py_stacks, domain_requests)
{
	__u64 old, size;

	cr_expect(fn_request(FN_PY_OBJ_MALLOC, 40, 0, 0, &old, &size));
	cr_expect(old == 0 && size == 40);
	cr_expect(fn_request(FN_PY_MEM_CALLOC, 3, 16, 0, &old, &size));
	cr_expect(old == 0 && size == 48);
	cr_expect(fn_request(FN_PY_OBJ_REALLOC, 0x1000, 100, 0, &old, &size));
	cr_expect(old == 0x1000 && size == 100);
	cr_expect(fn_request(FN_PY_MEM_REALLOC, 0x1000, 0, 0, &old, &size));
	cr_expect(old == 0x1000 && size == 1);
	cr_expect_not(fn_request(FN_PY_OBJ_FREE, 0x1000, 0, 0, &old, &size));
	cr_expect(FN_IS_FREE_AT_RETURN(FN_PY_MEM_FREE) && FN_IS_FREE_AT_RETURN(FN_PY_OBJ_FREE));
	cr_expect_str_eq(alloc_fn_name(FN_PY_OBJ_MALLOC), "PyObject_Malloc");
	cr_expect_str_eq(alloc_fn_name(FN_PY_MEM_FREE), "PyMem_Free");
}

/* pymalloc copied into its callers (py_inline.h): the three cmp forms with their immediate,
 * counted only for the address PyObject_Malloc tests. */
Test(py_stacks, inline_cmp_forms)
{
	static const unsigned char code[] = {
	    0x53,				      /* push %rbx */
	    0x48, 0x3d, 0x50, 0xb4, 0x4f, 0x00,	      /* cmp $0x4fb450,%rax */
	    0x48, 0x81, 0xfa, 0x50, 0xb4, 0x4f, 0x00, /* cmp $0x4fb450,%rdx */
	    0x48, 0x81, 0x3d, 1,    2,	  3,	4,    0x50, 0xb4, 0x4f, 0x00, /* cmpq $..,d(%rip) */
	    0x48, 0x3d, 0x00, 0x00, 0x50, 0x00, /* cmp $0x500000,%rax: another */
	    0xb8, 0x50, 0xb4, 0x4f, 0x00,	/* mov $0x4fb450,%eax: no test */
	};

	cr_expect_eq(py_inline__cmp_imm(code, sizeof(code)), 0x4fb450);
	cr_expect_eq(py_inline__count(code, sizeof(code), 0x4fb450), 3);
	cr_expect_eq(py_inline__count(code, sizeof(code), 0x500000), 1);
	cr_expect_eq(py_inline__cmp_imm(code, 1), 0);
	/* cut short: a form that would run past the end is not one */
	cr_expect_eq(py_inline__count(code, 6, 0x4fb450), 0);
}

/* Debian's LTO python3.11 inlines pymalloc at ~190 sites; pyenv's shared build at none. */
Test(py_stacks, inline_sites_of_real_interpreters)
{
	const char *pyenv = "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0";

	if (access("/usr/bin/python3.11", R_OK))
		cr_skip_test("no /usr/bin/python3.11");
	cr_expect_geq(py_inline__sites("/usr/bin/python3.11"), PY_INLINE_MIN_SITES);
	if (!access(pyenv, R_OK))
		cr_expect_eq(py_inline__sites(pyenv), 0);
	cr_expect_lt(py_inline__sites("/nonexistent/python"), 0);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* alloc_symbols on this process's own libc and on files that are not an allocator. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "alloc_symbols.h"

static struct alloc_symbols syms;

/* Our libc: found in our maps, the four required functions defined, each name owned by
 * itself or by an earlier name at the very same offset. */
Test(alloc_symbols, own_libc)
{
	cr_assert_eq(alloc_symbols__for_process(getpid(), NULL, &syms), 0);
	cr_expect(strstr(syms.path, "libc"), "%s", syms.path);
	cr_expect_neq(syms.off[FN_MALLOC], 0);
	cr_expect_neq(syms.off[FN_FREE], 0);
	cr_expect_neq(syms.off[FN_MALLOC], syms.off[FN_FREE]);
	for (__u32 fn = 0; fn < FN_COUNT; fn++) {
		cr_expect_leq(syms.owner[fn], fn, "%s", alloc_fn_name(fn));
		if (syms.owner[fn] != fn)
			cr_expect_eq(syms.off[syms.owner[fn]], syms.off[fn], "%s",
				     alloc_fn_name(fn));
	}
}

/* --lib PATH: the same answer for the same file. */
Test(alloc_symbols, given_library)
{
	struct alloc_symbols again;

	cr_assert_eq(alloc_symbols__for_process(getpid(), NULL, &syms), 0);
	cr_assert_eq(alloc_symbols__for_process(getpid(), syms.path, &again), 0);
	cr_expect_arr_eq(again.off, syms.off, sizeof(syms.off));
	cr_expect_arr_eq(again.owner, syms.owner, sizeof(syms.owner));
}

Test(alloc_symbols, not_an_allocator)
{
	cr_expect_eq(alloc_symbols__for_process(getpid(), "/nonexistent/libc.so.6", &syms),
		     -ENOENT);
	cr_expect_eq(alloc_symbols__for_binary(TESTS_SRC_DIR "/alloc_symbols_test.c", &syms),
		     -ENOEXEC);
	/* Not /proc/self/exe: under TRACER_SANITIZE the test itself defines malloc. */
	cr_expect_eq(alloc_symbols__for_binary("/bin/true", &syms), -ENOENT);
}

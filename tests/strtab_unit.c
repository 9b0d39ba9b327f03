// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* strtab.c: one index and one pointer per distinct string, in first-seen order. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "strtab.h"

Test(strtab, first_seen_order_and_stable_pointers)
{
	struct strtab *t = strtab__new();
	const char *first;

	cr_assert(t);
	cr_expect_eq(strtab__intern_str(t, "[root]"), 0);
	cr_expect_eq(strtab__intern_str(t, "main"), 1);
	cr_expect_eq(strtab__intern_str(t, "[root]"), 0, "a repeat gets its first index");
	cr_expect_eq(strtab__intern_str(t, ""), 2, "the empty string is a string");
	cr_expect_eq(strtab__intern_str(t, ""), 2);
	cr_expect_eq(t->cnt, 3);
	first = t->strs[1];
	/* Enough strings to grow the slot table and the string array several times. */
	for (int i = 0; i < 5000; i++) {
		char s[32];

		snprintf(s, sizeof(s), "fn_%d", i);
		cr_assert_eq(strtab__intern_str(t, s), 3 + i);
	}
	for (int i = 0; i < 5000; i += 97) {
		char s[32];

		snprintf(s, sizeof(s), "fn_%d", i);
		cr_expect_eq(strtab__intern_str(t, s), 3 + i, "found again after growing");
		cr_expect_str_eq(t->strs[3 + i], s);
	}
	cr_expect_eq(t->strs[1], first, "pointers survive growth");
	cr_expect_eq(t->strs[strtab__intern_str(t, "main")], first, "equal strings, one pointer");
	cr_expect_eq(t->cnt, 5003);
	strtab__free(t);
}

Test(strtab, length_bounded_keys)
{
	struct strtab *t = strtab__new();
	const char *text = "alpha;beta;alphabet";

	cr_assert(t);
	cr_expect_eq(strtab__intern(t, text, 5), 0);	     /* "alpha" */
	cr_expect_eq(strtab__intern(t, text + 6, 4), 1);     /* "beta" */
	cr_expect_eq(strtab__intern(t, text + 11, 5), 0);    /* "alpha" of "alphabet" */
	cr_expect_eq(strtab__intern(t, text + 11, 8), 2);    /* "alphabet": a longer key */
	cr_expect_eq(strtab__intern(t, text, 4), 3, "a prefix is another string");
	cr_expect_str_eq(t->strs[0], "alpha", "copies are NUL-terminated");
	cr_expect_str_eq(t->strs[3], "alph");
	strtab__free(t);
	strtab__free(NULL);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Shared library of the symbolizer fixture: a function and a return address inside it. */
#include "fixture_lib.h"

void *symfix_lib_ra;

/* Records its own return address: a point inside symfix_lib_func, after the call. */
static __attribute__((noinline)) void lib_leaf(void)
{
	symfix_lib_ra = __builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

int symfix_lib_func(int x)
{
	lib_leaf();
	return x + 1;
}

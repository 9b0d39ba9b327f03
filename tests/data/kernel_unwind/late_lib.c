// SPDX-License-Identifier: MIT
/*
 * late_lib - the library late.c dlopens (kernel_unwind_e2e): blocks two calls deep in it
 * (its own CFI rows, at addresses no process had when the trace began), and through the
 * caller's callback below its frames. Built -O2 without frame pointers.
 */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

typedef void *(*late_cb)(size_t n);

static void *volatile sink;
static volatile int spill;

NOINLINE void *late_lib_inner(int i, late_cb cb)
{
	volatile char pad[160];
	void *p, *q;

	pad[i % 160] = (char)i;
	p = malloc((size_t)(i % 90) + 40 + (size_t)(pad[i % 160] & 1));
	q = cb((size_t)(i % 30) + 8);
	sink = q;
	free(q);
	return p;
}

NOINLINE void late_lib_outer(int i, late_cb cb)
{
	void *p = late_lib_inner(i, cb);

	spill += i;
	free(p);
}

void late_lib_work(int i, late_cb cb)
{
	late_lib_outer(i, cb);
	spill ^= i;
}

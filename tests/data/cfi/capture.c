// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Stacks captured in-process for cfi_table_unit, the way the BPF snapshot takes them:
 * the registers {rip, rsp, rbp} of a point in a function and a copy of the stack from rsp.
 * Built -O2 -fomit-frame-pointer (tests/cfi_table.cmake), so most frames here have no frame
 * pointer and only CFI can step them; cap_vla keeps one (a variable-length array makes the
 * compiler use rbp as its CFA base), so CFA = rbp + n rows are stepped too.
 */
#include <pthread.h>
#include <stdlib.h>

#include "capture.h"

/* rip = the return address into the caller, rsp = the caller's rsp after the return, rbp:
 * the caller's frame exactly at the instruction after its call. */
void cap_regs(uint64_t out[3]);
__asm__(".text\n"
	".globl cap_regs\n"
	".type cap_regs, @function\n"
	"cap_regs:\n"
	".cfi_startproc\n"
	"\tmovq (%rsp), %rax\n"
	"\tmovq %rax, 0(%rdi)\n"
	"\tleaq 8(%rsp), %rax\n"
	"\tmovq %rax, 8(%rdi)\n"
	"\tmovq %rbp, 16(%rdi)\n"
	"\tret\n"
	".cfi_endproc\n"
	".size cap_regs, .-cap_regs\n");

volatile int cap_sink;

/* Copy the stack from regs' rsp up to its end (at most CAP_STACK_MAX bytes). */
static __attribute__((noinline)) void cap_copy(struct cap *c, const uint64_t regs[3])
{
	pthread_attr_t a;
	void *lo;
	size_t sz;
	uint64_t top = regs[1] + CAP_STACK_MAX;

	if (!pthread_getattr_np(pthread_self(), &a)) {
		if (!pthread_attr_getstack(&a, &lo, &sz) && (uint64_t)lo + sz < top)
			top = (uint64_t)lo + sz;
		pthread_attr_destroy(&a);
	}
	c->rip = regs[0];
	c->rsp = regs[1];
	c->rbp = regs[2];
	c->len = top > regs[1] ? (size_t)(top - regs[1]) & ~(size_t)7 : 0;
	/* Word by word through a volatile pointer, never memcpy: under ASan the interceptor
	 * would call the other frames' redzones an overflow (this file is not instrumented). */
	for (size_t i = 0; i < c->len / 8; i++)
		((uint64_t *)c->stack)[i] = ((const volatile uint64_t *)regs[1])[i];
}

static __attribute__((noinline)) void cap_here(struct cap *c)
{
	uint64_t regs[3];
	volatile char buf[40];

	buf[cap_sink & 31] = 1;
	cap_regs(regs);
	cap_copy(c, regs);
	cap_sink += buf[3];
}

/* A frame with rbp as its CFA base (a VLA: rsp moves by a runtime amount). */
static __attribute__((noinline)) void cap_vla(struct cap *c, int n)
{
	volatile char v[n];
	uint64_t regs[3];

	v[0] = (char)n;
	cap_regs(regs);
	cap_copy(c, regs);
	cap_sink += v[0];
}

static __attribute__((noinline)) int cap_c(struct cap *c, int x)
{
	volatile long pad[7];

	pad[x % 7] = x;
	if (x & 1)
		cap_vla(c, 16 + x);
	else
		cap_here(c);
	return (int)pad[(x + 2) % 7] + cap_sink;
}

static __attribute__((noinline)) int cap_b(struct cap *c, int x)
{
	int r = cap_c(c, x + 1);

	return r * 3 + x;
}

/* Recursion: depth frames of the same function. */
static __attribute__((noinline)) int cap_rec(struct cap *c, int depth, int x)
{
	volatile int keep = depth; /* read after the call: no accumulator loop */

	if (!depth)
		return cap_b(c, x);
	return cap_rec(c, depth - 1, x + depth) + keep;
}

int cap_chain(struct cap *c, int depth, int x)
{
	return cap_rec(c, depth, x) + cap_sink;
}

static struct cap *cmp_cap;

/* A comparator: its callers are libc's qsort internals (no frame pointers). */
static int cap_cmp(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;

	if (cmp_cap) {
		cap_here(cmp_cap);
		cmp_cap = NULL;
	}
	return (a > b) - (a < b);
}

int cap_qsort(struct cap *c)
{
	int v[32];

	for (int i = 0; i < 32; i++)
		v[i] = (i * 13) % 32;
	cmp_cap = c;
	qsort(v, 32, sizeof(v[0]), cap_cmp);
	return v[0] + cap_sink;
}

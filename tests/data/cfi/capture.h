/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* In-process stack captures for cfi_table_unit (capture.c). */
#ifndef CFI_CAPTURE_H
#define CFI_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#define CAP_STACK_MAX (64 * 1024)

/* What a probe captures: registers at one point and a copy of [rsp, rsp + len). */
struct cap {
	uint64_t rip, rsp, rbp;
	size_t len;
	unsigned char stack[CAP_STACK_MAX];
};

/* Capture at the bottom of cap_rec^depth -> cap_b -> cap_c -> cap_here or (x odd, after
 * the +1 of cap_b) cap_vla. */
int cap_chain(struct cap *c, int depth, int x);

/* Capture inside a qsort comparator called by libc. */
int cap_qsort(struct cap *c);

#endif

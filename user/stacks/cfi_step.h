/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * cfi_step - one unwind step over a cfi_table, exactly as the BPF unwinder does it (issue
 * #33): the reference the BPF side is tested against, and what the tests compare with
 * libdw. The caller finds the module (its table and load bias) for the PC.
 *
 * A step, for registers {rip, rsp, rbp} of a frame:
 *	row  = cfi_table__find(t, rip - bias - (is_return ? 1 : 0))
 *	       (a caller's rip is a return address: the call may be the function's last
 *	       instruction, so the row is looked up at the byte before it)
 *	CFA  = rsp + cfa_off, rbp + cfa_off, or the PLT rule
 *	       rsp + cfa_off + ((rip & 15) >= plt_ge ? 8 : 0)
 *	rip' = *(CFA - 8); rsp' = CFA; rbp' = rbp (SAME) or *(CFA + rbp_off) (CFA_OFF)
 * It stops on a UNWIND_CFA_NONE row or no row (CFI_STEP_NO_ROW), UNWIND_CFA_END
 * (CFI_STEP_END), UNWIND_CFA_UNSUPPORTED (CFI_STEP_UNSUPPORTED), a failed read of the
 * return address (CFI_STEP_FAULT) or a return address of 0 (CFI_STEP_END: the outermost
 * frame of code without an END row).
 * rbp, like libdw's registers, may become unknown without ending the walk: an
 * UNWIND_RBP_UNSUPPORTED row, or a saved rbp that cannot be read. It stays unknown through
 * UNWIND_RBP_SAME rows, and a later UNWIND_CFA_RBP row then stops the walk
 * (CFI_STEP_UNSUPPORTED). kernel-unwind's bpf/unwind.bpf.h (ku_step) does the same.
 */
#ifndef TRACER_CFI_STEP_H
#define TRACER_CFI_STEP_H

#include <stdbool.h>
#include <stdint.h>

#include "cfi_table.h"

struct cfi_regs {
	uint64_t rip, rsp, rbp;
	bool rbp_unknown; /* rbp holds no value (see above); false at the probe */
};

/* Read the 8-byte word at addr into *val: false when it cannot be read. */
typedef bool (*cfi_read_fn)(void *ctx, uint64_t addr, uint64_t *val);

enum cfi_step_result {
	CFI_STEP_OK = 0,     /* *r is the caller's frame */
	CFI_STEP_END,	     /* the outermost frame: no caller */
	CFI_STEP_NO_ROW,     /* no CFI covers rip (a gap, before the first FDE) */
	CFI_STEP_UNSUPPORTED, /* a rule BPF does not follow */
	CFI_STEP_FAULT,	     /* a read of the stack failed */
};

/* One step from frame *r (module table t, loaded with bias); is_return: r->rip is a
 * return address (every frame but the first). *r changes only on OK. */
enum cfi_step_result cfi_step(const struct cfi_table *t, uint64_t bias, bool is_return,
			      struct cfi_regs *r, cfi_read_fn read, void *ctx);

/* A name for a result ("ok", "end", ...). */
const char *cfi_step__name(enum cfi_step_result res);

#endif

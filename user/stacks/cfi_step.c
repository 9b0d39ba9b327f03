// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* cfi_step - the reference unwind step over a cfi_table (see cfi_step.h). */
#include "cfi_step.h"

enum cfi_step_result cfi_step(const struct cfi_table *t, uint64_t bias, bool is_return,
			      struct cfi_regs *r, cfi_read_fn read, void *ctx)
{
	uint64_t pc = r->rip - bias - (is_return ? 1 : 0), cfa, ra, rbp = r->rbp;
	bool rbp_unknown = r->rbp_unknown;
	const struct unwind_row *row = cfi_table__find(t, pc);

	if (!row || row->cfa_rule == UNWIND_CFA_NONE)
		return CFI_STEP_NO_ROW;
	switch (row->cfa_rule) {
	case UNWIND_CFA_RSP: cfa = r->rsp + (uint64_t)(int64_t)row->cfa_off; break;
	case UNWIND_CFA_RBP:
		if (r->rbp_unknown)
			return CFI_STEP_UNSUPPORTED;
		cfa = r->rbp + (uint64_t)(int64_t)row->cfa_off;
		break;
	case UNWIND_CFA_PLT:
		/* The runtime rip: the bias is page-aligned, so its low 4 bits are the file's. */
		cfa = r->rsp + (uint64_t)(int64_t)row->cfa_off + ((r->rip & 15) >= row->plt_ge ? 8 : 0);
		break;
	case UNWIND_CFA_END: return CFI_STEP_END;
	default: return CFI_STEP_UNSUPPORTED;
	}
	if (!read(ctx, cfa - 8, &ra))
		return CFI_STEP_FAULT;
	/* A saved rbp that cannot be read is unknown, not an end: libdw goes on too. */
	if (row->rbp_rule == UNWIND_RBP_CFA_OFF)
		rbp_unknown = !read(ctx, cfa + (uint64_t)(int64_t)row->rbp_off, &rbp);
	else if (row->rbp_rule != UNWIND_RBP_SAME)
		rbp_unknown = true;
	if (!ra)
		return CFI_STEP_END;
	r->rip = ra;
	r->rsp = cfa;
	r->rbp = rbp;
	r->rbp_unknown = rbp_unknown;
	return CFI_STEP_OK;
}

const char *cfi_step__name(enum cfi_step_result res)
{
	static const char *const names[] = {"ok", "end", "no row", "unsupported", "fault"};

	return (unsigned)res < sizeof(names) / sizeof(names[0]) ? names[res] : "?";
}

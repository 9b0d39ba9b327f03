/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * cfi_compile - the bytes of one .eh_frame or .debug_frame section -> struct unwind_row
 * (bpf/unwind_abi.h), sorted by pc. No libelf: the caller hands the section's bytes and
 * address, so the fuzz target (tests/fuzz/fuzz_cfi_compile.c) drives exactly this code.
 *
 * The section is untrusted: every read is bounded by the section and by its entry, every
 * loop advances, an entry that does not parse becomes UNWIND_CFA_UNSUPPORTED rows (or is
 * skipped when even its range cannot be read), and everything of that kind is counted in
 * struct cfi_compile_stats.
 *
 * The rules (x86_64 DWARF registers: 6 rbp, 7 rsp, 16 return address):
 *	CFA = rsp + n, rbp + n          -> UNWIND_CFA_RSP / UNWIND_CFA_RBP
 *	the .plt expression             -> UNWIND_CFA_PLT (plt_ge = its literal: 11, or 9 in
 *	                                   an IBT .plt)
 *	return address undefined        -> UNWIND_CFA_END
 *	return address not at CFA - 8, any other CFA register or expression, an 'S'
 *	(signal frame) CIE              -> UNWIND_CFA_UNSUPPORTED
 *	rbp unchanged / at CFA + n      -> UNWIND_RBP_SAME / UNWIND_RBP_CFA_OFF
 *	any other rbp rule              -> UNWIND_RBP_UNSUPPORTED
 * Registers start as libdw's x86_64 ABI has them (CFA = rsp + 8, return address at CFA - 8,
 * rbp same value) before the CIE's initial instructions.
 */
#ifndef TRACER_CFI_COMPILE_H
#define TRACER_CFI_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind_abi.h"

/* What compiling one section met. fde_cnt = fde_ok_cnt + fde_empty_cnt + fde_bad_cnt +
 * fde_bad_insn_cnt + fde_far_cnt: every FDE found is in exactly one of those; overlaps and
 * signal frames are counted besides. */
struct cfi_compile_stats {
	uint32_t cie_cnt;	    /* CIEs seen */
	uint32_t fde_cnt;	    /* FDEs seen (zero-length ones included) */
	uint32_t fde_ok_cnt;	    /* FDEs whose instructions were all understood */
	uint32_t fde_empty_cnt;	    /* FDEs covering no byte (pc range 0): nothing to emit */
	uint32_t fde_bad_cnt;	    /* unreadable FDE (its range or CIE): skipped */
	uint32_t fde_bad_insn_cnt;  /* an instruction not understood or cut short: the rest of
				     * the FDE is UNWIND_CFA_UNSUPPORTED */
	uint32_t fde_far_cnt;	    /* FDE beyond the 32-bit pc of a row: skipped */
	uint32_t fde_overlap_cnt;   /* FDE starting inside the previous one: it wins from its
				     * start, as libdw's sorted search table has it */
	uint32_t unsupported_cnt;   /* UNSUPPORTED rows emitted (CFA or RBP), merged rows once */
	uint32_t too_far_off_cnt;   /* of those: an offset that does not fit the row's 16 bits */
	uint32_t signal_frame_cnt;  /* FDEs of an 'S' CIE (signal trampolines) */
	size_t cut_bytes;	    /* bytes not read after an entry whose length runs past the
				     * section (its FDEs are in no count above) */
};

/* A growing array of rows; free rows with free(). */
struct cfi_rows {
	struct unwind_row *rows;
	size_t n, cap;
};

/*
 * Compile the section sec[0..len), loaded at ELF virtual address sec_addr; is_eh: the
 * .eh_frame format (else .debug_frame). Appends to *out (empty on entry) the rows sorted by
 * pc, a UNWIND_CFA_NONE row after every FDE that the next one does not follow at once, and
 * adds to *st. Returns 0, -ENOMEM, or -ENOENT when the section holds no FDE of any use.
 */
int cfi_compile(const uint8_t *sec, size_t len, uint64_t sec_addr, bool is_eh,
		struct cfi_rows *out, struct cfi_compile_stats *st);

#endif

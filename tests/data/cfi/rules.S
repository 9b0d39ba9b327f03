/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CFI rule fixtures for cfi_table_unit (tests/cfi_table.cmake builds this into
 * libcfirules.so): one function per rule the table compiler maps, its CFI written with the
 * assembler's .cfi directives, so the test checks rows against what `readelf
 * --debug-dump=frames` of the library shows, not against the compiler's own choices.
 * Each function is 64-byte aligned and padded, so offsets inside it are known: a label
 * marks each point the test looks at.
 * Built twice: libcfirules.so (.eh_frame) and, with -DDEBUG_FRAME, libcfirules_df.so, whose
 * CFI is in .debug_frame only (the file with no .eh_frame).
 */
#ifdef DEBUG_FRAME
	.cfi_sections .debug_frame
#endif
	.text

/* rsp-based: push rbp (CFA rsp+16, rbp at CFA-16), pop, ret. */
	.p2align 6
	.globl r_push
	.type r_push, @function
r_push:
	.cfi_startproc
	pushq %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	.globl r_push_body
r_push_body:
	movq %rsp, %rbp
	.cfi_def_cfa_register %rbp
	.globl r_push_rbp
r_push_rbp:
	nop
	.cfi_remember_state
	leave
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	.globl r_push_ret
r_push_ret:
	ret
	.cfi_restore_state
	.globl r_push_restored
r_push_restored:
	nop
	ret
	.cfi_endproc
	.size r_push, .-r_push

/* The outermost frame: return address undefined. */
	.p2align 6
	.globl r_end
	.type r_end, @function
r_end:
	.cfi_startproc
	.cfi_undefined %rip
	nop
	ret
	.cfi_endproc
	.size r_end, .-r_end

/* A signal trampoline ('S' augmentation). */
	.p2align 6
	.globl r_signal
	.type r_signal, @function
r_signal:
	.cfi_startproc
	.cfi_signal_frame
	nop
	ret
	.cfi_endproc
	.size r_signal, .-r_signal

/* An expression CFA that is not the PLT's: CFA = *(rsp + 160) (DW_OP_breg7 160;
 * DW_OP_deref), as glibc's __restore_rt has. */
	.p2align 6
	.globl r_expr
	.type r_expr, @function
r_expr:
	.cfi_startproc
	nop
	.cfi_escape 0x0f, 0x04, 0x77, 0xa0, 0x01, 0x06
	.globl r_expr_body
r_expr_body:
	nop
	ret
	.cfi_endproc
	.size r_expr, .-r_expr

/* The PLT expressions: lit11 (lazy .plt) and lit9 (binutils' IBT .plt), 16 bytes of code
 * each (the rule's two halves). */
	.macro plt_fn name, lit
	.p2align 6
	.globl \name
	.type \name, @function
\name:
	.cfi_startproc
	.cfi_escape 0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, \lit, 0x2a, 0x33, 0x24, 0x22
	.skip 15, 0x90
	ret
	.cfi_endproc
	.size \name, .-\name
	.endm
	plt_fn r_plt11, 0x3b
	plt_fn r_plt9, 0x39

/* rbp kept in another register (DW_CFA_register): the RBP rule BPF cannot follow. */
	.p2align 6
	.globl r_rbp_reg
	.type r_rbp_reg, @function
r_rbp_reg:
	.cfi_startproc
	movq %rbp, %rax
	.cfi_register %rbp, %rax
	.globl r_rbp_reg_body
r_rbp_reg_body:
	nop
	ret
	.cfi_endproc
	.size r_rbp_reg, .-r_rbp_reg

/* A frame larger than a row's 16-bit offset: CFA = rsp + 0x10008. */
	.p2align 6
	.globl r_big
	.type r_big, @function
r_big:
	.cfi_startproc
	subq $0x10000, %rsp
	.cfi_def_cfa_offset 0x10008
	.globl r_big_body
r_big_body:
	addq $0x10000, %rsp
	.cfi_def_cfa_offset 8
	.globl r_big_ret
r_big_ret:
	ret
	.cfi_endproc
	.size r_big, .-r_big

/* The return address saved elsewhere than CFA - 8. */
	.p2align 6
	.globl r_ra_moved
	.type r_ra_moved, @function
r_ra_moved:
	.cfi_startproc
	nop
	.cfi_offset %rip, -16
	.globl r_ra_moved_body
r_ra_moved_body:
	nop
	ret
	.cfi_endproc
	.size r_ra_moved, .-r_ra_moved

/* Code no FDE covers: a gap row (UNWIND_CFA_NONE) between r_ra_moved and r_last. */
	.p2align 6
	.globl r_gap
	.type r_gap, @function
r_gap:
	nop
	ret
	.size r_gap, .-r_gap

	.p2align 6
	.globl r_last
	.type r_last, @function
r_last:
	.cfi_startproc
	nop
	ret
	.cfi_endproc
	.size r_last, .-r_last

	.section .note.GNU-stack,"",@progbits

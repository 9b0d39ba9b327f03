/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * x86_prologue - reads the first instructions of an x86_64 function: where its entry probe
 * is cheapest (the loader) and whether it sets up a frame pointer (fp_detect). One small
 * table-driven decoder over the few forms prologues use; anything else ends the walk.
 */
#ifndef TRACER_X86_PROLOGUE_H
#define TRACER_X86_PROLOGUE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Where the entry probe of a function without a return probe goes, given the first len
 * bytes of its code: the offset of the first instruction the kernel emulates (push) that
 * every call with a non-trivial argument reaches with its argument registers intact, or 0
 * (the entry). *sp_adj receives the bytes the function pushed before that site (at most
 * COOKIE_SP_ADJ_MAX, alloc_events.h).
 * arg_cnt: the integer arguments the function reads (SysV order: rdi, rsi, rdx; 1..3).
 * null_arg0_noop: a NULL first argument does nothing (free), so the `test %rdi,%rdi; je`
 * that skips it may be stepped over.
 */
size_t x86_prologue__probe_site(const __u8 *code, size_t len, unsigned arg_cnt, bool null_arg0_noop,
				__u32 *sp_adj);

/*
 * Where both probes of a function WITH a return probe go (entry and uretprobe at one site),
 * given its first len bytes (the more, the wider the check for branches back into the
 * prologue: the loader reads 256): the offset of the first instruction the kernel emulates
 * (push, jcc, jmp or call rel) that every call reaches with SP still at its entry value
 * (the return address at [sp], where the kernel's return hijack reads it) and its first
 * arg_cnt integer arguments (rdi, rsi, rdx, rcx; 1..4) intact; or 0 (the entry).
 */
size_t x86_prologue__return_site(const __u8 *code, size_t len, unsigned arg_cnt);

/*
 * Does `push %rbp; mov %rsp,%rbp` (either mov encoding) start at some byte of code[0..len)?
 * At the entry, or after a shrink-wrapped early exit (GCC -O2 may test an argument and
 * return before setting up the frame). Code without frame pointers uses rbp as a plain
 * register and never copies rsp into it.
 */
bool x86_prologue__sets_fp(const __u8 *code, size_t len);

#endif

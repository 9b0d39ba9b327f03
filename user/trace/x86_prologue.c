// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "x86_prologue.h"

#include <string.h>

#include "alloc_events.h"

/*
 * Why probe sites move: a uprobe costs what the kernel does with the instruction under the
 * breakpoint. One it emulates (push reg, jumps) is ~5.7 us per hit here (kernel 6.18), one
 * it must single-step out of line (test, mov, cmp, ...) ~20 us. glibc 2.36's free starts
 * with `test %rdi,%rdi; je; push %rbp`: probing the push at free+9 halves a malloc/free
 * pair. A function with a uretprobe moves both probes to one site together (a second
 * site would add a hit), and only where SP is still its entry value: CPython 3.12's
 * PyObject_Malloc starts `mov %rdi,%rsi; test %rdi,%rdi; js`, probed at the js (issue #32).
 */
enum insn_kind {
	INSN_OTHER = 0, /* not decoded: the walk stops */
	INSN_ENDBR,	/* endbr64 */
	INSN_PUSH,	/* push r64: emulated */
	INSN_MOV_RR,	/* mov r64, r64 (reg: destination, reg2: source) */
	INSN_TEST_RR,	/* test r, r (reg, reg2) */
	INSN_JE,	/* je rel8 / rel32 */
	INSN_JNE,	/* jne rel8 / rel32 */
	INSN_SUB_RSP,	/* sub $imm, %rsp (imm) */
	INSN_JCC,	/* any other jcc rel8 / rel32: emulated */
	INSN_JMP,	/* jmp rel8 / rel32: emulated */
	INSN_CALL,	/* call rel32: emulated */
	INSN_LOAD_RIP,	/* mov disp32(%rip), r64 (reg: destination) */
	INSN_CMP_FLAGS, /* cmp $imm, %rax / cmpb $imm, disp32(%rip): writes the flags only */
};

struct insn {
	enum insn_kind kind;
	size_t len;
	int reg, reg2; /* x86 register numbers: rax 0, rcx 1, rdx 2, rbx 3, rsp 4, ... rdi 7 */
	long imm;
};

#define X86_RSP 4
#define X86_RBP 5
#define X86_RDI 7

/* Forms: bytes & mask == match; REX bits and ModRM give the registers. */
static const struct insn_form {
	__u8 match[4], mask[4];
	int len; /* plus the immediate below */
	int imm_sz;
	enum insn_kind kind;
	int modrm_at;	 /* index of a ModRM byte that must be register-direct, or -1 */
	bool reg_is_dst; /* ModRM reg (not r/m) is the destination: mov 8b /r */
} insn_forms[] = {
    {{0xf3, 0x0f, 0x1e, 0xfa}, {0xff, 0xff, 0xff, 0xff}, 4, 0, INSN_ENDBR, -1, false},
    {{0x50}, {0xf8}, 1, 0, INSN_PUSH, -1, false},		/* push rax..rdi */
    {{0x41, 0x50}, {0xff, 0xf8}, 2, 0, INSN_PUSH, -1, false},	/* push r8..r15 */
    /* REX.W(+R) 8b, ModRM mod 00 r/m 101: a %rip-relative load (CPython's
     * `mov _PyRuntime+..(%rip),%rax`); before the register form, which refuses it. */
    {{0x48, 0x8b, 0x05}, {0xfb, 0xff, 0xc7}, 3, 4, INSN_LOAD_RIP, -1, false},
    {{0x48, 0x89}, {0xfa, 0xff}, 3, 0, INSN_MOV_RR, 2, false},	/* REX.W(+R/B) 89 /r */
    {{0x48, 0x8b}, {0xfa, 0xff}, 3, 0, INSN_MOV_RR, 2, true},	/* REX.W(+R/B) 8b /r */
    {{0x48, 0x85}, {0xfa, 0xff}, 3, 0, INSN_TEST_RR, 2, false}, /* REX.W(+R/B) 85 /r */
    {{0x85}, {0xff}, 2, 0, INSN_TEST_RR, 1, false},		/* 85 /r (32-bit) */
    {{0x74}, {0xff}, 2, 0, INSN_JE, -1, false},
    {{0x75}, {0xff}, 2, 0, INSN_JNE, -1, false},
    {{0x0f, 0x84}, {0xff, 0xff}, 6, 0, INSN_JE, -1, false},
    {{0x0f, 0x85}, {0xff, 0xff}, 6, 0, INSN_JNE, -1, false},
    {{0x48, 0x83, 0xec}, {0xff, 0xff, 0xff}, 3, 1, INSN_SUB_RSP, -1, false},
    {{0x48, 0x81, 0xec}, {0xff, 0xff, 0xff}, 3, 4, INSN_SUB_RSP, -1, false},
    /* After je/jne above: the first matching form wins. */
    {{0x70}, {0xf0}, 2, 0, INSN_JCC, -1, false},
    {{0x0f, 0x80}, {0xff, 0xf0}, 6, 0, INSN_JCC, -1, false},
    {{0xeb}, {0xff}, 2, 0, INSN_JMP, -1, false},
    {{0xe9}, {0xff}, 5, 0, INSN_JMP, -1, false},
    {{0xe8}, {0xff}, 5, 0, INSN_CALL, -1, false},
    {{0x48, 0x3d}, {0xff, 0xff}, 2, 4, INSN_CMP_FLAGS, -1, false}, /* cmp $imm32, %rax */
    {{0x80, 0x3d}, {0xff, 0xff}, 2, 5, INSN_CMP_FLAGS, -1, false}, /* cmpb $imm8, (%rip) */
};

/* Decode the instruction at code[0..avail). */
static struct insn decode_insn(const __u8 *code, size_t avail)
{
	struct insn in = {INSN_OTHER, 0, -1, -1, 0};

	for (size_t f = 0; f < sizeof(insn_forms) / sizeof(insn_forms[0]); f++) {
		const struct insn_form *d = &insn_forms[f];
		int n = d->len + d->imm_sz, k, mlen = d->modrm_at >= 0 ? d->modrm_at : d->len;
		bool ok = (size_t)n <= avail;

		for (k = 0; ok && k < mlen && k < 4; k++)
			ok = (code[k] & d->mask[k]) == d->match[k];
		if (!ok)
			continue;
		in.kind = d->kind;
		in.len = (size_t)n;
		if (d->kind == INSN_PUSH) {
			in.reg = (code[n - 1] & 7) | (n == 2 ? 8 : 0);
		} else if (d->kind == INSN_LOAD_RIP) {
			in.reg = ((code[2] >> 3) & 7) | ((code[0] & 4) << 1);
		} else if (d->modrm_at >= 0) {
			__u8 modrm = code[d->modrm_at], rex = d->modrm_at == 2 ? code[0] : 0;
			int rm = (modrm & 7) | ((rex & 1) << 3),
			    reg = ((modrm >> 3) & 7) | ((rex & 4) << 1);

			if ((modrm >> 6) != 3) /* a memory operand: not ours */
				return (struct insn){INSN_OTHER, 0, -1, -1, 0};
			in.reg = d->reg_is_dst ? reg : rm;
			in.reg2 = d->reg_is_dst ? rm : reg;
		} else if (d->imm_sz == 1) {
			in.imm = (__s8)code[d->len];
		} else if (d->imm_sz == 4) {
			__s32 v;

			memcpy(&v, code + d->len, sizeof(v));
			in.imm = v;
		}
		return in;
	}
	return in;
}

/* The first arg_cnt SysV argument registers (rdi, rsi, rdx, rcx) as a bit mask. */
static unsigned arg_regs(unsigned arg_cnt)
{
	static const int sysv[] = {7, 6, 2, 1};
	unsigned mask = 0;

	for (unsigned i = 0; i < arg_cnt && i < sizeof(sysv) / sizeof(sysv[0]); i++)
		mask |= 1u << sysv[i];
	return mask;
}

/*
 * Walk the prologue and stop at the first push whose reaching path leaves the argument
 * registers intact; a conditional jump may be stepped over only when it is the
 * `test arg0,arg0; je` of a function for which a NULL first argument is a no-op (free(NULL):
 * dropped anyway). Anything else: the entry.
 */
size_t x86_prologue__probe_site(const __u8 *code, size_t len, unsigned arg_cnt, bool null_arg0_noop,
				__u32 *sp_adj)
{
	unsigned args = arg_regs(arg_cnt);
	int tested = -1; /* register the previous instruction tested against itself */
	size_t off = 0;

	*sp_adj = 0;
	for (int n = 0; n < 8 && off < len; n++) {
		struct insn in = decode_insn(code + off, len - off);

		switch (in.kind) {
		case INSN_PUSH:
			return off; /* the kernel emulates it */
		case INSN_ENDBR:
			break;
		case INSN_TEST_RR:
			tested = in.reg == in.reg2 ? in.reg : -1;
			off += in.len;
			continue;
		case INSN_MOV_RR:
			if (in.reg == X86_RSP || (args & (1u << in.reg)))
				goto entry;
			break;
		case INSN_JE:
			/* `test %rdi,%rdi; je`: taken only for fn(NULL). */
			if (!null_arg0_noop || tested != X86_RDI)
				goto entry;
			break;
		case INSN_SUB_RSP:
			if (in.imm < 0 || *sp_adj + in.imm > COOKIE_SP_ADJ_MAX)
				goto entry;
			*sp_adj += (__u32)in.imm;
			break;
		default:
			goto entry;
		}
		tested = -1;
		off += in.len;
	}
entry:
	*sp_adj = 0;
	return 0;
}

/*
 * Does a relative jump or call in code[from..len) land in (0, site]? Byte by byte, not
 * instruction by instruction: a byte pair that only looks like a branch keeps the entry (a
 * lost saving), while a real loop back to the site would fire its probe twice in one call
 * (two entries, two return hijacks: one block counted twice).
 */
static bool branch_lands_in(const __u8 *code, size_t len, size_t from, size_t site)
{
	for (size_t i = from; i < len; i++) {
		long to;
		__s32 rel;

		if ((code[i] & 0xf0) == 0x70 || code[i] == 0xeb) {
			if (i + 2 > len)
				break;
			to = (long)i + 2 + (__s8)code[i + 1];
		} else if (code[i] == 0xe9 || code[i] == 0xe8 ||
			   (code[i] == 0x0f && i + 1 < len && (code[i + 1] & 0xf0) == 0x80)) {
			size_t at = i + (code[i] == 0x0f ? 2 : 1);

			if (at + 4 > len)
				break;
			memcpy(&rel, code + at, sizeof(rel));
			to = (long)at + 4 + rel;
		} else {
			continue;
		}
		if (to > 0 && to <= (long)site)
			return true;
	}
	return false;
}

/*
 * The walk for functions with a return probe. The entry and the return probe share the
 * site (one breakpoint a call), and the kernel's uretprobe takes the return address from
 * [sp] when the site is hit (arch_uretprobe_hijack_return_addr() reads regs->sp): so the
 * site must be reached with SP == the entry SP. Nothing before it may push, sub, call or
 * branch; it may copy a register into a non-argument one, load a %rip-relative word into
 * one, and set the flags. The site is the first instruction the kernel emulates
 * (arch/x86/kernel/uprobes.c: push_setup_xol_ops() for push, branch_setup_xol_ops() for
 * jmp, call and jcc rel8/rel32): the push is hit before it executes, the branch is the
 * last instruction every call runs before paths part.
 */
size_t x86_prologue__return_site(const __u8 *code, size_t len, unsigned arg_cnt)
{
	unsigned args = arg_regs(arg_cnt);
	size_t off = 0;

	for (int n = 0; n < 8 && off < len; n++) {
		struct insn in = decode_insn(code + off, len - off);

		switch (in.kind) {
		case INSN_PUSH:
		case INSN_JE:
		case INSN_JNE:
		case INSN_JCC:
		case INSN_JMP:
		case INSN_CALL:
			/* Past the site: does any branch come back into the stretch before it? */
			if (off && branch_lands_in(code, len, off, off))
				return 0;
			return off;
		case INSN_ENDBR:
		case INSN_TEST_RR:
		case INSN_CMP_FLAGS:
			break;
		case INSN_MOV_RR:
		case INSN_LOAD_RIP:
			if (in.reg == X86_RSP || (args & (1u << in.reg)))
				return 0;
			break;
		default: /* sub %rsp, anything undecoded */
			return 0;
		}
		off += in.len;
	}
	return 0;
}

/* Bytes allowed between `push %rbp` and `mov %rsp,%rbp` (one or two scheduled instructions). */
#define FP_SETUP_WINDOW 12

bool x86_prologue__sets_fp(const __u8 *code, size_t len)
{
	/* Every byte, not every instruction: the frame setup may follow code we cannot decode. */
	for (size_t i = 0; i + 1 < len; i++) {
		struct insn push = decode_insn(code + i, len - i), mov;

		if (push.kind != INSN_PUSH || push.reg != X86_RBP)
			continue;
		/* gcc -O2 may schedule an instruction (xor, mov, lea: any length) between the
		 * push and the mov: look for the mov within a short window, byte by byte. */
		for (size_t j = i + 1; j < len && j <= i + 1 + FP_SETUP_WINDOW; j++) {
			mov = decode_insn(code + j, len - j);
			if (mov.kind == INSN_MOV_RR && mov.reg == X86_RBP && mov.reg2 == X86_RSP)
				return true;
		}
	}
	return false;
}

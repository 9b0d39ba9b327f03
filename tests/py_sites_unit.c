// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* py_sites: the slow-path walk on hand-encoded bytes (each modelled form, each refusal, every
 * truncation), then Debian's python3.11 analysed and checked site by site against objdump. */
#include <criterion/criterion.h>
#include <errno.h>
#include <gelf.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf_file.h"
#include "fuzz/py_sites_check.h"
#include "py_sites.h"
#include "test_timeout.h"
#include "test_util.h"

#define PYTHON "/usr/bin/python3.11"
#define PYENV  "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0"

/* code copied to the end of a page followed by an inaccessible one: a read past len faults.
 * The copy, for unguard(). */
static const __u8 *guard(const __u8 *code, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	__u8 *map = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert(map != MAP_FAILED);
	cr_assert(!mprotect(map + pg, pg, PROT_NONE));
	memcpy(map + pg - len, code, len);
	return map + pg - len;
}

static void unguard(const __u8 *copy, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	munmap((void *)(copy + len - pg), 2 * pg);
}

static bool walk_guarded(const __u8 *code, size_t len, __u64 base, struct py_site *site)
{
	const __u8 *c = guard(code, len);
	bool ok = py_sites__slow_value(c, len, base, site);

	unguard(c, len);
	return ok;
}

enum { NONE, IMM, REG, REG32 }; /* expected: not found, a constant, a register (its low 32) */

static const struct slow_case {
	const char *name;
	__u8 code[48];
	size_t len;
	int want;
	unsigned val; /* the constant, or the register */
} slow_cases[] = {
    /* the slow paths seen in Debian's python3.11 */
    {"mov $N,%esi; call *%rax", {0xbe, 0x40, 0, 0, 0, 0xff, 0xd0}, 7, IMM, 0x40},
    {"mov %r13,%rsi; call *%rax", {0x4c, 0x89, 0xee, 0xff, 0xd0}, 5, REG, 13},
    {"call *%rax", {0xff, 0xd0}, 2, REG, 6},
    {"mov N(%rip),%rdi; mov $N,%r15d; mov %r15,%rsi; call *%rax",
     {0x48, 0x8b, 0x3d, 0x34, 0x12, 0, 0, 0x41, 0xbf, 0x30, 0, 0, 0, 0x4c, 0x89, 0xfe, 0xff, 0xd0},
     18,
     IMM,
     0x30},
    {"mov %rdx,N(%rsp); mov %r12,%rsi; call *%rax",
     {0x48, 0x89, 0x54, 0x24, 0x10, 0x4c, 0x89, 0xe6, 0xff, 0xd0},
     10,
     REG,
     12},
    {"mov %ecx,(%rsp); call *%rax", {0x89, 0x0c, 0x24, 0xff, 0xd0}, 5, REG, 6},
    {"jmp T (over ud2s); T: mov $N,%esi; call *%rax",
     {0xeb, 0x04, 0x0f, 0x0b, 0x0f, 0x0b, 0xbe, 0x20, 0, 0, 0, 0xff, 0xd0},
     13,
     IMM,
     0x20},
    {"mov %rbx,%rsi; pop %rbx; jmp *%rax", {0x48, 0x89, 0xde, 0x5b, 0xff, 0xe0}, 6, REG, 3},
    {"movaps %xmm1,(%rsp); mov %rbp,%rsi; call *%rax",
     {0x0f, 0x29, 0x0c, 0x24, 0x48, 0x89, 0xee, 0xff, 0xd0},
     9,
     REG,
     5},
    {"mov N(%rip),%rdi; xor %r13d,%r13d; mov $N,%esi; jmp T; T: call *%rax",
     {0x48, 0x8b, 0x3d, 1,    2, 3, 4, 0x45, 0x31, 0xed, 0xbe, 0x18,
      0,    0,	  0,	0xe9, 1, 0, 0, 0,    0xc3, 0xff, 0xd0},
     23,
     IMM,
     0x18},
    {"four stores; call *%rax",
     {0x48, 0x89, 0x54, 0x24, 0x08, 0x44, 0x89, 0x44, 0x24, 0x10,
      0x88, 0x4c, 0x24, 0x14, 0x44, 0x89, 0x0c, 0x24, 0xff, 0xd0},
     20,
     REG,
     6},
    {"mov N(%rip),%rdi; mov $N,%ebp; mov %rbp,%rsi; call *%rax",
     {0x48, 0x8b, 0x3d, 1, 2, 3, 4, 0xbd, 0x40, 0, 0, 0, 0x48, 0x89, 0xee, 0xff, 0xd0},
     17,
     IMM,
     0x40},
    {"call *%rdx", {0xff, 0xd2}, 2, REG, 6},
    {"call *0x10(%rax)", {0xff, 0x50, 0x10}, 3, REG, 6},
    /* each modelled form */
    {"mov %r13d,%esi (89)", {0x44, 0x89, 0xee, 0xff, 0xd0}, 5, REG32, 13},
    {"mov %eax,%esi (8b)", {0x8b, 0xf0, 0xff, 0xd0}, 4, REG32, 0},
    {"mov %rbx,%rsi (8b)", {0x48, 0x8b, 0xf3, 0xff, 0xd0}, 5, REG, 3},
    {"mov %rdi,%rax; mov %eax,%esi", {0x48, 0x89, 0xf8, 0x89, 0xc6, 0xff, 0xd0}, 7, REG32, 7},
    {"movabs $0x1ffffffff,%rax; mov %eax,%esi: truncated",
     {0x48, 0xb8, 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0, 0x89, 0xc6, 0xff, 0xd0},
     14,
     IMM,
     0xffffffff},
    {"movabs $0x100000000,%rsi: no 32-bit constant",
     {0x48, 0xbe, 0, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xd0},
     12,
     NONE,
     0},
    {"mov $N,%esi (c7 /0)", {0xc7, 0xc6, 0x50, 0, 0, 0, 0xff, 0xd0}, 8, IMM, 0x50},
    {"mov $-16,%rsi (REX.W c7: sign-extended)",
     {0x48, 0xc7, 0xc6, 0xf0, 0xff, 0xff, 0xff, 0xff, 0xd0},
     9,
     NONE,
     0},
    {"movq $0,8(%rsp); movw $N,8(%rsp) (imm16); movb $1,8(%rsp); mov %ax,8(%rsp)",
     {0x48, 0xc7, 0x44, 0x24, 0x08, 0,	  0,	0,    0,    0x66, 0xc7, 0x44, 0x24, 0x08,
      0x34, 0x12, 0xc6, 0x44, 0x24, 0x08, 0x01, 0x66, 0x89, 0x44, 0x24, 0x08, 0xff, 0xd0},
     28,
     REG,
     6},
    {"xor %esi,%esi", {0x31, 0xf6, 0xff, 0xd0}, 4, IMM, 0},
    {"xor %rsi,%rsi", {0x48, 0x31, 0xf6, 0xff, 0xd0}, 5, IMM, 0},
    {"xor %esi,%esi (33)", {0x33, 0xf6, 0xff, 0xd0}, 4, IMM, 0},
    {"xor %esi,(%rsp): memory", {0x31, 0x34, 0x24, 0xff, 0xd0}, 5, REG, 6},
    {"lea 0x10(%rdi),%rdx: another register", {0x48, 0x8d, 0x57, 0x10, 0xff, 0xd0}, 6, REG, 6},
    {"movups, movq, movdqa, movdqu stores",
     {0x0f, 0x11, 0x44, 0x24, 0x10, 0x66, 0x0f, 0xd6, 0x44, 0x24, 0x08, 0x66, 0x0f,
      0x7f, 0x04, 0x24, 0xf3, 0x0f, 0x7f, 0x04, 0x24, 0x4c, 0x89, 0xe6, 0xff, 0xd0},
     26,
     REG,
     12},
    {"push %rbx; push %r12", {0x53, 0x41, 0x54, 0xff, 0xd0}, 5, REG, 6},
    {"mov 0x959d20(,%rax,8),%rdx (SIB, no base); mov %rbx,%rsi",
     {0x48, 0x8b, 0x14, 0xc5, 0x20, 0x9d, 0x95, 0x00, 0x48, 0x89, 0xde, 0xff, 0xd0},
     13,
     REG,
     3},
    {"mov %rdx,0x100(%rsp) (disp32); mov %rbp,%rsi",
     {0x48, 0x89, 0x94, 0x24, 0, 1, 0, 0, 0x48, 0x89, 0xee, 0xff, 0xd0},
     13,
     REG,
     5},
    {"jmp rel32 forward", {0xe9, 2, 0, 0, 0, 0xc3, 0xc3, 0xff, 0xd0}, 9, REG, 6},
    {"jmp backward", {0xeb, 0x02, 0xff, 0xd0, 0xeb, 0xfc}, 6, REG, 6},
    /* refusals */
    {"load: mov 8(%rsp),%rsi", {0x48, 0x8b, 0x74, 0x24, 0x08, 0xff, 0xd0}, 7, NONE, 0},
    {"mov (%rdi),%sil", {0x40, 0x8a, 0x37, 0xff, 0xd0}, 5, NONE, 0},
    {"mov %al,%sil", {0x40, 0x88, 0xc6, 0xff, 0xd0}, 5, NONE, 0},
    {"xor %eax,%esi", {0x31, 0xc6, 0xff, 0xd0}, 4, NONE, 0},
    {"xor (%rsp),%esi", {0x33, 0x34, 0x24, 0xff, 0xd0}, 5, NONE, 0},
    {"lea 0x10(%rdi),%rsi", {0x48, 0x8d, 0x77, 0x10, 0xff, 0xd0}, 6, NONE, 0},
    {"pop %rsi", {0x5e, 0xff, 0xd0}, 3, NONE, 0},
    {"pop %r14; mov %r14,%rsi", {0x41, 0x5e, 0x4c, 0x89, 0xf6, 0xff, 0xd0}, 7, NONE, 0},
    {"push %rbx; mov %rsp,%rsi: rsp moved", {0x53, 0x48, 0x89, 0xe6, 0xff, 0xd0}, 6, NONE, 0},
    {"call rel32", {0xe8, 0, 0, 0, 0, 0xff, 0xd0}, 7, NONE, 0},
    {"ret", {0xc3, 0xff, 0xd0}, 3, NONE, 0},
    {"add $0x18,%rsp; pop %rbx; ret", {0x48, 0x83, 0xc4, 0x18, 0x5b, 0xc3}, 6, NONE, 0},
    {"ud2", {0x0f, 0x0b, 0xff, 0xd0}, 4, NONE, 0},
    {"cmp %rax,%rbx", {0x48, 0x39, 0xc3, 0xff, 0xd0}, 5, NONE, 0},
    {"notrack call *%rax", {0x3e, 0xff, 0xd0}, 3, NONE, 0},
    {"66 on a register copy", {0x66, 0x89, 0xc6, 0xff, 0xd0}, 5, NONE, 0},
    {"two prefixes on a store", {0x66, 0x66, 0x89, 0x04, 0x24, 0xff, 0xd0}, 7, NONE, 0},
    {"movsd (f2 0f 11) is not modelled", {0xf2, 0x0f, 0x11, 0x04, 0x24, 0xff, 0xd0}, 7, NONE, 0},
    {"push 8(%rax) (ff /6)", {0xff, 0x70, 0x08, 0xff, 0xd0}, 5, NONE, 0},
    {"jmp out of the buffer", {0xeb, 0x10, 0xff, 0xd0}, 4, NONE, 0},
    {"66 REX.W movq $imm32,(%rsp): 4 bytes of immediate, not 2",
     {0x66, 0x48, 0xc7, 0x04, 0x24, 0, 0, 0xff, 0xd0, 0x31, 0xf6, 0xff, 0xd0},
     13,
     IMM,
     0},
    {"jmp to itself", {0xeb, 0xfe}, 2, NONE, 0},
};

static void expect_case(const struct slow_case *c, bool ok, const struct py_site *s)
{
	cr_expect_eq(ok, c->want != NONE, "%s: found %d", c->name, ok);
	if (!ok || c->want == NONE)
		return;
	cr_expect_eq(s->is_imm, c->want == IMM, "%s", c->name);
	if (c->want == IMM)
		cr_expect_eq(s->imm, c->val, "%s: imm %#x", c->name, s->imm);
	else
		cr_expect(s->reg == c->val && s->low32 == (c->want == REG32), "%s: reg %u low32 %d",
			  c->name, s->reg, s->low32);
}

Test(py_sites, slow_value_forms)
{
	for (size_t i = 0; i < sizeof(slow_cases) / sizeof(slow_cases[0]); i++) {
		const struct slow_case *c = &slow_cases[i];
		struct py_site s;

		memset(&s, 0xa5, sizeof(s));
		expect_case(c, walk_guarded(c->code, c->len, 0x401000, &s), &s);
	}
}

/* Every buffer cut short of its indirect call is refused, and never read past its end. */
Test(py_sites, slow_value_truncated)
{
	for (size_t i = 0; i < sizeof(slow_cases) / sizeof(slow_cases[0]); i++) {
		const struct slow_case *c = &slow_cases[i];
		struct py_site s;

		for (size_t n = 0; n < c->len; n++)
			cr_expect_not(walk_guarded(c->code, n, 0x401000, &s), "%s cut at %zu",
				      c->name, n);
	}
}

/* The walk is bounded: a long run of modelled instructions is refused. */
Test(py_sites, slow_value_budget)
{
	__u8 code[64];
	struct py_site s;

	memset(code, 0x53, sizeof(code)); /* push %rbx */
	code[10] = 0xff;
	code[11] = 0xd0;
	cr_expect(walk_guarded(code, 12, 0, &s) && !s.is_imm && s.reg == 6);
	code[10] = code[11] = 0x53;
	code[62] = 0xff;
	code[63] = 0xd0;
	cr_expect_not(walk_guarded(code, sizeof(code), 0, &s));
}

/* Fast paths: where the probe moves to (0: stays), for a value in reg (or a constant). */
#define RBX  3
#define VIMM 16
static const struct advance_case {
	const char *name;
	__u8 code[40];
	size_t len;
	unsigned val; /* register, or VIMM */
	bool low32;
	size_t want;
} advance_cases[] = {
    /* the fast paths of Debian's python3.11 */
    {"lea -0x1(%rbx),%rax; cmp $0x1ff,%rax; ja",
     {0x48, 0x8d, 0x43, 0xff, 0x48, 0x3d, 0xff, 0x01, 0, 0, 0x77, 0x10},
     12,
     RBX,
     false,
     10},
    {"mov %rbx,%rdx; mov %rbx,%rax; shr $0x31,%rdx; and $-0x4000,%rax; "
     "mov 0xa84600(,%rdx,8),%rcx; test %rcx,%rcx; je",
     {0x48, 0x89, 0xda, 0x48, 0x89, 0xd8, 0x48, 0xc1, 0xea, 0x31, 0x48, 0x25, 0,    0xc0, 0xff,
      0xff, 0x48, 0x8b, 0x0c, 0xd5, 0,	  0x46, 0xa8, 0,    0x48, 0x85, 0xc9, 0x74, 0x10},
     29,
     RBX,
     false,
     27},
    {"mov N(%rip),%rax; mov 0x10(%rax),%rsi; cmp %rsi,%rax; je (a constant size)",
     {0x48, 0x8b, 0x05, 1, 2, 3, 4, 0x48, 0x8b, 0x70, 0x10, 0x48, 0x39, 0xf0, 0x74, 0x10},
     16,
     VIMM,
     false,
     14},
    {"the same with the value in %rsi: loaded over",
     {0x48, 0x8b, 0x05, 1, 2, 3, 4, 0x48, 0x8b, 0x70, 0x10, 0x48, 0x39, 0xf0, 0x74, 0x10},
     16,
     6,
     false,
     0},
    {"lea -0x1(%rsi),%rax; sub $0x18,%rsp; cmp $0x1ff,%rax; ja (_PyObject_Malloc)",
     {0x48, 0x8d, 0x46, 0xff, 0x48, 0x83, 0xec, 0x18, 0x48, 0x3d, 0xff, 0x01, 0, 0, 0x77, 0},
     16,
     6,
     false,
     14},
    {"the same with the value in %rsp",
     {0x48, 0x8d, 0x46, 0xff, 0x48, 0x83, 0xec, 0x18, 0x48, 0x3d, 0xff, 0x01, 0, 0, 0x77, 0},
     16,
     4,
     false,
     0},
    {"test %rsi,%rsi; je (_PyObject_Free)", {0x48, 0x85, 0xf6, 0x74, 0x10}, 5, 6, false, 3},
    {"mov %rdi,%rax; mov %rdi,%rsi; push %rbx",
     {0x48, 0x89, 0xf8, 0x48, 0x89, 0xfe, 0x53},
     7,
     7,
     false,
     6},
    {"nopl 0(%rax); movzbl %al,%eax; cmp $1,%eax; jg rel32",
     {0x0f, 0x1f, 0x40, 0, 0x0f, 0xb6, 0xc0, 0x83, 0xf8, 0x01, 0x0f, 0x8f, 1, 0, 0, 0},
     16,
     RBX,
     false,
     10},
    {"xor %eax,%eax; mov $1,%ecx; inc %rdx; call rel32",
     {0x31, 0xc0, 0xb9, 1, 0, 0, 0, 0x48, 0xff, 0xc2, 0xe8, 0, 0, 0, 0},
     15,
     RBX,
     false,
     10},
    {"test %eax,%eax; push %r12 (REX.B)", {0x85, 0xc0, 0x41, 0x54}, 4, RBX, false, 2},
    /* not moved past a write of the value's register, at any width */
    {"lea -0x1(%rbx),%rbx; ja", {0x48, 0x8d, 0x5b, 0xff, 0x77, 0}, 6, RBX, false, 0},
    {"lea -0x1(%rsi),%edi; ja: %edi", {0x8d, 0x7e, 0xff, 0x77, 0}, 5, 7, true, 0},
    {"mov %al,%bh; je: %bh is %rbx's", {0x88, 0xc7, 0x74, 0}, 4, RBX, false, 0},
    {"mov %al,%dil (REX); je: not %rbx", {0x40, 0x88, 0xc7, 0x74, 0}, 5, RBX, false, 3},
    {"mov $1,%bl; je", {0xb3, 0x01, 0x74, 0}, 4, RBX, false, 0},
    {"shr $4,%ebx; je", {0xc1, 0xeb, 0x04, 0x74, 0}, 5, RBX, false, 0},
    {"and $-16,%r11; je: %r11", {0x49, 0x83, 0xe3, 0xf0, 0x74, 0}, 6, 11, false, 0},
    {"movzwl %ax,%r9d; je: %r9", {0x44, 0x0f, 0xb7, 0xc8, 0x74, 0}, 6, 9, false, 0},
    {"cmove %rax,%rbx; je", {0x48, 0x0f, 0x44, 0xd8, 0x74, 0}, 6, RBX, false, 0},
    {"sete %bl; je", {0x0f, 0x94, 0xc3, 0x74, 0}, 5, RBX, false, 0},
    {"xor %eax,%eax; jmp: %rax", {0x31, 0xc0, 0xeb, 0}, 4, 0, false, 0},
    {"add $8,%eax (05); jmp: %rax", {0x05, 8, 0, 0, 0, 0xeb, 0}, 7, 0, false, 0},
    /* a constant moves past any register write */
    {"xor %eax,%eax; lea 1(%rbx),%rbx; jmp",
     {0x31, 0xc0, 0x48, 0x8d, 0x5b, 0x01, 0xeb, 0},
     8,
     VIMM,
     false,
     6},
    /* no store passed over */
    {"mov %esi,0x8(%rsp); mov N(%rip),%rax; je",
     {0x89, 0x74, 0x24, 0x08, 0x48, 0x8b, 0x05, 1, 2, 3, 4, 0x74, 0},
     13,
     RBX,
     false,
     0},
    {"addl $1,(%rdx); je", {0x83, 0x02, 0x01, 0x74, 0}, 5, VIMM, false, 0},
    {"movq $0,(%rax); je", {0x48, 0xc7, 0, 0, 0, 0, 0, 0x74, 0}, 9, VIMM, false, 0},
    {"incl (%rax); je", {0xff, 0x00, 0x74, 0}, 4, VIMM, false, 0},
    {"sete (%rax); je", {0x0f, 0x94, 0x00, 0x74, 0}, 5, VIMM, false, 0},
    {"shll (%rax); je", {0xd1, 0x20, 0x74, 0}, 4, VIMM, false, 0},
    /* the walk stops at what it does not model */
    {"cqo; je", {0x48, 0x99, 0x74, 0}, 4, VIMM, false, 0},
    {"pop %rbx; je", {0x5b, 0x74, 0}, 3, VIMM, false, 0},
    {"push 8(%rax) (ff /6); je", {0xff, 0x70, 0x08, 0x74, 0}, 5, VIMM, false, 0},
    {"call *%rax; je", {0xff, 0xd0, 0x74, 0}, 4, VIMM, false, 0},
    {"ret", {0xc3, 0x74, 0}, 3, VIMM, false, 0},
    {"neg %rax; je", {0x48, 0xf7, 0xd8, 0x74, 0}, 5, VIMM, false, 0},
    {"lea on a register (8d c0); je", {0x8d, 0xc0, 0x74, 0}, 3, VIMM, false, 0},
    {"mov %fs:0x10,%rax; je",
     {0x64, 0x48, 0x8b, 0x04, 0x25, 0x10, 0, 0, 0, 0x74, 0},
     11,
     VIMM,
     false,
     0},
    {"movd %eax,%xmm0 (66 0f 6e); je", {0x66, 0x0f, 0x6e, 0xc0, 0x74, 0}, 6, VIMM, false, 0},
    {"test; 66 jmp: refused by the kernel", {0x85, 0xc0, 0x66, 0xeb, 0}, 5, VIMM, false, 0},
    {"test; push %rbx with REX.W: not emulated", {0x85, 0xc0, 0x48, 0x53}, 4, VIMM, false, 0},
    {"test; 40 push %rax: not emulated", {0x85, 0xc0, 0x40, 0x50}, 4, VIMM, false, 0},
    /* already emulated: nothing to move */
    {"jmp", {0xeb, 0x10}, 2, RBX, false, 0},
    {"push %rbx", {0x53, 0x48, 0x85, 0xc0}, 4, RBX, false, 0},
    {"66 REX.W add $imm32,%rcx: 4 bytes of immediate, not 2 (whose end looks like a je)",
     {0x66, 0x48, 0x81, 0xc1, 0, 0, 0x74, 0x05, 0x74, 0x10},
     10,
     RBX,
     false,
     8},
    {"66 REX.W test $imm32,%rcx: the same",
     {0x66, 0x48, 0xf7, 0xc1, 0, 0, 0x74, 0x05, 0x74, 0x10},
     10,
     RBX,
     false,
     8},
    {"mov %ax,%cx (66); jmp: a 16-bit write, not %rbx",
     {0x66, 0x89, 0xc1, 0xeb, 0},
     5,
     RBX,
     false,
     3},
};

static size_t advance_guarded(const struct advance_case *c, size_t len)
{
	struct py_site site = {.is_imm = c->val == VIMM,
			       .reg = c->val == VIMM ? 0 : (__u8)c->val,
			       .low32 = c->low32,
			       .imm = 0x40};
	const __u8 *g = guard(c->code, len);
	size_t at = py_sites__advance(g, len, &site);

	unguard(g, len);
	return at;
}

Test(py_sites, advance_forms)
{
	for (size_t i = 0; i < sizeof(advance_cases) / sizeof(advance_cases[0]); i++) {
		const struct advance_case *c = &advance_cases[i];
		size_t at = advance_guarded(c, c->len);

		cr_expect_eq(at, c->want, "%s: at %zu, want %zu", c->name, at, c->want);
	}
}

/* A buffer cut short of the probed instruction's end leaves the probe where it was, and
 * is never read past. */
Test(py_sites, advance_truncated)
{
	for (size_t i = 0; i < sizeof(advance_cases) / sizeof(advance_cases[0]); i++) {
		const struct advance_case *c = &advance_cases[i];

		for (size_t n = 1; n < c->len; n++) {
			size_t at = advance_guarded(c, n);

			cr_expect(at == 0 || at == c->want, "%s cut at %zu: at %zu", c->name, n,
				  at);
		}
	}
}

/* At most PY_ADVANCE_INSNS instructions, the probed one included. */
Test(py_sites, advance_budget)
{
	struct advance_case c = {"tests; je", {0}, 0, RBX, false, 0};
	size_t k;

	for (k = 0; k < PY_ADVANCE_INSNS; k++)
		memcpy(c.code + 3 * k, (__u8[]){0x48, 0x85, 0xc0}, 3); /* test %rax,%rax */
	c.code[3 * k] = 0x74;
	c.len = 3 * k + 2;
	cr_expect_eq(advance_guarded(&c, c.len), 0);
	memmove(c.code, c.code + 3, c.len - 3);
	cr_expect_eq(advance_guarded(&c, c.len - 3), 3 * (PY_ADVANCE_INSNS - 1));
}

/* The image's sections, for the checks below. */
struct sec {
	__u64 addr;
	size_t off, size;
	__u64 flags;
};

static size_t image_secs(const char *path, struct sec *s, size_t max, int *type)
{
	struct elf_file f;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t n = 0;

	cr_assert_eq(elf_file__open(path, &f), 0);
	cr_assert(gelf_getehdr(f.elf, &eh));
	*type = eh.e_type;
	while ((scn = elf_nextscn(f.elf, scn)) && n < max)
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC))
			s[n++] = (struct sec){sh.sh_addr, sh.sh_offset, sh.sh_size, sh.sh_flags};
	elf_file__close(&f);
	return n;
}

/* The address of file offset off in an executable section (never SHT_NOBITS), 0: none. */
static __u64 exec_addr(const struct sec *s, size_t n, size_t off)
{
	for (size_t i = 0; i < n; i++)
		if ((s[i].flags & SHF_EXECINSTR) && off >= s[i].off && off - s[i].off < s[i].size)
			return s[i].addr + (off - s[i].off);
	return 0;
}

static bool python_exec(void)
{
	struct sec s[64];
	int type;

	if (access(PYTHON, R_OK))
		return false;
	image_secs(PYTHON, s, 64, &type);
	return type == ET_EXEC;
}

Test(py_sites, python311)
{
	static struct py_sites ps;
	struct sec s[64];
	size_t n, kinds[3] = {0};
	bool pools_ok = false;
	int type;

	if (!python_exec())
		cr_skip_test(PYTHON " absent or not ET_EXEC");
	n = image_secs(PYTHON, s, 64, &type);
	cr_assert_eq(py_sites__find(PYTHON, &ps), 0);
	cr_log_info("%s: %zu sites, %zu found, %zu unresolved, usedpools %#llx, new pool %#zx",
		    PYTHON, ps.cnt, ps.found, ps.unresolved, (unsigned long long)ps.usedpools,
		    ps.new_pool_off);
	for (size_t i = 0; i < n; i++)
		pools_ok |= (s[i].flags & SHF_WRITE) && !(s[i].flags & SHF_EXECINSTR) &&
			    ps.usedpools >= s[i].addr && ps.usedpools - s[i].addr < s[i].size;
	cr_expect(pools_ok, "usedpools %#llx not in a data section",
		  (unsigned long long)ps.usedpools);
	cr_expect(ps.new_pool_off && exec_addr(s, n, ps.new_pool_off));
	cr_expect(exec_addr(s, n, ps.malloc_off) && exec_addr(s, n, ps.free_off));
	cr_expect_geq(ps.cnt, 200);
	cr_expect_leq(ps.cnt, PY_SITES_MAX);
	cr_expect_leq(ps.unresolved * 10, ps.found, "%zu of %zu unresolved", ps.unresolved,
		      ps.found);
	for (size_t i = 0; i < ps.cnt; i++) {
		const struct py_site *p = &ps.site[i];

		cr_expect(p->kind == PY_SITE_MALLOC || p->kind == PY_SITE_FREE);
		kinds[p->kind < 3 ? p->kind : 0]++;
		cr_expect(exec_addr(s, n, p->off), "site %#zx not code", p->off);
		cr_expect(p->is_imm || p->reg < 16);
		cr_expect(!p->is_imm || (p->kind == PY_SITE_MALLOC && p->imm >= 1 &&
					 p->imm <= 512), /* what the cookie's 16 bits carry */
			  "site %#zx: constant %#x", p->off, p->imm);
		cr_expect(exec_addr(s, n, p->fast_off) && p->fast_off <= p->off &&
			      p->off - p->fast_off < PY_ADVANCE_INSNS * 15,
			  "site %#zx: fast start %#zx", p->off, p->fast_off);
		if (i)
			cr_expect_gt(p->off, ps.site[i - 1].off, "not sorted, unique at %zu", i);
	}
	cr_expect(kinds[PY_SITE_MALLOC] && kinds[PY_SITE_FREE]);
}

/* A value as the disassembly shows it, modelled on objdump's text alone. */
struct tval {
	int kind; /* 0 unknown, 1 register, 2 constant */
	int reg;
	bool low32;
	unsigned long long imm;
};

static int reg_num(const char *name, bool *low32)
{
	static const char *const r64[] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
					  "r8",	 "r9",	"r10", "r11", "r12", "r13", "r14", "r15"};
	static const char *const r32[] = {"eax",  "ecx",  "edx",  "ebx", "esp",	 "ebp",
					  "esi",  "edi",  "r8d",  "r9d", "r10d", "r11d",
					  "r12d", "r13d", "r14d", "r15d"};

	for (int i = 0; i < 16; i++) {
		if (!strcmp(name, r64[i]) || !strcmp(name, r32[i])) {
			*low32 = !strcmp(name, r32[i]);
			return i;
		}
	}
	return -1;
}

static regex_t re_ind, re_jmp, re_movi, re_movr, re_xor, re_dst, re_pop, re_stop, re_line, re_cmp,
    re_jcc, re_emul, re_pass, re_br;

static void re_init(void)
{
	cr_assert(!regcomp(&re_line, "^ *([0-9a-f]+):\t([^#\n]*[^#\n ])", REG_EXTENDED));
	cr_assert(!regcomp(&re_ind, "^(call|jmp) +\\*", REG_EXTENDED));
	cr_assert(!regcomp(&re_jmp, "^jmp +([0-9a-f]+)", REG_EXTENDED));
	cr_assert(!regcomp(&re_movi, "^mov[lq]? +\\$(0x[0-9a-f]+),%([a-z0-9]+)$", REG_EXTENDED));
	cr_assert(!regcomp(&re_movr, "^mov[lq]? +%([a-z0-9]+),%([a-z0-9]+)$", REG_EXTENDED));
	cr_assert(!regcomp(&re_xor, "^xor[lq]? +%([a-z0-9]+),%([a-z0-9]+)$", REG_EXTENDED));
	cr_assert(!regcomp(&re_dst, ",%([a-z0-9]+)$", REG_EXTENDED));
	cr_assert(!regcomp(&re_pop, "^pop +%([a-z0-9]+)$", REG_EXTENDED));
	cr_assert(!regcomp(&re_stop, "^(ret|call|j[a-z]+ )", REG_EXTENDED));
	cr_assert(!regcomp(&re_cmp, "^cmpq? +\\$(0x[0-9a-f]+),", REG_EXTENDED));
	cr_assert(!regcomp(&re_jcc, "^(jne|je) +([0-9a-f]+)", REG_EXTENDED));
	/* what the kernel emulates: a direct branch or call, a push of a 64-bit register */
	cr_assert(!regcomp(&re_emul, "^((j[a-z]+|call) +[0-9a-f]+( |$)|push +%r[a-z0-9]+$)",
			   REG_EXTENDED));
	/* what a probe may move past: no branch, nothing with an implicit operand */
	cr_assert(!regcomp(&re_pass,
			   "^((cs |data16 )*nop[wl]?|lea|mov[a-z]*|(cmp|test|add|sub|and|or|xor|"
			   "shl|shr|sar|inc|dec)[bwlq]?)( |$)",
			   REG_EXTENDED));
	cr_assert(!regcomp(&re_br, "^(j[a-z]+|call) +([0-9a-f]+)( |$)", REG_EXTENDED));
}

static void re_free(void)
{
	regex_t *all[] = {&re_line, &re_ind,  &re_jmp, &re_movi, &re_movr, &re_xor,  &re_dst,
			  &re_pop,  &re_stop, &re_cmp, &re_jcc,	 &re_emul, &re_pass, &re_br};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		regfree(all[i]);
}

static char *sub(const char *s, const regmatch_t *m, char *buf, size_t sz)
{
	size_t n = (size_t)(m->rm_eo - m->rm_so);

	if (n >= sz)
		n = sz - 1;
	memcpy(buf, s + m->rm_so, n);
	buf[n] = 0;
	return buf;
}

/* objdump's instructions [from, to) as (address, text) pairs; the count. */
static size_t objdump(__u64 from, __u64 to, __u64 *addr, char (*text)[96], size_t max)
{
	char cmd[256], line[512], b[96];
	regmatch_t m[3];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "objdump -d --no-show-raw-insn --start-address=%#llx --stop-address=%#llx " PYTHON,
		 (unsigned long long)from, (unsigned long long)to);
	p = popen(cmd, "r");
	cr_assert(p);
	while (n < max && fgets(line, sizeof(line), p))
		if (!regexec(&re_line, line, 3, m, 0)) {
			addr[n] = strtoull(sub(line, &m[1], b, sizeof(b)), NULL, 16);
			sub(line, &m[2], text[n], sizeof(text[n]));
			n++;
		}
	pclose(p);
	return n;
}

/* The value in %rsi at the slow path's indirect call, read from objdump's text: moves of
 * constants and registers tracked, any other register destination unknown. */
static bool objdump_rsi(__u64 addr, struct tval *rsi)
{
	struct tval reg[16];
	char text[24][96], a[96], d[96];
	__u64 at[24];
	regmatch_t m[3];

	for (int r = 0; r < 16; r++)
		reg[r] = (struct tval){1, r, false, 0};
	for (int hop = 0; hop < 5; hop++) {
		size_t n = objdump(addr, addr + 96, at, text, 24);
		bool jumped = false;

		for (size_t i = 0; i < n && !jumped; i++) {
			const char *t = text[i];
			bool lo, lo2;
			int r, r2;

			if (!regexec(&re_ind, t, 0, NULL, 0)) {
				*rsi = reg[6];
				return true;
			}
			if (!regexec(&re_jmp, t, 2, m, 0)) {
				addr = strtoull(sub(t, &m[1], a, sizeof(a)), NULL, 16);
				jumped = true;
			} else if (!regexec(&re_stop, t, 0, NULL, 0)) {
				return false;
			} else if (!regexec(&re_movi, t, 3, m, 0) &&
				   (r = reg_num(sub(t, &m[2], d, sizeof(d)), &lo)) >= 0) {
				reg[r] = (struct tval){
				    2, 0, false, strtoull(sub(t, &m[1], a, sizeof(a)), NULL, 16)};
			} else if (!regexec(&re_movr, t, 3, m, 0) &&
				   (r = reg_num(sub(t, &m[2], d, sizeof(d)), &lo)) >= 0 &&
				   (r2 = reg_num(sub(t, &m[1], a, sizeof(a)), &lo2)) >= 0) {
				reg[r] = reg[r2];
				if (lo && reg[r].kind == 1)
					reg[r].low32 = true;
				if (lo)
					reg[r].imm &= 0xffffffffu;
			} else if (!regexec(&re_xor, t, 3, m, 0) &&
				   !strcmp(sub(t, &m[1], a, sizeof(a)),
					   sub(t, &m[2], d, sizeof(d))) &&
				   (r = reg_num(d, &lo)) >= 0) {
				reg[r] = (struct tval){2, 0, false, 0};
			} else if (!regexec(&re_dst, t, 2, m, 0) || !regexec(&re_pop, t, 2, m, 0)) {
				if ((r = reg_num(sub(t, &m[1], d, sizeof(d)), &lo)) >= 0)
					reg[r].kind = 0;
			}
			if (!strncmp(t, "push", 4) || !strncmp(t, "pop", 3))
				reg[4].kind = 0;
		}
		if (!jumped)
			return false;
	}
	return false;
}

/* The checks against objdump: skipped without python3.11 or objdump; else *ps found, the
 * regexes compiled (re_free() after), s[] the image's sections, their count returned. */
static size_t objdump_setup(struct py_sites *ps, struct sec *s)
{
	int type;
	size_t n;

	if (!python_exec())
		cr_skip_test(PYTHON " absent or not ET_EXEC");
	if (system("objdump --version >/dev/null 2>&1"))
		cr_skip_test("no objdump to check against");
	re_init();
	n = image_secs(PYTHON, s, 64, &type);
	cr_assert_eq(py_sites__find(PYTHON, ps), 0);
	return n;
}

/* Each site's cmp, branch and slow path as objdump shows them: the immediate names the
 * site's kind, the branch's sense gives its fast path (the probed offset) and slow path, and
 * the value moved into %rsi before the indirect call is the site's. */
Test(py_sites, python311_against_objdump, .timeout = TEST_TIMEOUT(60))
{
	static struct py_sites ps;
	struct sec s[64];
	size_t n = objdump_setup(&ps, s), checked = 0;
	__u64 malloc_addr, free_addr;

	malloc_addr = exec_addr(s, n, ps.malloc_off);
	free_addr = exec_addr(s, n, ps.free_off);
	for (size_t i = 0; i < ps.cnt; i++) {
		const struct py_site *p = &ps.site[i];
		char text[3][96], b[96];
		__u64 at[3], imm, target, fast, slow;
		regmatch_t m[3];
		struct tval v = {0};
		bool je;

		if (!p->cmp_addr) { /* the out-of-line functions' entries */
			cr_expect(p->fast_off == ps.malloc_off || p->fast_off == ps.free_off);
			continue;
		}
		cr_assert_eq(objdump(p->cmp_addr, p->cmp_addr + 32, at, text, 3), 3, "%#llx",
			     (unsigned long long)p->cmp_addr);
		cr_assert(!regexec(&re_cmp, text[0], 2, m, 0), "%s", text[0]);
		imm = strtoull(sub(text[0], &m[1], b, sizeof(b)), NULL, 16);
		cr_expect_eq(imm, p->kind == PY_SITE_MALLOC ? malloc_addr : free_addr, "%s",
			     text[0]);
		cr_assert(!regexec(&re_jcc, text[1], 3, m, 0), "%s", text[1]);
		je = !strcmp(sub(text[1], &m[1], b, sizeof(b)), "je");
		target = strtoull(sub(text[1], &m[2], b, sizeof(b)), NULL, 16);
		fast = je ? target : at[2];
		slow = je ? at[2] : target;
		cr_expect_eq(exec_addr(s, n, p->fast_off), fast, "%#llx: fast path",
			     (unsigned long long)p->cmp_addr);
		cr_expect_eq(p->slow_addr, slow, "%#llx: slow path",
			     (unsigned long long)p->cmp_addr);
		cr_expect(objdump_rsi(slow, &v), "%#llx: no value by objdump",
			  (unsigned long long)slow);
		if (p->is_imm)
			cr_expect(v.kind == 2 && v.imm == p->imm, "%#llx: $%#x, objdump %d %#llx",
				  (unsigned long long)slow, p->imm, v.kind, v.imm);
		else
			cr_expect(v.kind == 1 && v.reg == p->reg && v.low32 == p->low32,
				  "%#llx: reg %u/%d, objdump %d %d/%d", (unsigned long long)slow,
				  p->reg, p->low32, v.kind, v.reg, v.low32);
		checked++;
	}
	cr_log_info("%zu sites checked against objdump", checked);
	cr_expect_geq(checked, 20);
	re_free();
}

/* reg's number for a register name of any width (%ah..%bh: rax..rbx), -1: none. */
static int reg_any(const char *name)
{
	static const char *const w[5][16] = {
	    {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11",
	     "r12", "r13", "r14", "r15"},
	    {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "r8d", "r9d", "r10d", "r11d",
	     "r12d", "r13d", "r14d", "r15d"},
	    {"ax", "cx", "dx", "bx", "sp", "bp", "si", "di", "r8w", "r9w", "r10w", "r11w", "r12w",
	     "r13w", "r14w", "r15w"},
	    {"al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil", "r8b", "r9b", "r10b", "r11b",
	     "r12b", "r13b", "r14b", "r15b"},
	    {"ah", "ch", "dh", "bh"},
	};

	for (int k = 0; k < 5; k++)
		for (int r = 0; r < 16 && w[k][r]; r++)
			if (!strcmp(name, w[k][r]))
				return r;
	return -1;
}

/* objdump's text of an instruction a probe moved past: one that neither writes memory (a
 * last operand in memory, but for cmp, test and nop) nor register reg (-1: a constant's
 * site); why not in *why. */
static bool passable(const char *t, int reg, const char **why)
{
	const char *ops = strchr(t, ' '), *dst;
	bool reads_only = !strncmp(t, "cmp", 3) || !strncmp(t, "test", 4) || strstr(t, "nop");

	*why = "not an instruction moved past";
	if (regexec(&re_pass, t, 0, NULL, 0))
		return false;
	if (!ops || reads_only)
		return true;
	dst = strrchr(ops, ',') ? strrchr(ops, ',') + 1 : ops + strspn(ops, " ");
	*why = "a store";
	if (t[strlen(t) - 1] == ')')
		return false;
	*why = "writes the value's register";
	return !(reg >= 0 && dst[0] == '%' && reg_any(dst + 1) == reg);
}

/* A direct branch in the whole image: its target, its address, and whether it is the
 * jne/je after a `cmp $_PyObject_Malloc/Free` (another site's entry to a fast path). */
struct branch {
	__u64 to, from;
	bool after_cmp;
};

static int branch_cmp(const void *a, const void *b)
{
	const struct branch *x = a, *y = b;

	return x->to < y->to ? -1 : x->to > y->to;
}

static size_t objdump_branches(__u64 malloc_addr, __u64 free_addr, struct branch **out)
{
	char line[512], t[96], prev[96] = "", b[96];
	size_t n = 0, cap = 1 << 18;
	struct branch *v = malloc(cap * sizeof(*v));
	regmatch_t m[3];
	FILE *p = popen("objdump -d --no-show-raw-insn " PYTHON, "r");

	cr_assert(v && p);
	while (fgets(line, sizeof(line), p)) {
		__u64 at, imm;

		if (regexec(&re_line, line, 3, m, 0))
			continue;
		at = strtoull(sub(line, &m[1], b, sizeof(b)), NULL, 16);
		sub(line, &m[2], t, sizeof(t));
		if (!regexec(&re_br, t, 3, m, 0)) {
			if (n == cap)
				cr_assert((v = realloc(v, (cap *= 2) * sizeof(*v))));
			v[n].to = strtoull(sub(t, &m[2], b, sizeof(b)), NULL, 16);
			v[n].from = at;
			v[n].after_cmp = false;
			if (!regexec(&re_cmp, prev, 2, m, 0)) {
				imm = strtoull(sub(prev, &m[1], b, sizeof(b)), NULL, 16);
				v[n].after_cmp = imm == malloc_addr || imm == free_addr;
			}
			n++;
		}
		strcpy(prev, t);
	}
	pclose(p);
	qsort(v, n, sizeof(*v), branch_cmp);
	*out = v;
	return n;
}

/* The branches into (from, to]: every one must be another site's entry. */
static void expect_no_entry(const struct branch *v, size_t n, __u64 from, __u64 to)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].to <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && v[lo].to <= to; lo++)
		cr_expect(v[lo].after_cmp, "%#llx jumps into the path %#llx..%#llx",
			  (unsigned long long)v[lo].from, (unsigned long long)from,
			  (unsigned long long)to);
}

/* Each moved probe against objdump: the instruction probed is one the kernel emulates, those
 * from the fast start to it write no memory and not the value's register, and no code but
 * another site's entry jumps in between. Most sites must be on an emulated instruction. */
Test(py_sites, python311_moves_against_objdump, .timeout = TEST_TIMEOUT(60))
{
	static struct py_sites ps;
	struct sec s[64];
	struct branch *br;
	size_t n = objdump_setup(&ps, s), nbr, moved = 0, emul = 0;

	nbr = objdump_branches(exec_addr(s, n, ps.malloc_off), exec_addr(s, n, ps.free_off), &br);
	cr_assert_gt(nbr, 1000);
	for (size_t i = 0; i < ps.cnt; i++) {
		const struct py_site *p = &ps.site[i];
		__u64 fast = exec_addr(s, n, p->fast_off), at[PY_ADVANCE_INSNS];
		__u64 site = exec_addr(s, n, p->off);
		char text[PY_ADVANCE_INSNS][96];
		size_t k, got = objdump(fast, site + 16, at, text, PY_ADVANCE_INSNS);
		const char *why;

		for (k = 0; k < got && at[k] < site; k++)
			cr_expect(passable(text[k], p->is_imm ? -1 : p->reg, &why),
				  "%#llx: moved past `%s` at %#llx: %s", (unsigned long long)fast,
				  text[k], (unsigned long long)at[k], why);
		cr_assert(k < got && at[k] == site, "%#llx: site %#llx not an instruction",
			  (unsigned long long)fast, (unsigned long long)site);
		emul += !regexec(&re_emul, text[k], 0, NULL, 0);
		if (site == fast)
			continue;
		moved++;
		cr_expect(!regexec(&re_emul, text[k], 0, NULL, 0), "%#llx: moved to `%s`",
			  (unsigned long long)fast, text[k]);
		expect_no_entry(br, nbr, fast, site);
	}
	cr_log_info("%s: %zu of %zu sites moved, %zu on an instruction the kernel emulates", PYTHON,
		    moved, ps.cnt, emul);
	cr_expect_geq(emul * 10, ps.cnt * 8, "%zu of %zu sites emulated", emul, ps.cnt);
	free(br);
	re_free();
}

Test(py_sites, not_an_inlining_image)
{
	static struct py_sites ps;

	if (!access(PYENV, R_OK))
		cr_expect_eq(py_sites__find(PYENV, &ps), -ENOENT);
	cr_expect_lt(py_sites__find("/nonexistent/python", &ps), 0);
	cr_expect_eq(ps.cnt, 0);
}

/* One corpus file of the fuzzer (tests/fuzz/fuzz_py_sites.c), its invariants checked. */
static void replay_one(const char *path, const char *data, size_t len, void *ctx)
{
	const char *why;

	(void)ctx;
	cr_assert(data, "%s: unreadable", path);
	why = py_check_input((const __u8 *)data, len);
	cr_expect(!why, "%s: %s", path, why);
}

/* Every seed and past crash of the fuzzer keeps the walks' invariants. */
Test(py_sites, fuzz_corpus_replay)
{
	const char *cdir = TESTS_SRC_DIR "/fuzz/corpus/py_sites";
	int files = tu_each_file(cdir, replay_one, NULL);

	cr_assert_geq(files, 0, "%s: %s", cdir, strerror(errno));
	cr_expect_geq(files, 5, "the seed corpus is missing (%d files)", files);
}

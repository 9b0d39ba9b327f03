// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* x86_prologue on byte patterns: probe sites (the loader) and frame setups (fp_detect). */
#include <criterion/criterion.h>

#include "x86_prologue.h"

/* Probe sites: table of prologues (name, arguments, NULL-is-no-op, bytes, expected site,
 * expected SP adjustment). free is (1, true), malloc (1, false). */
Test(x86_prologue, probe_sites)
{
	static const struct {
		const char *name;
		unsigned arg_cnt;
		bool null_noop;
		__u8 code[16];
		size_t len, site;
		__u32 sp_adj;
	} cases[] = {
	    /* glibc 2.36 free: test %rdi,%rdi; je rel32; push %rbp */
	    {"free 2.36",
	     1,
	     true,
	     {0x48, 0x85, 0xff, 0x0f, 0x84, 0xbf, 0, 0, 0, 0x55, 0x48},
	     11,
	     9,
	     0},
	    /* the same with je rel8 and an endbr64 first */
	    {"endbr free",
	     1,
	     true,
	     {0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x85, 0xff, 0x74, 0x10, 0x53},
	     10,
	     9,
	     0},
	    /* a push first: the entry is already emulated */
	    {"push first", 1, true, {0x41, 0x54, 0x55}, 3, 0, 0},
	    /* jne after the test: the NULL path is the fall-through, not skippable */
	    {"jne", 1, true, {0x48, 0x85, 0xff, 0x75, 0x10, 0x55}, 6, 0, 0},
	    /* je after testing another register */
	    {"test rsi", 1, true, {0x48, 0x85, 0xf6, 0x74, 0x10, 0x55}, 6, 0, 0},
	    /* je is only skippable when fn(NULL) is a no-op (free, not malloc) */
	    {"malloc je", 1, false, {0x48, 0x85, 0xff, 0x74, 0x10, 0x55}, 6, 0, 0},
	    /* mov %rdi,%rbx keeps the argument; mov %rax,%rdi clobbers it */
	    {"mov keeps", 1, true, {0x48, 0x89, 0xfb, 0x53}, 4, 3, 0},
	    {"mov clobbers", 1, true, {0x48, 0x89, 0xc7, 0x53}, 4, 0, 0},
	    /* the same clobber in the other encoding (8b /r: mov %rax,%rdi) */
	    {"mov 8b clobbers", 1, true, {0x48, 0x8b, 0xf8, 0x53}, 4, 0, 0},
	    /* mov %rsi,%rbx clobbers nothing of free, but the second argument of realloc */
	    {"mov rsi, 1 arg", 1, true, {0x48, 0x89, 0xf3, 0x53}, 4, 3, 0},
	    {"mov to rsi, 2 args", 2, true, {0x48, 0x89, 0xfe, 0x53}, 4, 0, 0},
	    /* sub $0x18,%rsp before the push: the entry SP is 0x18 above */
	    {"sub rsp", 1, true, {0x48, 0x83, 0xec, 0x18, 0x53}, 5, 4, 0x18},
	    /* more than the cookie's 8 bits of SP adjustment: the entry */
	    {"sub rsp 0x100", 1, true, {0x48, 0x81, 0xec, 0x00, 0x01, 0, 0, 0x53}, 8, 0, 0},
	    /* an instruction outside the table (cmpb $0, rip-relative): the entry */
	    {"unknown", 1, true, {0x80, 0x3d, 0x01, 0x02, 0x03, 0x04, 0x00, 0x55}, 8, 0, 0},
	    /* truncated code */
	    {"short", 1, true, {0x48, 0x85}, 2, 0, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		__u32 adj = 99;
		size_t site = x86_prologue__probe_site(cases[i].code, cases[i].len,
						       cases[i].arg_cnt, cases[i].null_noop, &adj);

		cr_expect_eq(site, cases[i].site, "%s: site +%zu, expected +%zu", cases[i].name,
			     site, cases[i].site);
		cr_expect_eq(adj, cases[i].sp_adj, "%s: sp adjustment %u, expected %u",
			     cases[i].name, adj, cases[i].sp_adj);
	}
}

/* Frame setups: table of function starts (name, bytes, does it set up %rbp). */
Test(x86_prologue, sets_fp)
{
	static const struct {
		const char *name;
		__u8 code[16];
		size_t len;
		bool fp;
	} cases[] = {
	    {"push rbp; mov rsp,rbp", {0x55, 0x48, 0x89, 0xe5}, 4, true},
	    {"8b encoding", {0x55, 0x48, 0x8b, 0xec}, 4, true},
	    {"after endbr64", {0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5}, 8, true},
	    /* shrink-wrapped: test %rdi,%rdi; je; then the frame */
	    {"after an early exit",
	     {0x48, 0x85, 0xff, 0x74, 0x05, 0x55, 0x48, 0x89, 0xe5},
	     9,
	     true},
	    /* gcc -O2 -fno-omit-frame-pointer scheduling: an instruction in between */
	    {"push rbp; xor eax,eax; mov rsp,rbp", {0x55, 0x31, 0xc0, 0x48, 0x89, 0xe5}, 6, true},
	    {"push rbp; mov rdi,rbx; mov rsp,rbp",
	     {0x55, 0x48, 0x89, 0xfb, 0x48, 0x89, 0xe5},
	     7,
	     true},
	    {"push rbp; lea 0x10(rdi),rax; mov rsp,rbp",
	     {0x55, 0x48, 0x8d, 0x47, 0x10, 0x48, 0x89, 0xe5},
	     8,
	     true},
	    /* rbp as a plain register: pushed, never loaded from rsp */
	    {"push rbp only", {0x55, 0x53, 0x48, 0x89, 0xfb}, 5, false},
	    {"push r13; mov rsp,r13", {0x41, 0x55, 0x49, 0x89, 0xe5}, 5, false},
	    {"mov r12,rbp", {0x55, 0x4c, 0x89, 0xe5}, 4, false},
	    {"cut short", {0x55, 0x48, 0x89}, 3, false},
	    {"empty", {0}, 0, false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(x86_prologue__sets_fp(cases[i].code, cases[i].len), cases[i].fp, "%s",
			     cases[i].name);
}

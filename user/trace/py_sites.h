/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_sites - where pymalloc's inlined copies can be probed, one instruction each.
 *
 * An LTO+PGO CPython (Debian's python3.11) speculatively devirtualizes the call through
 * _PyObject.malloc / _PyObject.free at ~240 call sites (py_inline.h):
 *
 *     cmp  $_PyObject_Malloc, %rax      (or a %rip-relative word)
 *     jne  slow                         (je: the two targets swapped)
 *   fast:  pymalloc's body, inline      <- the value found here (fast_off)
 *          lea -0x1(%rbx),%rax; cmp $0x1ff,%rax
 *          ja  big                   <- the site probed (off): the kernel emulates it
 *   slow:  mov ctx(%rip),%rdi; mov %r13,%rsi; call *%rax
 *
 * Both targets of the branch start with the same registers, so the register (or constant)
 * the slow path passes as the call's second argument (%rsi: the allocator's (ctx, n) or
 * (ctx, p)) holds the request size or the freed pointer at the fast path's first
 * instruction. The slow path is read by a small symbolic walk over plain moves; a site whose
 * walk meets anything else is not probed (counted in unresolved).
 *
 * The fast path's first instruction is mostly one the kernel must single-step after the
 * breakpoint (lea, mov, test: ~12 us a hit, against ~1-5 us for one it emulates), so the
 * probe moves forward, straight line, to the first jcc/jmp/call rel or push, past only
 * instructions known to leave memory and the value's register alone: there it fires on the
 * same executions with the same value. A moved probe another site's fast path runs into
 * must be that site's probe too (same instruction, same value) or it stays at its start.
 * Assumed, as for the fast starts themselves: no other code jumps into a fast path's
 * first instructions (checked on python3.11 against objdump by the unit test).
 *
 * At the probed instruction the BPF program reads the size, then the block pymalloc is about
 * to hand out from the target's memory: pool = usedpools[2 * ((n - 1) >> 4)], the pool's
 * freeblock unless the pool is empty (pool == pool->nextpool), when the out-of-line
 * allocate_from_new_pool(size_index) serves it, probed at its return (new_pool_off).
 *
 * Also listed: the out-of-line _PyObject_Malloc and _PyObject_Free themselves (the inlined
 * realloc's calls, the few direct callers): sites at their entry (moved as above: to
 * _PyObject_Malloc's `ja` past `lea -0x1(%rsi),%rax; sub $0x18,%rsp; cmp`, _PyObject_Free's
 * `je` past `test %rsi,%rsi`), value in %rsi.
 * Sites inside the exported functions the loader probes whole (PyObject_Malloc ...) are left
 * out: their calls are recorded by those probes.
 *
 * Only a non-PIE executable (ET_EXEC) is analysed: usedpools is then an absolute 32-bit
 * address, the one form the sites use. From the file alone; no libbpf; unit-testable.
 */
#ifndef TRACER_PY_SITES_H
#define TRACER_PY_SITES_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/* Most sites probed in one image (Debian's python3.11: 190 + 52 + 2). */
#define PY_SITES_MAX 512

enum py_site_kind {
	PY_SITE_MALLOC = 1, /* value: the request size n */
	PY_SITE_FREE = 2,   /* value: the pointer freed */
};

/* Where a site's value is, at the probed instruction. */
struct py_site {
	size_t off;	 /* file offset of the probed instruction: fast_off, or moved forward
			  * to the first one the kernel emulates (py_sites__advance) */
	size_t fast_off; /* file offset of the fast path's first instruction (the entry's for
			  * the out-of-line functions): where the value was found */
	__u8 kind;	 /* enum py_site_kind */
	bool is_imm;	 /* the value is imm (a constant request size) */
	__u8 reg;	 /* else: register number in the x86 encoding (0 rax, 1 rcx, 2 rdx,
			  * 3 rbx, 4 rsp, 5 rbp, 6 rsi, 7 rdi, 8..15 r8..r15) */
	bool low32;	 /* the register's low 32 bits (a `mov %r32,%esi`), zero-extended */
	__u32 imm;
	/* Added for the unit tests' cross-check against a disassembler and for logs; the
	 * probe needs neither: the cmp's and the slow path's link-time (= run-time)
	 * addresses, 0 for the two out-of-line functions' entries. */
	__u64 cmp_addr;
	__u64 slow_addr;
};

struct py_sites {
	__u64 usedpools;      /* link-time (= run-time, ET_EXEC) address of usedpools[] */
	size_t new_pool_off;  /* file offset of allocate_from_new_pool, 0: not found */
	size_t malloc_off;    /* file offset of the out-of-line _PyObject_Malloc (info) */
	size_t free_off;      /* file offset of the out-of-line _PyObject_Free (info) */
	struct py_site site[PY_SITES_MAX];
	size_t cnt;	      /* used entries of site */
	size_t found;	      /* cmp sites seen (malloc and free), probed or not; those
			       * inside the functions probed whole are not counted */
	size_t unresolved;    /* cmp sites not probed: the slow path's value not found */
};

/*
 * The sites of the ELF file at path. 0 with out->cnt > 0: probe them. -ENOENT: no inlined
 * pymalloc (a plain build: PyObject_Malloc makes no such test; or not ET_EXEC; or usedpools
 * or allocate_from_new_pool not recognized; or far more cmp sites than any CPython has),
 * nothing to do. Other -errno: unreadable file. A free's site passing a constant is not
 * probed (free(NULL), or no block of pymalloc's): is_imm only on malloc sites, 1..512.
 */
int py_sites__find(const char *path, struct py_sites *out);

/*
 * How far the probe of site (is_imm/reg set) can move along the fast path starting at
 * code[0] (code[0..len) the bytes from there): the offset in code of the first instruction
 * the kernel's uprobes emulate (push r64, jmp/jcc/call rel) rather than single-step, when
 * every instruction before it is one the walk knows to write neither memory nor the
 * value's register; 0: not moved (code[0] itself emulated, or the walk stopped). Straight
 * line only, at most PY_ADVANCE_INSNS instructions. Exposed for the unit tests.
 */
#define PY_ADVANCE_INSNS 8
size_t py_sites__advance(const __u8 *code, size_t len, const struct py_site *site);

/*
 * The value the slow path starting at code[0..len) passes in %rsi to the first indirect
 * call (or indirect tail jump) it reaches, followed through `jmp rel` only within
 * code (base: code[0]'s address, for the jumps' targets). true with *site's is_imm/reg/
 * low32/imm set; false: not found by the walk (an instruction it does not model).
 * Exposed for the unit tests.
 */
bool py_sites__slow_value(const __u8 *code, size_t len, __u64 base, struct py_site *site);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fp_detect - does an x86_64 ELF file keep frame pointers? The rule behind
 * `tracer --unwind auto`: a frame-pointer walk (BPF, cheap) is complete only through code
 * that keeps them, so a target executable built without them is traced with DWARF
 * unwinding.
 *
 * The heuristic reads the prologue of the file's own functions (.symtab, else .dynsym;
 * defined STT_FUNC of at least 16 bytes, skipping the toolchain's crt helpers, whose names
 * start with '_' or are crt's fixed set): a function keeps its frame pointer when it starts
 * with `push %rbp; mov %rsp,%rbp` (after an optional endbr64). GCC and Clang with
 * -fno-omit-frame-pointer emit exactly that first; without it almost no function does.
 */
#ifndef TRACER_FP_DETECT_H
#define TRACER_FP_DETECT_H

#include <stddef.h>

struct fp_census {
	size_t funcs;	 /* functions examined */
	size_t with_fp;	 /* of those, starting with push %rbp; mov %rsp,%rbp */
};

/*
 * Count the prologues of the functions in path. 0 or -errno (-ENOEXEC: not an x86_64 ELF,
 * -ENOENT: no function symbols, e.g. a stripped executable).
 */
int fp_detect__census(const char *path, struct fp_census *out);

/* The verdict for a census: true when at least half of the functions keep frame pointers. */
static inline int fp_detect__has_fp(const struct fp_census *c)
{
	return c->funcs && 2 * c->with_fp >= c->funcs;
}

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fp_detect - does an x86_64 ELF file keep frame pointers? The rule behind
 * `tracer --unwind auto`: a frame-pointer walk (BPF, cheap) is complete only through code
 * that keeps them, so a target executable built without them is traced with DWARF
 * unwinding.
 *
 * The heuristic reads the prologues of the file's functions (.symtab, else .dynsym; defined
 * STT_FUNC of at least 16 bytes, skipping the toolchain's crt helpers such as _start): a
 * function keeps its frame pointer when `push %rbp; mov %rsp,%rbp` appears in its first 32
 * bytes (at the entry, or after a shrink-wrapped early return). GCC and Clang with
 * -fno-omit-frame-pointer emit it in most functions, without it in none.
 *
 * Rust is the exception the census cannot see: rustup's prebuilt std keeps frame pointers
 * (it makes up most functions of a small binary) while crates compiled by `rustc -O` omit
 * them. A Rust executable (it defines __rust_alloc, rust_begin_unwind, ...) therefore never
 * counts as keeping frame pointers.
 */
#ifndef TRACER_FP_DETECT_H
#define TRACER_FP_DETECT_H

#include <stdbool.h>
#include <stddef.h>

struct fp_census {
	size_t funcs;	/* functions examined */
	size_t with_fp; /* of those, setting up %rbp as a frame pointer */
	bool rust;	/* a Rust program (std's runtime symbols are defined) */
};

/*
 * Count the prologues of the functions in path. 0 or -errno (-ENOEXEC: not an x86_64 ELF,
 * -ENOENT: no function symbols, e.g. a stripped executable).
 */
int fp_detect__census(const char *path, struct fp_census *out);

/*
 * The verdict: not Rust, and at least half of the functions keep frame pointers. Builds
 * with frame pointers score 75-100% (tiny leaf functions and tail-call wrappers need no
 * frame even there), builds without them 0%.
 */
static inline bool fp_detect__has_fp(const struct fp_census *c)
{
	return !c->rust && c->funcs && 2 * c->with_fp >= c->funcs;
}

#endif

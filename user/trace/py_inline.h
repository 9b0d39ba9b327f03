/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_inline - does a CPython image carry pymalloc copied into its callers? An LTO build
 * (Debian's python3.11) speculatively devirtualizes PyObject_Malloc's call through
 * _PyObject.malloc: `cmp $_PyObject_Malloc, %reg` then pymalloc's body inline, at every hot
 * call site. Those requests never reach the probed PyObject_Malloc, so a trace misses most
 * objects of 512 bytes and less: worth one line to the user (docs/USAGE.md, "Python").
 *
 * Found from the file alone: the address PyObject_Malloc itself compares the allocator
 * pointer with (its first 64 bytes), then the instructions of the executable sections that
 * compare with the same address. No libbpf; unit-testable on any ELF file.
 */
#ifndef TRACER_PY_INLINE_H
#define TRACER_PY_INLINE_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>

/* Sites beyond which an image is said to inline pymalloc (PyObject_Malloc's own check and a
 * few wrappers are not a sign). */
#define PY_INLINE_MIN_SITES 8

/* Call sites of the ELF file at path that test the allocator pointer against pymalloc's
 * allocator: 0 when PyObject_Malloc makes no such test (a plain build), or -errno. */
int py_inline__sites(const char *path);

/* The same counted in code: bytes text[0..n) with the 32-bit address addr. */
size_t py_inline__count(const unsigned char *text, size_t n, unsigned int addr);

/* The address a function's first bytes code[0..n) compare a register or a %rip-relative
 * word with (cmp $imm32), or 0. */
unsigned int py_inline__cmp_imm(const unsigned char *code, size_t n);

/* Shared with py_sites.c, which reads the same tests more closely: */

/* Is there a cmp form (x86-64, 64-bit operand, 32-bit immediate) at t[i] of t[0..n)? Its
 * immediate's offset in *imm_at: 48 3d imm (rax), 48 81 /7 imm (a register),
 * 48 81 3d disp imm (a %rip-relative word). */
bool py_inline__cmp_at(const unsigned char *t, size_t n, size_t i, size_t *imm_at);

/* The file offset (*off) and st_size (*size) of the defined symbol name of elf (.dynsym or
 * .symtab, the first found) in a section with file contents: 0, or -ENOENT. */
int py_inline__symbol_offset(Elf *elf, const char *name, size_t *off, size_t *size);

#endif

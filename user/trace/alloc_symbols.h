/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * alloc_symbols - which object of a process defines the allocator entry points (enum
 * alloc_fn), and where in that file each one starts: what the loader attaches its probes
 * to. Read from the ELF itself (.dynsym/.symtab, default versions), once, instead of letting
 * libbpf re-parse the library for each probe. No libbpf: unit-testable on any ELF file.
 *
 * Two names at one address (glibc 2.36: memalign == aligned_alloc) get ONE probe pair: the
 * first name in enum alloc_fn order owns it, and records carry that fn.
 */
#ifndef TRACER_ALLOC_SYMBOLS_H
#define TRACER_ALLOC_SYMBOLS_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "events.h"

struct alloc_symbols {
	char path[PATH_MAX];   /* the object, as a path this process can open */
	size_t off[FN_COUNT];  /* file offset of each entry point; 0: not defined (not probed) */
	__u32 owner[FN_COUNT]; /* fn whose probe serves fn: itself, or the first fn (in enum
				* order) at the same offset */
};

/*
 * The allocator of process pid: the library at lib_path when given (tracer --lib), else the
 * libc pid maps (seen through /proc/PID/root when pid lives in another mount namespace).
 * Then as alloc_symbols__for_binary(). 0 or -errno, the reason logged (-ENOENT: no libc
 * mapped, e.g. a static executable; -ESRCH: no such process).
 */
int alloc_symbols__for_process(pid_t pid, const char *lib_path, struct alloc_symbols *out);

/*
 * The entry points defined by the ELF file at path: defined STT_FUNC symbols of .dynsym and
 * .symtab, of several versions of one name the default one. An STT_GNU_IFUNC is skipped (its
 * resolver is not the allocator). malloc, calloc, realloc and free are required: -ENOENT
 * otherwise. 0 or -errno, the reason logged.
 */
int alloc_symbols__for_binary(const char *path, struct alloc_symbols *out);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * alloc_symbols - where each allocator entry point (enum alloc_fn) of a process image lives:
 * the object a call to it reaches, and the function's file offset there. What the loader
 * attaches its probes to. Read from the ELF files themselves (.dynsym/.symtab, default
 * versions), never from file names, and once, instead of letting libbpf re-parse them.
 * No libbpf: unit-testable on any ELF file.
 *
 * Resolution is the dynamic linker's: each function is taken from the FIRST object of the
 * image's lookup scope (alloc_scope.h: executable, preloads, DT_NEEDED breadth-first) that
 * defines it (.dynsym; for the executable also .symtab, which is all a static executable
 * has). So jemalloc/mimalloc/tcmalloc linked into the executable or a library, preloaded,
 * or a static executable, are probed where the calls go. libc's helpers (strdup, getline,
 * ...) stay probed in libc: they call malloc through the PLT, so an interposed malloc is
 * nested under them (outermost-call rule, alloc.bpf.c). C++'s operator new/delete resolve
 * the same way (libstdc++'s, or an allocator's own). Rust's __rust_* shims are taken from
 * the executable when it defines them (#[global_allocator] over a prefixed allocator that
 * never exports malloc).
 *
 * Two names at one address of one object (glibc 2.36: memalign == aligned_alloc) get ONE
 * probe pair: the first name in enum alloc_fn order owns it, and records carry that fn.
 */
#ifndef TRACER_ALLOC_SYMBOLS_H
#define TRACER_ALLOC_SYMBOLS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "events.h"

/* Objects probed at once: executable (Rust shims), allocator, libc (helpers), libstdc++
 * (operator new), and room for an allocator split over two more. */
#define ALLOC_OBJ_MAX 6

struct alloc_symbols {
	char path[PATH_MAX];		    /* the object malloc resolves to */
	char objs[ALLOC_OBJ_MAX][PATH_MAX]; /* the probed objects, paths this process can open */
	__u32 obj_cnt;			    /* used entries of objs */
	__u8 obj[FN_COUNT];		    /* objs index holding fn (when off[fn] != 0) */
	size_t off[FN_COUNT];  /* file offset of each entry point; 0: not defined (not probed) */
	__u32 owner[FN_COUNT]; /* fn whose probe serves fn: itself, or the first fn (in enum
				* order) at the same offset of the same object */
	char exe[PATH_MAX];    /* the executable resolved from ("" for --lib) */
	char prefixed[64];     /* a prefixed allocator entry point (mi_malloc, je_malloc, ...)
				* of the scope, not probed: calls to it are not seen. "" if none,
				* or the executable has Rust's shims (probed: they call it) */
	char prefixed_in[PATH_MAX]; /* the object defining prefixed */
};

/*
 * The allocator of running process pid: the library at lib_path when given (tracer --lib,
 * as alloc_symbols__for_binary()), else resolved in its scope (alloc_scope__for_process()).
 * 0 or -errno, the reason logged (-ENOSYS: no object defines malloc and free, e.g. a
 * stripped static executable; -ESRCH: no such process).
 */
int alloc_symbols__for_process(pid_t pid, const char *lib_path, struct alloc_symbols *out);

/* The allocator exe will use once exec'd (a command spawned held before its exec), resolved
 * in alloc_scope__for_command()'s approximation of its scope. 0 or -errno, logged. */
int alloc_symbols__for_command(const char *exe, struct alloc_symbols *out);

/* The allocator of process pid's image right after its exec, before its libraries are
 * mapped (a followed exec): alloc_scope__for_exec()'s scope. 0 or -errno, logged. */
int alloc_symbols__for_exec(pid_t pid, struct alloc_symbols *out);

/*
 * The entry points defined by the one ELF file at path (tracer --lib): defined STT_FUNC
 * symbols of .dynsym and .symtab, of several versions of one name the default one. An
 * STT_GNU_IFUNC is skipped (its resolver is not the allocator). malloc, calloc, realloc and
 * free are required: -ENOENT otherwise. 0 or -errno, the reason logged.
 */
int alloc_symbols__for_binary(const char *path, struct alloc_symbols *out);

/* The object (objs[]) probed for fn, or NULL when fn is not probed. pymalloc's inlined
 * copies (FN_PY_SITE_*, FN_PY_NEW_POOL): the interpreter's image, PyObject_Malloc's. */
const char *alloc_symbols__obj(const struct alloc_symbols *s, __u32 fn);

/* Whether the allocations probed through s are glibc's malloc (so their chunk sizes are
 * heap_chunk.h's): malloc resolves to glibc's libc.so.6 and no Rust shims are probed (a
 * #[global_allocator] may be anything). */
bool alloc_symbols__glibc_malloc(const struct alloc_symbols *s);

/* Whether s probes CPython's allocator domains (PyObject_Malloc ..., FN_IS_PY): the
 * interpreter's image (python3.N, libpython3.N.so) is in the scope. */
bool alloc_symbols__has_python(const struct alloc_symbols *s);

/* Leave CPython's allocator domains unprobed (--no-python). */
void alloc_symbols__drop_python(struct alloc_symbols *s);

/* True if the ELF file at path exports a malloc of its own (.dynsym): a library that
 * would be an allocator if it were in the lookup scope (dlopen'd ones are not). */
bool alloc_symbols__defines_malloc(const char *path);

#endif

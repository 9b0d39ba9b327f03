/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * main_arena - where glibc's main_arena is in a live target, from libc's debug info: the
 * arenas' `next` ring (arenas.c) only finds it when a second arena exists, and only by
 * shape; the symbol says it for certain. libc is the mapping named libc.so.6 (or libc-*.so)
 * at file offset 0; its debug file is <root>/.build-id/xx/yyyy.debug under the tracer's
 * /usr/lib/debug (libc6-dbg), used only when its build-id is libc's (debug_file.h). Both
 * files are opened the safe way: the target names them.
 */
#ifndef TRACER_MAIN_ARENA_H
#define TRACER_MAIN_ARENA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "procmaps.h"

/* main_arena's address in pid (whose mappings are m[0..n)) into *addr, when the symbol's
 * size is want_size (sizeof(struct malloc_state) of the layout the caller reads). 0;
 * -ENOENT: no libc mapped, no debug file or no symbol; -EPROTO: another size; -errno. */
int main_arena__from_debuginfo(pid_t pid, const struct proc_mapping *m, size_t n,
			       uint64_t want_size, uint64_t *addr);

#endif

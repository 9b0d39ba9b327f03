/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * arenas - glibc's arenas in a live target at one moment, against the heap's live blocks:
 * what each arena holds from the kernel, how much of it is free, what malloc_trim(0) would
 * give back and which block pins the top (issue #34; the file's "arenas", dhat_arenas.h).
 *
 * Where they are: the main arena is the brk heap (/proc/PID/stat's start_brk to the end of
 * the [heap] mapping); every other arena is a chain of 64 MiB-aligned heaps whose first
 * bytes are glibc's heap_info (arena, previous heap, size), the first heap followed by the
 * arena's malloc_state (top chunk, system_mem, next arena). Both are read with
 * process_vm_readv; the main arena's malloc_state is found on the arenas' `next` ring.
 *
 * Free chunks: the arena's chunks are walked from its first to its top (each chunk's size
 * word; a chunk is free when the next one's PREV_INUSE bit is clear), so tcache and fastbin
 * chunks count as in use, as malloc_info counts them. When a walk fails (memory unreadable,
 * a layout it does not recognize), the free chunks are the gaps between the live blocks the
 * trace knows ("source" says which; docs/ACCURACY.md). x86-64 glibc >= 2.26 layouts.
 */
#ifndef TRACER_ARENAS_H
#define TRACER_ARENAS_H

#include <sys/types.h>

#include "collector.h"
#include "dhat_arenas.h"

/* Measure pid's arenas now against c's live blocks into *out (release with
 * dhat_arenas__release). 0, -ENOENT when the process has no glibc arena to measure (no
 * [heap], no heap), -ESRCH when it is gone, -ENOMEM. */
int arenas__measure(pid_t pid, const struct collector *c, struct dhat_arenas *out);

#endif

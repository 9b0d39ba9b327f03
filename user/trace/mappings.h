/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * mappings - the traced process's own anonymous mappings (EV_MAPPING records of
 * bpf/mappings.bpf.c): which are mapped now, and which stack (a site) mapped them. Stacks are
 * unwound with the modules' CFI (dwarf_stacks), whatever --unwind is: the system call is made
 * from libc's wrappers, which keep no frame pointers. Works on plain records: unit-tested
 * without BPF. Not thread-safe.
 *
 * Accounting: mmap maps [addr, addr + len) (rounded up to pages) for its site, replacing
 * whatever was mapped there; munmap unmaps any part of any mappings; mremap moves the old
 * range's bytes to the new range, charged to the mremap's site; a brk growth maps
 * [old break, new break) and a shrink unmaps the tail. A site's bytes are what it has mapped
 * now; its peak the most it had at once.
 */
#ifndef TRACER_MAPPINGS_H
#define TRACER_MAPPINGS_H

#include <stddef.h>
#include <sys/types.h>

#include "dhat_mappings.h"
#include "symbolizer.h"

/* Tracker for process pid. NULL + errno on failure. */
struct mappings *mappings__new(pid_t pid);
/* Accepts NULL. */
void mappings__free(struct mappings *m);

/* Account one EV_MAPPING record (data, sz as read from the ring buffer). Returns 0, or
 * -EINVAL for a malformed record (counted, ignored), -ENOMEM. A NULL m ignores it. */
int mappings__handle(struct mappings *m, const void *data, size_t sz);

/* Re-read the target's maps for the unwinder (dlopen, exec). Accepts NULL. */
void mappings__refresh_maps(struct mappings *m);

/*
 * The sites as they are now, into *out (released with dhat_mappings__release): frames named
 * by sym (may be NULL: addresses only), each site classified in or outside malloc, largest
 * first. Returns 0, -ENOENT when nothing was ever mapped (out left empty), or -ENOMEM.
 */
int mappings__summary(struct mappings *m, struct symbolizer *sym, struct dhat_mappings *out);

/* Whether the function named by a DHAT frame string ("0xADDR: fn (file:line)") belongs to
 * the allocator (malloc and its glibc internals). */
bool mappings__is_allocator_frame(const char *frame);

#endif

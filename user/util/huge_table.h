/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * huge_table - zeroed memory for a large hash table probed at random (the collector's live
 * blocks), backed by transparent huge pages where the host lets a process ask for them
 * (THP "madvise", Debian's default). A table of tens of MiB probed at random takes a TLB
 * miss per probe on 4 KiB pages, and in a virtual machine each miss is a two-dimensional
 * page walk: on jq's trace (~400,000 blocks live, a 32 MiB table) that miss was most of
 * what a record cost the collector (docs/BENCHMARKS.md). Small tables come from calloc.
 */
#ifndef TRACER_HUGE_TABLE_H
#define TRACER_HUGE_TABLE_H

#include <stddef.h>

/* n items of sz bytes, zeroed, or NULL (errno ENOMEM: out of memory, or n * sz overflows). */
void *huge_table__alloc(size_t n, size_t sz);

/* Releases a table huge_table__alloc(n, sz) gave (the same n and sz); NULL is ignored. */
void huge_table__free(void *p, size_t n, size_t sz);

#endif

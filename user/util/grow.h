/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * grow - the growth step of a realloc'ed array: double its capacity until it holds what is
 * needed, refusing a size that would overflow. One copy of the loop the tables and readers
 * all wrote out by hand.
 */
#ifndef TRACER_GROW_H
#define TRACER_GROW_H

#include <stddef.h>

/* Smallest capacity grow__array gives an empty array, in items. */
#define GROW_MIN_CAP 16

/*
 * Make the array *items (items of elem_sz bytes, *cap of them allocated) hold at least
 * need items: realloc'ed to *cap doubled as often as needed (GROW_MIN_CAP when empty);
 * nothing happens when it is already large enough. items is the address of the array's
 * pointer, whatever its type (int **, struct x **...). On failure *items and *cap are
 * unchanged. Returns 0, or -ENOMEM (out of memory, or the size overflows size_t).
 */
int grow__array(void *items, size_t *cap, size_t need, size_t elem_sz);

#endif

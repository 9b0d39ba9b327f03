/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * seq_intern - interning of integer sequences (frame-index lists, PC lists): equal
 * sequences get one index, different ones different indices, counted up from 0 in order
 * of first sight. The sequences lie end to end in one pool (no allocation per sequence);
 * an open-addressing index over them (load factor under 1/2) finds them by hash.
 *
 * Two ways in: intern a sequence held elsewhere (seq_intern__intern), or build it in place
 * at the pool's end (seq_intern__tail, then seq_intern__intern_tail), which saves a copy
 * when the elements come one at a time: a sequence found already there is dropped from
 * the tail, so the pool keeps each sequence once.
 */
#ifndef TRACER_SEQ_INTERN_H
#define TRACER_SEQ_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most sequences, and most elements in one sequence. */
#define SEQ_INTERN_MAX 0xfffffffeu

/* 8 bytes per sequence besides its elements and slots: the reader keeps one per program
 * point, so no length or hash is stored (a sequence ends where the next one starts, and the
 * hashes are computed again when the index grows). */
struct seq_intern {
	size_t elem_sz;		   /* bytes per element: 4 (uint32_t) or 8 (uint64_t) */
	unsigned char *pool;	   /* every sequence's elements back to back, by index */
	size_t pool_len, pool_cap; /* used / allocated, in elements */
	size_t *offs;		   /* by index: where the sequence starts in the pool */
	size_t cnt, offs_cap;	   /* sequences / allocated offsets */
	uint32_t *slots;	   /* index + 1, 0 = empty; a power of two of them */
	size_t slot_cnt;
};

/* An empty table of elem_sz-byte elements: 4 (uint32_t) or 8 (uint64_t). Allocates
 * nothing yet. */
void seq_intern__init(struct seq_intern *t, size_t elem_sz);

/* Frees everything the table holds (not t). Accepts a released or taken-from table. */
void seq_intern__release(struct seq_intern *t);

/*
 * The index of seq[0..n) (elements of the table's size; seq may be NULL when n is 0),
 * added if new. *added (may be NULL) says which. Returns the index, or -ENOMEM, or -E2BIG
 * past SEQ_INTERN_MAX sequences or elements.
 */
int64_t seq_intern__intern(struct seq_intern *t, const void *seq, size_t n, bool *added);

/* The index of seq[0..n), or -ENOENT if it was never interned. */
int64_t seq_intern__find(const struct seq_intern *t, const void *seq, size_t n);

/*
 * Room for n elements at the pool's end, returned (valid until the next call that adds to
 * the table), for a sequence built in place; NULL and -ENOMEM in *err. Calling it again
 * with a larger n keeps what was written.
 */
void *seq_intern__tail(struct seq_intern *t, size_t n, int *err);

/* seq_intern__intern of the n elements written at seq_intern__tail, without copying them. */
int64_t seq_intern__intern_tail(struct seq_intern *t, size_t n, bool *added);

/* Sequence idx (< the count): its elements (borrowed, valid until the table next grows),
 * their number in *n, and where they start in the pool in *off (either may be NULL). */
const void *seq_intern__get(const struct seq_intern *t, size_t idx, size_t *n, size_t *off);

/* Number of distinct sequences. */
static inline size_t seq_intern__cnt(const struct seq_intern *t)
{
	return t->cnt;
}

/* The pool, handed to the caller (who frees it) with its length in elements in *len,
 * trimmed to that length; the table is released. NULL for an empty pool. */
void *seq_intern__take_pool(struct seq_intern *t, size_t *len);

#endif

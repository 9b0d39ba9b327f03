// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "seq_intern.h"

#include "grow.h"
#include "hash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS_MIN 1024 /* first index size: small profiles never rehash */

void seq_intern__init(struct seq_intern *t, size_t elem_sz)
{
	memset(t, 0, sizeof(*t));
	t->elem_sz = elem_sz;
}

void seq_intern__release(struct seq_intern *t)
{
	free(t->pool);
	free(t->offs);
	free(t->slots);
	seq_intern__init(t, t->elem_sz);
}

/* FNV-1a word by word (the elements are integers; eight multiplies per PC made interning a
 * stack three times slower), mixed so that high-bit differences reach the slot bits. */
static size_t seq_hash(const struct seq_intern *t, const void *seq, size_t n)
{
	uint64_t h = HASH_FNV64_BASIS;

	if (t->elem_sz == sizeof(uint64_t)) {
		const uint64_t *w = seq;

		for (size_t i = 0; i < n; i++)
			h = hash__fnv1a64_word(h, w[i]);
	} else {
		const uint32_t *w = seq;

		for (size_t i = 0; i < n; i++)
			h = hash__fnv1a64_word(h, w[i]);
	}
	/* n folded in: an empty sequence and a run of zeros differ */
	return (size_t)hash__mix64(h ^ n);
}

/* Sequence idx's length: up to where the next one starts. */
static size_t seq_len(const struct seq_intern *t, size_t idx)
{
	return (idx + 1 < t->cnt ? t->offs[idx + 1] : t->pool_len) - t->offs[idx];
}

/* The slot of seq: where an equal sequence already is, or the empty slot for it. The index
 * must exist and have an empty slot. */
static size_t seq_slot(const struct seq_intern *t, const void *seq, size_t n, size_t h)
{
	size_t mask = t->slot_cnt - 1, i = h & mask;

	for (; t->slots[i]; i = (i + 1) & mask) {
		size_t idx = t->slots[i] - 1;

		/* Compared whole: different sequences must never merge. */
		if (seq_len(t, idx) == n &&
		    (!n || !memcmp(t->pool + t->offs[idx] * t->elem_sz, seq, n * t->elem_sz)))
			break;
	}
	return i;
}

/* Keep the load factor under 1/2 with one more sequence. 0 or -ENOMEM. */
static int grow_slots(struct seq_intern *t)
{
	size_t cap = t->slot_cnt ? 2 * t->slot_cnt : SLOTS_MIN, j;
	uint32_t *slots;

	if (2 * (t->cnt + 1) <= t->slot_cnt)
		return 0;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->cnt; i++) {
		size_t n = seq_len(t, i);
		const void *seq = n ? t->pool + t->offs[i] * t->elem_sz : NULL;

		for (j = seq_hash(t, seq, n) & (cap - 1); slots[j]; j = (j + 1) & (cap - 1))
			;
		slots[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->slot_cnt = cap;
	return 0;
}

int64_t seq_intern__find(const struct seq_intern *t, const void *seq, size_t n)
{
	size_t i;

	if (!t->cnt)
		return -ENOENT;
	i = seq_slot(t, seq, n, seq_hash(t, seq, n));
	return t->slots[i] ? (int64_t)t->slots[i] - 1 : -ENOENT;
}

void *seq_intern__tail(struct seq_intern *t, size_t n, int *err)
{
	if (n > SEQ_INTERN_MAX) {
		*err = -E2BIG;
		return NULL;
	}
	/* at least one element: a pointer into a pool that exists, even for n == 0 */
	*err = grow__array(&t->pool, &t->pool_cap, t->pool_len + (n ? n : 1), t->elem_sz);
	return *err ? NULL : t->pool + t->pool_len * t->elem_sz;
}

/* Intern seq[0..n), which is either elsewhere or at the pool's tail (copied if not). */
static int64_t intern(struct seq_intern *t, const void *seq, size_t n, bool in_tail, bool *added)
{
	size_t h = seq_hash(t, seq, n), i;
	int err;

	if (added)
		*added = false;
	if (n > SEQ_INTERN_MAX)
		return -E2BIG;
	/* Grow first so the probe below always ends on an empty slot. */
	if ((err = grow_slots(t)))
		return err;
	i = seq_slot(t, seq, n, h);
	if (t->slots[i])
		return t->slots[i] - 1; /* a tail copy is simply not kept */
	if (t->cnt >= SEQ_INTERN_MAX)
		return -E2BIG;
	if ((err = grow__array(&t->offs, &t->offs_cap, t->cnt + 1, sizeof(*t->offs))))
		return err;
	if (!in_tail && n) {
		void *dst = seq_intern__tail(t, n, &err);

		if (!dst)
			return err;
		memcpy(dst, seq, n * t->elem_sz);
	}
	t->offs[t->cnt] = t->pool_len;
	t->pool_len += n;
	t->slots[i] = (uint32_t)++t->cnt;
	if (added)
		*added = true;
	return (int64_t)t->cnt - 1;
}

int64_t seq_intern__intern(struct seq_intern *t, const void *seq, size_t n, bool *added)
{
	return intern(t, seq, n, false, added);
}

int64_t seq_intern__intern_tail(struct seq_intern *t, size_t n, bool *added)
{
	if (n > t->pool_cap - t->pool_len)
		return -EINVAL; /* not written at seq_intern__tail */
	return intern(t, n ? t->pool + t->pool_len * t->elem_sz : NULL, n, true, added);
}

const void *seq_intern__get(const struct seq_intern *t, size_t idx, size_t *n, size_t *off)
{
	if (n)
		*n = seq_len(t, idx);
	if (off)
		*off = t->offs[idx];
	return t->pool ? t->pool + t->offs[idx] * t->elem_sz : NULL; /* NULL: empty ones alone */
}

void *seq_intern__take_pool(struct seq_intern *t, size_t *len)
{
	void *pool = t->pool;

	*len = t->pool_len;
	if (pool && t->pool_len < t->pool_cap) {
		void *trimmed = realloc(pool, (t->pool_len ? t->pool_len : 1) * t->elem_sz);

		if (trimmed)
			pool = trimmed;
	}
	t->pool = NULL;
	seq_intern__release(t);
	return pool;
}

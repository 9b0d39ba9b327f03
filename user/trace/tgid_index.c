// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "tgid_index.h"

#include <errno.h>
#include <stdlib.h>

#define TGID_INDEX_MIN_CAP 64u

struct tgid_slot {
	pid_t tgid; /* 0: empty */
	unsigned int idx;
};

/* Fibonacci hashing: pids are dense and sequential, their low bits alone would cluster. */
static size_t home(pid_t tgid, size_t cap)
{
	return (size_t)(((unsigned int)tgid * 2654435761u) >> 7) & (cap - 1);
}

static struct tgid_slot *find(const struct tgid_index *x, pid_t tgid)
{
	for (size_t i = home(tgid, x->cap);; i = (i + 1) & (x->cap - 1))
		if (x->slots[i].tgid == tgid || !x->slots[i].tgid)
			return &x->slots[i];
}

long tgid_index__get(const struct tgid_index *x, pid_t tgid)
{
	const struct tgid_slot *s;

	if (!x->cap || tgid <= 0)
		return -1;
	s = find(x, tgid);
	return s->tgid ? (long)s->idx : -1;
}

/* Twice the slots (load <= 1/2: probes stay short), every entry moved over. */
static int grow(struct tgid_index *x)
{
	struct tgid_index n = {.cap = x->cap ? x->cap * 2 : TGID_INDEX_MIN_CAP, .cnt = x->cnt};

	n.slots = calloc(n.cap, sizeof(*n.slots));
	if (!n.slots)
		return -ENOMEM;
	for (size_t i = 0; i < x->cap; i++)
		if (x->slots[i].tgid)
			*find(&n, x->slots[i].tgid) = x->slots[i];
	free(x->slots);
	*x = n;
	return 0;
}

int tgid_index__set(struct tgid_index *x, pid_t tgid, size_t idx)
{
	struct tgid_slot *s;

	if (tgid <= 0 || idx > (size_t)~0u)
		return -EINVAL;
	if ((x->cnt + 1) * 2 > x->cap && grow(x))
		return -ENOMEM;
	s = find(x, tgid);
	if (!s->tgid) {
		s->tgid = tgid;
		x->cnt++;
	}
	s->idx = (unsigned int)idx;
	return 0;
}

void tgid_index__release(struct tgid_index *x)
{
	free(x->slots);
	x->slots = NULL;
	x->cap = x->cnt = 0;
}

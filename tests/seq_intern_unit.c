// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* seq_intern.c: equal sequences share an index, different ones never do (also across the
 * index's growth), the tail keeps a sequence once, and the pool handed over is the
 * sequences back to back. grow.c's limits on the way. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"
#include "seq_intern.h"

static struct seq_intern t;

static void teardown(void)
{
	seq_intern__release(&t);
}

TestSuite(seq_intern, .fini = teardown);

Test(seq_intern, equal_sequences_share_an_index_in_order_of_first_sight)
{
	const uint64_t a[] = {1, 2, 3}, b[] = {1, 2}, c[] = {1ull << 63, 2, 3};
	bool added;
	size_t n, off;

	seq_intern__init(&t, sizeof(uint64_t));
	cr_expect_eq(seq_intern__find(&t, a, 3), -ENOENT);
	cr_expect_eq(seq_intern__intern(&t, a, 3, &added), 0);
	cr_expect(added);
	cr_expect_eq(seq_intern__intern(&t, b, 2, &added), 1);
	cr_expect_eq(seq_intern__intern(&t, NULL, 0, &added), 2, "the empty sequence too");
	cr_expect_eq(seq_intern__intern(&t, c, 3, &added), 3, "differs in a high bit alone");
	cr_expect_eq(seq_intern__intern(&t, a, 3, &added), 0);
	cr_expect_not(added);
	cr_expect_eq(seq_intern__find(&t, b, 2), 1);
	cr_expect_eq(seq_intern__cnt(&t), 4);
	const uint64_t *got = seq_intern__get(&t, 1, &n, &off);

	cr_expect_eq(n, 2);
	cr_expect_eq(off, 3);
	cr_expect_eq(got[0], 1);
	cr_expect_eq(got[1], 2);
}

Test(seq_intern, many_sequences_keep_their_indices_across_growth)
{
	seq_intern__init(&t, sizeof(uint32_t));
	for (uint32_t i = 0; i < 20000; i++) {
		uint32_t s[2] = {i, i >> 3};

		cr_assert_eq(seq_intern__intern(&t, s, 1 + i % 2, NULL), (int64_t)i);
	}
	for (uint32_t i = 0; i < 20000; i++) {
		uint32_t s[2] = {i, i >> 3};

		cr_assert_eq(seq_intern__find(&t, s, 1 + i % 2), (int64_t)i);
	}
}

Test(seq_intern, the_tail_keeps_a_sequence_once_and_the_pool_is_handed_over)
{
	uint32_t *tail, *pool;
	bool added;
	size_t len;
	int err;

	seq_intern__init(&t, sizeof(uint32_t));
	for (int round = 0; round < 2; round++) {
		for (uint32_t i = 0; i < 3; i++) {
			tail = seq_intern__tail(&t, i + 1, &err);
			cr_assert(tail);
			tail[i] = 10 + i;
		}
		cr_expect_eq(seq_intern__intern_tail(&t, 3, &added), 0);
		cr_expect_eq(added, round == 0, "round %d", round);
	}
	tail = seq_intern__tail(&t, 1, &err);
	cr_assert(tail);
	tail[0] = 7;
	cr_expect_eq(seq_intern__intern_tail(&t, 1, &added), 1);
	pool = seq_intern__take_pool(&t, &len);
	cr_assert_eq(len, 4, "the repeated tail was not kept");
	cr_expect_eq(pool[0], 10);
	cr_expect_eq(pool[2], 12);
	cr_expect_eq(pool[3], 7);
	cr_expect_eq(seq_intern__cnt(&t), 0, "released");
	free(pool);
}

Test(seq_intern, grow_doubles_and_refuses_an_overflow)
{
	int *v = NULL;
	size_t cap = 0;

	cr_assert_eq(grow__array(&v, &cap, 1, sizeof(*v)), 0);
	cr_expect_eq(cap, GROW_MIN_CAP);
	cr_assert_eq(grow__array(&v, &cap, GROW_MIN_CAP + 1, sizeof(*v)), 0);
	cr_expect_eq(cap, 2 * GROW_MIN_CAP);
	cr_expect_eq(grow__array(&v, &cap, SIZE_MAX / 2, sizeof(*v)), -ENOMEM);
	cr_expect_eq(cap, 2 * GROW_MIN_CAP, "unchanged on failure");
	free(v);
}

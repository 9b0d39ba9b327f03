// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * stack_hints without BPF: which path of a site becomes which variant, what the sink is
 * told (sets, deletes, the steering values taken from the copy), and what is refused.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "stack_hints.h"

/* Every call to the sink, in order. */
struct sink_call {
	struct snap_hint_key k;
	bool set;
	struct snap_hint h;
};

struct sink {
	struct sink_call calls[64];
	int n;
	int refuse; /* answer sets with this */
};

static int to_sink(void *ctx, const struct snap_hint_key *k, const struct snap_hint *h)
{
	struct sink *s = ctx;

	cr_assert_lt(s->n, 64);
	s->calls[s->n].k = *k;
	s->calls[s->n].set = h != NULL;
	if (h)
		s->calls[s->n].h = *h;
	s->n++;
	return h ? s->refuse : 0;
}

/* A copy of 64 words whose word i holds base + i, and the reads of a 3-frame path over it:
 * words 2, 5 (steering: return addresses) and 9, 5 again (a repeat), 7. */
static unsigned char stack[64 * 8];

static void fill(__u64 base)
{
	for (__u64 i = 0; i < 64; i++) {
		__u64 v = base + i;

		memcpy(stack + i * 8, &v, 8);
	}
}

static const __u16 reads[] = {9, 2, 5, 5, 7};
static const __u16 steering[] = {2, 5};
static const struct unwind_reads rd = {.words = reads, .n = 5, .steering = steering,
				       .n_steering = 2};

Test(stack_hints, a_path_becomes_a_hint_with_its_steering_values)
{
	struct sink s = {0};
	struct stack_hints *sh = stack_hints__new(42, to_sink, &s);

	cr_assert_not_null(sh);
	fill(1000);
	cr_assert_eq(stack_hints__learn(sh, 0x401000, 512, 0x7777, &rd, stack, sizeof(stack)),
		     HINT_NEW);
	cr_assert_eq(s.n, 1);
	cr_expect(s.calls[0].set);
	cr_expect_eq(s.calls[0].k.ip, 0x401000);
	cr_expect_eq(s.calls[0].k.dist, 512);
	cr_expect_eq(s.calls[0].k.tgid, 42);
	cr_expect_eq(s.calls[0].k.variant, 0);
	/* the words read, sorted, once each */
	cr_assert_eq(s.calls[0].h.n, 4);
	cr_expect_eq(s.calls[0].h.off[0], 2);
	cr_expect_eq(s.calls[0].h.off[1], 5);
	cr_expect_eq(s.calls[0].h.off[2], 7);
	cr_expect_eq(s.calls[0].h.off[3], 9);
	/* the steering words with the values the copy held */
	cr_assert_eq(s.calls[0].h.n_ctl, 2);
	cr_expect_eq(s.calls[0].h.ctl[0], 2);
	cr_expect_eq(s.calls[0].h.expect[0], 1002);
	cr_expect_eq(s.calls[0].h.ctl[1], 5);
	cr_expect_eq(s.calls[0].h.expect[1], 1005);
	cr_expect_eq(s.calls[0].h.check_bp, 0, "rbp did not steer: not checked");

	/* The same path again (other words that did not steer may differ): nothing new. */
	memset(stack + 7 * 8, 0xee, 8);
	cr_expect_eq(stack_hints__learn(sh, 0x401000, 512, 0x1234, &rd, stack, sizeof(stack)),
		     HINT_KEPT);
	cr_expect_eq(s.n, 1);
	stack_hints__free(sh);
	cr_assert_eq(s.n, 2);
	cr_expect_not(s.calls[1].set, "the hint outlived its process");
	cr_expect_eq(s.calls[1].k.variant, 0);
}

Test(stack_hints, other_paths_of_a_site_take_variants_then_replace_the_oldest)
{
	struct unwind_reads rd_bp = rd;
	struct sink s = {0};
	struct stack_hints *sh = stack_hints__new(42, to_sink, &s);

	cr_assert_not_null(sh);
	for (int p = 0; p < SNAP_HINT_VARIANTS; p++) {
		fill(1000 * (__u64)(p + 1)); /* another caller: other return addresses */
		cr_expect_eq(stack_hints__learn(sh, 0x401000, 512, 0, &rd, stack, sizeof(stack)),
			     HINT_NEW);
		cr_expect_eq(s.calls[s.n - 1].k.variant, (__u32)p);
	}
	/* A fifth path replaces variant 0, then 1. */
	fill(9000);
	cr_expect_eq(stack_hints__learn(sh, 0x401000, 512, 0, &rd, stack, sizeof(stack)), HINT_NEW);
	cr_expect_eq(s.calls[s.n - 1].k.variant, 0);
	cr_expect_eq(s.calls[s.n - 1].h.expect[0], 9002);
	/* rbp steering: checked, and part of the path. */
	rd_bp.need_bp = true;
	cr_expect_eq(stack_hints__learn(sh, 0x401000, 512, 0x5555, &rd_bp, stack, sizeof(stack)),
		     HINT_NEW);
	cr_expect_eq(s.calls[s.n - 1].k.variant, 1);
	cr_expect_eq(s.calls[s.n - 1].h.check_bp, 1);
	cr_expect_eq(s.calls[s.n - 1].h.bp, 0x5555);
	/* Another site is its own. */
	cr_expect_eq(stack_hints__learn(sh, 0x401000, 640, 0, &rd, stack, sizeof(stack)), HINT_NEW);
	cr_expect_eq(s.calls[s.n - 1].k.variant, 0);
	cr_expect_eq(s.calls[s.n - 1].k.dist, 640);

	cr_expect_eq(stack_hints__sites(sh), 2);
	/* A miss at a site without hints: nothing to delete, no site made. */
	s.n = 0;
	stack_hints__forget(sh, 0x999000, 512);
	cr_expect_eq(s.n, 0);
	cr_expect_eq(stack_hints__sites(sh), 2);

	/* A miss: every variant of the site goes, last first (BPF stops at a gap). */
	stack_hints__forget(sh, 0x401000, 512);
	cr_assert_eq(s.n, SNAP_HINT_VARIANTS);
	for (int i = 0; i < SNAP_HINT_VARIANTS; i++) {
		cr_expect_not(s.calls[i].set);
		cr_expect_eq(s.calls[i].k.variant, (__u32)(SNAP_HINT_VARIANTS - 1 - i));
	}
	/* and it learns again from variant 0 */
	cr_expect_eq(stack_hints__learn(sh, 0x401000, 512, 0, &rd, stack, sizeof(stack)), HINT_NEW);
	cr_expect_eq(s.calls[s.n - 1].k.variant, 0);
	stack_hints__free(sh);
}

Test(stack_hints, refusals)
{
	__u16 many[SNAP_HINT_MAX + 1], ctl[SNAP_CTL_MAX + 1];
	struct unwind_reads big = {.words = many, .n = SNAP_HINT_MAX + 1, .steering = steering,
				   .n_steering = 2};
	struct unwind_reads wide = {.words = reads, .n = 5, .steering = ctl,
				    .n_steering = SNAP_CTL_MAX + 1};
	struct sink s = {0};
	struct stack_hints *sh = stack_hints__new(42, to_sink, &s);
	unsigned char deep[(SNAP_HINT_MAX + 1) * 8] = {0};

	cr_assert_not_null(sh);
	for (int i = 0; i <= SNAP_HINT_MAX; i++)
		many[i] = (__u16)i;
	for (int i = 0; i <= SNAP_CTL_MAX; i++)
		ctl[i] = 2;
	fill(1);
	cr_expect_eq(stack_hints__learn(sh, 1, 1, 0, &big, deep, sizeof(deep)), HINT_REFUSED,
		     "more words than a hint holds");
	cr_expect_eq(stack_hints__learn(sh, 1, 1, 0, &wide, stack, sizeof(stack)), HINT_REFUSED,
		     "more steering words than a hint holds");
	cr_expect_eq(stack_hints__learn(sh, 1, 1, 0, NULL, stack, sizeof(stack)), HINT_REFUSED,
		     "a path no words vouch for");
	cr_expect_eq(stack_hints__learn(sh, 1, 1, 0, &rd, stack, 5 * 8), HINT_REFUSED,
		     "a steering word past the copy");
	cr_expect_eq(s.n, 0);

	/* A full map: the site stays dense, and is not offered again. */
	s.refuse = -E2BIG;
	cr_expect_eq(stack_hints__learn(sh, 1, 1, 0, &rd, stack, sizeof(stack)), HINT_REFUSED);
	cr_expect_eq(s.n, 1);
	s.refuse = 0;
	fill(77);
	cr_expect_eq(stack_hints__learn(sh, 1, 1, 0, &rd, stack, sizeof(stack)), HINT_KEPT);
	cr_expect_eq(s.n, 1);
	stack_hints__free(sh);
	cr_expect_eq(s.n, 1, "a refused site had nothing to delete");
	cr_expect_null(stack_hints__new(1, NULL, NULL));
}

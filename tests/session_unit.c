/* session: window events cut the record stream into profiles; frames: stack ids become
 * frame lists with the allocator first, cut below main. Synthetic records, no BPF. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "frames.h"
#include "session.h"

struct closed {
	char name[64];
	__u64 iterations;
	struct collector_totals totals;
	int calls;
};

static int on_profile(void *ctx, struct collector *c, const char *name, __u64 iterations)
{
	struct closed *cl = ctx;

	snprintf(cl->name, sizeof(cl->name), "%s", name ? name : "(none)");
	cl->iterations = iterations;
	cl->totals = *collector__totals(c);
	cl->calls++;
	return 0;
}

static void feed_alloc(struct session *s, __u64 ts, __u64 addr, __u64 size)
{
	struct alloc_event e = { .type = EV_ALLOC, .ts_ns = ts, .addr = addr, .size = size,
				 .stack_id = 1, .fn = FN_MALLOC };

	cr_assert_eq(session__handle(s, &e, sizeof(e)), 0);
}

static void feed_free(struct session *s, __u64 ts, __u64 addr)
{
	struct alloc_event e = { .type = EV_FREE, .ts_ns = ts, .addr = addr };

	cr_assert_eq(session__handle(s, &e, sizeof(e)), 0);
}

static void feed_window(struct session *s, __u32 type, __u64 ts, const char *name, __u64 it)
{
	struct window_event w = { .type = type, .ts_ns = ts, .iterations = it };

	snprintf(w.name, sizeof(w.name), "%s", name);
	cr_assert_eq(session__handle(s, &w, sizeof(w)), 0);
}

Test(session, windows_cut_profiles_and_ignore_outside)
{
	struct closed cl = { 0 };
	struct session_opts o = { .windowed = true, .on_profile = on_profile, .ctx = &cl };
	struct session *s = session__new(&o);

	cr_assert_not_null(s);
	feed_alloc(s, 10, 0x1000, 64); /* warm-up: outside any window */
	feed_window(s, EV_WINDOW_BEGIN, 100, "grep-pipeline", 20);
	feed_alloc(s, 110, 0x2000, 10);
	feed_alloc(s, 120, 0x3000, 30);
	feed_free(s, 130, 0x2000);
	feed_free(s, 140, 0x1000); /* allocated before the window: unknown, counted */
	cr_assert(session__in_profile(s));
	feed_window(s, EV_WINDOW_END, 200, "grep-pipeline", 20);
	cr_assert_not(session__in_profile(s));

	cr_assert_eq(cl.calls, 1);
	cr_expect_str_eq(cl.name, "grep-pipeline");
	cr_expect_eq(cl.iterations, 20);
	cr_expect_eq(cl.totals.total_blocks, 2);
	cr_expect_eq(cl.totals.total_bytes, 40);
	cr_expect_eq(cl.totals.live_bytes, 30);
	cr_expect_eq(cl.totals.max_bytes, 40);
	cr_expect_eq(cl.totals.unknown_frees, 1);
	cr_expect_eq(cl.totals.te_ns, 100);
	cr_expect_eq(session__stats(s)->outside_window, 1);
	cr_expect_eq(session__stats(s)->unknown_frees, 1);
	session__free(s);
}

Test(session, open_window_is_closed_by_finish)
{
	struct closed cl = { 0 };
	struct session_opts o = { .windowed = true, .on_profile = on_profile, .ctx = &cl };
	struct session *s = session__new(&o);

	feed_window(s, EV_WINDOW_BEGIN, 100, "cmdsubst", 20);
	feed_alloc(s, 150, 0x2000, 10);
	/* The target died mid-window: finish still hands over a valid profile. */
	cr_assert_eq(session__finish(s, 300), 0);
	cr_assert_eq(cl.calls, 1);
	cr_expect_str_eq(cl.name, "cmdsubst");
	cr_expect_eq(cl.totals.total_bytes, 10);
	cr_expect_eq(cl.totals.te_ns, 200);
	session__free(s);
}

Test(session, unwindowed_spans_everything)
{
	struct closed cl = { 0 };
	struct session_opts o = { .start_ns = 5, .on_profile = on_profile, .ctx = &cl };
	struct session *s = session__new(&o);

	feed_alloc(s, 10, 0x1000, 64);
	feed_window(s, EV_WINDOW_BEGIN, 100, "ignored", 1); /* windows mean nothing here */
	feed_free(s, 20, 0x1000);
	cr_assert_eq(session__finish(s, 105), 0);
	cr_expect_eq(cl.calls, 1);
	cr_expect_str_eq(cl.name, "(none)");
	cr_expect_eq(cl.totals.total_bytes, 64);
	cr_expect_eq(cl.totals.te_ns, 100);
	session__free(s);
}

Test(session, malformed_records_are_counted)
{
	struct session_opts o = { .windowed = true };
	struct session *s = session__new(&o);
	__u32 junk[2] = { 99, 0 };

	cr_expect_eq(session__handle(s, junk, sizeof(junk)), 0);
	cr_expect_eq(session__handle(s, junk, 2), 0);
	cr_expect_eq(session__stats(s)->bad_records, 2);
	session__free(s);
}

/* --- frames --------------------------------------------------------------------------------- */

static const __u64 fake_stack[] = { 0x1001, 0x2001, 0x3001 };

static int fake_stack_fn(void *ctx, __s32 id, __u64 *ips, size_t max)
{
	if (id != 7)
		return -ENOENT;
	memcpy(ips, fake_stack, sizeof(fake_stack));
	return 3;
}

static __u64 no_fn_addr(void *ctx, __u32 fn)
{
	return 0;
}

Test(frames, allocator_first_then_callers)
{
	struct stack_source src = { fake_stack_fn, no_fn_addr, NULL, NULL, NULL, NULL };
	struct frames_ctx fc = { .sym = NULL, .src = &src };
	struct pp_stats pp = { .stack_id = 7, .fn = FN_CALLOC };
	struct strvec out = { 0 };

	cr_assert_eq(frames__describe(&fc, &pp, &out), 0);
	cr_assert_eq(out.cnt, 4);
	cr_expect_str_eq(out.items[0], "0x0: calloc (in libc)"); /* address and library unknown */
	/* Return addresses are shown minus one: the call, not the instruction after it. */
	cr_expect_str_eq(out.items[1], "0x1000: ???");
	cr_expect_str_eq(out.items[3], "0x3000: ???");
	strvec__release(&out);

	pp.stack_id = -14; /* -EFAULT from bpf_get_stackid */
	cr_assert_eq(frames__describe(&fc, &pp, &out), 0);
	cr_assert_eq(out.cnt, 2);
	cr_expect(strstr(out.items[1], "stack capture failed"));
	strvec__release(&out);
}

/* --- timeline ------------------------------------------------------------------------------- */

#include "timeline.h"

Test(timeline, bounded_and_keeps_the_peak)
{
	static struct timeline tl;
	__u64 peak_t = 3000000, max_seen = 0;

	timeline__init(&tl, 0);
	/* 10 s of samples every µs-ish: far more than the series holds. */
	for (__u64 t = 0; t < 10000000; t += 997) {
		__u64 live = t == peak_t / 997 * 997 ? 1000000 : t % 5000;

		timeline__note(&tl, t, live, live);
	}
	cr_assert_leq(tl.cnt, TIMELINE_MAX_POINTS);
	cr_assert_gt(tl.cnt, TIMELINE_MAX_POINTS / 4, "compaction lost too much: %zu", tl.cnt);
	for (size_t i = 0; i < tl.cnt; i++) {
		if (i)
			cr_assert_gt(tl.t_ns[i], tl.t_ns[i - 1], "times must ascend");
		if (tl.bytes[i] > max_seen)
			max_seen = tl.bytes[i];
	}
	/* Each point keeps its bucket's maximum, so the single spike survives compaction. */
	cr_expect_eq(max_seen, 1000000);
}

Test(timeline, collector_feeds_it)
{
	struct collector *c = collector__new(0, NULL);
	struct alloc_event e = { .type = EV_ALLOC, .ts_ns = 10, .addr = 0x10, .size = 100,
				 .stack_id = 1, .fn = FN_MALLOC };
	const struct timeline *tl;

	cr_assert_not_null(c);
	cr_assert_eq(collector__handle(c, &e), 0);
	e.type = EV_FREE;
	e.ts_ns = 5000;
	cr_assert_eq(collector__handle(c, &e), 0);
	collector__finish(c, 9000);
	tl = collector__timeline(c);
	cr_assert_geq(tl->cnt, 2);
	cr_expect_eq(tl->bytes[0], 100, "the first bucket holds the 100-byte block");
	cr_expect_eq(tl->bytes[tl->cnt - 1], 0, "nothing live at the end");
	collector__free(c);
}

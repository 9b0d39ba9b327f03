// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * dwarf_stacks and fp_detect without BPF.
 *  - dwarf_stacks: EV_STACK_SNAPSHOT records built from this very process, captured the way
 *    the uretprobe sees a caller (ip = return address, sp just above it), are unwound,
 *    interned and handed on as plain EV_ALLOC/EV_REALLOC; malformed records are refused;
 *    a target that is gone gives a counted failure, not a lost event.
 *  - fp_detect: the census that `--unwind auto` uses, on binaries built with and without
 *    frame pointers and on a Rust one.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dwarf_stacks.h"
#include "fp_detect.h"
#include "strvec.h"
#include "symbolizer.h"

#define NOINLINE __attribute__((noinline))
#define HDR_SZ	 (sizeof(struct alloc_event) + sizeof(struct stack_snapshot))

/* A record as BPF sends it: header, snapshot, up to 8 KiB of stack. */
struct snap_rec {
	struct alloc_event ev;
	struct stack_snapshot snap;
	unsigned char stack[8192];
};

/* End of this process's main stack mapping ([stack] in maps). */
static __u64 stack_end(void)
{
	unsigned long long lo, hi, end = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") && sscanf(line, "%llx-%llx", &lo, &hi) == 2)
			end = hi;
	fclose(f);
	return end;
}

/* memcpy of live stack memory, invisible to ASan (TRACER_SANITIZE): the copy covers other
 * frames' redzones, as BPF's copy does. */
__attribute__((no_sanitize_address)) static void copy_stack(unsigned char *dst, __u64 src,
							    size_t len)
{
	const volatile unsigned char *p = (const volatile unsigned char *)src;

	for (size_t i = 0; i < len; i++)
		dst[i] = p[i];
}

/*
 * Fill r as the return probe of this function would: the registers are the caller's after
 * the return (ip = return address, sp = our CFA, rbp = the caller's, restored from our
 * frame: this test is built with frame pointers), the stack copied from that sp.
 */
static NOINLINE void capture(struct snap_rec *r, size_t *len)
{
	__u64 *fp = __builtin_frame_address(0), sp = (__u64)(fp + 2), end = stack_end();

	memset(r, 0, sizeof(*r));
	r->ev.type = EV_STACK_SNAPSHOT;
	r->ev.tid = (__u32)gettid();
	r->ev.addr = 0x1000;
	r->ev.size = 24;
	r->ev.stack_id = STACK_ID_SNAPSHOT;
	r->snap.ev_type = EV_ALLOC;
	r->snap.ip = (__u64)__builtin_return_address(0);
	r->snap.sp = sp;
	r->snap.bp = fp[0];
	*len = sizeof(r->stack);
	if (end > sp && end - sp < *len)
		*len = end - sp;
	copy_stack(r->stack, sp, *len);
	r->snap.stack_len = (__u32)*len;
	__asm__ volatile("" ::: "memory");
}

static volatile int depth_sink;

static NOINLINE void caller_b(struct snap_rec *r, size_t *len)
{
	capture(r, len);
	depth_sink++;
}

static NOINLINE void caller_a(struct snap_rec *r, size_t *len)
{
	caller_b(r, len);
	depth_sink++;
}

/* Symbolized frames of stack id (innermost first), joined by '|'. */
static char *describe(struct dwarf_stacks *ds, __s32 id)
{
	struct symbolizer *sym = symbolizer__new(getpid());
	struct strvec out = {0};
	__u64 ips[STACK_MAX_DEPTH];
	char *s = calloc(1, 1);
	size_t len = 0;
	int n;

	cr_assert_not_null(sym);
	n = dwarf_stacks__stack(ds, id, ips, STACK_MAX_DEPTH);
	cr_assert_gt(n, 0, "stack %d: %d", id, n);
	for (int i = 0; i < n; i++)
		cr_assert_geq(symbolizer__frames(sym, ips[i], true, &out), 0);
	for (size_t i = 0; i < out.cnt; i++) {
		s = realloc(s, len + strlen(out.items[i]) + 2);
		len += (size_t)sprintf(s + len, "%s|", out.items[i]);
	}
	strvec__clear(&out);
	free(out.items);
	symbolizer__free(sym);
	return s;
}

Test(dwarf_stacks, own_stack_unwinds_to_its_callers)
{
	static struct snap_rec recs[2];
	struct snap_rec *const r1p = &recs[0], *const r2p = &recs[1];
	struct dwarf_stacks *ds = dwarf_stacks__new(getpid());
	size_t lens[2];
	struct dwarf_stacks_stats st;
	struct alloc_event ev = {0}, ev2 = {0};
	size_t len = 0, len2 = 0;
	char *frames;

	cr_assert_not_null(ds);
	/* Twice from one call site (a volatile bound: the loop is neither unrolled nor
	 * peeled into two sites), so both chains of return addresses are equal. */
	for (volatile int i = 0; i < 2; i++)
		caller_a(&recs[i], &lens[i]);
	len = lens[0];
	len2 = lens[1];
	cr_assert_eq(dwarf_stacks__resolve(ds, r1p, HDR_SZ + len, &ev), 0);
	cr_expect_eq(ev.type, EV_ALLOC);
	cr_expect_eq(ev.addr, 0x1000);
	cr_expect_eq(ev.size, 24);
	cr_assert_geq(ev.stack_id, 0, "no stack: %d", ev.stack_id);

	frames = describe(ds, ev.stack_id);
	/* ips[0] is caller_b's return address (a return address like every other entry). */
	cr_expect(strstr(frames, "caller_b"), "%s", frames);
	cr_expect(strstr(frames, "caller_a"), "%s", frames);
	cr_expect(strstr(frames, "caller_b") < strstr(frames, "caller_a"), "%s", frames);
	cr_expect_null(strstr(frames, ": capture"), "the probed function is not a frame: %s",
		       frames);
	free(frames);

	/* The same call chain again: the same id; as a realloc, the realloc type. */
	r2p->snap.ev_type = EV_REALLOC;
	r2p->ev.old_addr = 0x1000;
	cr_assert_eq(dwarf_stacks__resolve(ds, r2p, HDR_SZ + len2, &ev2), 0);
	cr_expect_eq(ev2.type, EV_REALLOC);
	cr_expect_eq(ev2.old_addr, 0x1000);
	cr_expect_eq(ev2.stack_id, ev.stack_id);

	if (ev2.stack_id != ev.stack_id) {
		char *f1 = describe(ds, ev.stack_id), *f2 = describe(ds, ev2.stack_id);

		cr_expect_fail("different stacks:\n%s\n%s", f1, f2);
		free(f1);
		free(f2);
	}
	dwarf_stacks__stats(ds, &st);
	cr_expect_eq(st.snapshots, 2);
	cr_expect_eq(st.unwound, 2);
	cr_expect_eq(st.failures, 0);
	cr_expect_eq(st.distinct, 1, "distinct %zu, ids %d %d", st.distinct, ev.stack_id,
		     ev2.stack_id);
	cr_expect_geq(st.frames, 6);
	dwarf_stacks__free(ds);
}

Test(dwarf_stacks, malformed_records_are_refused)
{
	static struct snap_rec r;
	struct dwarf_stacks *ds = dwarf_stacks__new(getpid());
	struct alloc_event ev;
	size_t len;

	cr_assert_not_null(ds);
	caller_a(&r, &len);
	cr_expect_eq(dwarf_stacks__resolve(ds, &r, HDR_SZ - 1, &ev), -EINVAL, "short header");
	cr_expect_eq(dwarf_stacks__resolve(ds, &r, HDR_SZ + len - 8, &ev), -EINVAL,
		     "stack_len beyond the record");
	r.snap.ev_type = EV_FREE;
	cr_expect_eq(dwarf_stacks__resolve(ds, &r, HDR_SZ + len, &ev), -EINVAL, "free");
	r.snap.ev_type = EV_ALLOC;
	r.ev.type = EV_ALLOC;
	cr_expect_eq(dwarf_stacks__resolve(ds, &r, HDR_SZ + len, &ev), -EINVAL, "not a snapshot");
	cr_expect_eq(dwarf_stacks__stack(ds, 0, (__u64[4]){0}, 4), -ENOENT, "no id yet");
	dwarf_stacks__free(ds);
}

Test(dwarf_stacks, gone_target_is_a_counted_failure_not_a_lost_event)
{
	static struct snap_rec r;
	struct dwarf_stacks_stats st;
	struct alloc_event ev;
	struct dwarf_stacks *ds;
	size_t len;
	pid_t pid = fork();
	int status;

	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(0);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	ds = dwarf_stacks__new(pid); /* reaped: no /proc entry */
	cr_assert_not_null(ds);
	caller_a(&r, &len);
	cr_assert_eq(dwarf_stacks__resolve(ds, &r, HDR_SZ + len, &ev), 0);
	cr_expect_eq(ev.type, EV_ALLOC);
	cr_expect_lt(ev.stack_id, 0);
	dwarf_stacks__stats(ds, &st);
	cr_expect_eq(st.failures, 1);
	cr_expect_eq(st.unwound, 0);
	dwarf_stacks__free(ds);
}

Test(fp_detect, census_tells_builds_apart)
{
	struct fp_census c;

	/* The unwinder fixture built with -O2 -fno-omit-frame-pointer (not this test binary:
	 * what it links, such as libstdc++'s demangler, is built without them). */
	cr_assert_eq(fp_detect__census(UNWFIX_DIR "/fpfix", &c), 0);
	cr_expect(fp_detect__has_fp(&c), "%zu of %zu", c.with_fp, c.funcs);
	cr_expect_gt(c.with_fp, 0, "%zu of %zu", c.with_fp, c.funcs);
	cr_expect_not(c.rust);

	/* The unwinder fixture: -O2 -fomit-frame-pointer. */
	cr_assert_eq(fp_detect__census(UNWFIX_DIR "/unwfix", &c), 0);
	cr_expect_not(fp_detect__has_fp(&c), "%zu of %zu", c.with_fp, c.funcs);
	cr_expect_eq(c.with_fp, 0, "%zu of %zu", c.with_fp, c.funcs);

	cr_expect_eq(fp_detect__census(TESTS_SRC_DIR "/dwarf_stacks_unit.c", &c), -ENOEXEC);
	cr_expect_eq(fp_detect__census("/nonexistent/exe", &c), -ENOENT);
}

Test(fp_detect, rust_never_counts_as_keeping_frame_pointers)
{
	struct fp_census c;

	if (access(UNWFIX_DIR "/rsfix", R_OK))
		cr_skip_test("no Rust fixture (rustc not found at configure time)");
	cr_assert_eq(fp_detect__census(UNWFIX_DIR "/rsfix", &c), 0);
	cr_expect(c.rust);
	cr_expect_not(fp_detect__has_fp(&c));
}

/* ---- stack hints (sparse copies) ---- */

/* A sparse record as BPF reserves it. */
struct sparse_rec {
	struct alloc_event ev;
	struct stack_snapshot snap;
	unsigned char payload[SNAP_SPARSE_BYTES(SNAP_HINT_MAX)];
};

/* What the sink was told: the last hint set, and how many sets and deletes. */
struct hint_log {
	struct snap_hint_key key;
	struct snap_hint hint;
	int sets, deletes;
	int refuse; /* answer sets with this (-E2BIG: the BPF map is full) */
};

static int log_hint(void *ctx, const struct snap_hint_key *k, const struct snap_hint *h)
{
	struct hint_log *l = ctx;

	l->key = *k;
	if (!h) {
		l->deletes++;
		return 0;
	}
	if (l->refuse)
		return l->refuse;
	l->hint = *h;
	l->sets++;
	return 0;
}

/* Send d's copy sparse, as BPF would with hint h (words past the copy marked absent). */
static size_t make_sparse(struct sparse_rec *s, const struct snap_rec *d, const struct snap_hint *h)
{
	__u64 words[SNAP_HINT_MAX];
	__u16 offs[SNAP_HINT_MAX];

	memset(s, 0, sizeof(*s));
	s->ev = d->ev;
	s->snap = d->snap;
	s->snap.flags |= SNAP_F_SPARSE;
	s->snap.n_words = h->n;
	for (__u32 i = 0; i < h->n; i++) {
		bool copied = (__u64)h->off[i] * 8 + 8 <= d->snap.stack_len;

		offs[i] = copied ? h->off[i] : SNAP_WORD_ABSENT;
		words[i] = 0;
		if (copied)
			memcpy(&words[i], d->stack + (size_t)h->off[i] * 8, 8);
	}
	memcpy(s->payload, offs, h->n * sizeof(*offs));
	memcpy(s->payload + SNAP_SPARSE_WORDS_AT, words, h->n * sizeof(*words));
	return HDR_SZ + SNAP_SPARSE_BYTES(h->n);
}

/* Two captures from one call site, hint key fields set as BPF sets them. */
static void two_captures(struct snap_rec *r, size_t *lens)
{
	for (volatile int i = 0; i < 2; i++) {
		caller_a(&r[i], &lens[i]);
		r[i].snap.hint_dist = 4096;
		r[i].ev.tgid = (__u32)getpid();
	}
}

Test(dwarf_stacks, a_hint_learnt_from_a_dense_copy_unwinds_a_sparse_one_alike)
{
	static struct snap_rec recs[2];
	static struct sparse_rec sp;
	struct dwarf_stacks *ds = dwarf_stacks__new(getpid());
	struct hint_log log = {0};
	struct dwarf_stacks_stats st;
	struct alloc_event ev, ev2;
	size_t lens[2], sz;

	cr_assert_not_null(ds);
	dwarf_stacks__set_hint_sink(ds, log_hint, &log);
	two_captures(recs, lens);
	cr_assert_eq(dwarf_stacks__resolve(ds, &recs[0], HDR_SZ + lens[0], &ev), 0);
	cr_assert_geq(ev.stack_id, 0);
	cr_assert_eq(log.sets, 1, "the dense unwind taught no hint");
	cr_expect_eq(log.key.ip, recs[0].snap.ip);
	cr_expect_eq(log.key.dist, 4096);
	cr_expect_eq(log.key.tgid, (__u32)getpid());
	cr_assert_gt(log.hint.n, 2, "a return address per frame at least: %u", log.hint.n);
	for (__u32 i = 1; i < log.hint.n; i++)
		cr_assert_gt(log.hint.off[i], log.hint.off[i - 1], "offsets not ascending");
	/* The return addresses steered the unwind: they are checked, with the copy's values. */
	cr_assert_geq(log.hint.n_ctl, 2, "steering words: %u", log.hint.n_ctl);
	for (__u32 j = 0; j < log.hint.n_ctl; j++) {
		__u64 v;

		memcpy(&v, recs[0].stack + (size_t)log.hint.ctl[j] * 8, 8);
		cr_expect_eq(log.hint.expect[j], v, "steering word %u", log.hint.ctl[j]);
	}
	/* far fewer words than the copy holds */
	cr_expect_lt(log.hint.n * 8, lens[1] / 4, "%u words of a %zu-byte copy", log.hint.n,
		     lens[1]);

	sz = make_sparse(&sp, &recs[1], &log.hint);
	cr_assert_eq(dwarf_stacks__resolve(ds, &sp, sz, &ev2), 0);
	cr_expect_eq(ev2.stack_id, ev.stack_id, "the sparse copy unwound to another stack");
	cr_expect_eq(ev2.addr, 0x1000);
	dwarf_stacks__stats(ds, &st);
	cr_expect_eq(st.snapshots, 2);
	cr_expect_eq(st.sparse, 1);
	cr_expect_eq(st.hint_misses, 0);
	cr_expect_eq(st.partial, 0);
	cr_expect_eq(st.hints_set, 1);
	/* the same dense chain again teaches nothing new: no second set */
	cr_assert_eq(dwarf_stacks__resolve(ds, &recs[1], HDR_SZ + lens[1], &ev2), 0);
	cr_expect_eq(log.sets, 1);
	dwarf_stacks__free(ds);
	cr_expect_eq(log.deletes, 1, "the hint outlived its process's resolver");
}

Test(dwarf_stacks, a_sparse_copy_missing_a_word_is_cut_counted_and_relearnt)
{
	static struct snap_rec recs[2];
	static struct sparse_rec sp;
	struct dwarf_stacks *ds = dwarf_stacks__new(getpid());
	struct hint_log log = {0};
	struct dwarf_stacks_stats st;
	struct alloc_event ev, ev2;
	__u64 full[STACK_MAX_DEPTH], cut[STACK_MAX_DEPTH];
	struct snap_hint h;
	size_t lens[2], sz;
	int n_full, n_cut;

	cr_assert_not_null(ds);
	dwarf_stacks__set_hint_sink(ds, log_hint, &log);
	two_captures(recs, lens);
	cr_assert_eq(dwarf_stacks__resolve(ds, &recs[0], HDR_SZ + lens[0], &ev), 0);
	cr_assert_eq(log.sets, 1);
	/* The outermost word the unwinder read left out: another chain than the hint's. */
	h = log.hint;
	h.n--;
	sz = make_sparse(&sp, &recs[1], &h);
	cr_assert_eq(dwarf_stacks__resolve(ds, &sp, sz, &ev2), 0);
	cr_assert_geq(ev2.stack_id, 0);
	n_full = dwarf_stacks__stack(ds, ev.stack_id, full, STACK_MAX_DEPTH);
	n_cut = dwarf_stacks__stack(ds, ev2.stack_id, cut, STACK_MAX_DEPTH);
	cr_assert_gt(n_cut, 0);
	cr_expect_lt(n_cut, n_full, "a miss did not cut the stack");
	cr_expect_eq(memcmp(cut, full, (size_t)n_cut * sizeof(*cut)), 0,
		     "the cut stack is not a prefix of the dense one");
	dwarf_stacks__stats(ds, &st);
	cr_expect_eq(st.hint_misses, 1);
	cr_expect_eq(st.partial, 1, "a cut stack is an unwind that ended early");
	cr_expect_eq(log.deletes, 1, "the missed hint was left in place");
	/* The next dense copy of the key sets it again. */
	cr_assert_eq(dwarf_stacks__resolve(ds, &recs[1], HDR_SZ + lens[1], &ev2), 0);
	cr_expect_eq(log.sets, 2);
	cr_expect_eq(log.hint.n, h.n + 1);
	dwarf_stacks__free(ds);
}

Test(dwarf_stacks, refused_hints_and_malformed_sparse_records)
{
	static struct snap_rec recs[2];
	static struct sparse_rec sp;
	struct dwarf_stacks *ds = dwarf_stacks__new(getpid());
	struct hint_log log = {.refuse = -E2BIG};
	struct dwarf_stacks_stats st;
	struct alloc_event ev;
	struct snap_hint h = {0};
	size_t lens[2], sz;

	cr_assert_not_null(ds);
	dwarf_stacks__set_hint_sink(ds, log_hint, &log);
	two_captures(recs, lens);
	/* A full map: the key stays dense, and is not offered again. */
	cr_assert_eq(dwarf_stacks__resolve(ds, &recs[0], HDR_SZ + lens[0], &ev), 0);
	cr_assert_eq(dwarf_stacks__resolve(ds, &recs[1], HDR_SZ + lens[1], &ev), 0);
	dwarf_stacks__stats(ds, &st);
	cr_expect_eq(st.hint_refusals, 1);
	cr_expect_eq(st.hints_set, 0);

	h.n = 2;
	h.off[0] = 0;
	h.off[1] = 1;
	sz = make_sparse(&sp, &recs[1], &h);
	cr_expect_eq(dwarf_stacks__resolve(ds, &sp, sz - 1, &ev), -EINVAL, "short payload");
	sp.snap.n_words = SNAP_HINT_MAX + 1;
	cr_expect_eq(dwarf_stacks__resolve(ds, &sp, sizeof(sp), &ev), -EINVAL, "too many words");
	/* Offsets out of order (a hint replaced while BPF read it): a counted failure and a
	 * miss, the event kept. */
	sz = make_sparse(&sp, &recs[1], &h);
	memcpy(sp.payload, (__u16[2]){1, 0}, 4);
	cr_assert_eq(dwarf_stacks__resolve(ds, &sp, sz, &ev), 0);
	cr_expect_lt(ev.stack_id, 0);
	dwarf_stacks__stats(ds, &st);
	cr_expect_eq(st.failures, 1);
	cr_expect_eq(st.hint_misses, 1, "a torn hint is a miss: its site is taught again");
	dwarf_stacks__free(ds);
	cr_expect_eq(log.deletes, 0, "a refused hint was deleted");
}

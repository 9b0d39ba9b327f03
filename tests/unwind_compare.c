#include "unwind_compare.h"

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One program point's stack, after symbolization: its frames without "0xADDR: ". */
struct pp_key {
	char *frames; /* joined by '\n' */
	size_t n;     /* frames */
	uint64_t bytes, blocks;
	uint64_t excess_bytes, excess_blocks; /* above the other profile's, for this key */
};

struct keys {
	struct pp_key *v;
	size_t n;
};

static const char *strip_addr(const char *f)
{
	const char *colon = strstr(f, ": ");

	return !strncmp(f, "0x", 2) && colon ? colon + 2 : f;
}

/* The profile's program points by stack (program points whose frames symbolize alike merge). */
static void keys_of(const struct dhat_profile *p, struct keys *k)
{
	k->v = calloc(p->pp_cnt + 1, sizeof(*k->v));
	k->n = 0;
	cr_assert_not_null(k->v);
	for (size_t i = 0; i < p->pp_cnt; i++) {
		const struct dhat_pp *pp = &p->pps[i];
		size_t len = 1, j;
		char *s;

		for (uint32_t f = 0; f < pp->fs_cnt; f++)
			len += strlen(strip_addr(p->ftbl[p->fs_pool[pp->fs_off + f]])) + 1;
		s = calloc(1, len);
		cr_assert_not_null(s);
		for (uint32_t f = 0; f < pp->fs_cnt; f++) {
			strcat(s, strip_addr(p->ftbl[p->fs_pool[pp->fs_off + f]]));
			strcat(s, "\n");
		}
		for (j = 0; j < k->n && strcmp(k->v[j].frames, s); j++)
			;
		if (j == k->n) {
			k->v[k->n].frames = s;
			k->v[k->n++].n = pp->fs_cnt;
		} else {
			free(s);
		}
		k->v[j].bytes += pp->tb;
		k->v[j].blocks += pp->tbk;
	}
}

static struct pp_key *key_find(struct keys *k, const char *frames)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->v[i].frames, frames))
			return &k->v[i];
	return NULL;
}

static void keys_free(struct keys *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].frames);
	free(k->v);
}

/* a's frames are the first frames of b's, and b has more. */
static bool strict_prefix(const struct pp_key *a, const struct pp_key *b)
{
	return a->n < b->n && !strncmp(a->frames, b->frames, strlen(a->frames));
}

/* What one key holds above the other profile's same key. */
static void excess(struct keys *a, struct keys *b)
{
	for (size_t i = 0; i < a->n; i++) {
		struct pp_key *x = &a->v[i], *y = key_find(b, x->frames);
		uint64_t yb = y ? y->bytes : 0, yk = y ? y->blocks : 0;

		x->excess_bytes = x->bytes > yb ? x->bytes - yb : 0;
		x->excess_blocks = x->blocks > yk ? x->blocks - yk : 0;
	}
}

static bool has_excess(const struct pp_key *k)
{
	return k->excess_blocks || k->excess_bytes;
}

/*
 * Every difference between the profiles is a stack dwarf mode cut short: each dwarf key with
 * excess blocks is a strict prefix of a kernel key with excess, each kernel key with excess
 * extends a dwarf key with excess, and the excesses balance. (A kernel stack shorter than
 * dwarf mode's is a walk that ended early on a wrong row: never allowed.)
 */
static size_t assert_same_stacks(const char *what, struct keys *dw, struct keys *kn)
{
	uint64_t dw_b = 0, dw_k = 0, kn_b = 0, kn_k = 0;
	size_t explained = 0;

	excess(dw, kn);
	excess(kn, dw);
	for (int side = 0; side < 2; side++) {
		struct keys *a = side ? kn : dw, *b = side ? dw : kn;

		for (size_t i = 0; i < a->n; i++) {
			struct pp_key *x = &a->v[i];
			bool ok = false;

			if (!has_excess(x))
				continue;
			for (size_t j = 0; j < b->n && !ok; j++)
				ok = has_excess(&b->v[j]) && (side ? strict_prefix(&b->v[j], x) :
								     strict_prefix(x, &b->v[j]));
			cr_expect(ok,
				  "%s: a stack only --unwind %s gives (%lu blocks, %lu bytes more), "
				  "and no stack dwarf mode cut short explains it:\n%s",
				  what, side ? "kernel" : "dwarf", x->excess_blocks, x->excess_bytes,
				  x->frames);
			if (side) {
				kn_b += x->excess_bytes;
				kn_k += x->excess_blocks;
			} else {
				dw_b += x->excess_bytes;
				dw_k += x->excess_blocks;
				explained += ok;
			}
		}
	}
	cr_expect_eq(dw_k, kn_k, "%s: differing stacks hold %lu blocks (dwarf) and %lu (kernel)",
		     what, dw_k, kn_k);
	cr_expect_eq(dw_b, kn_b, "%s: differing stacks hold %lu bytes (dwarf) and %lu (kernel)",
		     what, dw_b, kn_b);
	return explained;
}

unsigned long long uc_counter(const char *log, const char *name)
{
	const char *at = strstr(log, name);

	cr_assert_not_null(at, "no '%s' in the closing counters:\n%s", name, log);
	return strtoull(at + strlen(name), NULL, 10);
}

unsigned long long uc_expect_kernel_did_the_work(const char *what, const char *klog,
						 unsigned long long max_fallbacks)
{
	unsigned long long unwinds = uc_counter(klog, "kernel unwinds ");
	unsigned long long fallbacks = uc_counter(klog, "fallbacks ");
	unsigned long long no_mapping = uc_counter(klog, "sent as snapshots: ");
	unsigned long long busy = uc_counter(klog, "no mapping (");
	unsigned long long others = fallbacks - (no_mapping <= fallbacks ? no_mapping : fallbacks);

	cr_log_info("%s: %llu stacks unwound in the kernel, %llu fell back to snapshots", what,
		    unwinds, fallbacks);
	/* The default bound: clean runs here have 0-2 fallbacks (ld.so's code before its FDEs)
	 * in up to 77,000. PCs in no mapping are bounded apart, at most half the stacks, not
	 * counting those whose VMA could not be looked at (busy): the memory map was being
	 * changed by another thread (a new thread's malloc arena), a host condition. Twice in
	 * CI (a loaded host) the threads fixture sent one or two threads' allocations as
	 * snapshots that way (177, then 399 of 603); the stacks were right
	 * (uc_expect_same_stacks), the cost was a copy's. */
	if (!max_fallbacks)
		cr_expect_leq((no_mapping - (busy <= no_mapping ? busy : no_mapping)) * 2,
			      unwinds + fallbacks,
			      "%s: %llu of %llu stacks in no mapping (%llu of them busy)\n%s", what,
			      no_mapping, unwinds + fallbacks, busy, klog);
	cr_expect(unwinds > 0 && (max_fallbacks ? fallbacks <= max_fallbacks :
						  others <= 2 ||
							  others * 1000 <= unwinds + fallbacks),
		  "%s: %llu kernel unwinds, %llu fallbacks: the kernel unwinder is not doing the "
		  "work\n%s", what, unwinds, fallbacks, klog);
	return fallbacks;
}

size_t uc_expect_same_stacks(const char *what, const struct dhat_profile *pd,
			     const struct dhat_profile *pk)
{
	struct keys dw, kn;
	size_t cut;

	cr_expect_eq(pd->total_blocks, pk->total_blocks, "%s: blocks: dwarf %lu, kernel %lu", what,
		     pd->total_blocks, pk->total_blocks);
	cr_expect_eq(pd->total_bytes, pk->total_bytes, "%s: bytes: dwarf %lu, kernel %lu", what,
		     pd->total_bytes, pk->total_bytes);
	keys_of(pd, &dw);
	keys_of(pk, &kn);
	cut = assert_same_stacks(what, &dw, &kn);
	cr_log_info("%s: %zu stacks, %zu of dwarf mode's cut short and completed by the kernel",
		    what, kn.n, cut);
	keys_free(&dw);
	keys_free(&kn);
	return cut;
}

bool uc_has_stack_with(const struct dhat_profile *p, const char *const *names, size_t n)
{
	for (size_t i = 0; i < p->pp_cnt; i++) {
		const struct dhat_pp *pp = &p->pps[i];
		size_t found = 0;

		for (size_t k = 0; k < n; k++)
			for (uint32_t f = 0; f < pp->fs_cnt; f++)
				if (strstr(p->ftbl[p->fs_pool[pp->fs_off + f]], names[k])) {
					found++;
					break;
				}
		if (found == n)
			return true;
	}
	return false;
}

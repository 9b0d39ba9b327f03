// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * stack_hints: the hint table of one process, mirrored into the sink (see stack_hints.h).
 *
 * Open addressing by (ip, dist). Each site keeps its variants in 0 .. nv - 1 without gaps,
 * as BPF tries them in that order and stops at the first missing one.
 */
#include "stack_hints.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct hint_site {
	__u64 ip, dist;
	bool used;		  /* slot of the table taken */
	bool refused;		  /* the sink refused a set: the site stays dense */
	__u32 nv;		  /* variants set, 0 .. SNAP_HINT_VARIANTS */
	__u32 next;		  /* full: the variant to replace next (set longest ago) */
	struct snap_hint *v;	  /* nv of them (grown one at a time: most sites have one) */
};

struct stack_hints {
	pid_t tgid;
	stack_hint_fn fn;
	void *ctx;
	struct hint_site *sites;
	size_t cnt, cap; /* used / allocated slots (a power of two) */
};

struct stack_hints *stack_hints__new(pid_t tgid, stack_hint_fn fn, void *ctx)
{
	struct stack_hints *sh;

	if (!fn) {
		errno = EINVAL;
		return NULL;
	}
	sh = calloc(1, sizeof(*sh));
	if (!sh)
		return NULL;
	sh->tgid = tgid;
	sh->fn = fn;
	sh->ctx = ctx;
	return sh;
}

static int send(struct stack_hints *sh, const struct hint_site *s, __u32 variant, bool set)
{
	struct snap_hint_key k = {.ip = s->ip, .dist = s->dist, .tgid = (__u32)sh->tgid,
				  .variant = variant};

	return sh->fn(sh->ctx, &k, set ? &s->v[variant] : NULL);
}

/* Delete the site's variants from the sink. */
static void drop_variants(struct stack_hints *sh, struct hint_site *s)
{
	while (s->nv)
		send(sh, s, --s->nv, false);
	s->next = 0;
}

void stack_hints__free(struct stack_hints *sh)
{
	if (!sh)
		return;
	for (size_t i = 0; i < sh->cap; i++) {
		drop_variants(sh, &sh->sites[i]);
		free(sh->sites[i].v);
	}
	free(sh->sites);
	free(sh);
}

static size_t slot_of(__u64 ip, __u64 dist, size_t cap)
{
	__u64 h = (ip ^ (dist * 0x9E3779B97F4A7C15ull)) * 0xff51afd7ed558ccdull;

	return (size_t)(h >> 17) & (cap - 1);
}

/* The site (ip, dist); created if absent and create is set (NULL when out of memory, or
 * the process has as many sites as the BPF map has keys: no more would fit). */
static struct hint_site *site(struct stack_hints *sh, __u64 ip, __u64 dist, bool create)
{
	size_t i;

	if (create && sh->cnt < SNAP_HINTS_MAX && 2 * (sh->cnt + 1) > sh->cap) {
		size_t cap = sh->cap ? 2 * sh->cap : 64;
		struct hint_site *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t j = 0; j < sh->cap; j++) {
			if (!sh->sites[j].used)
				continue;
			for (i = slot_of(sh->sites[j].ip, sh->sites[j].dist, cap); t[i].used;
			     i = (i + 1) & (cap - 1))
				;
			t[i] = sh->sites[j];
		}
		free(sh->sites);
		sh->sites = t;
		sh->cap = cap;
	}
	if (!sh->cap)
		return NULL;
	for (i = slot_of(ip, dist, sh->cap); sh->sites[i].used; i = (i + 1) & (sh->cap - 1))
		if (sh->sites[i].ip == ip && sh->sites[i].dist == dist)
			return &sh->sites[i];
	if (!create || sh->cnt >= SNAP_HINTS_MAX)
		return NULL;
	sh->sites[i] = (struct hint_site){.ip = ip, .dist = dist, .used = true};
	sh->cnt++;
	return &sh->sites[i];
}

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const __u16 *)a - (int)*(const __u16 *)b;
}

/* The hint of the path rd took over the copy stack: false when it does not fit one. */
static bool make_hint(struct snap_hint *h, __u64 bp, const struct unwind_reads *rd,
		      const unsigned char *stack, size_t stack_len)
{
	__u16 words[UNWIND_READS_MAX];
	size_t m = 0;

	if (!rd->n || rd->n > UNWIND_READS_MAX || rd->n_steering > SNAP_CTL_MAX)
		return false;
	memset(h, 0, sizeof(*h));
	memcpy(words, rd->words, rd->n * sizeof(*words));
	qsort(words, rd->n, sizeof(*words), cmp_u16);
	for (size_t i = 0; i < rd->n; i++) {
		if (m && words[i] == h->off[m - 1])
			continue;
		if (m == SNAP_HINT_MAX) /* too deep a path to be worth it: dense */
			return false;
		h->off[m++] = words[i];
	}
	h->n = (__u32)m;
	h->n_ctl = (__u32)rd->n_steering;
	for (size_t j = 0; j < rd->n_steering; j++) {
		size_t at = (size_t)rd->steering[j] * 8;

		if (at + 8 > stack_len) /* read, so inside the copy: never */
			return false;
		h->ctl[j] = rd->steering[j];
		memcpy(&h->expect[j], stack + at, sizeof(h->expect[j]));
	}
	h->check_bp = rd->need_bp;
	h->bp = rd->need_bp ? bp : 0;
	return true;
}

enum stack_hint_result stack_hints__learn(struct stack_hints *sh, __u64 ip, __u64 dist,
					  __u64 bp, const struct unwind_reads *rd,
					  const unsigned char *stack, size_t stack_len)
{
	struct snap_hint h;
	struct hint_site *s;
	__u32 v;

	if (!sh || !rd || !stack || !make_hint(&h, bp, rd, stack, stack_len))
		return HINT_REFUSED;
	s = site(sh, ip, dist, true);
	if (!s || s->refused)
		return s ? HINT_KEPT : HINT_REFUSED;
	for (v = 0; v < s->nv; v++)
		if (!memcmp(&s->v[v], &h, sizeof(h)))
			return HINT_KEPT;
	if (s->nv < SNAP_HINT_VARIANTS) {
		struct snap_hint *grown = realloc(s->v, (s->nv + 1) * sizeof(*s->v));

		if (!grown)
			return HINT_REFUSED;
		s->v = grown;
		v = s->nv;
	} else {
		v = s->next;
		s->next = (s->next + 1) % SNAP_HINT_VARIANTS;
	}
	s->v[v] = h;
	if (send(sh, s, v, true)) { /* the map is full: this site stays dense */
		drop_variants(sh, s); /* v included if it was set before (v < nv) */
		free(s->v);
		s->v = NULL;
		s->refused = true;
		return HINT_REFUSED;
	}
	if (v == s->nv)
		s->nv++;
	return HINT_NEW;
}

size_t stack_hints__sites(const struct stack_hints *sh)
{
	return sh ? sh->cnt : 0;
}

void stack_hints__forget(struct stack_hints *sh, __u64 ip, __u64 dist)
{
	struct hint_site *s = sh ? site(sh, ip, dist, false) : NULL;

	if (s)
		drop_variants(sh, s);
}

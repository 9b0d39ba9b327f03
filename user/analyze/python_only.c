// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Python-level program points: see python_only.h. */
#include "python_only.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

bool python_only__is_py_frame(const char *frame)
{
	return frame && !strncmp(frame, "py: ", 4);
}

/* The hash of pp's frame indices. */
static uint64_t fs_hash(const struct dhat_profile *p, const struct dhat_pp *pp)
{
	uint64_t h = HASH_FNV64_BASIS;

	for (size_t i = 0; i < pp->fs_cnt; i++)
		h = hash__fnv1a64_word(h, p->fs_pool[pp->fs_off + i]);
	return hash__mix64(h ^ pp->fs_cnt);
}

static bool same_fs(const struct dhat_profile *p, const struct dhat_pp *a, const struct dhat_pp *b)
{
	return a->fs_cnt == b->fs_cnt && !memcmp(p->fs_pool + a->fs_off, p->fs_pool + b->fs_off,
						 a->fs_cnt * sizeof(*p->fs_pool));
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Add PP from's figures (and its access and estimate details) to PP to, and empty from. */
static void merge_into(struct dhat_profile *p, size_t to, size_t from)
{
	struct dhat_pp *a = &p->pps[to], *b = &p->pps[from];

	a->tb += b->tb;
	a->tbk += b->tbk;
	a->tl += b->tl;
	a->gb += b->gb;
	a->gbk += b->gbk;
	a->eb += b->eb;
	a->ebk += b->ebk;
	/* Each member's own peak is a lower bound of the merged one's (the writer's rule). */
	a->mb = max64(max64(a->mb, b->mb), max64(a->gb, a->eb));
	a->mbk = max64(max64(a->mbk, b->mbk), max64(a->gbk, a->ebk));
	if (from < p->acc_cnt && to < p->acc_cnt) {
		p->acc[to].rb += p->acc[from].rb;
		p->acc[to].wb += p->acc[from].wb;
		p->acc[from].rb = p->acc[from].wb = 0;
	}
	if (from < p->est_cnt && to < p->est_cnt) {
		struct dhat_pp_est *x = &p->est[to], *y = &p->est[from];

		x->tb_se = sqrt(x->tb_se * x->tb_se + y->tb_se * y->tb_se);
		x->tbk_se = sqrt(x->tbk_se * x->tbk_se + y->tbk_se * y->tbk_se);
		x->tb_realloc += y->tb_realloc;
		x->tbk_reallocd += y->tbk_reallocd;
		memset(y, 0, sizeof(*y));
	}
	*b = (struct dhat_pp){.fs_off = b->fs_off, .has_tl = b->has_tl};
}

/* An index into pps moved by the merge. */
static void remap(int64_t *pp, const size_t *to, size_t n)
{
	if (*pp >= 0 && (uint64_t)*pp < n)
		*pp = (int64_t)to[*pp];
}

int python_only__fold(struct dhat_profile *p)
{
	size_t n = p->pp_cnt, cap = 16, with_py = 0;
	size_t *to = malloc((n ? n : 1) * sizeof(*to)), *slot;

	while (cap < 2 * n)
		cap *= 2;
	slot = malloc(cap * sizeof(*slot));
	if (!to || !slot) {
		free(to);
		free(slot);
		return -ENOMEM;
	}
	for (size_t k = 0; k < cap; k++)
		slot[k] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		struct dhat_pp *pp = &p->pps[i];
		uint32_t *fs = p->fs_pool ? p->fs_pool + pp->fs_off : NULL;
		size_t kept = 0, k;

		to[i] = i;
		for (size_t f = 0; fs && f < pp->fs_cnt; f++)
			if (python_only__is_py_frame(dhat_profile__frame(p, fs[f])))
				fs[kept++] = fs[f];
		if (!kept)
			continue; /* native only (or no frames): as it was */
		/* Frames past kept are left in the pool, unused. */
		pp->fs_cnt = kept & 0x7fffffffu;
		with_py++;
		for (k = fs_hash(p, pp) & (cap - 1); slot[k] != SIZE_MAX; k = (k + 1) & (cap - 1))
			if (same_fs(p, &p->pps[slot[k]], pp))
				break;
		if (slot[k] == SIZE_MAX) {
			slot[k] = i;
			continue;
		}
		to[i] = slot[k];
		merge_into(p, slot[k], i);
	}
	for (size_t t = 0; t < p->threads_cnt; t++)
		remap(&p->threads[t].top_pp, to, n);
	for (size_t b = 0; b < p->sizes_cnt; b++)
		remap(&p->sizes[b].top_pp, to, n);
	for (size_t a = 0; a < p->arenas.cnt; a++) {
		remap(&p->arenas.v[a].pin_pp, to, n);
		for (size_t f = 0; f < p->arenas.v[a].frag_cnt; f++)
			remap(&p->arenas.v[a].frag[f].pp, to, n);
	}
	free(to);
	free(slot);
	return (int)with_py;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * collector - DHAT accounting for one profile (see collector.h for the rules).
 *
 * Two open-addressing tables with linear probing, both power-of-two sized:
 *  - live blocks, keyed by address (0 = empty slot), deleted by backward shift so that no
 *    tombstones accumulate: a long replay stays at one probe or two per event;
 *  - program points, keyed by (stack_id, fn), holding an index into the pp_stats array
 *    that collector__pps() returns.
 *
 * The "at t-gmax" snapshot (gb/gbk) is lazy twice over. Valgrind copies every PP's live
 * figures into gb/gbk whenever a free or a shrink happens while live bytes == max bytes;
 * doing that literally costs O(PPs) per free in the common steady state "allocate up to the
 * same peak, free, repeat". Instead a snapshot only bumps a generation number; a PP whose
 * live figures are about to change first copies them into gb/gbk if it has not done so since
 * the latest snapshot (its figures cannot have changed since then), and finish() settles the
 * PPs that were never touched again. The result is exactly Valgrind's, at O(1) per event.
 *
 * Memory accounting (collector__memory) is derived from the capacities, so it costs nothing
 * per event; only the resizes, which hold an old and a new table at once, note a peak.
 */
#include "collector.h"

#include "heap_chunk.h"
#include "huge_table.h"
#include "sample_weight.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS_MIN_CAP 1024u
#define PPS_MIN_CAP 256u

/* One live heap block. */
struct block {
	__u64 addr;	/* key; 0 marks an empty slot */
	/* Requested bytes (>= 1): 48 bits hold any block a 64-bit address space can give
	 * (x86-64 user space is 2^47 bytes); the other 16 keep the slot at 32 bytes. */
	__u64 size : 48;
	__u64 over : 16; /* its glibc chunk's bytes beyond size (heap_chunk.h): < 4 KiB + 32 */
	__u64 t_ns;	 /* allocation time, ns since window start (kept across reallocs) */
	/* Index into collector.pps (PPS_MAX of them), and the slot in collector.threads of
	 * the thread that allocated it: 8 bits keep the slot at 32 bytes. */
	__u32 pp : 24;
	__u32 thr : 8;
	__u32 weight;	 /* blocks it stands for: 1, or its sample weight (sample_weight.h) */
};

#define BLOCK_SIZE_MAX ((1ull << 48) - 1)
#define PPS_MAX (1u << 24)

/* Per-PP bookkeeping that is not part of the public pp_stats. */
struct pp_priv {
	__u64 snap_gen; /* the snapshot generation gb/gbk were last brought up to */
};

struct collector {
	__u64 start_ns; /* time origin (bpf_ktime_get_ns clock) */
	__u64 sample_bytes; /* collector_opts.sample_bytes: 0 exact */
	__u64 now_ns;	/* latest event time, ns since start; never goes backwards */
	bool finished;

	struct block *blocks; /* live-block table */
	size_t blocks_cap;    /* power of two */
	size_t blocks_cnt;

	struct pp_stats *pps;	/* program points, dense */
	struct pp_priv *ppx;	/* parallel to pps */
	size_t pps_cnt, pps_cap;
	__u32 *pp_slots;	/* PP hash table: index + 1, 0 = empty */
	size_t pp_slots_cap;	/* power of two */

	__u64 snap_gen;	  /* bumped by every effective t-gmax snapshot */
	bool peak_dirty;  /* a growth reached max_bytes since the last snapshot */

	/* threads[0] holds the threads beyond COLLECTOR_THREADS_MAX; found by tid through
	 * the last one seen, else a scan (a process has few threads allocating) */
	struct thread_stats *threads;
	size_t threads_cnt, threads_cap;
	__u32 last_tid, last_thr;
	void (*thread_name)(void *ctx, __u32 tgid, __u32 tid, char *buf, size_t sz);
	void *thread_name_ctx;

	struct pp_sub *subs;	/* (PP, thread) and (PP, size) sub-totals, dense */
	size_t subs_cnt, subs_cap;
	__u32 *sub_slots;	/* their hash table: index + 1, 0 = empty */
	size_t sub_slots_cap;	/* power of two (0: none yet) */

	struct collector_totals t;
	struct timeline timeline; /* live bytes over time, bounded */
	size_t mem_peak;	  /* highest bytes held, resizes included (collector_mem) */
};

static inline __u64 hash64(__u64 x)
{
	/* Fibonacci hashing after a xor-shift: heap addresses are 16-byte aligned and
	 * clustered, so the low bits alone would collide badly. */
	x ^= x >> 29;
	return x * 0x9E3779B97F4A7C15ull;
}

static inline size_t slot_of(__u64 h, size_t cap)
{
	return (size_t)(h >> 32) & (cap - 1);
}

static size_t pow2_at_least(size_t n, size_t min)
{
	size_t cap = min;

	while (cap < n)
		cap <<= 1;
	return cap;
}

/* ---- memory accounting --------------------------------------------------------------- */

static size_t pps_bytes(size_t pps_cap, size_t slots_cap)
{
	return pps_cap * (sizeof(struct pp_stats) + sizeof(struct pp_priv)) +
	       slots_cap * sizeof(__u32);
}

/* The sub-totals and the thread table: counted with the PPs (collector_mem.pps_sz). */
static size_t extras_bytes(const struct collector *c)
{
	return c->subs_cap * sizeof(struct pp_sub) + c->sub_slots_cap * sizeof(__u32) +
	       c->threads_cap * sizeof(struct thread_stats);
}

/* Bytes held now: the object (the timeline is inside it) and every table's capacity. */
static size_t collector__held(const struct collector *c)
{
	return sizeof(*c) + c->blocks_cap * sizeof(struct block) +
	       pps_bytes(c->pps_cap, c->pp_slots_cap) + extras_bytes(c);
}

/* Called inside a resize, while the old table (still counted by the capacities) and the new
 * one (extra_sz, not counted yet) are both allocated: that moment is a candidate peak. */
static void mem__note_resize(struct collector *c, size_t extra_sz)
{
	size_t sz = collector__held(c) + extra_sz;

	if (sz > c->mem_peak)
		c->mem_peak = sz;
}

/* ---- live-block table ---------------------------------------------------------------- */

static struct block *blocks__find(struct collector *c, __u64 addr)
{
	size_t mask = c->blocks_cap - 1;
	size_t i = slot_of(hash64(addr), c->blocks_cap);

	for (;; i = (i + 1) & mask) {
		struct block *b = &c->blocks[i];

		if (b->addr == addr)
			return b;
		if (!b->addr)
			return NULL;
	}
}

/* Insert into a table known to have room and not to hold addr. */
static void blocks__place(struct block *tab, size_t cap, const struct block *nb)
{
	size_t mask = cap - 1;
	size_t i = slot_of(hash64(nb->addr), cap);

	while (tab[i].addr)
		i = (i + 1) & mask;
	tab[i] = *nb;
}

static int blocks__grow(struct collector *c)
{
	size_t cap = c->blocks_cap * 2;
	struct block *tab = huge_table__alloc(cap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	mem__note_resize(c, cap * sizeof(*tab));
	for (size_t i = 0; i < c->blocks_cap; i++)
		if (c->blocks[i].addr)
			blocks__place(tab, cap, &c->blocks[i]);
	huge_table__free(c->blocks, c->blocks_cap, sizeof(*c->blocks));
	c->blocks = tab;
	c->blocks_cap = cap;
	return 0;
}

/* Insert a block whose address is not in the table. */
static int blocks__insert(struct collector *c, const struct block *nb)
{
	int err;

	/* Keep the load factor at or below 1/2: linear probing stays short. */
	if ((c->blocks_cnt + 1) * 2 > c->blocks_cap) {
		err = blocks__grow(c);
		if (err)
			return err;
	}
	blocks__place(c->blocks, c->blocks_cap, nb);
	c->blocks_cnt++;
	return 0;
}

/* Remove the block at b (a pointer into the table) by backward-shift deletion. */
static void blocks__remove(struct collector *c, struct block *b)
{
	size_t mask = c->blocks_cap - 1;
	size_t hole = (size_t)(b - c->blocks);
	size_t i = hole;

	for (;;) {
		i = (i + 1) & mask;
		if (!c->blocks[i].addr)
			break;
		/* Move entry i into the hole unless its home slot lies cyclically in (hole, i]. */
		size_t home = slot_of(hash64(c->blocks[i].addr), c->blocks_cap);

		if (((i - home) & mask) >= ((i - hole) & mask)) {
			c->blocks[hole] = c->blocks[i];
			hole = i;
		}
	}
	c->blocks[hole].addr = 0;
	c->blocks_cnt--;
}

/* ---- program points ------------------------------------------------------------------ */

static inline __u64 pp_key_hash(__s32 stack_id, __u32 fn, __u32 py_stack)
{
	return hash64(((__u64)(__u32)stack_id << 32) | fn) ^ hash64(py_stack);
}

static int pps__rehash(struct collector *c, size_t cap)
{
	__u32 *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	mem__note_resize(c, cap * sizeof(*slots));
	for (size_t k = 0; k < c->pps_cnt; k++) {
		size_t i = slot_of(pp_key_hash(c->pps[k].stack_id, c->pps[k].fn, c->pps[k].py_stack), cap);

		while (slots[i])
			i = (i + 1) & (cap - 1);
		slots[i] = (__u32)k + 1;
	}
	free(c->pp_slots);
	c->pp_slots = slots;
	c->pp_slots_cap = cap;
	return 0;
}

/* Find or create the PP (stack_id, fn, py_stack); its index goes to *idx. On -ENOMEM nothing
 * changed. */
static int pps__get(struct collector *c, __s32 stack_id, __u32 fn, __u32 py_stack, __u32 *idx)
{
	__u64 h = pp_key_hash(stack_id, fn, py_stack);
	size_t mask = c->pp_slots_cap - 1;
	size_t i = slot_of(h, c->pp_slots_cap);
	struct pp_stats *pp;
	int err;

	for (; c->pp_slots[i]; i = (i + 1) & mask) {
		pp = &c->pps[c->pp_slots[i] - 1];
		if (pp->stack_id == stack_id && pp->fn == fn && pp->py_stack == py_stack) {
			*idx = c->pp_slots[i] - 1;
			return 0;
		}
	}

	if (c->pps_cnt >= PPS_MAX) /* struct block's 24 bits */
		return -E2BIG;
	/* A new PP: make room first, so that a failure leaves everything as it was. */
	if (c->pps_cnt == c->pps_cap) {
		size_t cap = c->pps_cap * 2;
		struct pp_stats *pps = realloc(c->pps, cap * sizeof(*pps));
		struct pp_priv *ppx;

		if (!pps)
			return -ENOMEM;
		/* realloc may have copied: old and new arrays at once (an upper bound). */
		mem__note_resize(c, cap * sizeof(*pps));
		c->pps = pps;
		ppx = realloc(c->ppx, cap * sizeof(*ppx));
		if (!ppx)
			return -ENOMEM;
		/* Now: pps at its new size (counted at the old one), old and new ppx. */
		mem__note_resize(c, (cap - c->pps_cap) * sizeof(*pps) + cap * sizeof(*ppx));
		c->ppx = ppx;
		c->pps_cap = cap;
	}
	if ((c->pps_cnt + 1) * 2 > c->pp_slots_cap) {
		err = pps__rehash(c, c->pp_slots_cap * 2);
		if (err)
			return err;
		mask = c->pp_slots_cap - 1;
		for (i = slot_of(h, c->pp_slots_cap); c->pp_slots[i]; i = (i + 1) & mask)
			;
	}
	pp = &c->pps[c->pps_cnt];
	memset(pp, 0, sizeof(*pp));
	pp->stack_id = stack_id;
	pp->fn = fn;
	pp->py_stack = py_stack;
	/* Not live at any earlier snapshot: gb/gbk = 0 is already up to date. */
	c->ppx[c->pps_cnt].snap_gen = c->snap_gen;
	c->pp_slots[i] = (__u32)c->pps_cnt + 1;
	*idx = (__u32)c->pps_cnt++;
	return 0;
}

/* ---- threads and sub-totals ---------------------------------------------------------- */

/* The slot of thread tid (of process tgid), made at first sight; 0 when the table is full
 * or cannot grow. */
static __u32 thread_slot(struct collector *c, __u32 tgid, __u32 tid)
{
	struct thread_stats *t;

	if (c->threads_cnt && c->last_tid == tid)
		return c->last_thr;
	for (size_t i = 1; i < c->threads_cnt; i++)
		if (c->threads[i].tid == tid) {
			c->last_tid = tid;
			c->last_thr = (__u32)i;
			return (__u32)i;
		}
	if (c->threads_cnt > COLLECTOR_THREADS_MAX)
		return 0;
	if (c->threads_cnt == c->threads_cap) {
		size_t cap = c->threads_cap ? c->threads_cap * 2 : 16;
		struct thread_stats *v;

		if (cap > COLLECTOR_THREADS_MAX + 1)
			cap = COLLECTOR_THREADS_MAX + 1;
		v = realloc(c->threads, cap * sizeof(*v));
		if (!v)
			return 0;
		mem__note_resize(c, cap * sizeof(*v));
		c->threads = v;
		c->threads_cap = cap;
	}
	if (!c->threads_cnt) /* slot 0: the rest */
		memset(&c->threads[c->threads_cnt++], 0, sizeof(*t));
	t = &c->threads[c->threads_cnt];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	/* now, while the thread most likely still runs: a short-lived one is gone by the
	 * time the profile is written */
	if (c->thread_name)
		c->thread_name(c->thread_name_ctx, tgid, tid, t->comm, sizeof(t->comm));
	c->last_tid = tid;
	c->last_thr = (__u32)c->threads_cnt;
	return (__u32)c->threads_cnt++;
}

/* Thread slot thr's live bytes change by +b/+bk (grow) or -b/-bk. */
static void thread_live(struct collector *c, __u32 thr, __u64 b, __u64 bk, bool grow)
{
	struct thread_stats *t;

	if (thr >= c->threads_cnt)
		return;
	t = &c->threads[thr];
	if (!grow) {
		t->cur_b -= b;
		t->cur_bk -= bk;
		return;
	}
	t->cur_b += b;
	t->cur_bk += bk;
	if (t->cur_b >= t->mb) {
		t->mb = t->cur_b;
		t->mbk = t->cur_bk;
	}
}

static unsigned size_log2(__u64 size)
{
	return size ? 63u - (unsigned)__builtin_clzll(size) : 0;
}

static inline __u64 sub_hash(__u32 pp, __u32 tag)
{
	return hash64((__u64)pp << 32 | tag);
}

/* Add b/bk to the (pp, tag) sub-total; counted as dropped when there is no room. */
static void sub_add(struct collector *c, __u32 pp, __u32 tag, __u64 b, __u64 bk)
{
	size_t mask, i;
	struct pp_sub *e;

	if (c->sub_slots_cap) {
		mask = c->sub_slots_cap - 1;
		for (i = slot_of(sub_hash(pp, tag), c->sub_slots_cap); c->sub_slots[i];
		     i = (i + 1) & mask) {
			e = &c->subs[c->sub_slots[i] - 1];
			if (e->pp == pp && e->tag == tag) {
				e->tb += b;
				e->tbk += bk;
				return;
			}
		}
	}
	if (c->subs_cnt >= COLLECTOR_SUBS_MAX)
		goto dropped;
	if (c->subs_cnt == c->subs_cap) {
		size_t cap = c->subs_cap ? c->subs_cap * 2 : 256;
		struct pp_sub *v = realloc(c->subs, cap * sizeof(*v));

		if (!v)
			goto dropped;
		mem__note_resize(c, cap * sizeof(*v));
		c->subs = v;
		c->subs_cap = cap;
	}
	if ((c->subs_cnt + 1) * 2 > c->sub_slots_cap) { /* rehash at half full */
		size_t cap = c->sub_slots_cap ? c->sub_slots_cap * 2 : 512;
		__u32 *slots = calloc(cap, sizeof(*slots));

		if (!slots)
			goto dropped;
		mem__note_resize(c, cap * sizeof(*slots));
		for (size_t k = 0; k < c->subs_cnt; k++) {
			for (i = slot_of(sub_hash(c->subs[k].pp, c->subs[k].tag), cap); slots[i];
			     i = (i + 1) & (cap - 1))
				;
			slots[i] = (__u32)k + 1;
		}
		free(c->sub_slots);
		c->sub_slots = slots;
		c->sub_slots_cap = cap;
	}
	mask = c->sub_slots_cap - 1;
	for (i = slot_of(sub_hash(pp, tag), c->sub_slots_cap); c->sub_slots[i]; i = (i + 1) & mask)
		;
	c->subs[c->subs_cnt] = (struct pp_sub){ .pp = pp, .tag = tag, .tb = b, .tbk = bk };
	c->sub_slots[i] = (__u32)++c->subs_cnt;
	return;
dropped:
	c->t.subs_dropped++;
}

/* One more allocation (or realloc) of size bytes weighing b/bk at pp by thread slot thr. */
static void note_alloc(struct collector *c, __u32 pp, __u32 thr, __u64 size, __u64 b, __u64 bk)
{
	if (thr < c->threads_cnt) {
		c->threads[thr].tb += b;
		c->threads[thr].tbk += bk;
	}
	sub_add(c, pp, thr, b, bk);
	sub_add(c, pp, PP_SUB_SIZE + size_log2(size), b, bk);
}

/* ---- accounting ---------------------------------------------------------------------- */

/* Bring pp's gb/gbk up to the latest snapshot before its live figures change. */
static inline void pp__settle(struct collector *c, __u32 idx)
{
	if (c->ppx[idx].snap_gen != c->snap_gen) {
		c->pps[idx].gb = c->pps[idx].cur_b;
		c->pps[idx].gbk = c->pps[idx].cur_bk;
		c->ppx[idx].snap_gen = c->snap_gen;
	}
}

/* Valgrind's check_for_peak(): before a free or a shrink, and at finish. */
static inline void check_for_peak(struct collector *c)
{
	if (c->peak_dirty && c->t.live_bytes == c->t.max_bytes) {
		c->snap_gen++;
		c->peak_dirty = false;
	}
}

/* After an allocation or growth: a new (or equal, so the latest) global peak? */
static inline void note_growth(struct collector *c, struct pp_stats *pp)
{
	if (c->t.live_bytes >= c->t.max_bytes) {
		c->t.max_bytes = c->t.live_bytes;
		c->t.max_blocks = c->t.live_blocks;
		c->t.tg_ns = c->now_ns;
		c->peak_dirty = true;
	}
	/* dhat-rs: the PP's own peak, updated when live >= max. */
	if (pp->cur_b >= pp->mb) {
		pp->mb = pp->cur_b;
		pp->mbk = pp->cur_bk;
	}
}

/* glibc's dynamic mmap threshold (malloc.c, free): freeing an mmapped chunk larger than the
 * threshold, up to DEFAULT_MMAP_THRESHOLD_MAX (32 MiB), raises the threshold to its size. */
static void note_mmapped_free(struct collector *c, const struct block *b)
{
	__u64 chunk = b->size + b->over;

	if (heap_chunk__glibc_mmapped(b->addr, chunk) && chunk <= (32ull << 20) &&
	    chunk > c->t.mmap_freed_max)
		c->t.mmap_freed_max = chunk;
}

/* Free the live block b (a pointer into the table). */
static void free_block(struct collector *c, struct block *b)
{
	struct pp_stats *pp = &c->pps[b->pp];

	check_for_peak(c);
	pp__settle(c, b->pp);
	pp->cur_b -= b->size * b->weight;
	pp->cur_bk -= b->weight;
	pp->tl_ns += (c->now_ns - b->t_ns) * b->weight;
	thread_live(c, b->thr, b->size * b->weight, b->weight, false);
	c->t.live_bytes -= b->size * b->weight;
	c->t.live_chunk_bytes -= (b->size + b->over) * b->weight;
	c->t.live_blocks -= b->weight;
	blocks__remove(c, b);
}

/* A new block at program point birth_pp when it is not NO_PP, else at stack_id's.
 * by_realloc: sampled mode's realloc of a block whose birth site is not known, charged to the
 * realloc's own site (pp_stats.tb_realloc). */
#define NO_PP UINT32_MAX

static int new_block_at(struct collector *c, const struct alloc_event *e, __u64 addr, __u64 size,
			__s32 stack_id, __u32 fn, __u32 birth_pp, bool by_realloc)
{
	struct block nb = { .addr = addr, .t_ns = c->now_ns, .weight = 1 };
	struct block *old;
	struct pp_stats *pp;
	__u64 b, bk;
	int err;

	/* No allocator can return more than 2^47 bytes: a bigger size is a lie, kept bounded. */
	nb.size = (size ? (size < BLOCK_SIZE_MAX ? size : BLOCK_SIZE_MAX) : 1) & BLOCK_SIZE_MAX;
	nb.over = (heap_chunk__glibc(addr, nb.size, fn) - nb.size) & 0xffff;
	if (c->sample_bytes)
		nb.weight = (__u32)sample_weight__draw(nb.size, c->sample_bytes,
						       addr ^ (c->now_ns << 17) ^ c->t.events);
	bk = nb.weight;
	b = nb.size * bk;

	if (stack_id < 0 && birth_pp == NO_PP)
		c->t.stack_failures++;
	old = blocks__find(c, addr);
	if (old) {
		/* The address is live already: its free was lost. Retire the stale block. */
		c->t.replaced_blocks++;
		free_block(c, old);
	}
	if (birth_pp == NO_PP) {
		__u32 idx;

		if ((err = pps__get(c, stack_id, fn, e ? e->py_stack : 0, &idx)))
			return err;
		birth_pp = idx;
	}
	nb.pp = birth_pp & (PPS_MAX - 1);
	nb.thr = thread_slot(c, e->tgid, e->tid) & 0xff;
	err = blocks__insert(c, &nb);
	if (err)
		return err;

	pp = &c->pps[nb.pp];
	pp__settle(c, nb.pp);
	pp->tb += b;
	pp->tbk += bk;
	if (c->sample_bytes) {
		double v = sample_weight__var(nb.size, c->sample_bytes);

		pp->tb_var += (double)nb.size * (double)nb.size * v;
		pp->tbk_var += v;
		if (by_realloc)
			pp->tb_realloc += b;
	}
	pp->cur_b += b;
	pp->cur_bk += bk;
	note_alloc(c, nb.pp, nb.thr, nb.size, b, bk);
	thread_live(c, nb.thr, b, bk, true);
	c->t.total_bytes += b;
	c->t.total_blocks += bk;
	c->t.live_bytes += b;
	c->t.live_chunk_bytes += (nb.size + nb.over) * bk;
	c->t.live_blocks += bk;
	note_growth(c, pp);
	return 0;
}

/* realloc(old_addr -> addr, size) of a known block b: DHAT's rules (§6.1). */
static int resize_block(struct collector *c, struct block *b, __u64 addr, __u64 size)
{
	__u32 idx = b->pp;
	struct pp_stats *pp = &c->pps[idx];
	__u64 old = b->size;
	struct block moved;
	struct block *clash;
	__u32 over;

	if (size > BLOCK_SIZE_MAX)
		size = BLOCK_SIZE_MAX; /* as new_block */
	over = (__u32)(heap_chunk__glibc(addr, size, FN_REALLOC) - size);

	if (size < old)
		check_for_peak(c);
	pp__settle(c, idx);
	pp->tb += size;
	pp->tbk++;
	pp->cur_b = pp->cur_b - old + size;
	/* the thread that allocated the block: its live bytes are what this changes */
	note_alloc(c, idx, b->thr, size, size, 1);
	thread_live(c, b->thr, size >= old ? size - old : old - size, 0, size >= old);
	c->t.total_bytes += size;
	c->t.total_blocks++;
	c->t.live_bytes = c->t.live_bytes - old + size;
	c->t.live_chunk_bytes = c->t.live_chunk_bytes - old - b->over + size + over;
	if (size >= old)
		note_growth(c, pp);

	if (addr == b->addr) {
		b->size = size & BLOCK_SIZE_MAX;
		b->over = over & 0xffff;
		return 0;
	}
	/* The block moved: same PP, same allocation time (Valgrind's lifetime rule). */
	moved = *b;
	moved.addr = addr;
	moved.size = size & BLOCK_SIZE_MAX;
	moved.over = over & 0xffff;
	/* Remove first: the re-insert then never needs to grow the table, so cannot fail
	 * unless a stale block at addr had to be retired (one slot freed for one used). */
	blocks__remove(c, b);
	clash = blocks__find(c, addr);
	if (clash) {
		c->t.replaced_blocks++;
		free_block(c, clash);
	}
	return blocks__insert(c, &moved);
}

struct collector *collector__new(__u64 start_ns, const struct collector_opts *opts)
{
	size_t hint = opts && opts->expected_blocks ? opts->expected_blocks : 0;
	struct collector *c = calloc(1, sizeof(*c));
	int err = -ENOMEM;

	if (!c)
		goto cleanup;
	c->start_ns = start_ns;
	c->sample_bytes = opts ? opts->sample_bytes : 0;
	c->thread_name = opts ? opts->thread_name : NULL;
	c->thread_name_ctx = opts ? opts->thread_name_ctx : NULL;
	timeline__init(&c->timeline, 0);
	c->blocks_cap = pow2_at_least(hint * 2, BLOCKS_MIN_CAP);
	c->blocks = huge_table__alloc(c->blocks_cap, sizeof(*c->blocks));
	c->pps_cap = PPS_MIN_CAP;
	c->pps = calloc(c->pps_cap, sizeof(*c->pps));
	c->ppx = calloc(c->pps_cap, sizeof(*c->ppx));
	c->pp_slots_cap = PPS_MIN_CAP * 2;
	c->pp_slots = calloc(c->pp_slots_cap, sizeof(*c->pp_slots));
	if (!c->blocks || !c->pps || !c->ppx || !c->pp_slots)
		goto cleanup;
	c->mem_peak = collector__held(c);
	return c;

cleanup:
	collector__free(c);
	errno = -err;
	return NULL;
}

/* A copy of n elements of sz bytes at src, or NULL. */
static void *dup_array(const void *src, size_t n, size_t sz)
{
	void *p = malloc(n * sz);

	return p ? memcpy(p, src, n * sz) : NULL;
}

struct collector *collector__clone(const struct collector *c)
{
	struct collector *k = malloc(sizeof(*k));

	if (!k)
		return NULL;
	*k = *c;
	k->blocks = huge_table__alloc(c->blocks_cap, sizeof(*c->blocks));
	if (k->blocks)
		memcpy(k->blocks, c->blocks, c->blocks_cap * sizeof(*c->blocks));
	k->pps = dup_array(c->pps, c->pps_cap, sizeof(*c->pps));
	k->ppx = dup_array(c->ppx, c->pps_cap, sizeof(*c->ppx));
	k->pp_slots = dup_array(c->pp_slots, c->pp_slots_cap, sizeof(*c->pp_slots));
	k->threads = c->threads_cap ? dup_array(c->threads, c->threads_cap, sizeof(*c->threads))
				    : NULL;
	k->subs = c->subs_cap ? dup_array(c->subs, c->subs_cap, sizeof(*c->subs)) : NULL;
	k->sub_slots = c->sub_slots_cap
			       ? dup_array(c->sub_slots, c->sub_slots_cap, sizeof(*c->sub_slots))
			       : NULL;
	if (!k->blocks || !k->pps || !k->ppx || !k->pp_slots || (c->threads_cap && !k->threads) ||
	    (c->subs_cap && !k->subs) || (c->sub_slots_cap && !k->sub_slots)) {
		collector__free(k);
		errno = ENOMEM;
		return NULL;
	}
	return k;
}

void collector__free(struct collector *c)
{
	if (!c)
		return;
	huge_table__free(c->blocks, c->blocks_cap, sizeof(*c->blocks));
	free(c->pps);
	free(c->ppx);
	free(c->pp_slots);
	free(c->threads);
	free(c->subs);
	free(c->sub_slots);
	free(c);
}

/* Event time as ns since the window start, clamped so that time never runs backwards
 * (records from different CPUs can carry slightly out-of-order timestamps). */
static inline void advance_clock(struct collector *c, __u64 ts_ns)
{
	__u64 t = ts_ns > c->start_ns ? ts_ns - c->start_ns : 0;

	if (t > c->now_ns)
		c->now_ns = t;
}

static int collector__account(struct collector *c, const struct alloc_event *e)
{
	struct block *b;

	if (c->finished)
		return -EINVAL;

	switch (e->type) {
	case EV_ALLOC:
		c->t.events++;
		advance_clock(c, e->ts_ns);
		if (!e->addr) /* failed allocation: nothing to account */
			return 0;
		/* Sampled mode: old_addr is the block a realloc grew this one from, a block
		 * sampling did not keep (its birth site is unknown: charged here). */
		return new_block_at(c, e, e->addr, e->size, e->stack_id, e->fn, NO_PP,
				    c->sample_bytes && e->old_addr);

	case EV_FREE:
		c->t.events++;
		advance_clock(c, e->ts_ns);
		b = e->addr ? blocks__find(c, e->addr) : NULL;
		if (!b) {
			c->t.unknown_frees++;
			return 0;
		}
		if (c->sample_bytes && e->size) /* a realloc into a block not kept */
			c->pps[b->pp].tbk_reallocd += b->weight;
		note_mmapped_free(c, b);
		free_block(c, b);
		return 0;

	case EV_REALLOC:
		c->t.events++;
		advance_clock(c, e->ts_ns);
		if (!e->addr && e->size) /* the realloc failed: the old block is untouched */
			return 0;
		b = e->old_addr ? blocks__find(c, e->old_addr) : NULL;
		if (!b) {
			/* Allocated before the window (or its record was lost): dhat-rs makes it
			 * a new block at the realloc's own program point. */
			c->t.unknown_frees++;
			if (!e->addr)
				return 0;
			/* sampled: a block whose birth site is not known, as an EV_ALLOC with
			 * old_addr (tbRealloc) */
			return new_block_at(c, e, e->addr, e->size, e->stack_id, e->fn, NO_PP,
					    c->sample_bytes != 0);
		}
		if (!e->size || c->sample_bytes) {
			/* Sampled: the old block's end, and a new block decided by BPF afresh
			 * (sampling.bpf.h), with a weight of its own; it stays at the old block's
			 * program point, as DHAT's rule keeps a realloc'd block at its birth site
			 * (known here: the old block was sampled). Exact: not sent (realloc(p, 0)
			 * is EV_FREE); be safe. */
			__u32 birth_pp = b->pp;

			if (c->sample_bytes && e->size)
				c->pps[birth_pp].tbk_reallocd += b->weight;
			free_block(c, b);
			if (!e->size || !e->addr)
				return 0;
			return new_block_at(c, e, e->addr, e->size, e->stack_id, e->fn, birth_pp,
					    false);
		}
		return resize_block(c, b, e->addr, e->size);

	default:
		return -EINVAL;
	}
}

int collector__handle(struct collector *c, const struct alloc_event *e)
{
	int err = collector__account(c, e);

	timeline__note(&c->timeline, c->now_ns, c->t.live_bytes, c->t.live_chunk_bytes);
	return err;
}

void collector__finish(struct collector *c, __u64 end_ns)
{
	if (c->finished)
		return;
	advance_clock(c, end_ns);
	c->t.te_ns = c->now_ns;
	check_for_peak(c);

	/* Settle every PP's snapshot and record what is still live. */
	for (size_t k = 0; k < c->pps_cnt; k++) {
		struct pp_stats *pp = &c->pps[k];

		pp__settle(c, (__u32)k);
		pp->eb = pp->cur_b;
		pp->ebk = pp->cur_bk;
	}
	for (size_t i = 0; i < c->threads_cnt; i++) {
		c->threads[i].eb = c->threads[i].cur_b;
		c->threads[i].ebk = c->threads[i].cur_bk;
	}
	/* Blocks still live count their lifetime up to t-end. */
	for (size_t i = 0; i < c->blocks_cap; i++) {
		const struct block *b = &c->blocks[i];

		if (b->addr)
			c->pps[b->pp].tl_ns += (c->t.te_ns - b->t_ns) * b->weight;
	}
	timeline__note(&c->timeline, c->t.te_ns, c->t.live_bytes, c->t.live_chunk_bytes);
	c->finished = true;
}

void collector__each_block(const struct collector *c, collector_block_fn fn, void *ctx)
{
	for (size_t i = 0; i < c->blocks_cap; i++) {
		const struct block *b = &c->blocks[i];
		struct collector_block cb;

		if (!b->addr)
			continue;
		cb = (struct collector_block){ b->addr, b->size, b->size + b->over, b->pp };
		fn(ctx, &cb);
	}
}

void collector__live(const struct collector *c, __u64 now_ns, __u64 min_age_ns,
		     struct pp_live *out, size_t cnt)
{
	/* Block times are relative to the start; a record newer than now_ns counts as age 0. */
	__u64 now = now_ns > c->start_ns ? now_ns - c->start_ns : 0;

	memset(out, 0, cnt * sizeof(*out));
	for (size_t i = 0; i < c->blocks_cap; i++) {
		const struct block *b = &c->blocks[i];
		__u64 age = now > b->t_ns ? now - b->t_ns : 0;

		if (!b->addr || b->pp >= cnt || age < min_age_ns)
			continue;
		out[b->pp].bytes += b->size;
		out[b->pp].blocks++;
		if (age > out[b->pp].oldest_ns)
			out[b->pp].oldest_ns = age;
	}
}

const struct timeline *collector__timeline(const struct collector *c)
{
	return &c->timeline;
}

void collector__memory(const struct collector *c, struct collector_mem *m)
{
	m->blocks_sz = c->blocks_cap * sizeof(struct block);
	m->pps_sz = pps_bytes(c->pps_cap, c->pp_slots_cap) + extras_bytes(c);
	m->timeline_sz = sizeof(c->timeline);
	m->base_sz = sizeof(*c) - sizeof(c->timeline);
	m->total_sz = collector__held(c);
	/* Every resize noted a peak at least as large as what it left held. */
	m->peak_sz = c->mem_peak > m->total_sz ? c->mem_peak : m->total_sz;
}

__u64 collector__sample_bytes(const struct collector *c)
{
	return c->sample_bytes;
}

__u64 collector__start_ns(const struct collector *c)
{
	return c->start_ns;
}

const struct collector_totals *collector__totals(const struct collector *c)
{
	return &c->t;
}

const struct pp_stats *collector__pps(const struct collector *c, size_t *cnt)
{
	*cnt = c->pps_cnt;
	return c->pps;
}

const struct thread_stats *collector__threads(const struct collector *c, size_t *cnt)
{
	*cnt = c->threads_cnt;
	return c->threads;
}

const struct pp_sub *collector__pp_subs(const struct collector *c, size_t *cnt)
{
	*cnt = c->subs_cnt;
	return c->subs;
}

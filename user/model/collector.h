/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * collector - pairs allocations with frees and keeps DHAT's accounting for ONE profile
 * (one measurement window). It takes plain records (struct alloc_event), never touches
 * libbpf, and is unit-tested by feeding synthetic event streams.
 *
 * Accounting follows Valgrind DHAT / dhat-rs (../shared/docs/dhat-format.md §6, §8):
 *  - requested sizes; calloc = nmemb*size (the BPF side already multiplied);
 *  - malloc(0) is recorded as 1 byte, as Valgrind does;
 *  - realloc(p, n): tbk += 1, tb += n, charged to p's ORIGINAL program point; live bytes
 *    change by n - old; live blocks unchanged; peak check first when shrinking;
 *    lifetime: the block keeps its original allocation time (Valgrind's rule);
 *  - realloc of a pointer we never saw (allocated before the window): a NEW block at the
 *    realloc's own program point (dhat-rs's rule), and its old pointer counted as unknown;
 *  - frees of unknown pointers are ignored and counted (unknown_frees);
 *  - t-gmax: `>=` on growth (the latest equal peak wins); lazy per-PP snapshot of gb/gbk
 *    before every free/shrink and at finish;
 *  - mb/mbk: each program point's own peak (dhat-rs meaning, not Valgrind 3.17+'s);
 *  - besides, every live block is also counted as the glibc malloc chunk that would hold it
 *    (live_chunk_bytes, heap_chunk.h): the heap with the allocator's overhead, whose
 *    writer decides whether it applies (the image's allocator is glibc's).
 * A sampled profile (collector_opts.sample_bytes) weighs each block; see there.
 *
 * Program points are keyed by (stack_id, fn, py_stack): the same stack through a different
 * allocator entry point is a different PP, because its first frame (the allocator) differs;
 * the same native stack under other Python frames (alloc_event.py_stack) is another PP too.
 *
 * Memory is O(peak live blocks + PPs), never O(events): the live-block table deletes without
 * tombstones and grows only when the live blocks outgrow half of it; PPs are deduplicated;
 * the timeline is a fixed array. No table shrinks, so a profile holds what its peak needed.
 * collector__memory() reports it.
 */
#ifndef TRACER_COLLECTOR_H
#define TRACER_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "timeline.h"

/* One program point's DHAT aggregates. Times are in ns relative to the window start. */
struct pp_stats {
	__s32 stack_id; /* key: stack id (negative: capture failed) */
	__u32 fn;	/* key: enum alloc_fn of the allocation that created the PP */
	__u32 py_stack; /* key: the Python stack (alloc_event.py_stack), 0: none */
	__u64 tb, tbk;	/* total bytes / blocks (each realloc is one more block) */
	__u64 tl_ns;	/* sum of block lifetimes (live blocks count up to t-end) */
	__u64 mb, mbk;	/* this PP's own peak live bytes / blocks at that moment */
	__u64 gb, gbk;	/* live at t-gmax */
	__u64 eb, ebk;	/* live at t-end */
	__u64 cur_b, cur_bk; /* live now */
	/* --sample-bytes: the sampling variance of tb and tbk (sample_weight__var); 0 exact */
	double tb_var, tbk_var;
	/* --sample-bytes: the part of tb charged here by reallocs of blocks born at a site not
	 * known (sampling did not keep them): bytes DHAT charges to their birth sites, so
	 * this PP's tb may be too high (dhat_sampled.h); 0 exact */
	__u64 tb_realloc;
	/* --sample-bytes: its blocks (weighted) that a realloc then moved: when sampling does
	 * not keep the new block, the later reallocs of the chain are charged elsewhere, so
	 * this PP's tb may be too low; 0 exact */
	__u64 tbk_reallocd;
};

/* One thread's figures: a block is the thread's that allocated it, also when another thread
 * frees or reallocs it. Slot 0 stands for the threads beyond COLLECTOR_THREADS_MAX (tid 0). */
#define COLLECTOR_THREADS_MAX 255
#define COLLECTOR_COMM_SZ 16
struct thread_stats {
	__u32 tid;
	char comm[COLLECTOR_COMM_SZ]; /* at first sight (collector_opts.thread_name), or "" */
	__u64 tb, tbk;		      /* total bytes / blocks */
	__u64 cur_b, cur_bk;	      /* live now */
	__u64 mb, mbk;		      /* its own peak live bytes, and its blocks then */
	__u64 eb, ebk;		      /* live at t-end */
};

/* A program point's sub-total for one thread or one size bucket (tb, tbk as the PP's). */
#define PP_SUB_SIZE 0x100u /* tag PP_SUB_SIZE + k: sizes in [2^k, 2^(k+1)); else a thread slot */
struct pp_sub {
	__u32 pp, tag;
	__u64 tb, tbk;
};

/* Global figures of one profile, equal to sums over the PPs. */
struct collector_totals {
	__u64 total_blocks, total_bytes; /* Σtbk, Σtb */
	__u64 live_blocks, live_bytes;	 /* live now (Σeb/Σebk after finish) */
	__u64 live_chunk_bytes;		 /* live now, each block as the glibc chunk holding
					  * it (heap_chunk.h): >= live_bytes, whatever the
					  * allocator; meaningful for glibc's malloc only */
	__u64 max_blocks, max_bytes;	 /* at the last global peak (Σgbk, Σgb) */
	__u64 tg_ns;			 /* t-gmax, ns since window start */
	__u64 te_ns;			 /* t-end, ns since window start (set by finish) */
	__u64 events;			 /* records handled */
	__u64 unknown_frees;		 /* frees (and realloc sources) of pointers never seen */
	__u64 stack_failures;		 /* allocations whose stack_id < 0 */
	__u64 replaced_blocks;		 /* allocations at an address still live (its free was
					  * lost): the stale block was retired as freed */
	__u64 subs_dropped;		 /* allocations whose per-thread or per-size
					  * sub-total found no room (COLLECTOR_SUBS_MAX) */
	__u64 mmap_freed_max;		 /* the largest glibc-mmapped chunk freed (up to 32 MiB):
					  * glibc's dynamic mmap threshold, when above 128 KiB */
};

/* Bytes held by one collector, by table: allocated capacities (what malloc was asked for),
 * not the entries in use. malloc's own per-chunk overhead is not included. */
struct collector_mem {
	size_t blocks_sz;   /* live-block table: 32 B a slot; 1024 slots at least, else 2 to 4
			     * slots per live block at the peak (the table never shrinks) */
	size_t pps_sz;	    /* PP array, its private twin and its hash table, the per-thread and
			     * per-size sub-totals and the thread table */
	size_t timeline_sz; /* the bounded live-bytes series (fixed size) */
	size_t base_sz;	    /* the collector object itself, timeline excluded */
	size_t total_sz;    /* sum of the above: held now */
	size_t peak_sz;	    /* highest total_sz so far, counting old and new table during a
			     * resize (both are allocated while the entries move) */
};

struct collector_opts {
	size_t expected_blocks; /* sizing hint for the live-block table (0 = default) */
	/* --sample-bytes N (0: exact): the records are BPF's sample (bpf/sampling.bpf.h). Each
	 * block counts as its integer weight W (sample_weight.h) blocks of its size in every
	 * figure (tb, tbk, tl, live, peaks), and a realloc is a free of the old block and a new
	 * block at the realloc's own program point (BPF decides the new size afresh). */
	__u64 sample_bytes;
	/* Called once for each thread the profile first sees allocate: its name into buf
	 * (NUL-terminated), or leave buf empty. NULL: threads go unnamed. */
	void (*thread_name)(void *ctx, __u32 tgid, __u32 tid, char *buf, size_t sz);
	void *thread_name_ctx;
};

/* New empty profile whose time origin is start_ns (bpf_ktime_get_ns clock).
 * opts may be NULL. Returns NULL and sets errno on failure. */
struct collector *collector__new(__u64 start_ns, const struct collector_opts *opts);
/* Accepts NULL. */
void collector__free(struct collector *c);

/* An independent copy of c (e.g. to finish and write it while c goes on): its own tables,
 * freed with collector__free. NULL and errno on failure. */
struct collector *collector__clone(const struct collector *c);

/* Account one EV_ALLOC / EV_FREE / EV_REALLOC record (borrowed). Other types: -EINVAL.
 * Returns 0 or -errno (-ENOMEM). */
int collector__handle(struct collector *c, const struct alloc_event *e);

/* Close the profile at end_ns: final peak check, eb/ebk, lifetimes of live blocks.
 * No records may be handled afterwards. */
void collector__finish(struct collector *c, __u64 end_ns);

const struct collector_totals *collector__totals(const struct collector *c);
/* The opts' sample_bytes: 0 for an exact profile. */
__u64 collector__sample_bytes(const struct collector *c);
/* The time origin given to collector__new. */
__u64 collector__start_ns(const struct collector *c);
/* Program points, in no particular order; valid until the next collector call.
 * gb/gbk/eb/ebk and the lifetimes of live blocks are final only after collector__finish. */
const struct pp_stats *collector__pps(const struct collector *c, size_t *cnt);

/* The threads seen allocating, slot 0 (tid 0, "other threads") first; *cnt of them. */
const struct thread_stats *collector__threads(const struct collector *c, size_t *cnt);

/* Every (PP, thread) and (PP, size bucket) sub-total, in no order; at most COLLECTOR_SUBS_MAX
 * (later pairs are not counted, collector_totals.subs_dropped says how many records). */
#define COLLECTOR_SUBS_MAX (1u << 20)
const struct pp_sub *collector__pp_subs(const struct collector *c, size_t *cnt);

/* A program point's blocks live now, as a periodic leak table counts them. */
struct pp_live {
	__u64 bytes, blocks; /* live blocks at least min_age_ns old (see collector__live) */
	__u64 oldest_ns;     /* age of the oldest of them at now_ns; 0 without blocks */
};

/* The live blocks of c at now_ns (the bpf_ktime_get_ns clock, as collector__new's start_ns)
 * that are at least min_age_ns old, summed per program point: out[i] is collector__pps()'s
 * i-th PP, for i < cnt (cnt: collector__pps's count at most). O(live-block table). */
void collector__live(const struct collector *c, __u64 now_ns, __u64 min_age_ns,
		     struct pp_live *out, size_t cnt);

/* One live block: its address, requested size, glibc chunk (heap_chunk.h) and program
 * point (an index into collector__pps). A sampled block is one block here, unweighted. */
struct collector_block {
	__u64 addr, size, chunk;
	__u32 pp;
};
typedef void (*collector_block_fn)(void *ctx, const struct collector_block *b);

/* Call fn for every live block, in no particular order. O(live-block table). */
void collector__each_block(const struct collector *c, collector_block_fn fn, void *ctx);

/* The collector's own memory now and at its peak. O(1): no table is walked. */
void collector__memory(const struct collector *c, struct collector_mem *m);

/* Live bytes (and live chunk bytes) over the window (bounded series; see timeline.h). */
const struct timeline *collector__timeline(const struct collector *c);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * sampling.bpf.h - tracer --sample-bytes N in the allocator probes (bpf/alloc.bpf.c): which
 * outermost calls become records. The arithmetic is bpf/sampling.h's, shared with userspace.
 *
 * Exact mode (sample_bytes == 0, the default): every call is a record, no map is touched.
 *
 * Sampled mode: a new block of s bytes is sampled with probability p(s) = 1 - exp(-s/N),
 * decided at the ENTRY of the call (the size is an argument), so an unsampled call does no
 * return work and sends nothing. A sampled block's address is kept in `sampled_blocks` from
 * its allocation record to its free; a free sends a record only for an address found there.
 *   malloc, calloc, memalign, posix_memalign, new, __rust_alloc..  decided by their size
 *   free, delete, __rust_dealloc                                 a record iff p is sampled
 *   realloc(p, n) (reallocarray, __rust_realloc)  the old block is freed and a new one of n
 *       bytes decided afresh, as heapprofd and tcmalloc do. Records: both sampled EV_REALLOC
 *       (the collector splits it into a free and a new block at p's program point, DHAT's
 *       birth-site rule), only p EV_FREE(p) with the new size (a free would have size 0),
 *       only the new one EV_ALLOC(fn REALLOC, old_addr p) at the realloc's own call site
 *       (p's site is not known when p was not sampled), neither nothing. Those two fields
 *       let the collector count realloc chains (dhat_sampled.h). realloc(p, 0): EV_FREE(p)
 *       iff p is sampled.
 *   strdup, getline, asprintf...  the helper's net effect (alloc.bpf.c) is known only at
 *       its return: each block born in it is decided there by its size, each block it
 *       resized or freed is handled as realloc and free above. Helpers pay their return.
 * The decision is the entry's; the map is updated when the record is sent (the return), so
 * a failed realloc leaves p sampled. Keys are (process, address). A full map (sample_counters.overflow)
 * drops the block's record (the block is then unsampled, never a leak): the count is reported as a
 * loss.
 */
#ifndef TRACER_SAMPLING_BPF_H
#define TRACER_SAMPLING_BPF_H

#include "alloc_request.h"
#include "sampling.h"

/* Mean bytes between samples (tracer --sample-bytes), 0 = exact. Set by the loader.
 * tests/sampling_unit.c compiles this header on the host, with a variable it sets. */
#ifndef SAMPLING_HOST_TEST
const volatile __u64 sample_bytes = 0;
/* sample__threshold(s, sample_bytes) - 1 of every size s below SAMPLE_TABLE_SIZES, filled by
 * the loader (sample__fill_table): most blocks are small, and the threshold's divisions
 * cost ~30 ns a call here, a lookup nothing. */
const volatile __u32 sample_table[SAMPLE_TABLE_SIZES] = {};
#endif

/* call_state.sampled, decided at the outermost entry. */
#define SAMPLE_NEW    0x1 /* the new block (if any) is sampled */
#define SAMPLE_OLD    0x2 /* the block given (realloc, free, delete) is a sampled one */
#define SAMPLE_HELPER 0x4 /* a libc helper: decided block by block at its return */
#define SAMPLE_ALL    (SAMPLE_NEW | SAMPLE_OLD | SAMPLE_HELPER) /* exact mode */

/* Read by userspace (loader__sample_counters) like `counters`. `sampled` and `skipped`,
 * bumped by every call, are counted per CPU instead (sample_percpu, summed by userspace):
 * a shared counter is a cache line bounced between the CPUs of a multi-threaded target. */
struct sample_counters sample_counters = {};

#ifndef SAMPLING_HOST_TEST
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} sample_percpu SEC(".maps");

static __always_inline void sample__count(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&sample_percpu, &which);

	if (n)
		__sync_fetch_and_add(n, 1); /* this CPU's: atomic against another task here */
}
#else
static void sample__count(__u32 which)
{
	if (which == SAMPLE_PERCPU_SAMPLED)
		sample_counters.sampled++;
	else
		sample_counters.skipped++;
}
#endif

/*
 * Sampled live blocks ((process, address) -> 1: a forked child has its parent's addresses,
 * and must neither find nor remove the parent's blocks). A sampled run keeps about
 * live_bytes / N entries (1 GiB live at N = 4 KiB: 256k); memory grows with the entries (no
 * preallocation). A process that exits with sampled blocks live leaves their entries.
 */
#define SAMPLED_BLOCKS_MAX (1u << 20)

struct sampled_key {
	__u64 addr;
	__u32 tgid;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SAMPLED_BLOCKS_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct sampled_key);
	__type(value, __u8);
} sampled_blocks SEC(".maps");

/*
 * A counting filter in front of sampled_blocks: per slot of the block's address, how many
 * sampled blocks there are. Most frees are of blocks sampling did not keep, and a slot at 0
 * answers those without the hash map: its bucket array is sized for SAMPLED_BLOCKS_MAX (16
 * MiB), where a program with a large heap of its own (jq) takes a cache and TLB miss per
 * lookup (a free cost 381 ns of BPF there against 107 on sed; docs/BENCHMARKS.md), while
 * these 64 KiB stay cached. A slot counts up when an entry goes in (also for a key already
 * in: then it stays high, which only costs lookups) and down when one is deleted, so it is
 * never below the entries of its slot: 0 means none. Forked children share addresses with
 * their parent: a slot counts every process's, and the map decides.
 */
#define SAMPLE_FILTER_SLOTS 16384u

__u32 sample_filter[SAMPLE_FILTER_SLOTS];

static __always_inline __u32 sample__slot(__u64 addr)
{
	/* blocks are 16-byte aligned: the bits above, Fibonacci-mixed */
	return ((__u32)(addr >> 4) * 2654435761u) >> 18 & (SAMPLE_FILTER_SLOTS - 1);
}

/* No sampled block at addr (in any process): the filter's slot is empty. */
static __always_inline bool sample__surely_not(__u64 addr)
{
	return !*(volatile __u32 *)&sample_filter[sample__slot(addr)];
}

static __always_inline struct sampled_key sample__key(__u64 addr)
{
	return (struct sampled_key){.addr = addr,
				    .tgid = (__u32)(bpf_get_current_pid_tgid() >> 32)};
}

/* Whether a new block of size bytes is sampled: a draw against p(size), the very threshold
 * userspace weighs it with (the table holds it, minus 1, for small sizes). */
static __always_inline bool sample__draw(__u64 size)
{
	__u32 r = bpf_get_prandom_u32();

	if (size < SAMPLE_TABLE_SIZES)
		return r <= sample_table[size];
	return (__u64)r < sample__threshold(size, sample_bytes);
}

/* addr is a sampled block of this process: the filter first (nearly every block is not),
 * then the map; *k its key (a helper call, so only past the filter). */
static __always_inline bool sample__find(__u64 addr, struct sampled_key *k)
{
	if (sample__surely_not(addr))
		return false;
	*k = sample__key(addr);
	return bpf_map_lookup_elem(&sampled_blocks, k);
}

static __always_inline bool sample__known(__u64 addr)
{
	struct sampled_key k;

	return addr && sample__find(addr, &k);
}

/* A sampled block's record is about to be sent: remember it. False (record dropped, the
 * block stays unsampled) when the map is full. */
static __always_inline bool sample__track(__u64 addr)
{
	struct sampled_key k = sample__key(addr);
	__u8 one = 1;
	__u32 *slot;

	if (!sample_bytes)
		return true;
	slot = &sample_filter[sample__slot(addr)];
	/* counted first: a free of addr finds the slot taken once the entry is in */
	__sync_fetch_and_add(slot, 1);
	if (bpf_map_update_elem(&sampled_blocks, &k, &one, BPF_ANY)) {
		__sync_fetch_and_add(slot, -1); /* v1 BPF: no atomic sub */
		__sync_fetch_and_add(&sample_counters.overflow, 1);
		return false;
	}
	sample__count(SAMPLE_PERCPU_SAMPLED);
	return true;
}

/* A block is freed: whether its free is a record (exact mode, or it was sampled). */
static __always_inline bool sample__untrack(__u64 addr)
{
	struct sampled_key k;

	if (!sample_bytes)
		return true;
	/* Most frees are of unsampled blocks: the filter answers them; else a lookup (no
	 * bucket lock; a delete takes it). */
	if (!sample__find(addr, &k))
		return false;
	if (bpf_map_delete_elem(&sampled_blocks, &k))
		return false; /* another CPU deleted it first (a double free) */
	__sync_fetch_and_add(&sample_filter[sample__slot(addr)], -1); /* no atomic sub in v1 */
	return true;
}

/*
 * Hook of the outermost entry: the SAMPLE_* decision for fn(a0, a1, a2) (arguments as
 * alloc.bpf.c reads them: realloc's new size in a1). 0: nothing to send, skip the return.
 */
static __always_inline __u32 sample__entry(__u32 fn, __u64 a0, __u64 a1, __u64 a2)
{
	__u64 old, size;
	__u32 d = 0;

	if (!sample_bytes)
		return SAMPLE_ALL;
	if (FN_IS_FREE_AT_RETURN(fn))
		return sample__known(a0) ? SAMPLE_OLD : 0;
	if (!fn_request(fn, a0, a1, a2, &old, &size))
		return SAMPLE_HELPER; /* strdup, getline...: sizes known at the return */
	if (old && sample__known(old))
		d |= SAMPLE_OLD;
	if (old && !size) /* realloc(p, 0): a free */
		return d;
	if (sample__draw(size))
		d |= SAMPLE_NEW;
	if (!d)
		sample__count(SAMPLE_PERCPU_SKIPPED);
	return d;
}

/*
 * Hook of the outermost primitive's return: the record to send for a call decided `d` that
 * changed old -> addr (old 0: a new block; addr 0: old freed), or 0 for none. Updates the map.
 */
static __always_inline __u32 sample__record(__u32 d, __u64 old, __u64 addr)
{
	bool was = (d & SAMPLE_OLD) && old, now = (d & SAMPLE_NEW) && addr;

	if (!sample_bytes)
		return !addr ? EV_FREE : old ? EV_REALLOC : EV_ALLOC;
	if (was)
		sample__untrack(old);
	if (now && !sample__track(addr))
		now = false;
	if (was)
		return now ? EV_REALLOC : EV_FREE;
	return now ? EV_ALLOC : 0;
}

/*
 * Hook of a helper's net-effect table (alloc.bpf.c, net_emit) in sampled mode: one entry
 * (kind, orig -> addr, size) becomes what its record must be, by the rules above.
 * Returns the new kind: NET_EMPTY (nothing), NET_BORN, NET_RESIZED or NET_FREED.
 */
static __always_inline __u32 sample__net(__u32 kind, __u64 orig, __u64 addr, __u64 size)
{
	__u32 d = 0, ev;

	if (!sample_bytes || kind == NET_EMPTY)
		return kind;
	if (kind != NET_BORN && sample__known(orig))
		d |= SAMPLE_OLD;
	if (kind != NET_FREED && sample__draw(size))
		d |= SAMPLE_NEW;
	ev = sample__record(d, kind == NET_BORN ? 0 : orig, kind == NET_FREED ? 0 : addr);
	return ev == EV_REALLOC ? NET_RESIZED
	       : ev == EV_FREE	? NET_FREED
	       : ev == EV_ALLOC ? NET_BORN
				: NET_EMPTY;
}

#endif

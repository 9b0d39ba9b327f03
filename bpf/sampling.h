/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * sampling.h - the arithmetic of --sample-bytes N (Poisson sampling by bytes, as heapprofd
 * and tcmalloc do), shared by the BPF programs (bpf/sampling.bpf.h decides) and userspace
 * (the collector weights), so both use the very same probability.
 *
 * A block of s bytes is sampled with probability p(s) = 1 - exp(-s/N). The probability is a
 * 32-bit fixed-point threshold T (p = T / 2^32): BPF samples when bpf_get_prandom_u32() < T,
 * userspace weighs a sampled block 2^32 / T. The estimates are unbiased whatever the error
 * of T against the exact exponential, because both sides use T; that error (tested in
 * tests/sampling_unit.c, well under 0.01%) only changes how often a size is sampled.
 *
 * Integers only (BPF has no floating point): x = s/N in Q32, then
 *   x < 1/2:  p = x (1 - x/2 (1 - x/3 (... (1 - x/7))))   the series of 1 - exp(-x), which
 *             keeps p's relative precision for tiny blocks (s = 1, N = 64 MiB: p = 2^-26);
 *   x >= 1/2: exp(-x) = exp(-x / 2^k)^(2^k), x / 2^k < 1/2, and p = 1 - that.
 * Sizes of 32 N and more are always sampled (exp(-32) < 2^-32). A size of 0 is decided as 1
 * byte (the collector records malloc(0) as 1 byte): its weight makes the block count unbiased.
 */
#ifndef TRACER_SAMPLING_H
#define TRACER_SAMPLING_H

#ifndef __BPF__
#include <linux/types.h>
#endif

#define SAMPLE_ONE	 (1ull << 32)  /* probability 1 in Q32 */
#define SAMPLE_TABLE_SIZES 4096u       /* sizes whose threshold BPF looks up (sample_table) */
#define SAMPLE_BYTES_MAX (64ull << 20) /* largest N: keeps s << 32 within 64 bits */

/* (a * b) >> 32 for a, b <= 2^32, not both equal to 2^32. */
static inline __u64 sample__mulq(__u64 a, __u64 b)
{
	return (a * b) >> 32;
}

/* 1 - exp(-t) in Q32 for t < 2^31 (t < 1/2 in Q32), by the series above. */
static inline __u64 sample__expm1_neg(__u64 t)
{
	__u64 acc = SAMPLE_ONE;

	/* Constant bounds and divisors: unrolled by clang. */
	for (__u32 i = 7; i >= 2; i--)
		acc = SAMPLE_ONE - sample__mulq(t / i, acc);
	return sample__mulq(t, acc);
}

/*
 * The sampling threshold of a size-byte block at mean N bytes, 1..2^32 (p = T / 2^32).
 * N = 0 (exact mode) or N > SAMPLE_BYTES_MAX: 2^32, every block.
 */
static inline __u64 sample__threshold(__u64 size, __u64 n)
{
	__u64 x, e, p;
	__u32 k = 0;

	if (!n || n > SAMPLE_BYTES_MAX)
		return SAMPLE_ONE;
	if (!size)
		size = 1;
	if (size >= 32 * n)
		return SAMPLE_ONE;
	x = (size << 32) / n; /* size < 2^31: fits */
	for (__u32 i = 0; i < 6; i++)
		if ((x >> k) >= (1ull << 31))
			k++;
	if (!k) {
		p = sample__expm1_neg(x);
	} else {
		e = SAMPLE_ONE - sample__expm1_neg(x >> k); /* exp(-x / 2^k) < 1 */
		for (__u32 i = 0; i < 6; i++)
			if (i < k)
				e = sample__mulq(e, e);
		p = SAMPLE_ONE - e;
	}
	if (!p)
		return 1;
	return p > SAMPLE_ONE ? SAMPLE_ONE : p;
}

/* The table BPF draws small sizes against: sample__threshold(s, n) - 1 for each size s below
 * SAMPLE_TABLE_SIZES (a threshold is 1..2^32, so the table fits 32 bits). */
static inline void sample__fill_table(__u32 *table, __u64 n)
{
	for (__u32 s = 0; s < SAMPLE_TABLE_SIZES; s++)
		table[s] = (__u32)(sample__threshold(s, n) - 1);
}

#endif

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "sample_weight.h"

#include "sampling.h"

double sample_weight__mean(__u64 size, __u64 n)
{
	return (double)SAMPLE_ONE / (double)sample__threshold(size, n);
}

/* splitmix64's finalizer: every bit of key reaches every bit of the result. */
static __u64 mix64(__u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

__u64 sample_weight__draw(__u64 size, __u64 n, __u64 key)
{
	__u64 t = sample__threshold(size, n);

	/* 2^32 / t = q + r / t: q, plus 1 with probability r / t (a uniform 32-bit draw below
	 * r * 2^32 / t, compared without division: draw * t < r * 2^32). */
	__u64 q = SAMPLE_ONE / t, r = SAMPLE_ONE % t;
	__u64 draw = mix64(key) >> 32;

	return q + (draw * t < (r << 32));
}

double sample_weight__var(__u64 size, __u64 n)
{
	__u64 t = sample__threshold(size, n);
	double w = (double)SAMPLE_ONE / (double)t;
	double f = (double)(SAMPLE_ONE % t) / (double)t; /* frac(w), exactly as the draw rounds */

	return w * w - w + f * (1.0 - f);
}

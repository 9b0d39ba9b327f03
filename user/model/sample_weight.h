/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * sample_weight - the weight of a block sampled by --sample-bytes N (bpf/sampling.h): BPF
 * keeps a block of s bytes with probability p = T(s) / 2^32, so each kept block stands for
 * 1/p blocks of s bytes, and weighing it so makes every additive figure (total bytes and
 * blocks, live bytes and blocks at any moment, lifetimes) an unbiased estimate.
 *
 * The collector's figures are integers, so a block's weight is an integer W drawn once per
 * block with E[W] = 1/p exactly: floor(1/p), or one more with probability frac(1/p)
 * (stochastic rounding). Rounding down instead would undercount large blocks (p = 0.6:
 * 1/p = 1.67 -> 1, 40% low). The draw is a hash of the record, so a replay is reproducible.
 */
#ifndef TRACER_SAMPLE_WEIGHT_H
#define TRACER_SAMPLE_WEIGHT_H

#include <linux/types.h>

/* 1/p for a size-byte block at mean n bytes (n = 0: exact, 1). */
double sample_weight__mean(__u64 size, __u64 n);

/* The integer weight of one sampled block, E = sample_weight__mean(size, n); key is any
 * per-block value (the collector hashes address and time). n = 0: 1. */
__u64 sample_weight__draw(__u64 size, __u64 n, __u64 key);

/*
 * The sampling error a sampled block brings to a count it is added to, as a variance per
 * unit: a site's total blocks estimate has variance sum(v) over its sampled blocks, its
 * total bytes sum(size^2 v). Each block of the program adds X = I W to the estimate (I: it
 * was kept, with probability p; W: its weight, mean w = 1/p, rounded up with probability
 * f = frac(w)): E[X] = 1, Var(X) = w + p f (1 - f) - 1. The kept blocks are the only ones
 * seen, so each stands for Var(X) / p (Horvitz-Thompson), which is
 *	v = w^2 - w + f (1 - f)
 * 0 for a block always kept (p = 1), and for every block of an exact profile (n = 0).
 */
double sample_weight__var(__u64 size, __u64 n);

#endif

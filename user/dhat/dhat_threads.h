/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dhat_threads - who allocated and how big: two optional top-level arrays of ours that
 * dh_view ignores (the program points and totals stay DHAT's):
 *
 *   ,"threads":[{"tid":4242,"comm":"worker-1","tb":409600,"tbk":100,"mb":40960,"mbk":10
 *               ,"eb":0,"ebk":0,"topPp":3},...]
 *   ,"sizes":[{"log2":6,"tbk":100,"tb":6400,"topPp":3,"topTbk":100},...]
 *
 * threads: each thread of the process as the collector saw it allocate (the first
 * DHAT_THREADS_MAX; later ones together under tid 0), its name at first sight
 * (/proc/PID/task/TID/comm, "" when it was gone), its total bytes/blocks, its own peak of
 * live bytes (mb, with its blocks then) and what it left live at te (eb/ebk); a block is
 * the thread's that allocated it, also when another frees or reallocs it. topPp: the index
 * into "pps" of its largest program point by bytes.
 * sizes: allocation sizes in power-of-two buckets, [2^log2, 2^(log2+1)), each realloc one
 * more allocation of its new size as in tb/tbk; topPp: the program point with the most
 * allocations in the bucket, topTbk how many.
 * Readers treat both as optional and lenient (unknown members skipped).
 */
#ifndef TRACER_DHAT_THREADS_H
#define TRACER_DHAT_THREADS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DHAT_THREADS_KEY "threads"
#define DHAT_SIZES_KEY	 "sizes"
#define DHAT_THREADS_MAX 255
#define DHAT_COMM_SZ	 16 /* TASK_COMM_LEN */

struct dhat_thread {
	uint64_t tid;
	char comm[DHAT_COMM_SZ];
	uint64_t tb, tbk, mb, mbk, eb, ebk;
	int64_t top_pp; /* -1: none */
};

struct dhat_size_bucket {
	uint64_t log2, tbk, tb;
	int64_t top_pp; /* -1: none */
	uint64_t top_tbk;
};

/* Write ,"threads":[...] and a newline (nothing for none). */
void dhat_threads__write(FILE *f, const struct dhat_thread *t, size_t cnt);
/* Write ,"sizes":[...] and a newline (nothing for none). */
void dhat_sizes__write(FILE *f, const struct dhat_size_bucket *b, size_t cnt);

/* Reader: one member of a thread / a bucket (str: its value when a string). */
void dhat_thread__set(struct dhat_thread *t, const char *key, const char *str, int u_ok,
		      uint64_t u);
void dhat_size_bucket__set(struct dhat_size_bucket *b, const char *key, int u_ok, uint64_t u);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * rss_sampler - the target's resident memory while it is traced: /proc/PID/status's RssAnon,
 * RssFile, RssShmem and VmSwap, read from the trace loop at most every RSS_SAMPLE_NS. A series
 * kept for the profile (dhat_rss.h) and the first crossing of a threshold (--snapshot-at-rss).
 * The series is bounded: when full, every other sample goes and the interval doubles, so a
 * long trace keeps an even coverage of its whole length.
 */
#ifndef TRACER_RSS_SAMPLER_H
#define TRACER_RSS_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dhat_rss.h"

#define RSS_SAMPLE_NS	10000000ull /* 10 ms: an OOM-bound leak fills 64 MiB in ~0.2 s */
#define RSS_SAMPLES_MAX 4096

/* NULL + errno on failure. */
struct rss_sampler *rss_sampler__new(pid_t pid);
/* Accepts NULL. */
void rss_sampler__free(struct rss_sampler *s);

/* Take a sample if RSS_SAMPLE_NS (or the doubled interval) has passed since the last one.
 * now_ns: CLOCK_MONOTONIC. A process that is gone or a zombie (no RSS lines) gives none.
 * Returns true when a sample was added. Accepts NULL (false). */
bool rss_sampler__tick(struct rss_sampler *s, uint64_t now_ns);

/* Parse a /proc/PID/status text into *out (t_ns left alone). Returns 0, or -ENOENT when
 * the RSS lines are missing (a zombie, a kernel thread). */
int rss_sampler__parse(const char *text, struct dhat_rss_sample *out);

/* RSS (anon + file + shmem) of the latest sample, bytes; 0 before the first. */
uint64_t rss_sampler__rss(const struct rss_sampler *s);

/* The series, oldest first; valid until the next tick. NULL/0 for a NULL sampler. */
const struct dhat_rss_sample *rss_sampler__samples(const struct rss_sampler *s, size_t *cnt);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dhat_sampled - a profile traced with --sample-bytes N says so in the file, as one extra
 * top-level object that dh_view ignores (it reads only the keys it knows):
 *
 *   ,"sampled":{"meanBytes":65536}
 *
 * Its figures (tb, tbk, tl, mb, gb, eb, ... and their sums) are then unbiased estimates:
 * each sampled block counts as the blocks it stands for (user/model/sample_weight.h).
 * Exact profiles, Valgrind's and dhat-rs's have no such object. Everything that prints a
 * sampled profile's figures (report, diff, exports, the end-of-trace summary) marks them
 * with dhat_sampled__label(), one line, the same everywhere.
 *
 * How far off an estimate may be: each program point of a sampled profile also carries the
 * standard errors of its tb and tbk, as two more keys (dh_view ignores them too), numbers
 * with a fraction (%.6g):
 *
 *   {"tb":81920,"tbk":40,"tbSe":9216.4,"tbkSe":4.5, ...}
 *
 * sqrt of the sum of sample_weight__var() over the point's sampled blocks (times size^2
 * for bytes). Variances add, so a sum of points has sqrt(sum of se^2). They measure the
 * sampling noise only, not where a realloc chain is charged: sampling charges a realloc of
 * a block it did not keep to the realloc's own site, and a kept block's realloc stays at
 * its birth site, while an exact profile charges every realloc to the birth site
 * (docs/DESIGN.md, "Sampled mode"). So a point says how many of its bytes came by
 * reallocs of blocks born where it is not known (DHAT charges them to their birth sites)
 * and how many of its blocks a realloc then moved (their later reallocs may be charged
 * elsewhere), and the report marks it:
 *
 *   {"tb":81920,"tbk":40,"tbSe":9216,"tbkSe":5,"tbRealloc":40960,"tbkReallocd":12, ...}
 */
#ifndef TRACER_DHAT_SAMPLED_H
#define TRACER_DHAT_SAMPLED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DHAT_SAMPLED_KEY	  "sampled"
#define DHAT_SAMPLED_MEAN	  "meanBytes"
#define DHAT_SAMPLED_TB_SE	  "tbSe"
#define DHAT_SAMPLED_TBK_SE	  "tbkSe"
#define DHAT_SAMPLED_TB_REALLOC	  "tbRealloc"
#define DHAT_SAMPLED_TBK_REALLOCD "tbkReallocd"

/* The half width of a 95% interval, in standard errors (normal approximation). */
#define DHAT_SAMPLED_Z95 1.96

/* Write the object (a leading comma, a trailing newline) for mean bytes n; n = 0: nothing. */
void dhat_sampled__write(FILE *f, uint64_t n);

/* One member of a read "sampled" object into *n: "meanBytes" with a non-negative integer;
 * anything else is ignored. */
void dhat_sampled__set(uint64_t *n, const char *key, bool u_ok, uint64_t u);

/* The marker of estimated figures for mean n, e.g. "estimates: sampled every 64.00 KiB on
 * average (--sample-bytes 65536)"; "" for n = 0. */
void dhat_sampled__label(uint64_t n, char *buf, size_t sz);

/* "±12%": the 95% interval of an estimate of value with standard error se, in per cent of
 * value ("±0%" below 0.5% and for a value of 0, whose se is 0: nothing was kept; "±>999%"
 * above 999%). */
void dhat_sampled__pm(uint64_t value, double se, char *buf, size_t sz);

#endif

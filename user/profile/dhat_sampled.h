/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dhat_sampled - a profile traced with --sample-bytes N says so in the file, as one extra
 * top-level object that dh_view ignores (it reads only the keys it knows):
 *
 *   ,"sampled":{"meanBytes":65536}
 *
 * Its figures (tb, tbk, tl, mb, gb, eb, ... and their sums) are then unbiased estimates:
 * each sampled block counts as the blocks it stands for (user/profile/sample_weight.h).
 * Exact profiles, Valgrind's and dhat-rs's have no such object. Everything that prints a
 * sampled profile's figures (report, diff, exports, the end-of-trace summary) marks them
 * with dhat_sampled__label(), one line, the same everywhere.
 */
#ifndef TRACER_DHAT_SAMPLED_H
#define TRACER_DHAT_SAMPLED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DHAT_SAMPLED_KEY  "sampled"
#define DHAT_SAMPLED_MEAN "meanBytes"

/* Write the object (a leading comma, a trailing newline) for mean bytes n; n = 0: nothing. */
void dhat_sampled__write(FILE *f, uint64_t n);

/* The marker of estimated figures for mean n, e.g. "estimates: sampled every 64 KiB on
 * average (--sample-bytes 65536)"; "" for n = 0. */
void dhat_sampled__label(uint64_t n, char *buf, size_t sz);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The prog.c worked example (dhat-format.md §7.1) as a finished collector plus a frames
 * callback, shared by the writer and report tests. */
#ifndef TESTS_DHAT_FIXTURE_H
#define TESTS_DHAT_FIXTURE_H

#include "collector.h"
#include "strvec.h"

#define FIX_T0 1000000000ull

enum { FIX_TABLE = 1, FIX_BUF = 2, FIX_LOOP = 3 };

/* calloc(10,8); malloc(100); realloc->200; realloc->50; 3x malloc(32); free 2; free table;
 * free buffer. Times in µs-friendly ns (the file shows µs). Returns a finished collector. */
struct collector *fixture_prog_c(void);

/* pp_frames_fn for fixture_prog_c: Valgrind-style frame strings per stack id. */
int fixture_frames(void *ctx, const struct pp_stats *pp, struct strvec *out);

/* Feed one record; aborts the test on error. */
void fixture_feed(struct collector *c, struct alloc_event e);

#endif

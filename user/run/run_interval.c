// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --interval: a periodic table of the allocations still outstanding in each traced image, by
 * program point, as bcc's memleak prints its "Top 10 stacks with outstanding allocations",
 * but with our symbolized stacks, recursion folded as the report folds it. --min-age leaves
 * out blocks younger than that (short-lived ones are no leak). Rows look like the report's
 * still-live section, each followed by its whole stack from the site down to main:
 *
 *	[14:32:05] pid 4242 (./server): 1.50 MiB outstanding in 300 blocks; older than 5 s:
 *	1.20 MiB in 240 blocks, at 3 program points             (one line; the rows: --top, 10)
 *	      1.20 MiB        240 allocs  oldest 12.3 s   leak_some (leak.c:12)  <-  main (leak.c:30)
 *	          leak_some (leak.c:12)
 *	          main (leak.c:30)
 *
 * For an image whose malloc is glibc's, the header is followed by its arenas in the report's
 * words (dhat_arenas__summary): held, free, live, what malloc_trim(0) would return.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arenas.h"
#include "frames.h"
#include "log.h"
#include "site.h"
#include "run.h"
#include "safe_text.h"
#include "session.h"
#include "strvec.h"
#include "units.h"

#define INTERVAL_DEFAULT_TOP 10 /* memleak's "Top 10" */

/* One program point with outstanding blocks. */
struct live_row {
	const struct pp_stats *pp;
	struct pp_live live;
};

static int cmp_live_rows(const void *x, const void *y)
{
	const struct live_row *a = x, *b = y;

	if (a->live.bytes != b->live.bytes)
		return a->live.bytes > b->live.bytes ? -1 : 1;
	if (a->live.blocks != b->live.blocks)
		return a->live.blocks > b->live.blocks ? -1 : 1;
	return a->pp < b->pp ? -1 : a->pp > b->pp;
}

/* One row: the still-live section's figures, the site, then the whole folded stack from the
 * site's frame outwards (the allocator's own frames below it are left out). */
static void print_row(FILE *out, const struct run *r, struct frames_ctx *fc,
		      const struct live_row *row)
{
	struct strvec v = { 0 };
	const char **fr = NULL;
	char cell[UNITS_BYTES_SZ], *site = NULL;
	size_t n = 0, head = 0;

	if (frames__describe(fc, row->pp, &v) >= 0 && (fr = malloc((v.cnt + 1) * sizeof(*fr)))) {
		for (size_t i = 0; i < v.cnt; i++)
			fr[i] = site__clean_frame(v.items[i]);
		n = site__fold(fr, v.cnt);
		head = site__head(fr, n, NULL);
		site = site__name(fr, n, NULL);
	}
	/* 14 columns, as the report's byte cells */
	fprintf(out, "    %14s  %9llu allocs  oldest %.1f s   ",
		units__bytes(row->live.bytes, r->args->exact_bytes, cell, sizeof(cell)),
		(unsigned long long)row->live.blocks, (double)row->live.oldest_ns / 1e9);
	safe_text__fputs_term(out, site ? site : "<no stack>");
	fputc('\n', out);
	for (size_t i = head; i < n; i++) {
		fputs("        ", out);
		safe_text__fputs_term(out, fr[i]);
		fputc('\n', out);
	}
	free(site);
	free(fr);
	strvec__release(&v);
}

/* The image's glibc arenas now, in the report's sentence: how much of its RSS the frees left
 * behind, at each table (a walk of the arenas' chunks in the target, once a table). */
static void print_arenas(FILE *out, struct run *r, const struct tracee *t,
			 const struct collector *c)
{
	struct dhat_arenas a = { 0 };

	if (!run__arenas_apply(r, t))
		return;
	if (!arenas__measure(t->tgid, c, &a))
		dhat_arenas__summary(out, &a, r->args->exact_bytes);
	dhat_arenas__release(&a);
}

/* "[HH:MM:SS] pid N (cmd): ..." and the rows of one image; nothing when nothing is live. */
static void print_table(FILE *out, struct run *r, struct tracee *t, __u64 now)
{
	const struct collector *c = session__open(t->session);
	const struct collector_totals *tot;
	const struct pp_stats *pps;
	struct profile_ctx pc = { r, t };
	struct stack_source src;
	struct frames_ctx fc = { .sym = t->sym, .src = &src };
	struct live_row *rows = NULL;
	struct pp_live *live = NULL;
	size_t cnt, n = 0, top = r->args->top ? r->args->top : INTERVAL_DEFAULT_TOP;
	__u64 min_age = (__u64)(r->args->min_age_s * 1e9), bytes = 0, blocks = 0;
	char when[16], total[UNITS_BYTES_SZ], old[UNITS_BYTES_SZ];
	time_t wall = time(NULL);
	struct tm tm;

	if (!c)
		return;
	tot = collector__totals(c);
	pps = collector__pps(c, &cnt);
	if (!tot->live_blocks)
		return;
	live = calloc(cnt ? cnt : 1, sizeof(*live));
	rows = calloc(cnt ? cnt : 1, sizeof(*rows));
	if (!live || !rows) {
		elog("--interval: out of memory\n");
		goto cleanup;
	}
	collector__live(c, now, min_age, live, cnt);
	for (size_t i = 0; i < cnt; i++) {
		if (!live[i].blocks)
			continue;
		rows[n++] = (struct live_row){ &pps[i], live[i] };
		bytes += live[i].bytes;
		blocks += live[i].blocks;
	}
	qsort(rows, n, sizeof(*rows), cmp_live_rows);
	strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&wall, &tm));
	units__bytes(tot->live_bytes, r->args->exact_bytes, total, sizeof(total));
	fprintf(out, "\n[%s] pid %d (", when, (int)t->tgid);
	safe_text__fputs_term(out, t->cmdline);
	fprintf(out, "): %s outstanding in %llu blocks", total,
		(unsigned long long)tot->live_blocks);
	if (min_age) {
		units__bytes(bytes, r->args->exact_bytes, old, sizeof(old));
		fprintf(out, "; older than %g s: %s in %llu blocks", r->args->min_age_s, old,
			(unsigned long long)blocks);
	}
	fprintf(out, ", at %zu program point%s\n", n, n == 1 ? "" : "s");
	print_arenas(out, r, t, c);
	/* The stacks are read as the profile's are: through the image's symbolizer. */
	if (t->sym)
		tracee__refresh_sym(t);
	run__stack_source(&pc, &src);
	for (size_t i = 0; i < n && i < top; i++)
		print_row(out, r, &fc, &rows[i]);
	fflush(out);
cleanup:
	free(rows);
	free(live);
}

void run__interval_tick(struct run *r, __u64 now)
{
	FILE *out = r->counters_out;
	__u64 step = (__u64)(r->args->interval_s * 1e9);

	if (!step || !out)
		return;
	if (!r->next_table_ns) {
		r->next_table_ns = now + step;
		return;
	}
	if (now < r->next_table_ns)
		return;
	/* The next one a whole interval later: a slow table does not make them pile up. */
	r->next_table_ns = now + step;
	if (r->progress_shown) {
		fputc('\n', stderr); /* the progress line ends before a table starts */
		r->progress_shown = false;
	}
	for (size_t i = 0; i < tracees__count(r->tracees); i++) {
		struct tracee *t = tracees__at(r->tracees, i);

		if (t->session && session__in_profile(t->session))
			print_table(out, r, t, now);
	}
}

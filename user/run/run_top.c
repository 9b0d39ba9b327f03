// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer top: the trace loop's view, once per --delay, instead of --interval tables. Each
 * frame sums the open profiles of the traced images (session__open: the collectors the
 * trace feeds anyway, nothing more is recorded for it) by site, named as the report names
 * rows (site.h), and draws them: on the terminal with ncurses, or as plain-text frames on
 * stdout (--batch, or stdout not a terminal), like `top -b` (on stderr with -- CMD: the
 * command's stdout is its own):
 *
 *	tracer top 14:32:05  heap 1.50 MiB  peak 1.62 MiB  rss 9.80 MiB  blocks 300  allocs
 *	  1200/s (117.19 KiB/s)  frees 1100/s  dropped 0  lost stacks 0    (one line in batch)
 *	      LIVE    BLOCKS       TOTAL      COUNT      RATE/s     TREND/s  SITE
 *	  1.20 MiB       240    5.00 MiB       1000  100.00 KiB   +20.00 KiB  leak (svc.c:12)  <-  ...
 *
 * 't' draws one row per thread instead, 's' one per power-of-two size bucket (as report
 * --sizes), both from the collector's per-(PP, thread or bucket) sub-totals.
 *
 * A site's PPs are named once, when first seen (a symbolization each); a frame only sums
 * the figures, so a frame costs one pass over the program points.
 */
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "frames.h"
#include "log.h"
#include "rss_sampler.h"
#include "run.h"
#include "safe_text.h"
#include "session.h"
#include "site.h"
#include "strvec.h"
#include "units.h"

#define TOP_HISTORY 240	   /* heap figures kept for the sparkline (one a frame) */
#define TOP_BATCH_ROWS 20  /* rows of a batch frame without --top */
#define TOP_FILTER_MAX 64
#define TOP_LINE_MAX 1024

enum top_sort { TOP_SORT_LIVE, TOP_SORT_TOTAL, TOP_SORT_COUNT, TOP_SORT_RATE };

static const char *const sort_names[] = { "live bytes", "total bytes", "count", "rate" };

/* One row: a site, the figures of its program points summed. */
struct top_site {
	char *name;
	__u64 live, blocks, total, count; /* this frame */
	__u64 prev_live, prev_total;	  /* the frame before */
	double rate, trend;		  /* bytes/s allocated; live bytes/s gained */
};

/* One traced image's profile: which site each of its program points is. */
struct top_image {
	const struct tracee *t;
	const struct collector *c; /* a new profile (window, exec) starts the naming again */
	size_t *site_of, named;
	__u64 live, blocks, total, prev_total; /* the per-process view */
	double rate;
	bool shown; /* open in this frame */
};

/* 's': one power-of-two bucket's figures, summed over the traced images; its top site is
 * the site of most allocations of those sizes, its program points and images summed as the
 * site rows are (the report names one program point: here a site is the row's unit). */
struct top_size {
	__u64 tb, tbk;
	size_t site;	/* SIZE_MAX: none */
	__u64 site_tbk;
};

/* One size sub-total of the frame, keyed by site: sorted, the runs sum a site's PPs. */
struct top_size_ent {
	size_t site;
	__u32 log2;
	__u64 tbk;
};

/* One thread's row ('t'): the collector's per-thread figures (collector__threads), copied
 * at the frame so a paused screen never reads a profile gone since. */
struct top_thread {
	int pid, tid;			  /* tid 0: the threads beyond COLLECTOR_THREADS_MAX */
	char comm[COLLECTOR_COMM_SZ];
	__u64 live, blocks, total;
	size_t site;			  /* its program point of most total bytes, or SIZE_MAX */
};

struct top {
	/* batch frames: stdout for --pid, stderr for -- CMD, whose stdout is the command's own */
	FILE *out;
	bool screen, utf8, per_thread, per_size, paused, editing, quit;
	enum top_sort sort;
	char filter[TOP_FILTER_MAX];
	unsigned long frames;
	__u64 next_ns, last_ns;
	struct top_site *sites;
	size_t site_cnt, site_cap;
	struct top_image *imgs;
	size_t img_cnt, img_cap;
	struct top_thread *thr;
	size_t thr_cnt, thr_cap;
	struct top_size size[64];
	struct top_size_ent *sz_ent;
	size_t sz_cnt, sz_cap;
	__u64 hist[TOP_HISTORY];
	size_t hist_cnt;
	/* the last frame's figures */
	__u64 heap, peak, rss, live_blocks, total_blocks, total_bytes, freed;
	double alloc_rate, alloc_bps, free_rate;
	struct probe_counters pc;
	char when[16];
	bool sampled;
};

/* ---- sampling --------------------------------------------------------------------- */

static size_t site_index(struct top *tp, const char *name)
{
	for (size_t i = 0; i < tp->site_cnt; i++)
		if (!strcmp(tp->sites[i].name, name))
			return i;
	if (tp->site_cnt == tp->site_cap) {
		size_t cap = tp->site_cap ? tp->site_cap * 2 : 64;
		struct top_site *s = realloc(tp->sites, cap * sizeof(*s));

		if (!s)
			return SIZE_MAX;
		tp->sites = s;
		tp->site_cap = cap;
	}
	tp->sites[tp->site_cnt] = (struct top_site){ .name = strdup(name) };
	if (!tp->sites[tp->site_cnt].name)
		return SIZE_MAX;
	return tp->site_cnt++;
}

static struct top_image *image_of(struct top *tp, const struct tracee *t,
				  const struct collector *c)
{
	struct top_image *im = NULL;

	for (size_t i = 0; i < tp->img_cnt && !im; i++)
		if (tp->imgs[i].t == t)
			im = &tp->imgs[i];
	if (!im) {
		if (tp->img_cnt == tp->img_cap) {
			size_t cap = tp->img_cap ? tp->img_cap * 2 : 8;
			struct top_image *n = realloc(tp->imgs, cap * sizeof(*n));

			if (!n)
				return NULL;
			tp->imgs = n;
			tp->img_cap = cap;
		}
		im = &tp->imgs[tp->img_cnt++];
		*im = (struct top_image){ .t = t };
	}
	if (im->c != c) {
		im->c = c;
		im->named = 0;
		im->prev_total = 0;
	}
	return im;
}

/* The site of each program point of t's profile not named yet, as the report names it. */
static void name_new_pps(struct run *r, struct top *tp, struct tracee *t, struct top_image *im,
			 const struct pp_stats *pps, size_t cnt)
{
	struct profile_ctx pc = { r, t };
	struct stack_source src;
	struct frames_ctx fc = { .sym = t->sym, .src = &src };
	size_t *so;

	if (im->named >= cnt)
		return;
	so = realloc(im->site_of, cnt * sizeof(*so));
	if (!so)
		return;
	im->site_of = so;
	if (t->sym)
		tracee__refresh_sym(t); /* new PPs may sit in a library dlopen'd since */
	run__stack_source(&pc, &src);
	for (; im->named < cnt; im->named++) {
		struct strvec v = { 0 };
		const char **fr = NULL;
		char *name = NULL;

		if (frames__describe(&fc, &pps[im->named], &v) >= 0 &&
		    (fr = malloc((v.cnt + 1) * sizeof(*fr)))) {
			for (size_t i = 0; i < v.cnt; i++)
				fr[i] = site__clean_frame(v.items[i]);
			name = site__name(fr, site__fold(fr, v.cnt), NULL);
		}
		so[im->named] = site_index(tp, name ? name : "<no stack>");
		free(name);
		free(fr);
		strvec__release(&v);
	}
}

/* The threads of im's profile c that allocated, into tp->thr; each one's top site is the
 * site of its program point of most total bytes (the per-thread sub-totals are per PP, and
 * one pass over them is all a frame should cost). */
static void thread_figures(struct top *tp, const struct top_image *im, const struct collector *c)
{
	size_t best[COLLECTOR_THREADS_MAX + 1], tcnt, scnt;
	__u64 best_tb[COLLECTOR_THREADS_MAX + 1] = { 0 };
	const struct thread_stats *ts = collector__threads(c, &tcnt);
	const struct pp_sub *subs = collector__pp_subs(c, &scnt);

	if (tcnt > COLLECTOR_THREADS_MAX + 1)
		tcnt = COLLECTOR_THREADS_MAX + 1;
	for (size_t i = 0; i < tcnt; i++)
		best[i] = SIZE_MAX;
	for (size_t i = 0; i < scnt; i++) {
		__u32 tag = subs[i].tag;

		if (tag >= PP_SUB_SIZE || tag >= tcnt || subs[i].pp >= im->named ||
		    subs[i].tb <= best_tb[tag])
			continue;
		best_tb[tag] = subs[i].tb;
		best[tag] = im->site_of[subs[i].pp];
	}
	for (size_t i = 0; i < tcnt; i++) {
		struct top_thread *th;

		if (!ts[i].tbk)
			continue;
		if (tp->thr_cnt == tp->thr_cap) {
			size_t cap = tp->thr_cap ? tp->thr_cap * 2 : 16;
			struct top_thread *n = realloc(tp->thr, cap * sizeof(*n));

			if (!n)
				return;
			tp->thr = n;
			tp->thr_cap = cap;
		}
		th = &tp->thr[tp->thr_cnt++];
		*th = (struct top_thread){ .pid = (int)im->t->tgid, .tid = (int)ts[i].tid,
					   .live = ts[i].cur_b, .blocks = ts[i].cur_bk,
					   .total = ts[i].tb, .site = best[i] };
		memcpy(th->comm, ts[i].comm, sizeof(th->comm));
		th->comm[sizeof(th->comm) - 1] = '\0';
	}
}

/* im's size sub-totals of profile c: the bucket figures, and one entry per (PP, bucket) for
 * the top sites (size_figures). */
static void size_subs(struct top *tp, const struct top_image *im, const struct collector *c)
{
	size_t scnt;
	const struct pp_sub *subs = collector__pp_subs(c, &scnt);

	for (size_t i = 0; i < scnt; i++) {
		__u32 tag = subs[i].tag;
		struct top_size_ent *e;

		if (tag < PP_SUB_SIZE || tag - PP_SUB_SIZE >= 64)
			continue;
		tp->size[tag - PP_SUB_SIZE].tb += subs[i].tb;
		tp->size[tag - PP_SUB_SIZE].tbk += subs[i].tbk;
		if (subs[i].pp >= im->named || im->site_of[subs[i].pp] == SIZE_MAX)
			continue;
		if (tp->sz_cnt == tp->sz_cap) {
			size_t cap = tp->sz_cap ? tp->sz_cap * 2 : 64;
			struct top_size_ent *n = realloc(tp->sz_ent, cap * sizeof(*n));

			if (!n)
				continue; /* the bucket's figures stand; its top site may not */
			tp->sz_ent = n;
			tp->sz_cap = cap;
		}
		e = &tp->sz_ent[tp->sz_cnt++];
		*e = (struct top_size_ent){ .site = im->site_of[subs[i].pp],
					    .log2 = tag - PP_SUB_SIZE, .tbk = subs[i].tbk };
	}
}

static int cmp_size_ents(const void *x, const void *y)
{
	const struct top_size_ent *a = x, *b = y;

	if (a->log2 != b->log2)
		return a->log2 < b->log2 ? -1 : 1;
	return a->site < b->site ? -1 : a->site > b->site;
}

/* Each bucket's top site: the entries sorted by (bucket, site), each run summed. A frame
 * sorts the (PP, bucket) sub-totals once, not a site x bucket table. */
static void size_figures(struct top *tp)
{
	qsort(tp->sz_ent, tp->sz_cnt, sizeof(*tp->sz_ent), cmp_size_ents);
	for (size_t i = 0, j; i < tp->sz_cnt; i = j) {
		struct top_size *b = &tp->size[tp->sz_ent[i].log2];
		__u64 sum = 0;

		for (j = i; j < tp->sz_cnt && tp->sz_ent[j].log2 == tp->sz_ent[i].log2 &&
			    tp->sz_ent[j].site == tp->sz_ent[i].site; j++)
			sum += tp->sz_ent[j].tbk;
		if (sum > b->site_tbk) {
			b->site_tbk = sum;
			b->site = tp->sz_ent[i].site;
		}
	}
}

static double per_s(__u64 now, __u64 before, double dt)
{
	return now > before && dt > 0 ? (double)(now - before) / dt : 0;
}

/* Sum every open profile into the sites and the header's figures. */
static void sample(struct run *r, struct top *tp, __u64 now)
{
	double dt = tp->last_ns ? (double)(now - tp->last_ns) / 1e9 : 0;
	__u64 total_blocks = 0, total_bytes = 0, freed = 0, peak = 0;
	time_t wall = time(NULL);
	struct tm tm;

	strftime(tp->when, sizeof(tp->when), "%H:%M:%S", localtime_r(&wall, &tm));
	for (size_t i = 0; i < tp->site_cnt; i++) {
		struct top_site *s = &tp->sites[i];

		s->live = s->blocks = s->total = s->count = 0;
	}
	tp->heap = tp->rss = tp->live_blocks = 0;
	tp->thr_cnt = 0;
	tp->sz_cnt = 0;
	for (size_t k = 0; k < 64; k++)
		tp->size[k] = (struct top_size){ .site = SIZE_MAX };
	for (size_t i = 0; i < tp->img_cnt; i++)
		tp->imgs[i].shown = false;
	for (size_t i = 0; i < tracees__count(r->tracees); i++) {
		struct tracee *t = tracees__at(r->tracees, i);
		const struct collector *c = t->session && session__in_profile(t->session) ?
						    session__open(t->session) : NULL;
		const struct collector_totals *tot;
		const struct pp_stats *pps;
		struct top_image *im;
		size_t cnt;

		if (!c || !(im = image_of(tp, t, c)))
			continue;
		tot = collector__totals(c);
		pps = collector__pps(c, &cnt);
		name_new_pps(r, tp, t, im, pps, cnt);
		for (size_t j = 0; j < im->named; j++) {
			struct top_site *s;

			if (im->site_of[j] == SIZE_MAX)
				continue;
			s = &tp->sites[im->site_of[j]];
			s->live += pps[j].cur_b;
			s->blocks += pps[j].cur_bk;
			s->total += pps[j].tb;
			s->count += pps[j].tbk;
		}
		thread_figures(tp, im, c);
		size_subs(tp, im, c);
		im->shown = true;
		im->live = tot->live_bytes;
		im->blocks = tot->live_blocks;
		im->rate = im->prev_total ? per_s(tot->total_bytes, im->prev_total, dt) : 0;
		im->total = im->prev_total = tot->total_bytes;
		tp->heap += tot->live_bytes;
		tp->live_blocks += tot->live_blocks;
		total_blocks += tot->total_blocks;
		total_bytes += tot->total_bytes;
		freed += tot->total_blocks - tot->live_blocks;
		peak += tot->max_bytes;
		tp->rss += t->rss ? rss_sampler__rss(t->rss) : 0;
	}
	size_figures(tp);
	for (size_t i = 0; i < tp->site_cnt; i++) {
		struct top_site *s = &tp->sites[i];

		s->rate = tp->sampled ? per_s(s->total, s->prev_total, dt) : 0;
		s->trend = tp->sampled && dt > 0 ? ((double)s->live - (double)s->prev_live) / dt : 0;
		s->prev_live = s->live;
		s->prev_total = s->total;
	}
	tp->alloc_rate = tp->sampled ? per_s(total_blocks, tp->total_blocks, dt) : 0;
	tp->alloc_bps = tp->sampled ? per_s(total_bytes, tp->total_bytes, dt) : 0;
	tp->free_rate = tp->sampled ? per_s(freed, tp->freed, dt) : 0;
	tp->total_blocks = total_blocks;
	tp->total_bytes = total_bytes;
	tp->freed = freed;
	/* Each image's own peak (the collector's, between frames too) or the sum seen now. */
	tp->peak = peak > tp->peak ? peak : tp->peak;
	tp->peak = tp->heap > tp->peak ? tp->heap : tp->peak;
	if (tp->hist_cnt == TOP_HISTORY)
		memmove(tp->hist, tp->hist + 1, (TOP_HISTORY - 1) * sizeof(tp->hist[0]));
	else
		tp->hist_cnt++;
	tp->hist[tp->hist_cnt - 1] = tp->heap;
	run__counters(r, &tp->pc);
	tp->last_ns = now;
	tp->sampled = true;
}

/* ---- drawing ------------------------------------------------------------------------ */

static int cmp_sites(const void *x, const void *y, void *ctx)
{
	const struct top_site *a = *(struct top_site *const *)x, *b = *(struct top_site *const *)y;
	enum top_sort sort = *(enum top_sort *)ctx;
	double ka, kb;

	switch (sort) {
	case TOP_SORT_TOTAL:
		ka = (double)a->total, kb = (double)b->total;
		break;
	case TOP_SORT_COUNT:
		ka = (double)a->count, kb = (double)b->count;
		break;
	case TOP_SORT_RATE:
		ka = a->rate, kb = b->rate;
		break;
	default:
		ka = (double)a->live, kb = (double)b->live;
	}
	if (ka != kb)
		return ka > kb ? -1 : 1;
	if (a->live != b->live)
		return a->live > b->live ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* A line of the frame: at row y of the screen (cut at its width), or on stdout. */
static void put(const struct top *tp, int y, int attr, const char *line)
{
	if (!tp->screen) {
		safe_text__fputs_term(tp->out, line);
		fputc('\n', tp->out);
		return;
	}
	char safe[TOP_LINE_MAX];

	if (y >= LINES)
		return;
	/* names and command lines are the target's: no control character reaches curses */
	safe_text__copy_term(safe, sizeof(safe), line);
	attron(attr);
	mvaddnstr(y, 0, safe, COLS);
	attroff(attr);
}

static const char *bytes(const struct run *r, double v, char *buf)
{
	return units__bytes(v > 0 ? (uint64_t)v : 0, r->args->exact_bytes, buf, UNITS_BYTES_SZ);
}

/* "+1.20 KiB", "-512 B", "=" */
static const char *signed_bytes(const struct run *r, double v, char *buf)
{
	char b[UNITS_BYTES_SZ];

	if (v > -0.5 && v < 0.5)
		return strcpy(buf, "=");
	snprintf(buf, UNITS_BYTES_SZ, "%c%s", v < 0 ? '-' : '+', bytes(r, v < 0 ? -v : v, b));
	return buf;
}

/* The heap over the last frames, as wide as width: block characters, or ASCII. */
static void sparkline(const struct top *tp, char *out, size_t sz, size_t width)
{
	static const char *const blocks[] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char ascii[] = " .:-=+*#%@";
	size_t n = tp->hist_cnt < width ? tp->hist_cnt : width, len = 0;
	__u64 max = 0;

	for (size_t i = tp->hist_cnt - n; i < tp->hist_cnt; i++)
		max = tp->hist[i] > max ? tp->hist[i] : max;
	out[0] = '\0';
	for (size_t i = tp->hist_cnt - n; i < tp->hist_cnt && len + 4 < sz; i++) {
		unsigned lvl = max ? (unsigned)((tp->hist[i] * 8 + max - 1) / max) : 0;

		if (tp->utf8)
			len += (size_t)snprintf(out + len, sz - len, "%s", blocks[lvl]);
		else
			out[len++] = ascii[lvl], out[len] = '\0';
	}
}

/* The header: heap, peak, RSS (figures), then the rates and what was lost (flow); one
 * line in a batch frame, two on the screen. */
static void header(struct run *r, struct top *tp, char *figures, char *flow)
{
	char h[UNITS_BYTES_SZ], p[UNITS_BYTES_SZ], s[UNITS_BYTES_SZ], a[UNITS_BYTES_SZ];

	snprintf(figures, TOP_LINE_MAX, "tracer top %s  heap %s  peak %s  rss %s  blocks %llu",
		 tp->when, bytes(r, (double)tp->heap, h), bytes(r, (double)tp->peak, p),
		 bytes(r, (double)tp->rss, s), (unsigned long long)tp->live_blocks);
	snprintf(flow, TOP_LINE_MAX,
		 "allocs %.0f/s (%s/s)  frees %.0f/s  dropped %llu  lost stacks %llu",
		 tp->alloc_rate, bytes(r, tp->alloc_bps, a), tp->free_rate,
		 (unsigned long long)tp->pc.dropped, (unsigned long long)tp->pc.stack_failures);
}

/* The rows from screen line y, at most max of them. */
static void site_rows(struct run *r, struct top *tp, int y, size_t max)
{
	struct top_site **v = malloc((tp->site_cnt ? tp->site_cnt : 1) * sizeof(*v));
	char line[TOP_LINE_MAX], b[6][UNITS_BYTES_SZ];
	size_t n = 0;

	if (!v)
		return;
	for (size_t i = 0; i < tp->site_cnt; i++)
		if (tp->sites[i].count && (!*tp->filter || strstr(tp->sites[i].name, tp->filter)))
			v[n++] = &tp->sites[i];
	qsort_r(v, n, sizeof(*v), cmp_sites, &tp->sort);
	put(tp, y++, A_REVERSE,
	    "      LIVE    BLOCKS       TOTAL      COUNT      RATE/s     TREND/s  SITE");
	for (size_t i = 0; i < n && i < max; i++) {
		snprintf(line, sizeof(line), "%10s %9llu  %10s %10llu  %10s  %10s  %s",
			 bytes(r, (double)v[i]->live, b[0]), (unsigned long long)v[i]->blocks,
			 bytes(r, (double)v[i]->total, b[1]), (unsigned long long)v[i]->count,
			 bytes(r, v[i]->rate, b[2]), signed_bytes(r, v[i]->trend, b[3]),
			 v[i]->name);
		put(tp, y++, 0, line);
	}
	if (!n)
		put(tp, y, 0,
		    *tp->filter ? "  (no site matches the filter)" : "  (no allocation yet)");
	free(v);
}

static int cmp_threads(const void *x, const void *y)
{
	const struct top_thread *a = x, *b = y;

	if (a->live != b->live)
		return a->live > b->live ? -1 : 1;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return a->tid - b->tid;
}

/* 't': one row per thread that allocated, by live bytes. The / filter names functions, so
 * it does not apply here: a thread is shown whatever its top site. */
static void thread_rows(struct run *r, struct top *tp, int y, size_t max)
{
	char line[TOP_LINE_MAX], b[2][UNITS_BYTES_SZ], comm[COLLECTOR_COMM_SZ + 2];

	qsort(tp->thr, tp->thr_cnt, sizeof(*tp->thr), cmp_threads);
	put(tp, y++, A_REVERSE,
	    "      PID      TID        LIVE    BLOCKS       TOTAL  THREAD           TOP SITE");
	for (size_t i = 0; i < tp->thr_cnt && i < max; i++) {
		const struct top_thread *th = &tp->thr[i];

		if (!th->tid)
			snprintf(comm, sizeof(comm), "(others)");
		else
			snprintf(comm, sizeof(comm), "%s", *th->comm ? th->comm : "?");
		snprintf(line, sizeof(line), "%9d %8d  %10s %9llu  %10s  %-15s  %s", th->pid,
			 th->tid, bytes(r, (double)th->live, b[0]),
			 (unsigned long long)th->blocks, bytes(r, (double)th->total, b[1]),
			 comm, th->site < tp->site_cnt ? tp->sites[th->site].name : "-");
		put(tp, y++, 0, line);
	}
	if (!tp->thr_cnt)
		put(tp, y, 0, "  (no allocation yet)");
}

/* 's': one row per power-of-two bucket with allocations, smallest first; the range as
 * report --sizes writes it, [2^k, 2^(k+1)). Like 't', the / filter is not applied. */
static void size_rows(struct run *r, struct top *tp, int y, size_t max)
{
	char line[TOP_LINE_MAX], lo[UNITS_BYTES_SZ], hi[UNITS_BYTES_SZ], range[64];
	char b[UNITS_BYTES_SZ];
	size_t n = 0;

	put(tp, y++, A_REVERSE,
	    "  SIZE (power-of-two buckets)     ALLOCS       BYTES  TOP SITE");
	for (size_t k = 0; k < 64 && n < max; k++) {
		const struct top_size *s = &tp->size[k];

		if (!s->tbk)
			continue;
		/* bucket bounds are exact powers of two: never --bytes' integers */
		units__bytes(1ull << k, false, lo, sizeof(lo));
		if (k < 63)
			units__bytes(1ull << (k + 1), false, hi, sizeof(hi));
		else
			snprintf(hi, sizeof(hi), "...");
		snprintf(range, sizeof(range), "%s .. %s", lo, hi);
		if (s->site < tp->site_cnt)
			snprintf(line, sizeof(line), "  %-28s %9llu  %10s  %llu in %s", range,
				 (unsigned long long)s->tbk, bytes(r, (double)s->tb, b),
				 (unsigned long long)s->site_tbk, tp->sites[s->site].name);
		else
			snprintf(line, sizeof(line), "  %-28s %9llu  %10s  -", range,
				 (unsigned long long)s->tbk, bytes(r, (double)s->tb, b));
		put(tp, y++, 0, line);
		n++;
	}
	if (!n)
		put(tp, y, 0, "  (no allocation yet)");
}

static void draw(struct run *r, struct top *tp)
{
	char line[TOP_LINE_MAX], flow[TOP_LINE_MAX], spark[TOP_LINE_MAX];
	size_t rows;
	int y = 0;

	header(r, tp, line, flow);
	if (!tp->screen) {
		char joined[2 * TOP_LINE_MAX + 2];

		snprintf(joined, sizeof(joined), "%s  %s", line, flow);
		rows = r->args->top ? r->args->top : TOP_BATCH_ROWS;
		put(tp, 0, 0, joined);
		if (tp->per_size)
			size_rows(r, tp, 0, rows);
		else if (tp->per_thread)
			thread_rows(r, tp, 0, rows);
		else
			site_rows(r, tp, 0, rows);
		fputc('\n', tp->out);
		fflush(tp->out);
		return;
	}
	erase();
	put(tp, y++, A_BOLD, line);
	put(tp, y++, 0, flow);
	sparkline(tp, spark, sizeof(spark), COLS > 20 ? (size_t)COLS - 20 : 1);
	snprintf(line, sizeof(line), "heap over time  %s", spark);
	put(tp, y++, 0, line);
	snprintf(line, sizeof(line), "sort: %s%s%s%s%s", sort_names[tp->sort],
		 *tp->filter || tp->editing ? "   filter: " : "", tp->filter,
		 tp->editing ? "_" : "", tp->paused ? "   [paused]" : "");
	put(tp, y++, 0, line);
	y++;
	rows = LINES > y + 3 ? (size_t)(LINES - y - 3) : 1;
	if (tp->per_size)
		size_rows(r, tp, y, rows);
	else if (tp->per_thread)
		thread_rows(r, tp, y, rows);
	else
		site_rows(r, tp, y, rows);
	put(tp, LINES - 1, A_REVERSE,
	    tp->editing ? " filter by function: type, Enter keeps it, Esc clears it " :
			  " q quit  l live  b total bytes  c count  r rate  t threads  s sizes  p pause"
			  "  / filter ");
	refresh();
}

/* ---- keys ----------------------------------------------------------------------------- */

/* Read the keys typed since the last turn; true if the screen should be drawn again. */
static bool keys(struct top *tp)
{
	bool redraw = false;
	int ch;

	while ((ch = getch()) != ERR) {
		size_t len = strlen(tp->filter);

		/* a sort key leaves the size view: the buckets have one order, the rows four */
		if (!tp->editing && (ch == 'l' || ch == 'b' || ch == 'c' || ch == 'r'))
			tp->per_size = false;
		redraw = true;
		if (tp->editing) {
			if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
				tp->editing = false;
			} else if (ch == 27) { /* Esc */
				tp->editing = false;
				tp->filter[0] = '\0';
			} else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len) {
				tp->filter[len - 1] = '\0';
			} else if (ch >= 0x20 && ch < 0x7f && len + 1 < sizeof(tp->filter)) {
				tp->filter[len] = (char)ch;
				tp->filter[len + 1] = '\0';
			}
			continue;
		}
		switch (ch) {
		case 'q':
		case 'Q':
			tp->quit = true;
			break;
		case 'l':
			tp->sort = TOP_SORT_LIVE;
			break;
		case 'b':
			tp->sort = TOP_SORT_TOTAL;
			break;
		case 'c':
			tp->sort = TOP_SORT_COUNT;
			break;
		case 'r':
			tp->sort = TOP_SORT_RATE;
			break;
		case 't':
			tp->per_thread = !tp->per_thread;
			tp->per_size = false;
			break;
		case 's':
			tp->per_size = !tp->per_size;
			break;
		case 'p':
			tp->paused = !tp->paused;
			break;
		case '/':
			tp->editing = true;
			tp->filter[0] = '\0';
			break;
		case 27:
			tp->filter[0] = '\0';
			break;
		}
	}
	return redraw;
}

/* ---- the run's side --------------------------------------------------------------- */

int run__top_start(struct run *r)
{
	struct top *tp = calloc(1, sizeof(*tp));

	if (!tp)
		return -1;
	r->top = tp;
	tp->out = r->args->pid || r->args->cgroup ? stdout : stderr;
	tp->screen = !r->args->top_batch && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	if (tp->screen) {
		setlocale(LC_ALL, "");
		tp->utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
		/* newterm, not initscr: an unknown TERM is a message and batch frames, not an
		 * exit from inside the library. */
		if (!newterm(NULL, stdout, stdin)) {
			elog("top: cannot drive this terminal (TERM=%s): batch frames instead\n",
			     getenv("TERM") ? safe_text__term(getenv("TERM")) : "unset");
			tp->screen = false;
		} else {
			cbreak();
			noecho();
			nodelay(stdscr, TRUE);
			keypad(stdscr, TRUE);
			set_escdelay(25);
			curs_set(0);
		}
	}
	return 0;
}

void run__top_tick(struct run *r, __u64 now)
{
	struct top *tp = r->top;
	__u64 step = (__u64)(r->args->top_delay_s * 1e9);
	bool redraw = tp->screen && keys(tp);

	if (!tp->next_ns) {
		/* The first frame at once: the rates start from it. */
		sample(r, tp, now);
		tp->next_ns = now + step;
		if (tp->screen)
			draw(r, tp);
		return;
	}
	if (now >= tp->next_ns) {
		tp->next_ns = now + step;
		if (!tp->paused) {
			sample(r, tp, now);
			redraw = true;
			tp->frames++;
		}
	}
	if (redraw && !tp->quit)
		draw(r, tp);
	if (r->args->top_frames && tp->frames >= r->args->top_frames)
		tp->quit = true;
}

bool run__top_quit(const struct run *r)
{
	return r->top && r->top->quit;
}

void run__top_end(struct run *r)
{
	struct top *tp = r->top;

	if (!tp)
		return;
	if (tp->screen) {
		endwin();
		tp->screen = false;
	}
}

void run__top_free(struct run *r)
{
	struct top *tp = r->top;

	if (!tp)
		return;
	run__top_end(r);
	for (size_t i = 0; i < tp->site_cnt; i++)
		free(tp->sites[i].name);
	for (size_t i = 0; i < tp->img_cnt; i++)
		free(tp->imgs[i].site_of);
	free(tp->sites);
	free(tp->imgs);
	free(tp->thr);
	free(tp->sz_ent);
	free(tp);
	r->top = NULL;
}

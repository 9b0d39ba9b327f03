// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report - the seed harness's summary (alloc_profile.rs, report() and top_program_points())
 * printed from any DHAT v2 file loaded by dhat_reader, as text or JSON.
 *
 * Text: with --bytes (report_opts.exact_bytes), the seed's layout byte for byte for a heap
 * file (widths included), plus the lines the file can answer:
 *
 *	<blank line>
 *	==============================================================
 *	  TITLE
 *	  unit: UNIT x N                                    (only with a unit)
 *	--------------------------------------------------------------
 *	  total allocations : %12llu   (%12.0f per iter)    (the parenthesis only with N > 0)
 *	  total bytes       : %12llu   (%12.0f per iter)
 *	  peak live blocks  : %12llu                        (Σgbk; bklt only)
 *	  peak live bytes   : %12llu                        (Σgb;  bklt only)
 *	  end live blocks   : %12llu                        (Σebk; bklt only)
 *	  end live bytes    : %12llu                        (Σeb;  bklt only)
 *	  total reads       : %12llu                        (Σrb;  bkacc only)
 *	  total writes      : %12llu                        (Σwb;  bkacc only)
 *	<blank line>
 *	  top program points by TOTAL BYTES
 *	    %12llu B  %9llu allocs   SITE
 *	<blank line>
 *	  top program points by ALLOCATION COUNT
 *	    %9llu allocs  %12llu B   SITE
 *	[<blank line> and a third table with --sort peak|end|lifetime]
 *	[<blank line> and the still-live section (print_still_live), when blocks are live at end]
 *
 * By default byte figures are in human units (units__bytes: "526 B", "400.17 MiB"),
 * right-aligned in the same columns ("%12s", and "%14s" for "%12llu B").
 *
 * Units: a file's "bsu"/"bksu" (ad-hoc: "units"/"events") replace bytes/B and
 * allocations/allocs, and keep exact figures; a file whose verb is not "Allocated" (copy
 * mode) counts "blocks".
 *
 * SITE is the first frame that is not allocation plumbing, plus its caller, joined by
 * "  <-  ", each with the "0xADDR: " prefix removed, after a function calling itself was
 * folded into one frame (site__fold); "<unattributed>" for an empty stack. Rows whose SITE
 * would read the same get the frame that tells them apart (disambiguate). Per-iteration
 * figures are total/N printed with %.0f, which rounds half to even on the exact binary
 * value exactly like Rust's {:.0}.
 *
 * JSON: one object (see report__print_json below); counters are exact integers.
 */
#include "report.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dhat_reader.h"
#include "dhat_sampled.h"
#include "python_only.h"
#include "json_writer.h"
#include "log.h"
#include "safe_text.h"
#include "recorded_skip.h"
#include "site.h"
#include "strpool.h"
#include "strtab.h"
#include "suppress.h"
#include "units.h"

#define DEFAULT_TOP 12

/* Every PP's row (its item the PP), their order, and the names they point into. */
struct rows {
	struct site_row *v;
	struct site_row **order;
	struct site_names *names;
	size_t n;
};

static const struct dhat_pp *pp_of(const struct site_row *r)
{
	return r->item;
}

static const char *const SORT_NAMES[] = {
    [REPORT_SORT_DEFAULT] = "total-bytes",
    [REPORT_SORT_TOTAL_BYTES] = "total-bytes",
    [REPORT_SORT_TOTAL_BLOCKS] = "total-blocks",
    [REPORT_SORT_PEAK] = "peak",
    [REPORT_SORT_END] = "end",
    [REPORT_SORT_LIFETIME] = "lifetime",
};

int report__parse_sort(const char *name, enum report_sort *out)
{
	for (int i = REPORT_SORT_TOTAL_BYTES; i <= REPORT_SORT_LIFETIME; i++) {
		if (!strcmp(name, SORT_NAMES[i])) {
			*out = (enum report_sort)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *report__sort_name(enum report_sort sort)
{
	return sort <= REPORT_SORT_LIFETIME ? SORT_NAMES[sort] : "?";
}

/* Average lifetime of r's blocks: tl/tbk, 0 without blocks. */
static double avg_lifetime(const struct site_row *r)
{
	return pp_of(r)->tbk ? (double)pp_of(r)->tl / (double)pp_of(r)->tbk : 0;
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b ? 1 : 0;
}

/* The metric of a sort order for one row. */
static int cmp_metric(const struct site_row *a, const struct site_row *b, enum report_sort s)
{
	switch (s) {
	case REPORT_SORT_TOTAL_BLOCKS:
		return cmp_u64_desc(pp_of(a)->tbk, pp_of(b)->tbk);
	case REPORT_SORT_PEAK:
		return cmp_u64_desc(pp_of(a)->gb, pp_of(b)->gb);
	case REPORT_SORT_END:
		return cmp_u64_desc(pp_of(a)->eb, pp_of(b)->eb);
	case REPORT_SORT_LIFETIME:
		return avg_lifetime(a) > avg_lifetime(b) ? -1 : avg_lifetime(a) < avg_lifetime(b);
	default:
		return cmp_u64_desc(pp_of(a)->tb, pp_of(b)->tb);
	}
}

/* By the metric desc, then bytes desc, then blocks desc, then site text: a total order, so
 * qsort is stable enough (rows that compare equal print identically). ctx: the sort. */
static int cmp_rows(const void *x, const void *y, void *ctx)
{
	const struct site_row *a = *(const struct site_row *const *)x, *b = *(const struct site_row *const *)y;
	int c = cmp_metric(a, b, *(const enum report_sort *)ctx);

	if (!c)
		c = cmp_u64_desc(pp_of(a)->tb, pp_of(b)->tb);
	if (!c)
		c = cmp_u64_desc(pp_of(a)->tbk, pp_of(b)->tbk);
	return c ? c : site_row__cmp(a, b);
}

static void sort_rows(struct site_row **order, size_t n, enum report_sort s)
{
	qsort_r(order, n, sizeof(*order), cmp_rows, &s);
}

/* The words a file's units give the text. */
/* Every text here is terminal-safe (safe_text.h): bsu/bksu/tu come from the file. */
struct units {
	char bytes[48];	     /* "bytes" or bsu */
	char b[48];	     /* row suffix: "B" or bsu */
	char blocks[48];     /* "allocations", "blocks" or bksu */
	char bk[48];	     /* row suffix: "allocs", "blocks" or bksu */
	char tu[48];	     /* time unit: "tu" or tu */
	char bytes_hdr[64];  /* "TOTAL BYTES" */
	char blocks_hdr[64]; /* "ALLOCATION COUNT", "NUMBER OF EVENTS" */
	bool human;	     /* byte figures in KiB/MiB/... (units__bytes) */
};

static void upper(char *s)
{
	for (; *s; s++)
		*s = (char)toupper((unsigned char)*s);
}

static void units_of(const struct dhat_profile *p, struct units *u)
{
	bool allocs = !p->verb || !strcmp(p->verb, "Allocated");

	safe_text__copy_term(u->bytes, sizeof(u->bytes), p->bsu ? p->bsu : "bytes");
	safe_text__copy_term(u->b, sizeof(u->b), p->bsu ? p->bsu : "B");
	safe_text__copy_term(u->blocks, sizeof(u->blocks),
			     p->bksu ? p->bksu : allocs ? "allocations" : "blocks");
	safe_text__copy_term(u->bk, sizeof(u->bk), p->bksu ? p->bksu : allocs ? "allocs" : "blocks");
	safe_text__copy_term(u->tu, sizeof(u->tu), p->tu ? p->tu : "tu");
	snprintf(u->bytes_hdr, sizeof(u->bytes_hdr), "TOTAL %s", u->bytes);
	if (!p->bksu && allocs)
		snprintf(u->blocks_hdr, sizeof(u->blocks_hdr), "ALLOCATION COUNT");
	else
		snprintf(u->blocks_hdr, sizeof(u->blocks_hdr), "NUMBER OF %s", u->blocks);
	upper(u->bytes_hdr);
	upper(u->blocks_hdr);
}

/* site_frames of a profile's PPs (ctx: the profile, item: a PP) */
static const char *pp_frame_at(const void *ctx, const void *item, size_t i)
{
	return dhat_profile__pp_frame(ctx, item, i);
}

static size_t pp_frame_cnt(const void *ctx, const void *item)
{
	(void)ctx;
	return ((const struct dhat_pp *)item)->fs_cnt;
}

/* A row for every PP, order[] pointing at them, named (site.h). Freed with free_rows, also
 * on failure. */
static int build_rows(const struct dhat_profile *p, const struct report_opts *opts, struct rows *rs)
{
	const struct site_frames src = {.at = pp_frame_at, .cnt = pp_frame_cnt, .ctx = p};
	size_t n = p->pp_cnt;

	rs->n = n;
	rs->v = calloc(n ? n : 1, sizeof(*rs->v));
	rs->order = calloc(n ? n : 1, sizeof(*rs->order));
	rs->names = site_names__new();
	if (!rs->v || !rs->order || !rs->names)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct dhat_pp *pp = &p->pps[i];

		rs->v[i] = (struct site_row){.item = pp, .tb = pp->tb, .tbk = pp->tbk};
		rs->order[i] = &rs->v[i];
	}
	return site_names__name(rs->names, rs->order, n, &src, opts ? &opts->site : NULL);
}

static void free_rows(struct rows *rs)
{
	free(rs->v);
	free(rs->order);
	site_names__free(rs->names);
}

static bool needs_bklt(enum report_sort s)
{
	return s == REPORT_SORT_PEAK || s == REPORT_SORT_END || s == REPORT_SORT_LIFETIME;
}

/* A byte figure in a row: "%12llu B" exactly as before with --bytes or in a file that counts
 * something else (bsu), else human units right-aligned to the same 14 columns. */
static const char *cell(const struct units *u, uint64_t v, char *buf, size_t sz)
{
	char h[UNITS_BYTES_SZ];

	if (!u->human)
		snprintf(buf, sz, "%12llu %s", (unsigned long long)v, u->b);
	else
		snprintf(buf, sz, "%14s", units__bytes(v, false, h, sizeof(h)));
	return buf;
}

/* A byte figure in the totals: "%12llu", or human units in 12 columns. */
static const char *total(const struct units *u, uint64_t v, char *buf, size_t sz)
{
	char h[UNITS_BYTES_SZ];

	if (!u->human)
		snprintf(buf, sz, "%12llu", (unsigned long long)v);
	else
		snprintf(buf, sz, "%12s", units__bytes(v, false, h, sizeof(h)));
	return buf;
}

/* The --sort table: rows with a non-zero metric, by that metric. */
/* How RSS split at te (e: the kernel's figures at death, or the last sample), with what
 * the file knows of the rest: mappings outside malloc, the heap in malloc chunks. */
static void print_rss_split(FILE *out, const struct dhat_profile *p, const struct dhat_rss_end *e,
			    const char *when, uint64_t te, const struct units *u)
{
	struct dhat_rss_split s = {
		.e = e,
		.live_bytes = p->end_bytes,
		.when = when,
		.te = te,
		.outside_malloc = p->has_mappings ? &p->mappings.outside_malloc : NULL,
		.chunk_bytes = p->live_cb ? &p->live_cb_end : NULL,
		.exact_bytes = !u->human,
	};
	uint64_t arena_free = 0;

	for (size_t i = 0; i < p->arenas.cnt; i++)
		arena_free += p->arenas.v[i].free;
	if (p->arenas.cnt)
		s.arena_free = &arena_free;

	dhat_rss__print_split(out, &s);
}

/* dhat_arenas_site_fn, ctx = the report's rows: the site of program point pp. */
struct arena_sites {
	const struct dhat_profile *p;
	const struct rows *rs;
};

static void arena_site(FILE *out, void *ctx, int64_t pp)
{
	const struct arena_sites *as = ctx;

	for (size_t i = 0; pp >= 0 && (uint64_t)pp < as->p->pp_cnt && i < as->p->pp_cnt; i++)
		if (pp_of(as->rs->order[i]) == &as->p->pps[pp]) {
			const char *pc[SITE_ROW_PIECES];
			char num[16];
			size_t k = site_row__pieces(as->rs->order[i], pc, num);

			for (size_t j = 0; j < k; j++)
				safe_text__fputs_term(out, pc[j]);
			return;
		}
	fputs("<unknown program point>", out);
}

/* A line's last field, from the target (a symbol name, a path): terminal-safe, then '\n'. */
static void put_site(FILE *out, const char *s)
{
	safe_text__fputs_term(out, s);
	fputc('\n', out);
}

/* A row's text, as put_site. Its pieces are whole strings joined by ASCII, so writing them one
 * by one escapes the same bytes as writing the text whole. */
static void put_row_site_tag(FILE *out, const struct site_row *r, const char *tag)
{
	const char *pc[SITE_ROW_PIECES];
	char num[16];
	size_t k = site_row__pieces(r, pc, num);

	for (size_t i = 0; i < k; i++)
		safe_text__fputs_term(out, pc[i]);
	if (tag && *tag)
		fprintf(out, "  [%s]", tag);
	fputc('\n', out);
}

static void put_row_site(FILE *out, const struct site_row *r)
{
	put_row_site_tag(out, r, NULL);
}

/* A share in per cent, at most 100 (0 of 0: 0). */
static double share(uint64_t part, uint64_t whole)
{
	double pct = whole ? 100.0 * (double)part / (double)whole : 0;

	return pct > 100 ? 100 : pct;
}

/* Sampled: the shares of pp's bytes charged there by reallocs (in) and of its blocks a realloc
 * then moved (out), in per cent; whether either reaches the 1% that marks the row. */
static bool realloc_shares(const struct dhat_profile *p, const struct dhat_pp *pp, double *in,
			   double *out)
{
	struct dhat_pp_est e = dhat_profile__pp_est(p, pp);

	*in = share(e.tb_realloc, pp->tb);
	*out = share(e.tbk_reallocd, pp->tbk);
	return *in >= 1 || *out >= 1;
}

/* Sampled: where a row's estimate rests on realloc chains, which sampling charges by its own
 * rule (dhat_sampled.h): "64% of bytes by realloc" (bytes charged here by reallocs), "30% of
 * blocks realloc'd" (its blocks a realloc then moved), each when at least 1%; else "". */
static const char *realloc_tag(const struct dhat_profile *p, const struct site_row *r, char *buf,
			       size_t sz)
{
	double in, out;
	int n = 0;

	buf[0] = '\0';
	if (!realloc_shares(p, pp_of(r), &in, &out))
		return buf;
	if (in >= 1)
		n = snprintf(buf, sz, "%.0f%% of bytes by realloc", in);
	if (out >= 1 && n >= 0 && (size_t)n < sz)
		snprintf(buf + n, sz - (size_t)n, "%s%.0f%% of blocks realloc'd", n ? ", " : "",
			 out);
	return buf;
}

static void print_sort_table(FILE *out, const struct dhat_profile *p, struct site_row **order, size_t n,
			     size_t top, enum report_sort s, const struct units *u)
{
	static const char *const hdr[] = {
	    [REPORT_SORT_PEAK] = "AT PEAK (t-gmax)",
	    [REPORT_SORT_END] = "AT END (t-end)",
	    [REPORT_SORT_LIFETIME] = "AVERAGE LIFETIME",
	};
	size_t shown = 0;
	char c[64];

	/* A file that records a death ends at it: what was live at t-end is the heap then. */
	if (s == REPORT_SORT_END && p->has_death)
		fprintf(out, "\n  top program points by BYTES LIVE AT %s\n",
			p->death.cause == DHAT_DEATH_EXIT ? "EXIT" : "DEATH");
	else
		fprintf(out, "\n  top program points %s%s\n",
			s == REPORT_SORT_LIFETIME ? "by " : "", hdr[s]);
	sort_rows(order, n, s);
	for (size_t i = 0; i < n && shown < top; i++) {
		const struct site_row *r = order[i];

		if (s == REPORT_SORT_LIFETIME) {
			if (!pp_of(r)->tbk)
				continue;
			fprintf(out, "    %12.0f %s  %9llu %s   ", avg_lifetime(r), u->tu,
				(unsigned long long)pp_of(r)->tbk, u->bk);
			put_row_site(out, r);
		} else {
			uint64_t b = s == REPORT_SORT_PEAK ? pp_of(r)->gb : pp_of(r)->eb;
			uint64_t bk = s == REPORT_SORT_PEAK ? pp_of(r)->gbk : pp_of(r)->ebk;

			if (!b && !bk)
				continue;
			fprintf(out, "    %s  %9llu %s   ", cell(u, b, c, sizeof(c)),
				(unsigned long long)bk, u->bk);
			put_row_site(out, r);
		}
		shown++;
	}
}

/*
 * The leak suspects: sites with blocks still live at the end (t-end) that are many (at least
 * LIVE_MANY), old (their blocks lived, on average, at least half the run: tl/tbk >= te/2; a
 * DHAT file has no per-block age, and tl counts a block live at the end up to t-end) or big
 * (LIVE_BIG bytes live: one large block left at the end is a leak whatever its age, as a
 * Box::leak of 97.66 KiB is). Not the one-time allocations of libc, ld.so and the runtimes,
 * nor what --suppressions names (suppress.h). Ranked by bytes live at the end weighted by
 * age, so that old bytes come first; a big site weighs all its bytes. "age" is tl/tbk in %
 * of te.
 */
#define LIVE_MANY 2
#define LIVE_BIG (16 * 1024)

/* Whether any frame of r's stack is suppressed; *builtin: by the built-in list. */
static bool suppressed(const struct dhat_profile *p, const struct site_row *r,
		       const struct report_opts *opts, bool *builtin)
{
	const struct dhat_pp *pp = pp_of(r);

	for (size_t i = 0; i < pp->fs_cnt; i++)
		if (suppress__frame(opts ? opts->supp : NULL, dhat_profile__pp_frame(p, pp, i),
				    builtin))
			return true;
	return false;
}

static bool live_suspect(const struct site_row *r, uint64_t te)
{
	return pp_of(r)->ebk && (pp_of(r)->ebk >= LIVE_MANY || pp_of(r)->eb >= LIVE_BIG ||
				 avg_lifetime(r) * 2 >= (double)te);
}

/* Bytes live at the end weighted by age (0..1 of the run); a big site by 1. */
static double suspect_score(const struct site_row *r, uint64_t te)
{
	double age = te ? avg_lifetime(r) / (double)te : 1.0;

	if (pp_of(r)->eb >= LIVE_BIG || age > 1.0)
		age = 1.0;
	return (double)pp_of(r)->eb * age;
}

static int cmp_suspects(const void *x, const void *y, void *ctx)
{
	const struct site_row *a = *(const struct site_row *const *)x,
			      *b = *(const struct site_row *const *)y;
	uint64_t te = *(const uint64_t *)ctx;
	double sa = suspect_score(a, te), sb = suspect_score(b, te);
	int c = sa > sb ? -1 : sa < sb;

	if (!c)
		c = cmp_u64_desc(pp_of(a)->eb, pp_of(b)->eb);
	return c ? c : cmp_rows(x, y, &(enum report_sort){ REPORT_SORT_END });
}

/* The suspects, first n of them in order[] in rank order; returns n. *supp_n and *supp_b: how
 * many live sites and bytes suppressions took away. */
static size_t rank_suspects(const struct dhat_profile *p, struct site_row **order, size_t n,
			    const struct report_opts *opts, size_t *supp_n, uint64_t *supp_b)
{
	size_t k = 0;

	*supp_n = 0;
	*supp_b = 0;
	for (size_t i = 0; i < n; i++) {
		struct site_row *r = order[i];
		bool builtin;

		if (!live_suspect(r, p->te))
			continue;
		if (suppressed(p, r, opts, &builtin)) {
			(*supp_n)++;
			*supp_b += pp_of(r)->eb;
			continue;
		}
		order[i] = order[k];
		order[k++] = r;
	}
	qsort_r(order, k, sizeof(*order), cmp_suspects, &(uint64_t){ p->te });
	return k;
}

/* Every frame of r's stack, cleaned, one a line under its row (report --leaks). */
static void put_stack(FILE *out, const struct dhat_profile *p, const struct site_row *r)
{
	const struct dhat_pp *pp = pp_of(r);

	for (size_t i = 0; i < pp->fs_cnt; i++) {
		fputs("        ", out);
		put_site(out, site__clean_frame(dhat_profile__pp_frame(p, pp, i)));
	}
}

static void print_still_live(FILE *out, const struct dhat_profile *p, struct site_row **order,
			     size_t n, size_t top, const struct units *u,
			     const struct report_opts *opts)
{
	bool stacks = opts && opts->leaks_only;
	size_t k, supp_n;
	uint64_t supp_b;
	char c[64];

	fprintf(out,
		"\n  still live at the end (leak suspects by bytes x age: %d+ %s, living half the "
		"run, or %d KiB+)\n",
		LIVE_MANY, u->bk, LIVE_BIG / 1024);
	k = rank_suspects(p, order, n, opts, &supp_n, &supp_b);
	for (size_t i = 0; i < k && i < top; i++) {
		const struct site_row *r = order[i];

		fprintf(out, "    %s  %9llu %s  age %3.0f%%   ", cell(u, pp_of(r)->eb, c, sizeof(c)),
			(unsigned long long)pp_of(r)->ebk, u->bk,
			p->te ? 100.0 * avg_lifetime(r) / (double)p->te : 0.0);
		put_row_site(out, r);
		if (stacks)
			put_stack(out, p, r);
	}
	if (!k)
		fprintf(out, "    none: %llu %s live, none of them many, old or big\n",
			(unsigned long long)p->end_blocks, u->bk);
	if (supp_n) {
		char h[UNITS_BYTES_SZ];

		if (u->human)
			units__bytes(supp_b, false, h, sizeof(h));
		else
			snprintf(h, sizeof(h), "%llu %s", (unsigned long long)supp_b, u->b);
		/* two spaces, as the heading: a note, not a row */
		fprintf(out, "  %zu %s suppressed (%s live): one-time allocations of libc, ld.so "
			"and runtimes%s\n", supp_n, supp_n == 1 ? "site" : "sites", h,
			opts && opts->supp ? ", --suppressions" : "");
	}
}

/* Program point k's row (rs->v is in PP order; only order[] is sorted), or NULL. */
static const struct site_row *pp_row(const struct dhat_profile *p, const struct rows *rs,
				     int64_t k)
{
	return k >= 0 && (uint64_t)k < p->pp_cnt ? &rs->v[k] : NULL;
}

/* report --by-thread: each thread's total, its own peak of live bytes and what it left live
 * at the end, largest total first, named as /proc named it when the tracer first saw it
 * allocate, with its largest site. */
static void print_threads(FILE *out, const struct dhat_profile *p, const struct rows *rs,
			  const struct units *u)
{
	const struct dhat_thread **v;
	char c1[64], c2[64], c3[64];

	fputs("\n  by thread (total, its own peak of live bytes, live at the end; its top site)\n",
	      out);
	if (!p->threads_cnt) {
		fputs("    none recorded: the file has no \"threads\" (not written by this "
		      "tracer, or by an older one)\n", out);
		return;
	}
	v = calloc(p->threads_cnt, sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < p->threads_cnt; i++)
		v[i] = &p->threads[i];
	for (size_t i = 1; i < p->threads_cnt; i++) /* insertion sort: a few hundred at most */
		for (size_t j = i; j && v[j]->tb > v[j - 1]->tb; j--) {
			const struct dhat_thread *t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	for (size_t i = 0; i < p->threads_cnt; i++) {
		const struct dhat_thread *t = v[i];
		const struct site_row *r = pp_row(p, rs, t->top_pp);

		const char *name = !t->tid ? "(other threads)" : *t->comm ? t->comm : "?";
		size_t len = strlen(name);

		fprintf(out, "    %7llu  ", (unsigned long long)t->tid);
		safe_text__fputs_term(out, name);
		fprintf(out, "%*s %s %9llu %s  peak %s  end %s", len < 16 ? (int)(16 - len) : 0, "",
			cell(u, t->tb, c1, sizeof(c1)), (unsigned long long)t->tbk, u->bk,
			cell(u, t->mb, c2, sizeof(c2)), cell(u, t->eb, c3, sizeof(c3)));
		if (r) {
			fputs("   ", out);
			put_row_site(out, r);
		} else {
			fputc('\n', out);
		}
	}
	free(v);
}

/* report --sizes: how many allocations of which sizes, in power-of-two buckets, and the site
 * with the most allocations in each. */
static void print_sizes(FILE *out, const struct dhat_profile *p, const struct rows *rs,
			const struct units *u)
{
	char lo[UNITS_BYTES_SZ], hi[UNITS_BYTES_SZ], range[64], c[64];

	fputs("\n  allocation sizes (power-of-two buckets: allocations, bytes; the site with the "
	      "most)\n", out);
	if (!p->sizes_cnt) {
		fputs("    none recorded: the file has no \"sizes\" (not written by this tracer, "
		      "or by an older one)\n", out);
		return;
	}
	for (size_t i = 0; i < p->sizes_cnt; i++) {
		const struct dhat_size_bucket *b = &p->sizes[i];
		const struct site_row *r = pp_row(p, rs, b->top_pp);

		units__bytes(1ull << b->log2, false, lo, sizeof(lo));
		if (b->log2 < 63)
			units__bytes(1ull << (b->log2 + 1), false, hi, sizeof(hi));
		else
			snprintf(hi, sizeof(hi), "...");
		snprintf(range, sizeof(range), "%s .. %s", lo, hi);
		fprintf(out, "    %-22s %9llu %s %s", range, (unsigned long long)b->tbk, u->bk,
			cell(u, b->tb, c, sizeof(c)));
		if (r) {
			fprintf(out, "   %llu in ", (unsigned long long)b->top_tbk);
			put_row_site(out, r);
		} else {
			fputc('\n', out);
		}
	}
}

/* " ±12%" after an estimate of a sampled profile; nothing otherwise. Every cell holds one
 * 2-byte "±", so one byte width lines them up. */
static void put_pm(FILE *out, const struct dhat_profile *p, uint64_t value, double se)
{
	char pm[32];

	if (!p->sample_bytes)
		return;
	dhat_sampled__pm(value, se, pm, sizeof(pm));
	fprintf(out, " %7s", pm);
}

/* Whether realloc_tag() marks any PP of p. */
static bool any_realloc_tag(const struct dhat_profile *p)
{
	double in, out;

	for (size_t k = 0; k < p->est_cnt; k++)
		if (realloc_shares(p, &p->pps[k], &in, &out))
			return true;
	return false;
}

static int print_text(FILE *out, const struct dhat_profile *p, const struct report_opts *opts)
{
	size_t top = opts && opts->top ? opts->top : DEFAULT_TOP;
	unsigned long iters = opts ? opts->iterations : 0;
	enum report_sort sort = opts ? opts->sort : REPORT_SORT_DEFAULT;
	const char *title = opts && opts->title ? opts->title : p->path;
	struct rows rs = {0};
	struct arena_sites as = { p, &rs };
	struct site_row **order;
	size_t n = p->pp_cnt, shown;
	char label[64], c[64], tag[80];
	struct units u;
	int err;

	if (!opts || !opts->title) {
		const char *slash = strrchr(title, '/');

		if (slash && slash[1])
			title = slash + 1;
	}
	units_of(p, &u);
	u.human = !p->bsu && !(opts && opts->exact_bytes);
	err = build_rows(p, opts, &rs);
	order = rs.order;
	if (err)
		goto cleanup;

	fputs("\n==============================================================\n", out);
	fputs("  ", out);
	put_site(out, title);
	if (opts && opts->unit) {
		fputs("  unit: ", out);
		safe_text__fputs_term(out, opts->unit);
		fprintf(out, " x %lu\n", iters);
	}
	fputs("--------------------------------------------------------------\n", out);
	if (opts && (opts->by_thread || opts->sizes)) { /* the views alone */
		if (opts->by_thread)
			print_threads(out, p, &rs, &u);
		if (opts->sizes)
			print_sizes(out, p, &rs, &u);
		goto flush;
	}
	if (opts && opts->leaks_only) { /* report --leaks: the suspects alone, with stacks */
		if (!p->bklt)
			fputs("  no block lifetimes in this file (\"bklt\": false): no leak "
			      "suspects\n", out);
		else if (!p->end_blocks)
			fputs("  nothing live at the end: no leak suspects\n", out);
		else
			print_still_live(out, p, order, n, top, &u, opts);
		goto flush;
	}
	if (p->sample_bytes) { /* every figure below is an estimate */
		char est[128];

		dhat_sampled__label(p->sample_bytes, est, sizeof(est));
		fprintf(out, "  %s\n", est);
		fputs("  \xc2\xb1: the 95% interval of an estimate, from sampling alone\n", out);
		if (any_realloc_tag(p))
			fputs("  [... realloc ...]: a realloc chain: sampling charges a realloc "
			      "of a block it did\n  not keep to the realloc's site, DHAT to the "
			      "block's birth site; such a site\n  may be off by more than its "
			      "\xc2\xb1\n",
			      out);
	}
	if (p->has_death) { /* the end is the death: lead with it and with what was live */
		char line[256];

		dhat_death__describe(&p->death, p->end_bytes, !u.human, line, sizeof(line));
		fprintf(out, "  %s\n", line);
		/* The kernel's figures at death, else the tracer's last sample. */
		if (p->death.has_rss || p->has_rss)
			print_rss_split(out, p, p->death.has_rss ? &p->death.rss : &p->rss_end,
					p->death.cause == DHAT_DEATH_EXIT ? "exit" : "death",
					p->death.has_rss ? 0 : p->te, &u);
		if (p->bklt)
			print_sort_table(out, p, order, n, top, REPORT_SORT_END, &u);
		if (p->has_mappings)
			dhat_mappings__print(out, &p->mappings, top,
					     p->death.cause == DHAT_DEATH_EXIT ? "exit" : "death",
					     !u.human);
		dhat_arenas__print(out, &p->arenas,
				   p->death.cause == DHAT_DEATH_EXIT ? "exit" : "death", !u.human,
				   arena_site, &as);
		fputc('\n', out);
	}
	snprintf(label, sizeof(label), "total %s", u.blocks);
	fprintf(out, "  %-18s: %12llu", label, (unsigned long long)p->total_blocks);
	put_pm(out, p, p->total_blocks, sqrt(p->total_blocks_var));
	if (iters)
		fprintf(out, "   (%12.0f per iter)", (double)p->total_blocks / (double)iters);
	snprintf(label, sizeof(label), "total %s", u.bytes);
	fprintf(out, "\n  %-18s: %s", label, total(&u, p->total_bytes, c, sizeof(c)));
	put_pm(out, p, p->total_bytes, sqrt(p->total_bytes_var));
	if (iters && u.human) {
		units__bytes_frac((double)p->total_bytes / (double)iters, label, sizeof(label));
		fprintf(out, "   (%12s per iter)", label);
	} else if (iters)
		fprintf(out, "   (%12.0f per iter)", (double)p->total_bytes / (double)iters);
	fputc('\n', out);
	if (p->bklt) {
		fprintf(out, "  peak live blocks  : %12llu\n", (unsigned long long)p->gmax_blocks);
		fprintf(out, "  peak live bytes   : %s\n", total(&u, p->gmax_bytes, c, sizeof(c)));
		fprintf(out, "  end live blocks   : %12llu\n", (unsigned long long)p->end_blocks);
		fprintf(out, "  end live bytes    : %s\n", total(&u, p->end_bytes, c, sizeof(c)));
	}
	if (p->has_rss && !p->has_death && p->bklt) {
		fputc('\n', out);
		print_rss_split(out, p, &p->rss_end, "end", p->te, &u);
	}
	if (!p->has_death)
		dhat_arenas__print(out, &p->arenas, "end", !u.human, arena_site, &as);
	if (p->bkacc) {
		fprintf(out, "  total reads       : %s\n", total(&u, p->total_reads, c, sizeof(c)));
		fprintf(out, "  total writes      : %s\n",
			total(&u, p->total_writes, c, sizeof(c)));
	}

	shown = n < top ? n : top;
	fprintf(out, "\n  top program points by %s\n", u.bytes_hdr);
	sort_rows(order, n, REPORT_SORT_TOTAL_BYTES);
	for (size_t i = 0; i < shown; i++) {
		struct dhat_pp_est se = dhat_profile__pp_est(p, pp_of(order[i]));

		fprintf(out, "    %s", cell(&u, pp_of(order[i])->tb, c, sizeof(c)));
		put_pm(out, p, pp_of(order[i])->tb, se.tb_se);
		fprintf(out, "  %9llu %s   ", (unsigned long long)pp_of(order[i])->tbk, u.bk);
		put_row_site_tag(out, order[i], realloc_tag(p, order[i], tag, sizeof(tag)));
	}
	fprintf(out, "\n  top program points by %s\n", u.blocks_hdr);
	sort_rows(order, n, REPORT_SORT_TOTAL_BLOCKS);
	for (size_t i = 0; i < shown; i++) {
		struct dhat_pp_est se = dhat_profile__pp_est(p, pp_of(order[i]));

		fprintf(out, "    %9llu %s", (unsigned long long)pp_of(order[i])->tbk, u.bk);
		put_pm(out, p, pp_of(order[i])->tbk, se.tbk_se);
		fprintf(out, "  %s   ", cell(&u, pp_of(order[i])->tb, c, sizeof(c)));
		put_row_site_tag(out, order[i], realloc_tag(p, order[i], tag, sizeof(tag)));
	}
	if (needs_bklt(sort) && p->bklt && !(sort == REPORT_SORT_END && p->has_death))
		print_sort_table(out, p, order, n, top, sort, &u);
	if (p->bklt && p->end_blocks)
		print_still_live(out, p, order, n, top, &u, opts);
	if (p->has_mappings && !p->has_death)
		dhat_mappings__print(out, &p->mappings, top, "end", !u.human);
flush:
	if (fflush(out) || ferror(out))
		err = -EIO;

cleanup:
	free_rows(&rs);
	return err;
}

/* ---- JSON ----------------------------------------------------------------------------- */

/* A ratio with at most 3 decimals, trailing zeros dropped: 1.75, 131.5, 928.667 (tl/tbk
 * and per-iteration figures are not worth 17 digits). */
static void json_ratio(struct json_writer *jw, const char *key, double v)
{
	char buf[48];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "%.3f", v);

	while (n > 1 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 1 && buf[n - 1] == '.')
		buf[--n] = '\0';
	json_writer__raw(jw, key, buf);
}

/* One row of "rows". Returns 0 or -ENOMEM. */
static int json_row(struct json_writer *jw, const struct dhat_profile *p, const struct site_row *r)
{
	const struct dhat_pp *pp = pp_of(r);
	char *site = NULL;

	if (r->tail.kind != SITE_TAIL_NONE && !(site = site_row__text(r, true)))
		return -ENOMEM;
	json_writer__begin_object(jw, NULL);
	json_writer__string(jw, "site", site ? site : r->site);
	free(site);
	json_writer__uint(jw, "tb", pp->tb);
	json_writer__uint(jw, "tbk", pp->tbk);
	if (p->sample_bytes) { /* standard errors and realloc chains (dhat_sampled.h) */
		struct dhat_pp_est se = dhat_profile__pp_est(p, pp);

		json_ratio(jw, DHAT_SAMPLED_TB_SE, se.tb_se);
		json_ratio(jw, DHAT_SAMPLED_TBK_SE, se.tbk_se);
		json_writer__uint(jw, DHAT_SAMPLED_TB_REALLOC, se.tb_realloc);
		json_writer__uint(jw, DHAT_SAMPLED_TBK_REALLOCD, se.tbk_reallocd);
	}
	if (p->bklt) {
		json_writer__uint(jw, "tl", pp->tl);
		json_ratio(jw, "avg_lifetime", avg_lifetime(r));
		json_writer__uint(jw, "mb", pp->mb);
		json_writer__uint(jw, "mbk", pp->mbk);
		json_writer__uint(jw, "gb", pp->gb);
		json_writer__uint(jw, "gbk", pp->gbk);
		json_writer__uint(jw, "eb", pp->eb);
		json_writer__uint(jw, "ebk", pp->ebk);
	}
	if (p->bkacc) {
		json_writer__uint(jw, "rb", dhat_profile__pp_rb(p, pp));
		json_writer__uint(jw, "wb", dhat_profile__pp_wb(p, pp));
	}
	json_writer__begin_array(jw, "frames");
	for (size_t i = 0; i < pp->fs_cnt; i++)
		json_writer__string(jw, NULL,
				    site__clean_frame(dhat_profile__pp_frame(p, pp, i)));
	json_writer__end_array(jw);
	json_writer__end_object(jw);
	return 0;
}

/* {"blocks": blocks, "bytes": bytes} as member key. */
static void json_blocks_bytes(struct json_writer *jw, const char *key, uint64_t blocks,
			      uint64_t bytes)
{
	json_writer__begin_object(jw, key);
	json_writer__uint(jw, "blocks", blocks);
	json_writer__uint(jw, "bytes", bytes);
	json_writer__end_object(jw);
}

/*
 * {"file": "prog.json", "title": ..., "mode": "heap", "verb": "Allocated", "cmd": "./prog",
 *  "pid": 7, "bklt": true, "bkacc": true,
 *  "units": {"time": "instrs", "Mtime": "Minstr", "bytes": "bytes", "blocks": "blocks"},
 *  "te": 155834, "tg": 150133,                                   (tg: bklt only)
 *  "totals": {"blocks": 7, "bytes": 526, "reads": 159, "writes": 261},  (reads/writes: bkacc;
 *             "blocksSe", "bytesSe": standard errors, sampled profiles)
 *  "lost": {"droppedRecords": 0, "unknownFrees": 3, ...},    (when the file has it: dhat_lost.h)
 *  "death": "killed by SIGSEGV at address 0x10: live heap 12 KiB at death",  (dhat_death.h)
 *  "rss": {"anon": N, "file": N, "shmem": N, "swap": N},     (RSS at te: dhat_rss.h)
 *  "mappings": {"outsideMalloc": N, "insideMalloc": N},      (dhat_mappings.h)
 *  "iterations": 4, "unit": "...", "per_iteration": {"blocks": 1.75, "bytes": 131.5},
 *  "peak": {"blocks": 2, "bytes": 280}, "end": {"blocks": 1, "bytes": 32},  (bklt only)
 *  "pp_count": 3, "sort": "total-bytes",
 *  "rows": [{"site", "tb", "tbk", "tbSe", "tbkSe", "tbRealloc", "tbkReallocd" (sampled), "tl",
 *            "avg_lifetime", "mb", "mbk", "gb", "gbk", "eb", "ebk", "rb", "wb",
 *            "frames": [cleaned frame text, innermost first]}]}
 * rows: the top N by the sort metric, all of them without --top. Laid out as cJSON_Print
 * did (JSON_WRITER_PRETTY), rows streamed one at a time.
 */
static int print_json(FILE *out, const struct dhat_profile *p, const struct report_opts *opts)
{
	enum report_sort sort = opts && opts->sort ? opts->sort : REPORT_SORT_TOTAL_BYTES;
	unsigned long iters = opts ? opts->iterations : 0;
	struct rows rs = {0};
	struct site_row **order;
	size_t n = p->pp_cnt, shown = opts && opts->top && opts->top < n ? opts->top : n;
	struct json_writer *jw = NULL;
	int err;

	err = build_rows(p, opts, &rs);
	order = rs.order;
	if (err)
		goto cleanup;
	jw = json_writer__new(out, JSON_WRITER_PRETTY);
	if (!jw) {
		err = -ENOMEM;
		goto cleanup;
	}
	json_writer__begin_object(jw, NULL);
	json_writer__string(jw, "file", p->path);
	if (opts && opts->title)
		json_writer__string(jw, "title", opts->title);
	json_writer__string(jw, "mode", p->mode);
	json_writer__string(jw, "verb", p->verb);
	json_writer__string(jw, "cmd", p->cmd);
	json_writer__uint(jw, "pid", (uint64_t)p->pid);
	json_writer__bool(jw, "bklt", p->bklt);
	json_writer__bool(jw, "bkacc", p->bkacc);
	if (p->sample_bytes) /* the figures are estimates (dhat_sampled.h) */
		json_writer__uint(jw, "sampleBytes", p->sample_bytes);
	json_writer__begin_object(jw, "units");
	json_writer__string(jw, "time", p->tu);
	json_writer__string(jw, "Mtime", p->mtu);
	json_writer__string(jw, "bytes", p->bsu ? p->bsu : "bytes");
	json_writer__string(jw, "blocks", p->bksu ? p->bksu : "blocks");
	json_writer__end_object(jw);
	json_writer__uint(jw, "te", p->te);
	if (p->bklt)
		json_writer__uint(jw, "tg", p->tg);
	json_writer__begin_object(jw, "totals");
	json_writer__uint(jw, "blocks", p->total_blocks);
	json_writer__uint(jw, "bytes", p->total_bytes);
	if (p->sample_bytes) {
		json_ratio(jw, "blocksSe", sqrt(p->total_blocks_var));
		json_ratio(jw, "bytesSe", sqrt(p->total_bytes_var));
	}
	if (p->bkacc) {
		json_writer__uint(jw, "reads", p->total_reads);
		json_writer__uint(jw, "writes", p->total_writes);
	}
	json_writer__end_object(jw);
	if (p->has_lost) {
		json_writer__begin_object(jw, DHAT_LOST_KEY);
		for (int k = 0; k < DHAT_LOST_CNT; k++)
			json_writer__uint(jw, dhat_lost_keys[k], p->lost.n[k]);
		json_writer__end_object(jw);
	}
	if (p->has_death) {
		char line[256];

		dhat_death__describe(&p->death, p->end_bytes, false, line, sizeof(line));
		json_writer__string(jw, DHAT_DEATH_KEY, line);
	}
	if (p->death.has_rss || p->has_rss) { /* RSS at te: the kernel's at death, else sampled */
		const struct dhat_rss_end *e = p->death.has_rss ? &p->death.rss : &p->rss_end;

		json_writer__begin_object(jw, DHAT_RSS_KEY);
		json_writer__uint(jw, "anon", e->anon);
		json_writer__uint(jw, "file", e->file);
		json_writer__uint(jw, "shmem", e->shmem);
		json_writer__uint(jw, "swap", e->swap);
		json_writer__end_object(jw);
	}
	if (p->has_mappings) { /* the process's own anonymous mappings, apart from the heap */
		json_writer__begin_object(jw, DHAT_MAPPINGS_KEY);
		json_writer__uint(jw, "outsideMalloc", p->mappings.outside_malloc);
		json_writer__uint(jw, "insideMalloc", p->mappings.inside_malloc);
		json_writer__end_object(jw);
	}
	if (iters) {
		json_writer__uint(jw, "iterations", iters);
		if (opts->unit)
			json_writer__string(jw, "unit", opts->unit);
		json_writer__begin_object(jw, "per_iteration");
		json_ratio(jw, "blocks", (double)p->total_blocks / (double)iters);
		json_ratio(jw, "bytes", (double)p->total_bytes / (double)iters);
		json_writer__end_object(jw);
	}
	if (p->bklt) {
		json_blocks_bytes(jw, "peak", p->gmax_blocks, p->gmax_bytes);
		json_blocks_bytes(jw, "end", p->end_blocks, p->end_bytes);
	}
	json_writer__uint(jw, "pp_count", n);
	json_writer__string(jw, "sort", report__sort_name(sort));
	if (opts && opts->leaks_only) { /* --leaks: the suspects, ranked, and no others */
		size_t supp_n;
		uint64_t supp_b;

		n = p->bklt ? rank_suspects(p, order, n, opts, &supp_n, &supp_b) : 0;
		if (shown > n)
			shown = n;
		json_writer__uint(jw, "suppressedSites", p->bklt ? supp_n : 0);
	} else {
		sort_rows(order, n, sort);
	}
	json_writer__begin_array(jw, "rows");
	for (size_t i = 0; i < shown && !err; i++)
		err = json_row(jw, p, order[i]);
	json_writer__end_array(jw);
	json_writer__end_object(jw);
	if (!err)
		err = json_writer__error(jw);
	if (!err)
		err = fputc('\n', out) == EOF || fflush(out) || ferror(out) ? -EIO : 0;
cleanup:
	json_writer__free(jw);
	free_rows(&rs);
	return err;
}

int report__print(FILE *out, const struct dhat_profile *p, const struct report_opts *opts)
{
	struct report_opts o = opts ? *opts : (struct report_opts){ 0 };
	struct site_opts site;
	int err;

	/* The trace's --skip patterns, recorded in the file, as if given (recorded_skip.h). */
	if (recorded_skip__merge(p, opts ? &opts->site : NULL, !o.no_recorded_skip, &site))
		return -ENOMEM;
	if (site.skip)
		o.site = site;
	err = o.json ? print_json(out, p, &o) : print_text(out, p, &o);
	recorded_skip__release(&site);
	return err;
}

int report__print_file(FILE *out, const char *path, const struct report_opts *opts, char *err,
		       size_t errsz)
{
	struct dhat_profile *p;
	int ret;

	p = dhat_profile__load(path, err, errsz);
	if (!p)
		return errno ? -errno : -EINVAL;
	if (opts && opts->python_only && python_only__fold(p) < 0) {
		dhat_profile__free(p);
		if (err && errsz)
			snprintf(err, errsz, "%s: out of memory", path);
		return -ENOMEM;
	}
	if (opts && needs_bklt(opts->sort) && !p->bklt) {
		if (err && errsz)
			snprintf(err, errsz,
				 "%s: --sort %s needs block lifetimes, and this %s file has none "
				 "(\"bklt\": false)",
				 path, report__sort_name(opts->sort), p->mode);
		dhat_profile__free(p);
		return -EINVAL;
	}
	if (opts && opts->warn_lost && p->has_lost && dhat_lost__any(&p->lost)) {
		char what[512];

		fflush(out); /* the warning comes first, also when both go to a terminal */
		/* A warning only for what makes the figures wrong; the rest is a note. */
		dhat_lost__describe(&p->lost, DHAT_LOST_INCOMPLETE, what, sizeof(what));
		if (*what)
			elog("warning: %s is incomplete, its trace missed: %s\n", path, what);
		dhat_lost__describe(&p->lost, ~DHAT_LOST_INCOMPLETE, what, sizeof(what));
		if (*what)
			elog("note: %s records %s\n", path, what);
	}
	ret = report__print(out, p, opts);
	if (ret && err && errsz)
		snprintf(err, errsz, "%s: cannot print the report: %s", path, strerror(-ret));
	dhat_profile__free(p);
	return ret;
}

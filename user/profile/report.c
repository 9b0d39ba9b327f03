// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report - the seed harness's summary (alloc_profile.rs, report() and top_program_points())
 * printed from any DHAT v2 file loaded by dhat_reader, as text or JSON.
 *
 * Text, the seed's layout byte for byte for a heap file (widths included), plus the lines
 * the file can answer:
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
 *
 * Units: a file's "bsu"/"bksu" (ad-hoc: "units"/"events") replace bytes/B and
 * allocations/allocs; a file whose verb is not "Allocated" (copy mode) counts "blocks".
 *
 * SITE is the first frame that is not allocation plumbing, plus its caller, joined by
 * "  <-  ", each with the "0xADDR: " prefix removed; "<unattributed>" for an empty stack.
 * Per-iteration figures are total/N printed with %.0f, which rounds half to even on the
 * exact binary value exactly like Rust's {:.0}.
 *
 * JSON: one object (see report__print_json below); counters are exact integers.
 */
#include "report.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dhat_reader.h"
#include "json_writer.h"
#include "log.h"
#include "plumbing.h"
#include "safe_text.h"

#define DEFAULT_TOP 12
#define SITE_SEP    "  <-  "

/* One PP as the tables show it. */
struct row {
	const struct dhat_pp *pp;
	double avg_lifetime; /* tl/tbk, 0 without blocks */
	char *site;	     /* owned */
};

const char *report__clean_frame(const char *raw)
{
	const char *p = raw;

	if (p[0] != '0' || p[1] != 'x' || !isxdigit((unsigned char)p[2]))
		return raw;
	for (p += 2; isxdigit((unsigned char)*p); p++)
		;
	return p[0] == ':' && p[1] == ' ' ? p + 2 : raw;
}

static bool match_any(const char *sym, const struct report_opts *opts)
{
	if (!(opts && opts->no_default_skip) && plumbing__builtin(sym))
		return true;
	for (size_t i = 0; opts && i < opts->skip_cnt; i++) {
		const char *pat = opts->skip[i];

		if (!pat || !*pat || (pat[0] == '=' && !pat[1]))
			continue;
		if (pat[0] == '=' ? plumbing__match(sym, pat + 1, true)
				  : plumbing__match(sym, pat, false))
			return true;
	}
	return false;
}

/* Who wrote the code of a Rust type or trait named in a qualified path (see below). */
enum rust_owner {
	RUST_USER,     /* a path that is not plumbing: the user's crate or a dependency */
	RUST_NO_CRATE, /* no path: a primitive (u8, str, [T], fn()) or a generic parameter */
	RUST_STD,      /* a path that is plumbing: alloc::, core::, std::, a --skip pattern */
};

/* Deepest "<<...>" nesting looked into (hostile-input guard). */
#define RUST_MAX_NESTING 8

static bool rust_qualified_is_std(const char *s, const struct report_opts *opts, int depth);

/* Whose is the type or trait t (the text from its start; what follows it is ignored). */
static enum rust_owner rust_owner_of(const char *t, const struct report_opts *opts, int depth)
{
	static const char *const sigils[] = {"&", "mut ", "*const ", "*mut ", "dyn ", "[", "("};
	const char *id;
	bool again = true;

	/* &mut [T], *const dyn Trait, (A, B): the type they are built on. */
	while (again) {
		again = false;
		for (size_t i = 0; i < sizeof(sigils) / sizeof(sigils[0]); i++) {
			if (!strncmp(t, sigils[i], strlen(sigils[i]))) {
				t += strlen(sigils[i]);
				again = true;
			}
		}
		if (*t == '\'') { /* a lifetime: &'a T */
			t += strcspn(t, " ");
			t += *t == ' ';
			again = true;
		}
	}
	if (*t == '<')
		return rust_qualified_is_std(t, opts, depth + 1) ? RUST_STD : RUST_USER;
	/* Demangled ADTs and traits always carry their crate: "kaish::Node", "core::clone". */
	for (id = t; isalnum((unsigned char)*id) || *id == '_'; id++)
		;
	if (id == t || strncmp(id, "::", 2))
		return RUST_NO_CRATE;
	return match_any(t, opts) ? RUST_STD : RUST_USER;
}

/*
 * Rust names a function of an impl by a qualified path: "<Self>::f" (inherent impl) or
 * "<Self as Trait>::f", as v0 demangling prints much of std ("<u8 as <[_]>::to_vec_in::
 * ConvertVec>::to_vec", "<<alloc::boxed::Box<str> as ...>::from as core::ops::function::
 * FnOnce<(&str,)>>::call_once") and legacy its blanket impls ("<T as alloc::slice::hack::
 * ConvertVec>::to_vec"). Rust's orphan rule puts an impl in Self's crate or Trait's. So it is
 * std's code when Self is std's, or when Self has no crate of its own (a primitive, whose
 * inherent methods only core/alloc/std write, or a generic parameter) and Trait, if any, is
 * std's. A user type or trait makes it user code.
 */
static bool rust_qualified_is_std(const char *s, const struct report_opts *opts, int depth)
{
	const char *trait = NULL, *close = NULL;
	enum rust_owner self;
	int nest = 0;

	if (depth > RUST_MAX_NESTING || *s != '<')
		return false;
	/* The '>' closing s[0], and " as " at its own level; "->" (fn() -> T) is no bracket. */
	for (const char *c = s; *c && !close; c++) {
		if (*c == '<')
			nest++;
		else if (*c == '>' && c[-1] != '-' && --nest == 0)
			close = c;
		else if (nest == 1 && !trait && !strncmp(c, " as ", 4))
			trait = c + 4;
	}
	if (!close)
		return false;
	self = rust_owner_of(s + 1, opts, depth);
	if (self != RUST_NO_CRATE)
		return self == RUST_STD;
	return !trait || rust_owner_of(trait, opts, depth) == RUST_STD;
}

bool report__is_plumbing(const char *frame, const struct report_opts *opts)
{
	const char *open, *sp = NULL;

	if (match_any(frame, opts))
		return true;
	if (frame[0] == '<' && rust_qualified_is_std(frame, opts, 0))
		return true;
	/* A demangled C++ template function names its return type first ("void std::vector<
	 * int>::_M_realloc_insert<int>(...)"): match again after it, i.e. after the last space
	 * before the first '(' or '<' of the symbol. */
	open = strpbrk(frame, "(<");
	for (const char *c = frame; open && c < open; c++)
		if (*c == ' ')
			sp = c;
	return sp && sp[1] && match_any(sp + 1, opts);
}

char *report__site(const char *const *frames, size_t cnt, const struct report_opts *opts)
{
	size_t head = report__site_head(frames, cnt, opts);
	char *s;

	if (!cnt)
		return strdup("<unattributed>");
	if (head + 1 >= cnt)
		return strdup(frames[head]);
	if (asprintf(&s, "%s" SITE_SEP "%s", frames[head], frames[head + 1]) < 0)
		return NULL;
	return s;
}

size_t report__site_head(const char *const *frames, size_t cnt, const struct report_opts *opts)
{
	for (size_t i = 0; i < cnt; i++)
		if (!report__is_plumbing(frames[i], opts))
			return i;
	return 0;
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

/* The site of PP pp in p. */
static char *site_of(const struct dhat_profile *p, const struct dhat_pp *pp,
		     const struct report_opts *opts)
{
	const char **frames = malloc((pp->fs_cnt ? pp->fs_cnt : 1) * sizeof(*frames));
	char *s;

	if (!frames)
		return NULL;
	for (size_t i = 0; i < pp->fs_cnt; i++)
		frames[i] = report__clean_frame(dhat_profile__frame(p, pp->fs[i]));
	s = report__site(frames, pp->fs_cnt, opts);
	free(frames);
	return s;
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b ? 1 : 0;
}

/* The metric of a sort order for one row. */
static int cmp_metric(const struct row *a, const struct row *b, enum report_sort s)
{
	switch (s) {
	case REPORT_SORT_TOTAL_BLOCKS:
		return cmp_u64_desc(a->pp->tbk, b->pp->tbk);
	case REPORT_SORT_PEAK:
		return cmp_u64_desc(a->pp->gb, b->pp->gb);
	case REPORT_SORT_END:
		return cmp_u64_desc(a->pp->eb, b->pp->eb);
	case REPORT_SORT_LIFETIME:
		return a->avg_lifetime > b->avg_lifetime ? -1 : a->avg_lifetime < b->avg_lifetime;
	default:
		return cmp_u64_desc(a->pp->tb, b->pp->tb);
	}
}

/* By the metric desc, then bytes desc, then blocks desc, then site text: a total order, so
 * qsort is stable enough (rows that compare equal print identically). ctx: the sort. */
static int cmp_rows(const void *x, const void *y, void *ctx)
{
	const struct row *a = *(const struct row *const *)x, *b = *(const struct row *const *)y;
	int c = cmp_metric(a, b, *(const enum report_sort *)ctx);

	if (!c)
		c = cmp_u64_desc(a->pp->tb, b->pp->tb);
	if (!c)
		c = cmp_u64_desc(a->pp->tbk, b->pp->tbk);
	return c ? c : strcmp(a->site, b->site);
}

static void sort_rows(struct row **order, size_t n, enum report_sort s)
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

/* rows[i] for every PP, and order[] pointing at them. */
static int build_rows(const struct dhat_profile *p, const struct report_opts *opts,
		      struct row **rows_out, struct row ***order_out)
{
	size_t n = p->pp_cnt;
	struct row *rows = calloc(n ? n : 1, sizeof(*rows));
	struct row **order = calloc(n ? n : 1, sizeof(*order));

	*rows_out = rows;
	*order_out = order;
	if (!rows || !order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		rows[i].pp = &p->pps[i];
		rows[i].avg_lifetime =
		    p->pps[i].tbk ? (double)p->pps[i].tl / (double)p->pps[i].tbk : 0;
		rows[i].site = site_of(p, &p->pps[i], opts);
		if (!rows[i].site)
			return -ENOMEM;
		order[i] = &rows[i];
	}
	return 0;
}

static void free_rows(struct row *rows, struct row **order, size_t n)
{
	for (size_t i = 0; rows && i < n; i++)
		free(rows[i].site);
	free(rows);
	free(order);
}

static bool needs_bklt(enum report_sort s)
{
	return s == REPORT_SORT_PEAK || s == REPORT_SORT_END || s == REPORT_SORT_LIFETIME;
}

/* The --sort table: rows with a non-zero metric, by that metric. */
/* A line's last field, from the target (a symbol name, a path): terminal-safe, then '\n'. */
static void put_site(FILE *out, const char *s)
{
	safe_text__fputs_term(out, s);
	fputc('\n', out);
}

static void print_sort_table(FILE *out, const struct dhat_profile *p, struct row **order, size_t n,
			     size_t top, enum report_sort s, const struct units *u)
{
	static const char *const hdr[] = {
	    [REPORT_SORT_PEAK] = "AT PEAK (t-gmax)",
	    [REPORT_SORT_END] = "AT END (t-end)",
	    [REPORT_SORT_LIFETIME] = "AVERAGE LIFETIME",
	};
	size_t shown = 0;

	/* A file that records a death ends at it: what was live at t-end is the heap then. */
	if (s == REPORT_SORT_END && p->has_death)
		fprintf(out, "\n  top program points by BYTES LIVE AT %s\n",
			p->death.cause == DHAT_DEATH_EXIT ? "EXIT" : "DEATH");
	else
		fprintf(out, "\n  top program points %s%s\n",
			s == REPORT_SORT_LIFETIME ? "by " : "", hdr[s]);
	sort_rows(order, n, s);
	for (size_t i = 0; i < n && shown < top; i++) {
		const struct row *r = order[i];

		if (s == REPORT_SORT_LIFETIME) {
			if (!r->pp->tbk)
				continue;
			fprintf(out, "    %12.0f %s  %9llu %s   ", r->avg_lifetime, u->tu,
				(unsigned long long)r->pp->tbk, u->bk);
			put_site(out, r->site);
		} else {
			uint64_t b = s == REPORT_SORT_PEAK ? r->pp->gb : r->pp->eb;
			uint64_t bk = s == REPORT_SORT_PEAK ? r->pp->gbk : r->pp->ebk;

			if (!b && !bk)
				continue;
			fprintf(out, "    %12llu %s  %9llu %s   ", (unsigned long long)b, u->b,
				(unsigned long long)bk, u->bk);
			put_site(out, r->site);
		}
		shown++;
	}
}

static int print_text(FILE *out, const struct dhat_profile *p, const struct report_opts *opts)
{
	size_t top = opts && opts->top ? opts->top : DEFAULT_TOP;
	unsigned long iters = opts ? opts->iterations : 0;
	enum report_sort sort = opts ? opts->sort : REPORT_SORT_DEFAULT;
	const char *title = opts && opts->title ? opts->title : p->path;
	struct row *rows = NULL, **order = NULL;
	size_t n = p->pp_cnt, shown;
	char label[64];
	struct units u;
	int err;

	if (!opts || !opts->title) {
		const char *slash = strrchr(title, '/');

		if (slash && slash[1])
			title = slash + 1;
	}
	units_of(p, &u);
	err = build_rows(p, opts, &rows, &order);
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
	if (p->has_death) { /* the end is the death: lead with it and with what was live */
		char line[256];

		dhat_death__describe(&p->death, p->end_bytes, line, sizeof(line));
		fprintf(out, "  %s\n", line);
		/* The kernel's figures at death, else the tracer's last sample. */
		if (p->death.has_rss || p->has_rss)
			dhat_rss__print_split(out, p->death.has_rss ? &p->death.rss : &p->rss_end,
					      p->end_bytes,
					      p->death.cause == DHAT_DEATH_EXIT ? "exit" : "death",
					      p->death.has_rss ? 0 : p->te,
					      p->has_mappings ? &p->mappings.outside_malloc : NULL);
		if (p->bklt)
			print_sort_table(out, p, order, n, top, REPORT_SORT_END, &u);
		if (p->has_mappings)
			dhat_mappings__print(out, &p->mappings, top,
					     p->death.cause == DHAT_DEATH_EXIT ? "exit" : "death");
		fputc('\n', out);
	}
	snprintf(label, sizeof(label), "total %s", u.blocks);
	fprintf(out, "  %-18s: %12llu", label, (unsigned long long)p->total_blocks);
	if (iters)
		fprintf(out, "   (%12.0f per iter)", (double)p->total_blocks / (double)iters);
	snprintf(label, sizeof(label), "total %s", u.bytes);
	fprintf(out, "\n  %-18s: %12llu", label, (unsigned long long)p->total_bytes);
	if (iters)
		fprintf(out, "   (%12.0f per iter)", (double)p->total_bytes / (double)iters);
	fputc('\n', out);
	if (p->bklt) {
		fprintf(out, "  peak live blocks  : %12llu\n", (unsigned long long)p->gmax_blocks);
		fprintf(out, "  peak live bytes   : %12llu\n", (unsigned long long)p->gmax_bytes);
		fprintf(out, "  end live blocks   : %12llu\n", (unsigned long long)p->end_blocks);
		fprintf(out, "  end live bytes    : %12llu\n", (unsigned long long)p->end_bytes);
	}
	if (p->has_rss && !p->has_death && p->bklt) {
		fputc('\n', out);
		dhat_rss__print_split(out, &p->rss_end, p->end_bytes, "end", p->te,
				      p->has_mappings ? &p->mappings.outside_malloc : NULL);
	}
	if (p->bkacc) {
		fprintf(out, "  total reads       : %12llu\n", (unsigned long long)p->total_reads);
		fprintf(out, "  total writes      : %12llu\n", (unsigned long long)p->total_writes);
	}

	shown = n < top ? n : top;
	fprintf(out, "\n  top program points by %s\n", u.bytes_hdr);
	sort_rows(order, n, REPORT_SORT_TOTAL_BYTES);
	for (size_t i = 0; i < shown; i++) {
		fprintf(out, "    %12llu %s  %9llu %s   ", (unsigned long long)order[i]->pp->tb,
			u.b, (unsigned long long)order[i]->pp->tbk, u.bk);
		put_site(out, order[i]->site);
	}
	fprintf(out, "\n  top program points by %s\n", u.blocks_hdr);
	sort_rows(order, n, REPORT_SORT_TOTAL_BLOCKS);
	for (size_t i = 0; i < shown; i++) {
		fprintf(out, "    %9llu %s  %12llu %s   ", (unsigned long long)order[i]->pp->tbk,
			u.bk, (unsigned long long)order[i]->pp->tb, u.b);
		put_site(out, order[i]->site);
	}
	if (needs_bklt(sort) && p->bklt && !(sort == REPORT_SORT_END && p->has_death))
		print_sort_table(out, p, order, n, top, sort, &u);
	if (p->has_mappings && !p->has_death)
		dhat_mappings__print(out, &p->mappings, top, "end");
	if (fflush(out) || ferror(out))
		err = -EIO;

cleanup:
	free_rows(rows, order, n);
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

static void json_row(struct json_writer *jw, const struct dhat_profile *p, const struct row *r)
{
	const struct dhat_pp *pp = r->pp;

	json_writer__begin_object(jw, NULL);
	json_writer__string(jw, "site", r->site);
	json_writer__uint(jw, "tb", pp->tb);
	json_writer__uint(jw, "tbk", pp->tbk);
	if (p->bklt) {
		json_writer__uint(jw, "tl", pp->tl);
		json_ratio(jw, "avg_lifetime", r->avg_lifetime);
		json_writer__uint(jw, "mb", pp->mb);
		json_writer__uint(jw, "mbk", pp->mbk);
		json_writer__uint(jw, "gb", pp->gb);
		json_writer__uint(jw, "gbk", pp->gbk);
		json_writer__uint(jw, "eb", pp->eb);
		json_writer__uint(jw, "ebk", pp->ebk);
	}
	if (p->bkacc) {
		json_writer__uint(jw, "rb", pp->rb);
		json_writer__uint(jw, "wb", pp->wb);
	}
	json_writer__begin_array(jw, "frames");
	for (size_t i = 0; i < pp->fs_cnt; i++)
		json_writer__string(jw, NULL,
				    report__clean_frame(dhat_profile__frame(p, pp->fs[i])));
	json_writer__end_array(jw);
	json_writer__end_object(jw);
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
 *  "totals": {"blocks": 7, "bytes": 526, "reads": 159, "writes": 261},  (reads/writes: bkacc)
 *  "lost": {"droppedRecords": 0, "unknownFrees": 3, ...},    (when the file has it: dhat_lost.h)
 *  "death": "killed by SIGSEGV at address 0x10: live heap 12 KiB at death",  (dhat_death.h)
 *  "rss": {"anon": N, "file": N, "shmem": N, "swap": N},     (RSS at te: dhat_rss.h)
 *  "mappings": {"outsideMalloc": N, "insideMalloc": N},      (dhat_mappings.h)
 *  "iterations": 4, "unit": "...", "per_iteration": {"blocks": 1.75, "bytes": 131.5},
 *  "peak": {"blocks": 2, "bytes": 280}, "end": {"blocks": 1, "bytes": 32},  (bklt only)
 *  "pp_count": 3, "sort": "total-bytes",
 *  "rows": [{"site", "tb", "tbk", "tl", "avg_lifetime", "mb", "mbk", "gb", "gbk", "eb", "ebk",
 *            "rb", "wb", "frames": [cleaned frame text, innermost first]}]}
 * rows: the top N by the sort metric, all of them without --top. Laid out as cJSON_Print
 * did (JSON_WRITER_PRETTY), rows streamed one at a time.
 */
static int print_json(FILE *out, const struct dhat_profile *p, const struct report_opts *opts)
{
	enum report_sort sort = opts && opts->sort ? opts->sort : REPORT_SORT_TOTAL_BYTES;
	unsigned long iters = opts ? opts->iterations : 0;
	struct row *rows = NULL, **order = NULL;
	size_t n = p->pp_cnt, shown = opts && opts->top && opts->top < n ? opts->top : n;
	struct json_writer *jw = NULL;
	int err;

	err = build_rows(p, opts, &rows, &order);
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

		dhat_death__describe(&p->death, p->end_bytes, line, sizeof(line));
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
	sort_rows(order, n, sort);
	json_writer__begin_array(jw, "rows");
	for (size_t i = 0; i < shown; i++)
		json_row(jw, p, order[i]);
	json_writer__end_array(jw);
	json_writer__end_object(jw);
	err = json_writer__error(jw);
	if (!err)
		err = fputc('\n', out) == EOF || fflush(out) || ferror(out) ? -EIO : 0;
cleanup:
	json_writer__free(jw);
	free_rows(rows, order, n);
	return err;
}

int report__print(FILE *out, const struct dhat_profile *p, const struct report_opts *opts)
{
	return opts && opts->json ? print_json(out, p, opts) : print_text(out, p, opts);
}

int report__print_file(FILE *out, const char *path, const struct report_opts *opts, char *err,
		       size_t errsz)
{
	struct dhat_profile *p;
	int ret;

	p = dhat_profile__load(path, err, errsz);
	if (!p)
		return errno ? -errno : -EINVAL;
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

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
 * folded into one frame (report__fold); "<unattributed>" for an empty stack. Rows whose SITE
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
#include "json_writer.h"
#include "log.h"
#include "plumbing.h"
#include "safe_text.h"
#include "strpool.h"
#include "strtab.h"
#include "units.h"

#define DEFAULT_TOP 12
#define SITE_SEP    "  <-  "

enum tail_kind {
	TAIL_NONE,
	TAIL_TEXT,  /* s is the text */
	TAIL_BELOW, /* "  [s]" */
	TAIL_ABOVE, /* "  <-  #n s", or "  <-  ...  <-  #n s" when n > 2 */
};

/* What follows a row's site in its text. Nearly every row of a file of shallow stacks has
 * one, and its frame is most of it: kept as the frame's pointer, not a copy of the text. */
struct tail {
	const char *s; /* TAIL_TEXT: in struct rows' tails; else a cleaned frame of the
			  profile (borrowed) */
	uint32_t n;    /* TAIL_ABOVE: callers above the site */
	enum tail_kind kind;
};

/* One PP as the tables show it. A row per PP is held at once, so it stays small: its text
 * is the site, shared by every row of that site (interned), plus its own tail. */
struct row {
	const struct dhat_pp *pp;
	const char *site; /* interned in struct rows' sites */
	struct tail tail;
};

/* A row with its frames, while disambiguate tells apart the rows of its site. */
struct member {
	struct row *r;
	const char **fr; /* owned array of borrowed cleaned frames, recursion folded */
	uint32_t fr_cnt;
	uint32_t head; /* index in fr of the site's first frame */
};

/* Every PP's row, their order, the site texts they share and the tails that are texts (one
 * pool: no malloc each). */
struct rows {
	struct row *v;
	struct row **order;
	struct strtab *sites;
	struct strpool *tails;
	size_t n;
};

/* Most pieces of a row's text (row_pieces). */
#define ROW_PIECES 4

/* "N " for n, at the end of buf[16] (not snprintf: this runs in every sort comparison). */
static const char *u32_space(uint32_t n, char buf[16])
{
	char *c = buf + 15;

	*c = '\0';
	*--c = ' ';
	do
		*--c = (char)('0' + n % 10);
	while (n /= 10);
	return c;
}

/* The row's text as pieces to concatenate: its site, then its tail's; num holds "N ". */
static size_t row_pieces(const struct row *r, const char **pc, char num[16])
{
	size_t k = 0;

	pc[k++] = r->site;
	switch (r->tail.kind) {
	case TAIL_TEXT:
		pc[k++] = r->tail.s;
		break;
	case TAIL_BELOW:
		pc[k++] = "  [";
		pc[k++] = r->tail.s;
		pc[k++] = "]";
		break;
	case TAIL_ABOVE:
		pc[k++] = r->tail.n > 2 ? SITE_SEP "..." SITE_SEP "#" : SITE_SEP "#";
		pc[k++] = u32_space(r->tail.n, num);
		pc[k++] = r->tail.s;
		break;
	default:
		break;
	}
	return k;
}

/* Next byte of the text of pieces pc[*i..cnt), 0 at its end. */
static int piece_next(const char *const *pc, size_t cnt, size_t *i, const char **c)
{
	while (!**c && *i + 1 < cnt)
		*c = pc[++*i];
	return **c ? (unsigned char)*(*c)++ : 0;
}

/* Row texts compared as strcmp would compare them whole. */
static int site_cmp(const struct row *a, const struct row *b)
{
	const char *pa[ROW_PIECES], *pb[ROW_PIECES], *ca, *cb;
	char na[16], nb[16];
	size_t ka = row_pieces(a, pa, na), kb = row_pieces(b, pb, nb);
	size_t ia = 0, ib = 0;
	int xa, xb;

	if (a->site == b->site) { /* interned: the same site, compare the tails */
		const struct tail *ta = &a->tail, *tb = &b->tail;

		/* Fast: tails alike up to their last piece, the frame (sorts compare many). */
		if (ta->kind == tb->kind && (ta->kind == TAIL_TEXT || ta->kind == TAIL_ABOVE) &&
		    ta->n == tb->n)
			return ta->s == tb->s ? 0 : strcmp(ta->s, tb->s);
		ia = ib = 1;
	} else {
		/* Fast: the sites differ before either ends. */
		const unsigned char *sa = (const unsigned char *)a->site;
		const unsigned char *sb = (const unsigned char *)b->site;

		while (*sa && *sa == *sb)
			sa++, sb++;
		if (*sa && *sb)
			return *sa - *sb;
	}
	ca = ia < ka ? pa[ia] : "";
	cb = ib < kb ? pb[ib] : "";
	do {
		xa = piece_next(pa, ka, &ia, &ca);
		xb = piece_next(pb, kb, &ib, &cb);
	} while (xa && xa == xb);
	return xa - xb;
}

/* The text of tail t into f. */
static void tail_put(FILE *f, const struct tail *t)
{
	const struct row r = {.site = "", .tail = *t};
	const char *pc[ROW_PIECES];
	char num[16];
	size_t k = row_pieces(&r, pc, num);

	for (size_t i = 1; i < k; i++)
		fputs(pc[i], f);
}

/* A new string: the row's text (with_site) or its tail's alone. NULL on ENOMEM. */
static char *row_text(const struct row *r, bool with_site)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	if (with_site)
		fputs(r->site, f);
	tail_put(f, &r->tail);
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}

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

/* Length of a cleaned frame's function: the text before its " (file:line)" / " (in obj)"
 * suffix, i.e. before the last " (" when the frame ends with ')'. */
static size_t fn_len(const char *f)
{
	size_t n = strlen(f);

	if (!n || f[n - 1] != ')')
		return n;
	for (const char *c = f + n - 2; c > f; c--)
		if (*c == '(' && c[-1] == ' ')
			return (size_t)(c - 1 - f);
	return n;
}

/* Whether two frames are the same function (lines may differ). Unknown code ("???") is
 * never the same function as anything. */
static bool same_function(const char *a, const char *b)
{
	size_t n = fn_len(a);

	return n == fn_len(b) && !strncmp(a, b, n) && !(n == 3 && !strncmp(a, "???", 3));
}

size_t report__fold(const char **frames, size_t cnt)
{
	size_t n = 0;

	for (size_t i = 0; i < cnt; i++)
		if (!n || !same_function(frames[n - 1], frames[i]))
			frames[n++] = frames[i];
	return n;
}

/* The site of frames already folded: head and its caller. */
/* The site of frames already folded whose site starts at frames[head]. */
static char *site_at(const char *const *frames, size_t cnt, size_t head)
{
	char *s;

	if (!cnt)
		return strdup("<unattributed>");
	if (head + 1 >= cnt)
		return strdup(frames[head]);
	if (asprintf(&s, "%s" SITE_SEP "%s", frames[head], frames[head + 1]) < 0)
		return NULL;
	return s;
}

static char *site_folded(const char *const *frames, size_t cnt, const struct report_opts *opts)
{
	return site_at(frames, cnt, report__site_head(frames, cnt, opts));
}

char *report__site(const char *const *frames, size_t cnt, const struct report_opts *opts)
{
	const char **f = malloc((cnt ? cnt : 1) * sizeof(*f));
	char *s;

	if (!f)
		return NULL;
	memcpy(f, frames, cnt * sizeof(*f));
	s = site_folded(f, report__fold(f, cnt), opts);
	free(f);
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

/* Average lifetime of r's blocks: tl/tbk, 0 without blocks. */
static double avg_lifetime(const struct row *r)
{
	return r->pp->tbk ? (double)r->pp->tl / (double)r->pp->tbk : 0;
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
		return avg_lifetime(a) > avg_lifetime(b) ? -1 : avg_lifetime(a) < avg_lifetime(b);
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
	return c ? c : site_cmp(a, b);
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

/*
 * Rows whose sites print the same text are told apart by the first frame where their stacks
 * differ, looked for first below the site (the plumbing it called: a hashbrown resize and a
 * Vec collect under the same Rust function) outwards from the site, then above its caller
 * (who called it: sb_add from five places). Each row's sequence is [fr[head-1] .. fr[0],
 * "", fr[head+2] ..]; sorted, a row's closest neighbour is next to it, so that their common
 * prefix k gives the telling frame:
 *	k < head (below):	"site  [frame]"
 *	k > head (above):	"site  <-  ...  <-  #N frame", N counting callers above the site
 *	k == head:		the site alone (the other row has plumbing below it)
 * Rows whose cleaned stacks are equal keep the same text.
 */
static const char *seq_at(const struct member *r, size_t i)
{
	if (i < r->head)
		return r->fr[r->head - 1 - i];
	if (i == r->head)
		return "";
	return r->fr[i + 1];
}

static size_t seq_cnt(const struct member *r)
{
	return r->fr_cnt > r->head + 1 ? r->fr_cnt - 1 : r->head + 1;
}

/* Equal leading elements of two rows' sequences. */
static size_t seq_common(const struct member *a, const struct member *b)
{
	size_t n = 0, na = seq_cnt(a), nb = seq_cnt(b);

	while (n < na && n < nb && !strcmp(seq_at(a, n), seq_at(b, n)))
		n++;
	return n;
}

static int cmp_site_seq(const void *x, const void *y)
{
	const struct member *a = x, *b = y;
	size_t k, na = seq_cnt(a), nb = seq_cnt(b);
	int c = site_cmp(a->r, b->r);

	if (c)
		return c;
	k = seq_common(a, b);
	if (k < na && k < nb)
		return strcmp(seq_at(a, k), seq_at(b, k));
	return na < nb ? -1 : na > nb;
}

/* The tail after its site that tells row r apart at sequence index k (see above), into *out
 * (NULL: none needed). Returns 0 or -ENOMEM. */
static void distinct_tail(const struct member *r, size_t k, struct tail *out)
{
	*out = (struct tail){0};
	if (k >= seq_cnt(r) || k == r->head)
		return;
	if (k < r->head)
		*out = (struct tail){.s = seq_at(r, k), .kind = TAIL_BELOW};
	else
		*out = (struct tail){
		    .s = seq_at(r, k), .n = (uint32_t)(k + 1 - r->head), .kind = TAIL_ABOVE};
}

/*
 * Rows whose cleaned stacks are equal (twins) differ in addresses: two calls on one line,
 * frames without line information, or recursion folded differently. Sorted by their raw
 * frames, a twin shows the addresses of its raw frames from the first index where any two
 * twins differ (lo) to the last one it shares with its closest twin (k): two twins first
 * differ at some j, lo <= j <= k of each, so their lists differ. At most MAX_ADDRS shown.
 */
#define MAX_ADDRS 4

static size_t raw_common(const struct dhat_profile *p, const struct row *a, const struct row *b)
{
	size_t n = 0;

	while (n < a->pp->fs_cnt && n < b->pp->fs_cnt &&
	       !strcmp(dhat_profile__pp_frame(p, a->pp, n), dhat_profile__pp_frame(p, b->pp, n)))
		n++;
	return n;
}

/* ctx: the profile */
static int cmp_raw(const void *x, const void *y, void *ctx)
{
	const struct row *a = ((const struct member *)x)->r, *b = ((const struct member *)y)->r;
	const struct dhat_profile *raw_p = ctx;
	size_t k = raw_common(raw_p, a, b);

	if (k < a->pp->fs_cnt && k < b->pp->fs_cnt)
		return strcmp(dhat_profile__pp_frame(raw_p, a->pp, k),
			      dhat_profile__pp_frame(raw_p, b->pp, k));
	return a->pp->fs_cnt < b->pp->fs_cnt ? -1 : a->pp->fs_cnt > b->pp->fs_cnt;
}

/* The tail "BASE  [at 0xA 0xB]" into *out (text in sp): the addresses of r's raw frames
 * lo..k after the tail base; base itself when none has an address. 0 or -ENOMEM. */
static int distinct_raw(struct strpool *sp, const struct dhat_profile *p, const struct row *r,
			const struct tail *base, size_t lo, size_t k, struct tail *out)
{
	char *s = NULL;
	size_t len = 0, shown = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return -ENOMEM;
	tail_put(f, base);
	fputs("  [at", f);
	if (k >= r->pp->fs_cnt)
		k = r->pp->fs_cnt - 1;
	for (size_t i = lo; i <= k && r->pp->fs_cnt; i++) {
		const char *fr = dhat_profile__pp_frame(p, r->pp, i);

		if (fr == report__clean_frame(fr))
			continue; /* no address */
		if (++shown > MAX_ADDRS) {
			fputs(" ...", f);
			break;
		}
		fprintf(f, " %.*s", (int)strcspn(fr, ":"), fr);
	}
	fputc(']', f);
	if (fclose(f) && shown) {
		free(s);
		return -ENOMEM;
	}
	*out = *base;
	if (shown)
		*out = (struct tail){.s = strpool__add(sp, s, len), .kind = TAIL_TEXT};
	free(s);
	return out->s || out->kind == TAIL_NONE ? 0 : -ENOMEM;
}

/* New tails for the twins o[i..j) (sorted by their raw frames here) into site[i..j): base
 * (a tail or NULL), which tells them from the other rows of their site, and their addresses. */
static int twins_apart(struct strpool *sp, const struct dhat_profile *p, struct member *o, size_t i,
		       size_t j, const struct tail *base, struct tail *site)
{
	size_t lo;

	qsort_r(o + i, j - i, sizeof(*o), cmp_raw, (void *)p);
	lo = raw_common(p, o[i].r, o[j - 1].r);
	for (size_t m = i; m < j; m++) {
		size_t a = m > i ? raw_common(p, o[m].r, o[m - 1].r) : 0;
		size_t b = m + 1 < j ? raw_common(p, o[m].r, o[m + 1].r) : 0;

		int err = distinct_raw(sp, p, o[m].r, base, lo, a > b ? a : b, &site[m]);

		if (err)
			return err;
	}
	return 0;
}

/* By site text, then by total bytes and blocks (desc): ctx unused. */
static int cmp_site_tb(const void *x, const void *y, void *ctx)
{
	const struct row *a = *(const struct row *const *)x, *b = *(const struct row *const *)y;
	int c = site_cmp(a, b);

	(void)ctx;
	if (!c)
		c = cmp_u64_desc(a->pp->tb, b->pp->tb);
	return c ? c : cmp_u64_desc(a->pp->tbk, b->pp->tbk);
}

/* The last resort, for rows that differ only where no text or address shows it (recursion
 * of different depths through the same frames): " (2)", " (3)" after the first. */
static int number_equal(struct strpool *sp, struct row **o, size_t n)
{
	qsort_r(o, n, sizeof(*o), cmp_site_tb, NULL);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !site_cmp(o[i], o[j]); j++)
			;
		for (size_t m = j - 1; m > i; m--) {
			char *t = row_text(o[m], false);
			const char *s = t ? strpool__printf(sp, "%s (%zu)", t, m - i + 1) : NULL;

			free(t);
			if (!s)
				return -ENOMEM;
			o[m]->tail = (struct tail){.s = s, .kind = TAIL_TEXT};
		}
	}
	return 0;
}

/* m->fr for m->r's PP: its cleaned frames, recursion folded (fr_cnt of them), and the
 * site's first frame in it. */
static int member_frames(const struct dhat_profile *p, const struct report_opts *opts,
			 struct member *m)
{
	const struct dhat_pp *pp = m->r->pp;

	m->fr = malloc((pp->fs_cnt ? pp->fs_cnt : 1) * sizeof(*m->fr));
	if (!m->fr)
		return -ENOMEM;
	for (size_t f = 0; f < pp->fs_cnt; f++)
		m->fr[f] = report__clean_frame(dhat_profile__pp_frame(p, pp, f));
	m->fr_cnt = (uint32_t)report__fold(m->fr, pp->fs_cnt);
	m->head = (uint32_t)report__site_head(m->fr, m->fr_cnt, opts);
	return 0;
}

static int cmp_site(const void *x, const void *y)
{
	return site_cmp(*(const struct row *const *)x, *(const struct row *const *)y);
}

/* The rows o[0..n) share one site: give each the tail that tells it apart. */
static int site_apart(struct strpool *sp, const struct dhat_profile *p,
		      const struct report_opts *opts, struct row **o, size_t n)
{
	struct tail *site = calloc(n, sizeof(*site)); /* the new tails */
	struct member *g = calloc(n, sizeof(*g));
	int err = site && g ? 0 : -ENOMEM;

	for (size_t m = 0; m < n && !err; m++) {
		g[m].r = o[m];
		err = member_frames(p, opts, &g[m]);
	}
	if (err)
		goto cleanup;
	qsort(g, n, sizeof(*g), cmp_site_seq);
	for (size_t m = 0, t; m < n; m = t) {
		size_t a = m ? seq_common(&g[m], &g[m - 1]) : 0, b;

		for (t = m + 1; t < n && !cmp_site_seq(&g[m], &g[t]); t++)
			;
		b = t < n ? seq_common(&g[t - 1], &g[t]) : 0;
		if (t - m > 1) {
			/* what tells the twins from the others, then their addresses */
			struct tail base = {0};

			if (t - m < n)
				distinct_tail(&g[m], a > b ? a : b, &base);
			if ((err = twins_apart(sp, p, g, m, t, &base, site)))
				goto cleanup;
			continue;
		}
		distinct_tail(&g[m], a > b ? a : b, &site[m]);
	}
cleanup:
	/* all compared: now the tails may change (they were all NULL), the rows keep the order
	 * they were compared in (number_equal numbers them in it), and the frames go */
	for (size_t m = 0; g && m < n; m++) {
		free(g[m].fr);
		if (!g[m].r)
			continue;
		o[m] = g[m].r;
		o[m]->tail = site ? site[m] : (struct tail){0};
	}
	free(g);
	free(site);
	return err;
}

/* Rows whose sites read the same are told apart, a site at a time (see above). */
static int disambiguate(struct strpool *sp, const struct dhat_profile *p,
			const struct report_opts *opts, struct row **o, size_t n)
{
	int err = 0;

	qsort(o, n, sizeof(*o), cmp_site);
	for (size_t i = 0, j; i < n && !err; i = j) {
		for (j = i + 1; j < n && o[i]->site == o[j]->site; j++)
			;
		if (j - i > 1)
			err = site_apart(sp, p, opts, o + i, j - i);
	}
	return err ? err : number_equal(sp, o, n);
}

/* A row for every PP, order[] pointing at them, sites interned. Freed with free_rows, also
 * on failure. */
static int build_rows(const struct dhat_profile *p, const struct report_opts *opts, struct rows *rs)
{
	size_t n = p->pp_cnt;

	rs->n = n;
	rs->v = calloc(n ? n : 1, sizeof(*rs->v));
	rs->order = calloc(n ? n : 1, sizeof(*rs->order));
	rs->sites = strtab__new();
	rs->tails = strpool__new();
	if (!rs->v || !rs->order || !rs->sites || !rs->tails)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct dhat_pp *pp = &p->pps[i];
		struct row *r = &rs->v[i];
		struct member m = {.r = r};
		char *site;
		int64_t k;
		int err;

		r->pp = pp;
		if ((err = member_frames(p, opts, &m)))
			return err;
		site = site_at(m.fr, m.fr_cnt, m.head);
		free(m.fr);
		k = site ? strtab__intern(rs->sites, site, strlen(site)) : -ENOMEM;
		free(site);
		if (k < 0)
			return -ENOMEM;
		r->site = rs->sites->strs[k];
		rs->order[i] = r;
	}
	return disambiguate(rs->tails, p, opts, rs->order, n);
}

static void free_rows(struct rows *rs)
{
	free(rs->v);
	free(rs->order);
	strtab__free(rs->sites);
	strpool__free(rs->tails);
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

	dhat_rss__print_split(out, &s);
}

/* A line's last field, from the target (a symbol name, a path): terminal-safe, then '\n'. */
static void put_site(FILE *out, const char *s)
{
	safe_text__fputs_term(out, s);
	fputc('\n', out);
}

/* A row's text, as put_site. Its pieces are whole strings joined by ASCII, so writing them one
 * by one escapes the same bytes as writing the text whole. */
static void put_row_site_tag(FILE *out, const struct row *r, const char *tag)
{
	const char *pc[ROW_PIECES];
	char num[16];
	size_t k = row_pieces(r, pc, num);

	for (size_t i = 0; i < k; i++)
		safe_text__fputs_term(out, pc[i]);
	if (tag && *tag)
		fprintf(out, "  [%s]", tag);
	fputc('\n', out);
}

static void put_row_site(FILE *out, const struct row *r)
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
static const char *realloc_tag(const struct dhat_profile *p, const struct row *r, char *buf,
			       size_t sz)
{
	double in, out;
	int n = 0;

	buf[0] = '\0';
	if (!realloc_shares(p, r->pp, &in, &out))
		return buf;
	if (in >= 1)
		n = snprintf(buf, sz, "%.0f%% of bytes by realloc", in);
	if (out >= 1 && n >= 0 && (size_t)n < sz)
		snprintf(buf + n, sz - (size_t)n, "%s%.0f%% of blocks realloc'd", n ? ", " : "",
			 out);
	return buf;
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
		const struct row *r = order[i];

		if (s == REPORT_SORT_LIFETIME) {
			if (!r->pp->tbk)
				continue;
			fprintf(out, "    %12.0f %s  %9llu %s   ", avg_lifetime(r), u->tu,
				(unsigned long long)r->pp->tbk, u->bk);
			put_row_site(out, r);
		} else {
			uint64_t b = s == REPORT_SORT_PEAK ? r->pp->gb : r->pp->eb;
			uint64_t bk = s == REPORT_SORT_PEAK ? r->pp->gbk : r->pp->ebk;

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
 * LIVE_MANY) or old (their blocks lived, on average, at least half the run: tl/tbk >= te/2;
 * a DHAT file has no per-block age, and tl counts a block live at the end up to t-end). By
 * bytes live at the end, as memleak's outstanding allocations; "age" is tl/tbk in % of te.
 */
#define LIVE_MANY 2

static bool live_suspect(const struct row *r, uint64_t te)
{
	return r->pp->ebk && (r->pp->ebk >= LIVE_MANY || avg_lifetime(r) * 2 >= (double)te);
}

static void print_still_live(FILE *out, const struct dhat_profile *p, struct row **order, size_t n,
			     size_t top, const struct units *u)
{
	size_t shown = 0;
	char c[64];

	fprintf(out, "\n  still live at the end (leak suspects: %d+ %s, or living half the run)\n",
		LIVE_MANY, u->bk);
	sort_rows(order, n, REPORT_SORT_END);
	for (size_t i = 0; i < n && shown < top; i++) {
		const struct row *r = order[i];

		if (!live_suspect(r, p->te))
			continue;
		fprintf(out, "    %s  %9llu %s  age %3.0f%%   ", cell(u, r->pp->eb, c, sizeof(c)),
			(unsigned long long)r->pp->ebk, u->bk,
			p->te ? 100.0 * avg_lifetime(r) / (double)p->te : 0.0);
		put_row_site(out, r);
		shown++;
	}
	if (!shown)
		fprintf(out, "    none: %llu %s live, none of them many or old\n",
			(unsigned long long)p->end_blocks, u->bk);
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
	struct row **order;
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
	if (p->bkacc) {
		fprintf(out, "  total reads       : %s\n", total(&u, p->total_reads, c, sizeof(c)));
		fprintf(out, "  total writes      : %s\n",
			total(&u, p->total_writes, c, sizeof(c)));
	}

	shown = n < top ? n : top;
	fprintf(out, "\n  top program points by %s\n", u.bytes_hdr);
	sort_rows(order, n, REPORT_SORT_TOTAL_BYTES);
	for (size_t i = 0; i < shown; i++) {
		struct dhat_pp_est se = dhat_profile__pp_est(p, order[i]->pp);

		fprintf(out, "    %s", cell(&u, order[i]->pp->tb, c, sizeof(c)));
		put_pm(out, p, order[i]->pp->tb, se.tb_se);
		fprintf(out, "  %9llu %s   ", (unsigned long long)order[i]->pp->tbk, u.bk);
		put_row_site_tag(out, order[i], realloc_tag(p, order[i], tag, sizeof(tag)));
	}
	fprintf(out, "\n  top program points by %s\n", u.blocks_hdr);
	sort_rows(order, n, REPORT_SORT_TOTAL_BLOCKS);
	for (size_t i = 0; i < shown; i++) {
		struct dhat_pp_est se = dhat_profile__pp_est(p, order[i]->pp);

		fprintf(out, "    %9llu %s", (unsigned long long)order[i]->pp->tbk, u.bk);
		put_pm(out, p, order[i]->pp->tbk, se.tbk_se);
		fprintf(out, "  %s   ", cell(&u, order[i]->pp->tb, c, sizeof(c)));
		put_row_site_tag(out, order[i], realloc_tag(p, order[i], tag, sizeof(tag)));
	}
	if (needs_bklt(sort) && p->bklt && !(sort == REPORT_SORT_END && p->has_death))
		print_sort_table(out, p, order, n, top, sort, &u);
	if (p->bklt && p->end_blocks)
		print_still_live(out, p, order, n, top, &u);
	if (p->has_mappings && !p->has_death)
		dhat_mappings__print(out, &p->mappings, top, "end", !u.human);
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
static int json_row(struct json_writer *jw, const struct dhat_profile *p, const struct row *r)
{
	const struct dhat_pp *pp = r->pp;
	char *site = NULL;

	if (r->tail.kind != TAIL_NONE && !(site = row_text(r, true)))
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
				    report__clean_frame(dhat_profile__pp_frame(p, pp, i)));
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
	struct row **order;
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
	sort_rows(order, n, sort);
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

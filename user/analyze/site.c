// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * site - what a program point is called (see site.h): cleaning, plumbing, folding, the site
 * and, for a set of program points named together, the tails that tell apart those whose
 * sites read the same.
 */
#include "site.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plumbing.h"
#include "strpool.h"
#include "strtab.h"

struct site_names {
	struct strtab *sites;	/* every site text, interned */
	struct strpool *tails;	/* the tails that are texts */
};

/* A row with its frames, while its site's rows are told apart. */
struct member {
	struct site_row *r;
	const char **fr; /* owned array of borrowed cleaned frames, recursion folded */
	uint32_t fr_cnt;
	uint32_t head; /* index in fr of the site's first frame */
};

static const char *raw_at(const struct site_frames *src, const struct site_row *r, size_t i)
{
	return src->at(src->ctx, r->item, i);
}

static size_t raw_cnt(const struct site_frames *src, const struct site_row *r)
{
	return src->cnt(src->ctx, r->item);
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b ? 1 : 0;
}

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
size_t site_row__pieces(const struct site_row *r, const char **pc, char num[16])
{
	size_t k = 0;

	pc[k++] = r->site;
	switch (r->tail.kind) {
	case SITE_TAIL_TEXT:
		pc[k++] = r->tail.s;
		break;
	case SITE_TAIL_BELOW:
		pc[k++] = "  [";
		pc[k++] = r->tail.s;
		pc[k++] = "]";
		break;
	case SITE_TAIL_ABOVE:
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
int site_row__cmp(const struct site_row *a, const struct site_row *b)
{
	const char *pa[SITE_ROW_PIECES], *pb[SITE_ROW_PIECES], *ca, *cb;
	char na[16], nb[16];
	size_t ka = site_row__pieces(a, pa, na), kb = site_row__pieces(b, pb, nb);
	size_t ia = 0, ib = 0;
	int xa, xb;

	if (a->site == b->site) { /* interned: the same site, compare the tails */
		const struct site_tail *ta = &a->tail, *tb = &b->tail;

		/* Fast: tails alike up to their last piece, the frame (sorts compare many). */
		if (ta->kind == tb->kind && (ta->kind == SITE_TAIL_TEXT || ta->kind == SITE_TAIL_ABOVE) &&
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
static void tail_put(FILE *f, const struct site_tail *t)
{
	const struct site_row r = {.site = "", .tail = *t};
	const char *pc[SITE_ROW_PIECES];
	char num[16];
	size_t k = site_row__pieces(&r, pc, num);

	for (size_t i = 1; i < k; i++)
		fputs(pc[i], f);
}

/* A new string: the row's text (with_site) or its tail's alone. NULL on ENOMEM. */
char *site_row__text(const struct site_row *r, bool with_site)
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

const char *site__clean_frame(const char *raw)
{
	const char *p = raw;

	if (p[0] != '0' || p[1] != 'x' || !isxdigit((unsigned char)p[2]))
		return raw;
	for (p += 2; isxdigit((unsigned char)*p); p++)
		;
	return p[0] == ':' && p[1] == ' ' ? p + 2 : raw;
}

static bool match_any(const char *sym, const struct site_opts *opts)
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

static bool rust_qualified_is_std(const char *s, const struct site_opts *opts, int depth);

/* Whose is the type or trait t (the text from its start; what follows it is ignored). */
static enum rust_owner rust_owner_of(const char *t, const struct site_opts *opts, int depth)
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
static bool rust_qualified_is_std(const char *s, const struct site_opts *opts, int depth)
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

bool site__is_plumbing(const char *frame, const struct site_opts *opts)
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

size_t site__fold(const char **frames, size_t cnt)
{
	size_t n = 0;

	for (size_t i = 0; i < cnt; i++)
		if (!n || !same_function(frames[n - 1], frames[i]))
			frames[n++] = frames[i];
	return n;
}

/* The site of frames already folded whose site starts at frames[head]. */
/*
 * C++ names drown in their template arguments: std::vector<std::__cxx11::basic_string<char,
 * std::char_traits<char>, std::allocator<char> >, ...>::_M_realloc_insert<...>. An argument
 * list longer than TEMPLATE_MAX bytes becomes "<…>", keeping the shape
 * (std::vector<…>::_M_realloc_insert<…>); short ones (std::vector<int>) stay. In place;
 * "operator<" and "operator<<" are not lists, and a Python frame ("py: <module>
 * (<frozen importlib._bootstrap>:241)", from the tracer's splice) has none.
 */
#define TEMPLATE_MAX 24

static void trim_templates(char *s)
{
	static const char ell[] = "<\xe2\x80\xa6>"; /* "<…>": 5 bytes */
	char *w = s;

	for (char *r = s; *r;) {
		size_t depth = 0;
		char *e;

		if ((r == s || (r - s >= 6 && !strncmp(r - 6, SITE_SEP, 6))) &&
		    !strncmp(r, "py: ", 4)) {
			e = strstr(r, SITE_SEP);
			e = e ? e : r + strlen(r);
			memmove(w, r, (size_t)(e - r));
			w += e - r;
			r = e;
			continue;
		}
		if (*r != '<' || (r - s >= 8 && !strncmp(r - 8, "operator", 8)) ||
		    (r - s >= 9 && !strncmp(r - 9, "operator<", 9))) {
			*w++ = *r++;
			continue;
		}
		for (e = r; *e; e++) {
			depth += *e == '<';
			depth -= *e == '>';
			if (!depth || *e == '(' || *e == ')')
				break;
		}
		if (*e != '>' || depth || (size_t)(e - r - 1) <= TEMPLATE_MAX) {
			*w++ = *r++;
			continue;
		}
		memcpy(w, ell, sizeof(ell) - 1); /* shorter than what it replaces: in place */
		w += sizeof(ell) - 1;
		r = e + 1;
	}
	*w = '\0';
}

static char *site_at(const char *const *frames, size_t cnt, size_t head)
{
	char *s;

	if (!cnt)
		return strdup("<unattributed>");
	if (head + 1 >= cnt)
		s = strdup(frames[head]);
	else if (asprintf(&s, "%s" SITE_SEP "%s", frames[head], frames[head + 1]) < 0)
		s = NULL;
	if (s)
		trim_templates(s);
	return s;
}

static char *site_folded(const char *const *frames, size_t cnt, const struct site_opts *opts)
{
	return site_at(frames, cnt, site__head(frames, cnt, opts));
}

char *site__name(const char *const *frames, size_t cnt, const struct site_opts *opts)
{
	const char **f = malloc((cnt ? cnt : 1) * sizeof(*f));
	char *s;

	if (!f)
		return NULL;
	memcpy(f, frames, cnt * sizeof(*f));
	s = site_folded(f, site__fold(f, cnt), opts);
	free(f);
	return s;
}

size_t site__head(const char *const *frames, size_t cnt, const struct site_opts *opts)
{
	for (size_t i = 0; i < cnt; i++)
		if (!site__is_plumbing(frames[i], opts))
			return i;
	return 0;
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
 * Rows whose cleaned stacks are equal are told apart by addresses (twins_apart).
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
	int c = site_row__cmp(a->r, b->r);

	if (c)
		return c;
	k = seq_common(a, b);
	if (k < na && k < nb)
		return strcmp(seq_at(a, k), seq_at(b, k));
	return na < nb ? -1 : na > nb;
}

/* The tail after its site that tells row r apart at sequence index k (see above), into *out
 * (NULL: none needed). Returns 0 or -ENOMEM. */
static void distinct_tail(const struct member *r, size_t k, struct site_tail *out)
{
	*out = (struct site_tail){0};
	if (k >= seq_cnt(r) || k == r->head)
		return;
	if (k < r->head)
		*out = (struct site_tail){.s = seq_at(r, k), .kind = SITE_TAIL_BELOW};
	else
		*out = (struct site_tail){
		    .s = seq_at(r, k), .n = (uint32_t)(k + 1 - r->head), .kind = SITE_TAIL_ABOVE};
}

/*
 * Rows whose cleaned stacks are equal (twins) differ in addresses: two calls on one line,
 * frames without line information, or recursion folded differently. Sorted by their raw
 * frames, a twin shows the addresses of its raw frames from the first index where any two
 * twins differ (lo) to the last one it shares with its closest twin (k): two twins first
 * differ at some j, lo <= j <= k of each, so their lists differ. At most MAX_ADDRS shown.
 */
#define MAX_ADDRS 4

static size_t raw_common(const struct site_frames *src, const struct site_row *a,
			 const struct site_row *b)
{
	size_t n = 0, na = raw_cnt(src, a), nb = raw_cnt(src, b);

	while (n < na && n < nb && !strcmp(raw_at(src, a, n), raw_at(src, b, n)))
		n++;
	return n;
}

/* ctx: the struct site_frames */
static int cmp_raw(const void *x, const void *y, void *ctx)
{
	const struct site_row *a = ((const struct member *)x)->r, *b = ((const struct member *)y)->r;
	const struct site_frames *src = ctx;
	size_t k = raw_common(src, a, b), na = raw_cnt(src, a), nb = raw_cnt(src, b);

	if (k < na && k < nb)
		return strcmp(raw_at(src, a, k), raw_at(src, b, k));
	return na < nb ? -1 : na > nb;
}

/* The tail "BASE  [at 0xA 0xB]" into *out (text in sp): the addresses of r's raw frames
 * lo..k after the tail base; base itself when none has an address. 0 or -ENOMEM. */
static int distinct_raw(struct strpool *sp, const struct site_frames *src, const struct site_row *r,
			const struct site_tail *base, size_t lo, size_t k, struct site_tail *out)
{
	char *s = NULL;
	size_t len = 0, shown = 0;
	size_t cnt = raw_cnt(src, r);
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return -ENOMEM;
	tail_put(f, base);
	fputs("  [at", f);
	if (k >= cnt)
		k = cnt - 1;
	for (size_t i = lo; i <= k && cnt; i++) {
		const char *fr = raw_at(src, r, i);

		if (fr == site__clean_frame(fr))
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
		*out = (struct site_tail){.s = strpool__add(sp, s, len), .kind = SITE_TAIL_TEXT};
	free(s);
	return out->s || out->kind == SITE_TAIL_NONE ? 0 : -ENOMEM;
}

/* New tails for the twins o[i..j) (sorted by their raw frames here) into site[i..j): base
 * (a tail or NULL), which tells them from the other rows of their site, and their addresses. */
static int twins_apart(struct strpool *sp, const struct site_frames *src, struct member *o, size_t i,
		       size_t j, const struct site_tail *base, struct site_tail *site)
{
	size_t lo;

	qsort_r(o + i, j - i, sizeof(*o), cmp_raw, (void *)src);
	lo = raw_common(src, o[i].r, o[j - 1].r);
	for (size_t m = i; m < j; m++) {
		size_t a = m > i ? raw_common(src, o[m].r, o[m - 1].r) : 0;
		size_t b = m + 1 < j ? raw_common(src, o[m].r, o[m + 1].r) : 0;

		int err = distinct_raw(sp, src, o[m].r, base, lo, a > b ? a : b, &site[m]);

		if (err)
			return err;
	}
	return 0;
}

/* By site text, then by total bytes and blocks (desc): ctx unused. */
static int cmp_site_tb(const void *x, const void *y, void *ctx)
{
	const struct site_row *a = *(const struct site_row *const *)x, *b = *(const struct site_row *const *)y;
	int c = site_row__cmp(a, b);

	(void)ctx;
	if (!c)
		c = cmp_u64_desc(a->tb, b->tb);
	return c ? c : cmp_u64_desc(a->tbk, b->tbk);
}

/* The last resort, for rows that differ only where no text or address shows it (recursion
 * of different depths through the same frames): " (2)", " (3)" after the first. */
static int number_equal(struct strpool *sp, struct site_row **o, size_t n)
{
	qsort_r(o, n, sizeof(*o), cmp_site_tb, NULL);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !site_row__cmp(o[i], o[j]); j++)
			;
		for (size_t m = j - 1; m > i; m--) {
			char *t = site_row__text(o[m], false);
			const char *s = t ? strpool__printf(sp, "%s (%zu)", t, m - i + 1) : NULL;

			free(t);
			if (!s)
				return -ENOMEM;
			o[m]->tail = (struct site_tail){.s = s, .kind = SITE_TAIL_TEXT};
		}
	}
	return 0;
}

/* m->fr for m->r's PP: its cleaned frames, recursion folded (fr_cnt of them), and the
 * site's first frame in it. */
static int member_frames(const struct site_frames *src, const struct site_opts *opts,
			 struct member *m)
{
	size_t cnt = raw_cnt(src, m->r);

	m->fr = malloc((cnt ? cnt : 1) * sizeof(*m->fr));
	if (!m->fr)
		return -ENOMEM;
	for (size_t f = 0; f < cnt; f++)
		m->fr[f] = site__clean_frame(raw_at(src, m->r, f));
	m->fr_cnt = (uint32_t)site__fold(m->fr, cnt);
	m->head = (uint32_t)site__head(m->fr, m->fr_cnt, opts);
	return 0;
}

static int cmp_site(const void *x, const void *y)
{
	return site_row__cmp(*(const struct site_row *const *)x, *(const struct site_row *const *)y);
}

/* The rows o[0..n) share one site: give each the tail that tells it apart. */
static int site_apart(struct strpool *sp, const struct site_frames *src,
		      const struct site_opts *opts, struct site_row **o, size_t n)
{
	struct site_tail *site = calloc(n, sizeof(*site)); /* the new tails */
	struct member *g = calloc(n, sizeof(*g));
	int err = site && g ? 0 : -ENOMEM;

	for (size_t m = 0; m < n && !err; m++) {
		g[m].r = o[m];
		err = member_frames(src, opts, &g[m]);
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
			struct site_tail base = {0};

			if (t - m < n)
				distinct_tail(&g[m], a > b ? a : b, &base);
			if ((err = twins_apart(sp, src, g, m, t, &base, site)))
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
		o[m]->tail = site ? site[m] : (struct site_tail){0};
	}
	free(g);
	free(site);
	return err;
}

/* Rows whose sites read the same are told apart, a site at a time (see above). */
static int disambiguate(struct strpool *sp, const struct site_frames *src,
			const struct site_opts *opts, struct site_row **o, size_t n)
{
	int err = 0;

	qsort(o, n, sizeof(*o), cmp_site);
	for (size_t i = 0, j; i < n && !err; i = j) {
		for (j = i + 1; j < n && o[i]->site == o[j]->site; j++)
			;
		if (j - i > 1)
			err = site_apart(sp, src, opts, o + i, j - i);
	}
	return err ? err : number_equal(sp, o, n);
}

struct site_names *site_names__new(void)
{
	struct site_names *sn = calloc(1, sizeof(*sn));

	if (!sn)
		return NULL;
	sn->sites = strtab__new();
	sn->tails = strpool__new();
	if (!sn->sites || !sn->tails) {
		site_names__free(sn);
		return NULL;
	}
	return sn;
}

void site_names__free(struct site_names *sn)
{
	if (!sn)
		return;
	strtab__free(sn->sites);
	strpool__free(sn->tails);
	free(sn);
}

int site_names__name(struct site_names *sn, struct site_row **rows, size_t n,
		     const struct site_frames *src, const struct site_opts *opts)
{
	for (size_t i = 0; i < n; i++) {
		struct member m = {.r = rows[i]};
		char *site;
		int64_t k;
		int err;

		if ((err = member_frames(src, opts, &m)))
			return err;
		site = site_at(m.fr, m.fr_cnt, m.head);
		free(m.fr);
		k = site ? strtab__intern(sn->sites, site, strlen(site)) : -ENOMEM;
		free(site);
		if (k < 0)
			return -ENOMEM;
		rows[i]->site = sn->sites->strs[k];
		rows[i]->tail = (struct site_tail){0};
	}
	return disambiguate(sn->tails, src, opts, rows, n);
}

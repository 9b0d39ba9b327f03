// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * dhat_reader - DHAT v2 file -> struct dhat_profile, validated (see dhat_reader.h).
 *
 * Streaming. The text passes once through a 256 KiB window (zlib's gzread for a file, plain
 * or gzip; the caller's buffer for dhat_profile__parse) and a small hand-written JSON parser
 * that converts every value straight into the final structs. Neither the whole text nor a
 * JSON tree is held at any time, so peak memory is the profile itself (0.8-0.9x a file of
 * 10-30-frame stacks, docs/BENCHMARKS.md) instead of text + tree + structs (8x the file size
 * with cJSON).
 *
 * Grammar (RFC 8259), as the parse functions below implement it:
 *
 *	value  := object | array | string | number | "true" | "false" | "null"
 *	object := '{' [ string ':' value { ',' string ':' value } ] '}'
 *	array  := '[' [ value { ',' value } ] ']'
 *	text   := [BOM] ws value ws EOF
 *
 * Two kinds of error, reported the way dh_view would meet them:
 *   - syntax errors (what JSON.parse rejects) stop the parse at once, with line:column;
 *   - content errors (types, missing fields, ranges) are remembered, the first of each
 *     kind, and reported after the whole text has parsed, in the viewer's order (required
 *     keys, version, header fields, ftbl, then PPs by index), so that a file gets the same
 *     complaint whatever its key order. pps may come before ftbl and before bklt, hence the
 *     deferral.
 *   - a repeated location (a PP whose fs equals an earlier PP's) stops the parse at once:
 *     it needs neither ftbl nor the header, and a file made of them (a writer looping) is
 *     better refused at its first one than after gigabytes.
 *
 * Memory: PPs go into one array, their fs into one pool and the ftbl strings into another
 * (pointers into a pool are re-based when it moves), the duplicate table holds 32-bit PP
 * numbers: no per-PP or per-frame allocation and its overhead.
 * Messages are "NAME:LINE:COL: problem" (byte columns, counted after a UTF-8 BOM), or
 * "NAME: problem" when there is no position (an empty file, an unreadable one).
 */
#include "dhat_reader.h"
#include "dhat_sampled.h"
#include "safe_open.h"
#include "safe_text.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#define WIN_SZ	  (256 * 1024) /* read window for files */
#define MAX_DEPTH 256	       /* nesting bound; DHAT itself needs 4 */
#define NUM_TXT	  40	       /* number text kept for messages */

/* A position in the text, 1-based. Saturates rather than wraps. */
struct pos {
	uint32_t line, col;
};

/* The input: a window over the text plus where it is. */
struct src {
	gzFile gz;		  /* NULL: buf is the whole text */
	const unsigned char *buf; /* current window */
	size_t len, off;	  /* window length, read offset */
	unsigned char *win;	  /* owned window storage (gz) */
	struct pos at;		  /* position of buf[off] */
	uint64_t read, read_max;  /* gz: bytes of text so far, and the most it may give */
};

/* Value types, for messages. */
enum jt { JT_NULL, JT_BOOL, JT_NUM, JT_STR, JT_ARR, JT_OBJ };

/* One scalar value as read (composite values are skipped and only typed). */
struct jv {
	enum jt t;
	struct pos at;	   /* where it starts */
	bool b;		   /* JT_BOOL */
	bool u64_ok;	   /* JT_NUM: a non-negative integer below 2^64 */
	uint64_t u;	   /* its value */
	double d;	   /* JT_NUM as a double */
	char num[NUM_TXT]; /* JT_NUM as written (truncated with "...") */
};			   /* JT_STR: the decoded text is in ps->sb */

/* clang-format off */
/* The top-level keys; the first 12 are required, in the order the viewer checks them. */
enum tkey {
	K_VERSION, K_MODE, K_VERB, K_BKLT, K_BKACC, K_TU, K_MTU, K_CMD, K_PID, K_TE, K_PPS,
	K_FTBL, K_REQUIRED_CNT, K_BU = K_REQUIRED_CNT, K_BSU, K_BKSU, K_TUTH, K_TG, K_LOST,
	K_DEATH, K_RSS, K_MAPPINGS, K_SAMPLED, K_CNT
};
static const char *const TOP_KEYS[K_CNT] = {
	"dhatFileVersion", "mode", "verb", "bklt", "bkacc", "tu", "Mtu", "cmd", "pid", "te",
	"pps", "ftbl", "bu", "bsu", "bksu", "tuth", "tg", DHAT_LOST_KEY,
	DHAT_DEATH_KEY, DHAT_RSS_KEY, DHAT_MAPPINGS_KEY, DHAT_SAMPLED_KEY,
};

/* clang-format on */

/* What was seen of one top-level key. */
struct tinfo {
	bool seen;
	struct pos at; /* of its value */
	char bad[64];  /* "" or the wrong value described ("a number", "-5", ...) */
};

/* clang-format off */
/* The per-PP counters, in the order missing ones are reported; F_FS last. */
enum pkey { F_TB, F_TBK, F_TL, F_MB, F_MBK, F_GB, F_GBK, F_EB, F_EBK, F_RB, F_WB, F_FS,
	    F_ACC, F_CNT };
static const char *const PP_KEYS[F_CNT] = {
	"tb", "tbk", "tl", "mb", "mbk", "gb", "gbk", "eb", "ebk", "rb", "wb", "fs", "acc",
};

/* clang-format on */

/* Where a PP starts and which of its keys were present (kept until the final checks). */
struct ppmeta {
	struct pos at;
	uint16_t have; /* bit (1 << enum pkey) */
};

/* A remembered content error: the first one of its kind. */
struct defer {
	bool set;
	size_t idx; /* PP or ftbl index */
	struct pos at;
	char msg[320];
};

struct ps {
	const char *name; /* file name for messages */
	uint64_t tl_sum;  /* Σtl so far: bounded like the totals (diff sums it per row) */
	char *err;
	size_t errsz;
	struct src s;
	struct dhat_profile *p;
	/* growable scratch: the last string read */
	char *sb;
	size_t sb_len, sb_cap;
	/* the pools behind p->pps[].fs and p->ftbl[] (handed to p at the end); the fs being read
	 * is appended after fs_used and kept by moving fs_used */
	uint32_t *fs_pool;
	size_t fs_used, fs_cap;
	char *str_pool;
	size_t str_used, str_cap;
	/* open-addressing set of kept PPs by fs (PP number + 1; 0 empty), load <= 1/2 */
	uint32_t *dup;
	size_t dup_cap;
	/* what the content checks need */
	struct tinfo top[K_CNT];
	enum jt top_type; /* type of the top-level value */
	struct pos top_at;
	struct defer dup_key; /* a known key given twice */
	struct defer ftbl_err, pp_err;
	struct ppmeta *meta; /* per stored PP */
	size_t pp_cap, ftbl_cap, acc_cap, est_cap;
	int io_err; /* refill failure (message already written) */
};

/* ---- messages ----------------------------------------------------------------------- */

/* Write "NAME:L:C: " (or "NAME: " without a position) + message into the error buffer, on
 * one line and safe for a terminal whatever a file name or a string in the file contained
 * (control characters as \xHH: a file named "\e]0;X\a.json" must not retitle it). */
static void vfail(struct ps *ps, const struct pos *at, const char *fmt, va_list ap)
{
	char raw[2048];
	int n;

	if (!ps->err || !ps->errsz)
		return;
	if (at)
		n = snprintf(raw, sizeof(raw), "%s:%u:%u: ", ps->name, at->line, at->col);
	else
		n = snprintf(raw, sizeof(raw), "%s: ", ps->name);
	if (n < 0 || (size_t)n >= sizeof(raw))
		n = 0;
	vsnprintf(raw + n, sizeof(raw) - (size_t)n, fmt, ap);
	safe_text__copy_term(ps->err, ps->errsz, raw);
}

__attribute__((format(printf, 3, 4))) static int fail_at(struct ps *ps, const struct pos *at,
							 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(ps, at, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Remember a content error if it is the first of its kind. */
__attribute__((format(printf, 5, 6))) static void
defer(struct defer *d, size_t idx, const struct pos *at, bool force, const char *fmt, ...)
{
	va_list ap;

	if (d->set && !force)
		return;
	d->set = true;
	d->idx = idx;
	d->at = *at;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
}

static int nomem(struct ps *ps)
{
	struct pos at = ps->s.at;

	fail_at(ps, &at, "out of memory");
	return -ENOMEM;
}

static const char *type_name(enum jt t)
{
	static const char *const names[] = {"null",	"a boolean", "a number",
					    "a string", "an array",  "an object"};
	return names[t];
}

/* The value as a message shows it: numbers as written, other types by name. */
static const char *describe(const struct jv *v)
{
	return v->t == JT_NUM ? v->num : type_name(v->t);
}

/* ---- input -------------------------------------------------------------------------- */

/* Make the window non-empty; returns the next byte or -1 at the end (or on a read error,
 * with ps->io_err set). */
static int refill(struct ps *ps)
{
	struct src *s = &ps->s;
	int n, zerr;

	if (!s->gz)
		return -1;
	errno = 0;
	n = gzread(s->gz, s->win, WIN_SZ);
	if (n <= 0) {
		const char *msg = gzerror(s->gz, &zerr), *tail;

		if (n == 0 && zerr == Z_OK)
			return -1;
		/* zlib names a gzdopen'ed stream "<fd:N>: ": our message names the file. */
		if (!strncmp(msg, "<fd:", 4) && (tail = strstr(msg, ">: ")))
			msg = tail + 3;
		if (zerr == Z_ERRNO) {
			ps->io_err = errno ? -errno : -EIO;
			fail_at(ps, NULL, "cannot read: %s", strerror(-ps->io_err));
		} else {
			ps->io_err = -EINVAL;
			fail_at(ps, NULL, "corrupt gzip data: %s", msg);
		}
		return -1;
	}
	s->read += (uint64_t)n;
	if (s->read > s->read_max) {
		ps->io_err = -EINVAL;
		fail_at(ps, NULL, "decompresses to more than %llu bytes (%u times the file, or %u "
				  "MiB): not a profile",
			(unsigned long long)s->read_max, DHAT_INFLATE_RATIO_MAX,
			DHAT_INFLATE_FLOOR >> 20);
		return -1;
	}
	s->buf = s->win;
	s->len = (size_t)n;
	s->off = 0;
	return s->buf[0];
}

static inline int peekc(struct ps *ps)
{
	return ps->s.off < ps->s.len ? ps->s.buf[ps->s.off] : refill(ps);
}

/* Consume the byte peekc returned. */
static inline void advance(struct ps *ps)
{
	struct src *s = &ps->s;

	if (s->buf[s->off++] == '\n') {
		if (s->at.line < UINT32_MAX)
			s->at.line++;
		s->at.col = 1;
	} else if (s->at.col < UINT32_MAX) {
		s->at.col++;
	}
}

static int skip_ws(struct ps *ps)
{
	int c;

	while ((c = peekc(ps)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		advance(ps);
	return c;
}

/* A syntax error at the current position, naming what was found there. */
static int syntax(struct ps *ps, const char *expected)
{
	struct pos at = ps->s.at;
	int c;

	if (ps->io_err)
		return ps->io_err;
	c = peekc(ps);
	if (ps->io_err)
		return ps->io_err;
	if (c < 0)
		return fail_at(ps, &at, "not valid JSON: expected %s, found the end of the file",
			       expected);
	if (c >= 0x20 && c < 0x7f)
		return fail_at(ps, &at, "not valid JSON: expected %s, found '%c'", expected, c);
	return fail_at(ps, &at, "not valid JSON: expected %s, found byte 0x%02x", expected, c);
}

/* Consume ch after optional whitespace, or fail. */
static int expect(struct ps *ps, int ch, const char *expected)
{
	if (skip_ws(ps) != ch)
		return syntax(ps, expected);
	advance(ps);
	return 0;
}

/* ---- scalars ------------------------------------------------------------------------ */

static int sb_put(struct ps *ps, const char *data, size_t n)
{
	if (ps->sb_len + n > DHAT_STRING_MAX)
		return fail_at(ps, &ps->s.at, "a string longer than %u bytes (no frame or field "
					      "is that long): not a profile",
			       DHAT_STRING_MAX);
	if (ps->sb_len + n + 1 > ps->sb_cap) {
		size_t cap = ps->sb_cap ? ps->sb_cap : 256;
		char *nb;

		while (cap < ps->sb_len + n + 1)
			cap *= 2;
		nb = realloc(ps->sb, cap);
		if (!nb)
			return nomem(ps);
		ps->sb = nb;
		ps->sb_cap = cap;
	}
	memcpy(ps->sb + ps->sb_len, data, n);
	ps->sb_len += n;
	ps->sb[ps->sb_len] = '\0';
	return 0;
}

static int hex4(struct ps *ps, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		int c = peekc(ps);

		if (c >= '0' && c <= '9')
			v = v * 16 + (unsigned)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = v * 16 + (unsigned)((c | 0x20) - 'a' + 10);
		else
			return syntax(ps, "4 hex digits after \\u");
		advance(ps);
	}
	*out = v;
	return 0;
}

/* UTF-8 of code point cp; lone surrogates and U+0000 (which C strings cannot hold) become
 * U+FFFD. */
static int put_utf8(struct ps *ps, unsigned cp)
{
	char u[4];
	size_t n;

	if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff))
		cp = 0xfffd;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return sb_put(ps, u, n);
}

/* string := '"' { char | '\' escape } '"'  -- decoded into ps->sb. Raw bytes >= 0x20 are
 * copied as they are (JSON.parse would see the same text after FileReader's decoding). */
static int read_string(struct ps *ps)
{
	static const char ESC_IN[] = "\"\\/bfnrt", ESC_OUT[] = "\"\\/\b\f\n\r\t";
	struct src *s = &ps->s;
	int c, err;

	ps->sb_len = 0;
	if ((err = sb_put(ps, "", 0)))
		return err;
	if (peekc(ps) != '"')
		return syntax(ps, "a string");
	advance(ps);
	for (;;) {
		/* Fast path: a run of plain bytes inside the window. */
		size_t start = s->off, end = start;

		while (end < s->len && s->buf[end] != '"' && s->buf[end] != '\\' &&
		       s->buf[end] >= 0x20)
			end++;
		if (end > start) {
			if ((err = sb_put(ps, (const char *)s->buf + start, end - start)))
				return err;
			s->off = end;
			s->at.col = s->at.col + (end - start) > UINT32_MAX
					? UINT32_MAX
					: (uint32_t)(s->at.col + (end - start));
		}
		c = peekc(ps);
		if (c == '"') {
			advance(ps);
			return 0;
		}
		if (c < 0x20) /* also the end of the text */
			return syntax(ps, "'\"' to close the string");
		if (c != '\\')
			continue; /* the window was refilled */
		advance(ps);
		c = peekc(ps);
		const char *e = c > 0 ? strchr(ESC_IN, c) : NULL;

		if (e) {
			advance(ps);
			if ((err = sb_put(ps, &ESC_OUT[e - ESC_IN], 1)))
				return err;
		} else if (c == 'u') {
			unsigned cp, lo;

			advance(ps);
			if ((err = hex4(ps, &cp)))
				return err;
			/* A high surrogate followed by \u+low surrogate is one code point. */
			if (cp >= 0xd800 && cp <= 0xdbff && peekc(ps) == '\\') {
				advance(ps);
				if (peekc(ps) != 'u')
					return syntax(ps, "'u' after '\\'");
				advance(ps);
				if ((err = hex4(ps, &lo)))
					return err;
				if (lo >= 0xdc00 && lo <= 0xdfff) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				} else if ((err = put_utf8(ps, cp))) {
					return err;
				} else {
					cp = lo;
				}
			}
			if ((err = put_utf8(ps, cp)))
				return err;
		} else {
			return syntax(ps, "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
		}
	}
}

/* Append c to the number text (keeping room for "..."), noting an overflow. */
static void num_put(char *txt, size_t *n, bool *overlong, int c)
{
	if (*n < NUM_TXT - 4)
		txt[(*n)++] = (char)c;
	else
		*overlong = true;
}

/* Consume a run of digits; returns how many. */
static size_t digits(struct ps *ps, char *txt, size_t *n, bool *overlong)
{
	size_t cnt = 0;
	int c;

	while ((c = peekc(ps)) >= '0' && c <= '9') {
		num_put(txt, n, overlong, c);
		advance(ps);
		cnt++;
	}
	return cnt;
}

/* number := ['-'] ('0' | [1-9][0-9]*) ['.' [0-9]+] [('e'|'E') ['+'|'-'] [0-9]+] */
static int read_number(struct ps *ps, struct jv *v)
{
	bool overlong = false, plain = true;
	size_t n = 0;
	int c = peekc(ps);

	v->t = JT_NUM;
	if (c == '-') {
		num_put(v->num, &n, &overlong, c);
		advance(ps);
		plain = false;
	}
	c = peekc(ps);
	if (c == '0') {
		num_put(v->num, &n, &overlong, c);
		advance(ps);
	} else if (!digits(ps, v->num, &n, &overlong)) {
		return syntax(ps, "a digit");
	}
	if (peekc(ps) == '.') {
		num_put(v->num, &n, &overlong, '.');
		advance(ps);
		plain = false;
		if (!digits(ps, v->num, &n, &overlong))
			return syntax(ps, "a digit after '.'");
	}
	c = peekc(ps);
	if (c == 'e' || c == 'E') {
		num_put(v->num, &n, &overlong, c);
		advance(ps);
		plain = false;
		c = peekc(ps);
		if (c == '+' || c == '-') {
			num_put(v->num, &n, &overlong, c);
			advance(ps);
		}
		if (!digits(ps, v->num, &n, &overlong))
			return syntax(ps, "a digit in the exponent");
	}
	v->num[n] = '\0';
	v->u64_ok = false;
	v->u = 0;
	if (overlong) {
		/* More digits than any u64 has: a value we cannot use, named as written. */
		strcpy(v->num + n, "...");
		v->d = v->num[0] == '-' ? -1e308 : 1e308;
		return 0;
	}
	v->d = strtod(v->num, NULL);
	if (plain) {
		/* Exact, not through a double. */
		uint64_t u = 0;

		for (size_t i = 0; i < n; i++) {
			unsigned dg = (unsigned)(v->num[i] - '0');

			if (u > (UINT64_MAX - dg) / 10)
				return 0;
			u = u * 10 + dg;
		}
		v->u = u;
		v->u64_ok = true;
	} else if (v->d >= 0 && v->d < 18446744073709551616.0 && (double)(uint64_t)v->d == v->d) {
		/* 2.0, 1e3: integers written as floats, which the viewer takes too */
		v->u = (uint64_t)v->d;
		v->u64_ok = true;
	}
	return 0;
}

static int read_literal(struct ps *ps, const char *word)
{
	for (const char *w = word; *w; w++) {
		if (peekc(ps) != *w)
			return syntax(ps, word[0] == 't'   ? "'true'"
					  : word[0] == 'f' ? "'false'"
							   : "'null'");
		advance(ps);
	}
	return 0;
}

static int skip_composite(struct ps *ps, int depth);

/* value: read a scalar into v (strings into ps->sb); skip an array or object, typing it. */
static int read_value(struct ps *ps, struct jv *v, int depth)
{
	int c = skip_ws(ps);

	/* Every field defined whatever the type (fuzzing found a stale u64_ok). */
	v->at = ps->s.at;
	v->b = v->u64_ok = false;
	v->u = 0;
	v->d = 0;
	v->num[0] = '\0';
	switch (c) {
	case '{':
		v->t = JT_OBJ;
		return skip_composite(ps, depth);
	case '[':
		v->t = JT_ARR;
		return skip_composite(ps, depth);
	case '"':
		v->t = JT_STR;
		return read_string(ps);
	case 't':
		v->t = JT_BOOL;
		v->b = true;
		return read_literal(ps, "true");
	case 'f':
		v->t = JT_BOOL;
		v->b = false;
		return read_literal(ps, "false");
	case 'n':
		v->t = JT_NULL;
		return read_literal(ps, "null");
	default:
		if (c == '-' || (c >= '0' && c <= '9'))
			return read_number(ps, v);
		return syntax(ps, "a value");
	}
}

/* After '{' or '[' was seen (not consumed): step to the next member or element.
 * Sets *more = false at the closing bracket (consumed). For objects, reads the key into
 * ps->sb and the ':' after it. */
static int next_item(struct ps *ps, bool obj, bool *first, bool *more)
{
	int c = skip_ws(ps), err;

	if (*first) {
		*first = false;
		if (c == (obj ? '}' : ']')) {
			advance(ps);
			*more = false;
			return 0;
		}
	} else if (c == (obj ? '}' : ']')) {
		advance(ps);
		*more = false;
		return 0;
	} else if (c == ',') {
		advance(ps);
		c = skip_ws(ps);
	} else {
		return syntax(ps, obj ? "',' or '}'" : "',' or ']'");
	}
	*more = true;
	if (!obj)
		return 0;
	if (c != '"')
		return syntax(ps, "a key string");
	if ((err = read_string(ps)))
		return err;
	return expect(ps, ':', "':' after the key");
}

/* Skip the object or array starting at the current '{' / '[', checking its syntax. */
static int skip_composite(struct ps *ps, int depth)
{
	bool obj = peekc(ps) == '{', first = true, more;
	struct jv v;
	int err;

	if (depth >= MAX_DEPTH) {
		struct pos at = ps->s.at;

		return fail_at(ps, &at, "not valid JSON: nested deeper than %d levels", MAX_DEPTH);
	}
	advance(ps);
	for (;;) {
		if ((err = next_item(ps, obj, &first, &more)))
			return err;
		if (!more)
			return 0;
		if ((err = read_value(ps, &v, depth + 1)))
			return err;
	}
}

/* ---- the DHAT structure --------------------------------------------------------------- */

/* Element i of the fs being read, after the kept ones in the pool. */
static int fs_put(struct ps *ps, size_t i, uint32_t v)
{
	size_t at = ps->fs_used + i;

	if (at >= ps->fs_cap) {
		size_t cap = ps->fs_cap ? ps->fs_cap * 2 : 1024;
		uint32_t *nb = realloc(ps->fs_pool, cap * sizeof(*nb));

		if (!nb)
			return nomem(ps);
		ps->fs_pool = nb;
		ps->fs_cap = cap;
	}
	ps->fs_pool[at] = v;
	return 0;
}

/* fs := '[' index { ',' index } ']'  -- after the kept fs in ps->fs_pool. A content problem
 * goes to ps->pp_err and sets *bad; the array is still read to its end. */
static int parse_fs(struct ps *ps, size_t k, uint32_t *cnt, bool *bad)
{
	bool first = true, more;
	struct jv v;
	size_t i = 0;
	int err;

	advance(ps); /* '[' */
	for (;; i++) {
		if ((err = next_item(ps, false, &first, &more)))
			return err;
		if (!more)
			break;
		if ((err = read_value(ps, &v, 4)))
			return err;
		if (*bad)
			continue;
		if (!v.u64_ok) {
			defer(&ps->pp_err, k, &v.at, false,
			      "pps[%zu]: fs[%zu] is %s, expected a frame index", k, i,
			      describe(&v));
			*bad = true;
		} else if (v.u >= UINT32_MAX) {
			defer(&ps->pp_err, k, &v.at, false,
			      "pps[%zu]: fs[%zu] = %llu is out of range", k, i,
			      (unsigned long long)v.u);
			*bad = true;
		} else if (i >= DHAT_FS_CNT_MAX) {
			defer(&ps->pp_err, k, &v.at, false, "pps[%zu]: fs has too many frames", k);
			*bad = true;
		} else if (ps->fs_used + i >= UINT32_MAX) { /* struct dhat_pp's fs_off */
			defer(&ps->pp_err, k, &v.at, false,
			      "pps[%zu]: too many frames in all fs (2^32)", k);
			*bad = true;
		} else if ((err = fs_put(ps, i, (uint32_t)v.u))) {
			return err;
		}
	}
	*cnt = (uint32_t)i;
	return 0;
}

/* acc := '[' count-or-run { ',' count-or-run } ']'  -- checked, not kept. The viewer asserts
 * on a count above 0xffff; -N starts a run of N equal values. */
static int parse_acc(struct ps *ps, size_t k, bool *bad)
{
	bool first = true, more;
	struct jv v;
	int err;

	advance(ps); /* '[' */
	for (size_t i = 0;; i++) {
		if ((err = next_item(ps, false, &first, &more)))
			return err;
		if (!more)
			return 0;
		if ((err = read_value(ps, &v, 4)))
			return err;
		if (*bad)
			continue;
		/* range first: casting an out-of-range double is undefined */
		if (v.t != JT_NUM || v.d > 65535 || v.d < -4294967296.0 ||
		    v.d != (double)(int64_t)v.d) {
			defer(
			    &ps->pp_err, k, &v.at, false,
			    "pps[%zu]: acc[%zu] is not an access count (0..65535) or a run length",
			    k, i);
			*bad = true;
		}
	}
}

static int pp_key(const char *s)
{
	for (int i = 0; i < F_CNT; i++)
		if (!strcmp(s, PP_KEYS[i]))
			return i;
	return -1;
}

/* Make room for PP k in p->pps and ps->meta. */
static int pps_grow(struct ps *ps, size_t k)
{
	struct dhat_profile *p = ps->p;

	if (k < ps->pp_cap)
		return 0;
	size_t cap = ps->pp_cap ? ps->pp_cap * 2 : 64;
	struct dhat_pp *np = realloc(p->pps, cap * sizeof(*np));

	if (!np)
		return nomem(ps);
	p->pps = np;
	struct ppmeta *nm = realloc(ps->meta, cap * sizeof(*nm));

	if (!nm)
		return nomem(ps);
	ps->meta = nm;
	ps->pp_cap = cap;
	return 0;
}

/* The first field a PP with keys have lacks, or -1. The bklt/bkacc fields count once that
 * header key has been read: parse_pp checks with what it knows, check_pp again at the end. */
static int pp_missing(const struct ps *ps, uint16_t have)
{
	uint32_t need = 1u << F_TB | 1u << F_TBK | 1u << F_FS;

	if (ps->p->bklt)
		need |=
		    1u << F_MB | 1u << F_MBK | 1u << F_GB | 1u << F_GBK | 1u << F_EB | 1u << F_EBK;
	if (ps->p->bkacc)
		need |= 1u << F_RB | 1u << F_WB;
	for (int f = 0; f < F_CNT; f++)
		if ((need & (1u << f)) && !(have & (1u << f)))
			return f;
	return -1;
}

static uint64_t hash_fs(const uint32_t *fs, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= fs[i];
		h *= 0x100000001b3ull;
	}
	return h ^ n;
}

/* The slot of PP k's fs in ps->dup: where an equal fs already is, or the empty slot for it. */
static size_t dup_slot(const struct ps *ps, const struct dhat_pp *pp)
{
	const uint32_t *fs =
	    ps->fs_pool ? ps->fs_pool + pp->fs_off : NULL; /* NULL: no frames yet */
	size_t mask = ps->dup_cap - 1, i = hash_fs(fs, pp->fs_cnt) & mask;

	for (; ps->dup[i]; i = (i + 1) & mask) {
		const struct dhat_pp *o = &ps->p->pps[ps->dup[i] - 1];

		if (o->fs_cnt == pp->fs_cnt &&
		    (!pp->fs_cnt || !memcmp(ps->fs_pool + o->fs_off, fs, pp->fs_cnt * sizeof(*fs))))
			break;
	}
	return i;
}

/* The viewer aborts on two PPs with equal fs ("repeated location"): so do we, as soon as the
 * second one (the kept PP k) is read. */
static int check_repeat(struct ps *ps, size_t k)
{
	const struct dhat_pp *pp = &ps->p->pps[k];
	size_t i;

	if (k + 1 >= UINT32_MAX)
		return fail_at(ps, &ps->meta[k].at, "pps[%zu]: too many program points", k);
	if ((k + 1) * 2 > ps->dup_cap) {
		size_t cap = ps->dup_cap ? ps->dup_cap * 2 : 1024;
		uint32_t *old = ps->dup;

		ps->dup = calloc(cap, sizeof(*ps->dup));
		if (!ps->dup) {
			ps->dup = old;
			return nomem(ps);
		}
		ps->dup_cap = cap;
		for (size_t j = 0; j < k; j++)
			ps->dup[dup_slot(ps, &ps->p->pps[j])] = (uint32_t)j + 1;
		free(old);
	}
	i = dup_slot(ps, pp);
	if (ps->dup[i]) {
		size_t j = ps->dup[i] - 1;

		return fail_at(ps, &ps->meta[k].at,
			       "pps[%zu]: same \"fs\" as pps[%zu] at line %u (a repeated location)",
			       k, j, ps->meta[j].at.line);
	}
	ps->dup[i] = (uint32_t)k + 1;
	return 0;
}

/* PP k's record val of elem bytes into the side array *arr, which holds *cnt records in
 * *cap slots: grown to k + 1 here, the PPs in between (which had none) zeroed. */
static int side_keep(struct ps *ps, void **arr, size_t *cap, size_t *cnt, size_t elem, size_t k,
		     const void *val)
{
	if (k >= *cap) {
		size_t n = *cap ? *cap : 64;
		void *na;

		while (n <= k)
			n *= 2;
		na = realloc(*arr, n * elem);
		if (!na)
			return nomem(ps);
		*arr = na;
		*cap = n;
	}
	memset((char *)*arr + *cnt * elem, 0, (k - *cnt) * elem);
	memcpy((char *)*arr + k * elem, val, elem);
	*cnt = k + 1;
	return 0;
}

/* PP k's reads and writes, in p->acc. */
static int acc_keep(struct ps *ps, size_t k, const struct dhat_pp_acc *acc)
{
	void *arr = ps->p->acc;
	int err = side_keep(ps, &arr, &ps->acc_cap, &ps->p->acc_cnt, sizeof(*acc), k, acc);

	ps->p->acc = arr;
	return err;
}

/* PP k's estimate details, in p->est. */
static int est_keep(struct ps *ps, size_t k, const struct dhat_pp_est *est)
{
	void *arr = ps->p->est;
	int err = side_keep(ps, &arr, &ps->est_cap, &ps->p->est_cnt, sizeof(*est), k, est);

	ps->p->est = arr;
	return err;
}

/* Which estimate detail an optional PP key is (0: tbSe, 1: tbkSe, 2: tbRealloc,
 * 3: tbkReallocd), or -1. */
static int est_key(const char *s)
{
	static const char *const KEYS[] = {DHAT_SAMPLED_TB_SE, DHAT_SAMPLED_TBK_SE,
					   DHAT_SAMPLED_TB_REALLOC, DHAT_SAMPLED_TBK_REALLOCD};

	for (int i = 0; i < (int)(sizeof(KEYS) / sizeof(KEYS[0])); i++)
		if (!strcmp(s, KEYS[i]))
			return i;
	return -1;
}

/* pp := '{' { key ':' value } '}'  with the keys tb tbk tl mb mbk gb gbk eb ebk rb wb acc fs.
 * Kept as p->pps[k] unless a content error was found in it. */
static int parse_pp(struct ps *ps, size_t k)
{
	struct dhat_profile *p = ps->p;
	struct dhat_pp pp = {0};
	struct dhat_pp_acc acc = {0};
	struct dhat_pp_est est = {0, 0, 0, 0};
	uint32_t fs_cnt = 0;
	struct ppmeta meta = {.at = ps->s.at};
	bool first = true, more, bad = false;
	struct jv v;
	int err, key, extra;

	if (skip_ws(ps) != '{') {
		if ((err = read_value(ps, &v, 3)))
			return err;
		defer(&ps->pp_err, k, &v.at, false, "pps[%zu] is %s, expected an object", k,
		      describe(&v));
		return 0;
	}
	meta.at = ps->s.at;
	advance(ps);
	for (;;) {
		if ((err = next_item(ps, true, &first, &more)))
			goto cleanup;
		if (!more)
			break;
		key = pp_key(ps->sb);
		extra = key < 0 ? est_key(ps->sb) : -1;
		if (key >= 0 && (meta.have & (1u << key)) && !bad) {
			struct pos at = ps->s.at;

			defer(&ps->pp_err, k, &at, false, "pps[%zu]: key \"%s\" given twice", k,
			      PP_KEYS[key]);
			bad = true;
		}
		if (key >= 0)
			meta.have = (uint16_t)(meta.have | 1u << key);
		if ((key == F_FS || key == F_ACC) && !bad && skip_ws(ps) == '[') {
			err = key == F_FS ? parse_fs(ps, k, &fs_cnt, &bad) : parse_acc(ps, k, &bad);
			if (err)
				goto cleanup;
			continue;
		}
		if ((err = read_value(ps, &v, 3)))
			goto cleanup;
		/* Optional and lenient: a bad value is ignored; given twice, the last good one
		 * counts (JSON.parse would keep the last one whatever it is). */
		if (extra >= 0 && extra < 2 && v.t == JT_NUM && v.d >= 0 && isfinite(v.d))
			*(extra ? &est.tbk_se : &est.tb_se) = v.d;
		else if (extra >= 2 && v.u64_ok)
			*(extra == 2 ? &est.tb_realloc : &est.tbk_reallocd) = v.u;
		if (key < 0 || bad)
			continue;
		if (key == F_FS || key == F_ACC) {
			defer(&ps->pp_err, k, &v.at, false,
			      "pps[%zu]: field \"%s\" is %s, expected an array", k, PP_KEYS[key],
			      describe(&v));
			bad = true;
		} else if (!v.u64_ok) {
			defer(&ps->pp_err, k, &v.at, false,
			      "pps[%zu]: field \"%s\" is %s, expected a non-negative integer", k,
			      PP_KEYS[key], describe(&v));
			bad = true;
		} else {
			uint64_t *dst[] = {&pp.tb,  &pp.tbk, &pp.tl,  &pp.mb,  &pp.mbk, &pp.gb,
					   &pp.gbk, &pp.eb,  &pp.ebk, &acc.rb, &acc.wb};
			*dst[key] = v.u;
		}
	}
	/* A PP lacking a field is the first bad one now, so that a repeated location after it
	 * does not stop the parse before the viewer's first complaint. */
	if (!bad && !ps->pp_err.set && (key = pp_missing(ps, meta.have)) >= 0) {
		defer(&ps->pp_err, k, &meta.at, false, "pps[%zu]: missing field \"%s\"", k,
		      PP_KEYS[key]);
		bad = true;
	}
	if (bad || ps->pp_err.set)
		return 0; /* nothing after the first bad PP is kept */
	if ((err = pps_grow(ps, k)))
		goto cleanup;
	if ((acc.rb || acc.wb) && (err = acc_keep(ps, k, &acc)))
		goto cleanup;
	if ((est.tb_se || est.tbk_se || est.tb_realloc || est.tbk_reallocd) &&
	    (err = est_keep(ps, k, &est)))
		goto cleanup;
	pp.has_tl = !!(meta.have & (1u << F_TL));
	pp.fs_off = (uint32_t)ps->fs_used;
	pp.fs_cnt = fs_cnt & DHAT_FS_CNT_MAX; /* parse_fs keeps it below */
	ps->fs_used += fs_cnt;
	p->pps[k] = pp;
	ps->meta[k] = meta;
	p->pp_cnt = k + 1;
	return check_repeat(ps, k);
cleanup:
	return err;
}

/* pps := '[' { pp } ']' */
static int parse_pps(struct ps *ps)
{
	bool first = true, more;
	struct jv v;
	int err;

	advance(ps); /* '[' */
	for (size_t k = 0;; k++) {
		if ((err = next_item(ps, false, &first, &more)))
			return err;
		if (!more)
			return 0;
		if (ps->pp_err.set)
			err = read_value(ps, &v, 2); /* syntax only from here on */
		else
			err = parse_pp(ps, k);
		if (err)
			return err;
	}
}

/* Append ps->sb to the string pool as p->ftbl[i] (the strings are in ftbl order). */
static int str_keep(struct ps *ps, size_t i)
{
	struct dhat_profile *p = ps->p;
	size_t n = ps->sb_len + 1;

	if (ps->str_used + n > ps->str_cap) {
		size_t cap = ps->str_cap ? ps->str_cap : 64 * 1024;
		char *nb;

		while (cap < ps->str_used + n)
			cap *= 2;
		nb = realloc(ps->str_pool, cap);
		if (!nb)
			return nomem(ps);
		ps->str_pool = nb;
		ps->str_cap = cap;
		/* re-base the kept strings: they lie end to end, each with its NUL */
		for (size_t j = 0, off = 0; j < i; j++) {
			p->ftbl[j] = nb + off;
			off += strlen(nb + off) + 1;
		}
	}
	p->ftbl[i] = ps->str_pool + ps->str_used;
	memcpy(p->ftbl[i], ps->sb, n);
	ps->str_used += n;
	return 0;
}

/* ftbl := '[' { string } ']' */
static int parse_ftbl(struct ps *ps)
{
	struct dhat_profile *p = ps->p;
	bool first = true, more;
	struct jv v;
	int err;

	advance(ps); /* '[' */
	for (size_t i = 0;; i++) {
		if ((err = next_item(ps, false, &first, &more)))
			return err;
		if (!more)
			return 0;
		if ((err = read_value(ps, &v, 2)))
			return err;
		if (ps->ftbl_err.set)
			continue;
		if (v.t != JT_STR) {
			defer(&ps->ftbl_err, i, &v.at, false, "ftbl[%zu] is %s, expected a string",
			      i, describe(&v));
			continue;
		}
		if (i >= ps->ftbl_cap) {
			size_t cap = ps->ftbl_cap ? ps->ftbl_cap * 2 : 256;
			char **nf = realloc(p->ftbl, cap * sizeof(*nf));

			if (!nf)
				return nomem(ps);
			p->ftbl = nf;
			ps->ftbl_cap = cap;
		}
		if ((err = str_keep(ps, i)))
			return err;
		p->ftbl_cnt = i + 1;
	}
}

/* Tracer's live-heap series: {"t":[...],"b":[...]}, read optionally (see dhat_reader.h). */
#define LIVE_KEY "heapTimeline"

/* u64-array := '[' { integer } ']'  -- into a new *out (*cnt entries); *bad on any element
 * that is not a non-negative integer (the array is still read to its end). */
static int parse_u64s(struct ps *ps, uint64_t **out, size_t *cnt, bool *bad)
{
	bool first = true, more;
	size_t cap = 0;
	struct jv v;
	int err;

	advance(ps); /* '[' */
	for (;;) {
		if ((err = next_item(ps, false, &first, &more)))
			return err;
		if (!more)
			return 0;
		if ((err = read_value(ps, &v, 3)))
			return err;
		if (*bad || !v.u64_ok) {
			*bad = true;
			continue;
		}
		if (*cnt == cap) {
			uint64_t *n;

			cap = cap ? cap * 2 : 256;
			n = realloc(*out, cap * sizeof(*n));
			if (!n)
				return nomem(ps);
			*out = n;
		}
		(*out)[(*cnt)++] = v.u;
	}
}

/* The members of heapTimeline kept by parse_live. */
enum live_key { L_T, L_B, L_CB, L_CNT };
static const char *const LIVE_SERIES[L_CNT] = { "t", "b", "cb" };

/* Keep heapTimeline's series when well formed: t and b, equal lengths, t ascending; cb too
 * when it has their length and is nowhere below b (the heap in chunks, with cbEnd). Frees
 * what it does not keep. */
static void keep_live(struct dhat_profile *p, uint64_t **a, const size_t *n, const bool *bad,
		      bool has_end, uint64_t end)
{
	bool ok = a[L_T] && a[L_B] && !bad[L_T] && !bad[L_B] && n[L_T] == n[L_B];
	bool cb_ok = ok && a[L_CB] && !bad[L_CB] && n[L_CB] == n[L_T] && has_end;

	for (size_t i = 1; ok && i < n[L_T]; i++)
		ok = a[L_T][i] >= a[L_T][i - 1];
	for (size_t i = 0; cb_ok && i < n[L_T]; i++)
		cb_ok = a[L_CB][i] >= a[L_B][i];
	if (ok) {
		p->live_t = a[L_T];
		p->live_b = a[L_B];
		p->live_cnt = n[L_T];
		a[L_T] = a[L_B] = NULL;
	}
	if (ok && cb_ok) {
		p->live_cb = a[L_CB];
		p->live_cb_end = end;
		a[L_CB] = NULL;
	}
	for (int k = 0; k < L_CNT; k++)
		free(a[k]);
}

/* heapTimeline := '{' "t" ':' u64-array ',' "b" ':' u64-array [ ',' "cb" ':' u64-array
 *		    ',' "cbEnd" ':' integer ] '}'  -- kept in p->live_* only when well formed
 * (keep_live). The first one given is kept; other members are skipped. */
static int parse_live(struct ps *ps)
{
	uint64_t *a[L_CNT] = { 0 }, end = 0;
	size_t n[L_CNT] = { 0 };
	bool first = true, more, bad[L_CNT] = { 0 }, has_end = false, end_seen = false;
	struct jv v;
	int err = 0, k;

	if (skip_ws(ps) != '{' || ps->p->live_t)
		return read_value(ps, &v, 1);
	advance(ps);
	for (;;) {
		if ((err = next_item(ps, true, &first, &more)) || !more)
			break;
		for (k = 0; k < L_CNT && strcmp(ps->sb, LIVE_SERIES[k]); k++)
			;
		if (k < L_CNT && skip_ws(ps) == '[' && !a[k] && !bad[k]) {
			err = parse_u64s(ps, &a[k], &n[k], &bad[k]);
			bad[k] |= !a[k]; /* an empty array */
		} else if (k < L_CNT) {
			bad[k] = true; /* not an array, or given twice */
			err = read_value(ps, &v, 2);
		} else if (!strcmp(ps->sb, "cbEnd")) {
			err = read_value(ps, &v, 2);
			has_end = !end_seen && v.u64_ok; /* given twice: neither */
			end = v.u;
			end_seen = true;
		} else {
			err = read_value(ps, &v, 2);
		}
		if (err)
			break;
	}
	keep_live(ps->p, a, n, bad, has_end, end);
	return err;
}

/* A member of one of our flat optional objects: its key and value (str: a string's text). */
typedef void (*member_fn)(void *ctx, const char *key, const struct jv *v, const char *str);

/* flat := '{' { key ':' value } '}'  -- at nesting depth, each member handed to fn. Lenient
 * as "lost": fn ignores what it does not know; the syntax is still checked. */
static int parse_flat(struct ps *ps, int depth, member_fn fn, void *ctx)
{
	bool first = true, more;
	char key[32];
	struct jv v;
	int err;

	advance(ps); /* '{' */
	for (;;) {
		if ((err = next_item(ps, true, &first, &more)))
			return err;
		if (!more)
			return 0;
		snprintf(key, sizeof(key), "%s", ps->sb); /* read_value reuses ps->sb */
		if ((err = read_value(ps, &v, depth)))
			return err;
		fn(ctx, key, &v, v.t == JT_STR ? ps->sb : NULL);
	}
}

static void lost_member(void *ctx, const char *key, const struct jv *v, const char *str)
{
	struct dhat_lost *l = ctx;
	int k = 0;

	(void)str;
	while (k < DHAT_LOST_CNT && strcmp(key, dhat_lost_keys[k]))
		k++;
	if (k < DHAT_LOST_CNT && v->u64_ok)
		l->n[k] = v->u;
}

static void death_member(void *ctx, const char *key, const struct jv *v, const char *str)
{
	dhat_death__set(ctx, key, str, v->u64_ok, v->u);
}

static void rss_end_member(void *ctx, const char *key, const struct jv *v, const char *str)
{
	(void)str;
	dhat_rss__set_end(ctx, key, v->u64_ok, v->u);
}

static void site_member(void *ctx, const char *key, const struct jv *v, const char *str)
{
	dhat_mapping_site__set(ctx, key, str, v->u64_ok, v->u, v->t == JT_BOOL, v->b);
}

static void sampled_member(void *ctx, const char *key, const struct jv *v, const char *str)
{
	(void)str;
	if (!strcmp(key, DHAT_SAMPLED_MEAN) && v->u64_ok)
		*(uint64_t *)ctx = v->u;
}

/* lost := flat  -- our optional object (dhat_lost.h). Lenient, as the viewer ignores it:
 * counts that are not non-negative integers stay 0, other keys and values are skipped. */
static int parse_lost(struct ps *ps)
{
	ps->p->has_lost = true;
	return parse_flat(ps, 2, lost_member, &ps->p->lost);
}

/* sampled := flat  -- our optional object (dhat_sampled.h), as lenient. */
static int parse_sampled(struct ps *ps)
{
	return parse_flat(ps, 2, sampled_member, &ps->p->sample_bytes);
}

/* death := flat  -- our optional object (dhat_death.h). */
static int parse_death(struct ps *ps)
{
	ps->p->has_death = true;
	return parse_flat(ps, 2, death_member, &ps->p->death);
}

/* The RSS series of parse_rss, by its keys: t, anon, file, shmem. */
static const char *const RSS_SERIES[] = { "t", "anon", "file", "shmem" };
#define RSS_SERIES_CNT (sizeof(RSS_SERIES) / sizeof(*RSS_SERIES))

/* Keep the series when well formed (all four, equal lengths, t ascending): p->rss_t and
 * p->rss_b = anon + file + shmem. Frees what it does not keep. */
static void keep_rss_series(struct dhat_profile *p, uint64_t **a, const size_t *n, bool bad)
{
	for (size_t k = 0; k < RSS_SERIES_CNT && !bad; k++)
		bad = !a[k] || n[k] != n[0];
	for (size_t i = 1; !bad && i < n[0]; i++)
		bad = a[0][i] < a[0][i - 1];
	if (!bad && !p->rss_t) {
		for (size_t i = 0; i < n[0]; i++)
			a[1][i] += a[2][i] + a[3][i];
		p->rss_t = a[0];
		p->rss_b = a[1];
		p->rss_cnt = n[0];
		a[0] = a[1] = NULL;
	}
	for (size_t k = 0; k < RSS_SERIES_CNT; k++)
		free(a[k]);
}

/* rss := '{' { key ':' value } '}'  -- our optional object (dhat_rss.h): "atEnd" (a flat
 * object) and the series (u64 arrays) are kept, the rest is syntax-checked and skipped. As
 * lenient as "lost": a malformed series is dropped. */
static int parse_rss(struct ps *ps)
{
	uint64_t *a[RSS_SERIES_CNT] = { 0 };
	size_t n[RSS_SERIES_CNT] = { 0 }, k;
	bool first = true, more, bad = false;
	struct jv v;
	int err;

	advance(ps); /* '{' */
	for (;;) {
		if ((err = next_item(ps, true, &first, &more)) || !more)
			break;
		for (k = 0; k < RSS_SERIES_CNT && strcmp(ps->sb, RSS_SERIES[k]); k++)
			;
		if (!strcmp(ps->sb, "atEnd") && skip_ws(ps) == '{') {
			ps->p->has_rss = true;
			err = parse_flat(ps, 3, rss_end_member, &ps->p->rss_end);
		} else if (k < RSS_SERIES_CNT && !a[k] && skip_ws(ps) == '[') {
			err = parse_u64s(ps, &a[k], &n[k], &bad);
			bad |= !a[k]; /* an empty array */
		} else {
			err = read_value(ps, &v, 2);
		}
		if (err)
			break;
	}
	keep_rss_series(ps->p, a, n, bad || err);
	return err;
}

/* One site of "mappings" (a flat object), appended to the profile's sites. */
static int parse_mapping_site(struct ps *ps)
{
	struct dhat_mappings *m = &ps->p->mappings;
	struct dhat_mapping_site *grown = realloc(m->sites, (m->cnt + 1) * sizeof(*grown));

	if (!grown)
		return nomem(ps);
	m->sites = grown;
	memset(&m->sites[m->cnt], 0, sizeof(*grown));
	return parse_flat(ps, 4, site_member, &m->sites[m->cnt++]);
}

/* mappings := '{' { key ':' value } '}'  -- our optional object (dhat_mappings.h), as
 * lenient as "lost": "sites" is an array of objects, anything else in it is skipped. */
static int parse_mappings(struct ps *ps)
{
	bool first = true, more, in_first, in_more;
	char key[32];
	struct jv v;
	int err;

	advance(ps); /* '{' */
	ps->p->has_mappings = true;
	for (;;) {
		if ((err = next_item(ps, true, &first, &more)))
			return err;
		if (!more)
			return 0;
		snprintf(key, sizeof(key), "%s", ps->sb);
		if (strcmp(key, "sites") || skip_ws(ps) != '[') {
			if ((err = read_value(ps, &v, 2)))
				return err;
			dhat_mappings__set(&ps->p->mappings, key, v.u64_ok, v.u);
			continue;
		}
		advance(ps); /* '[' */
		for (in_first = true;;) {
			if ((err = next_item(ps, false, &in_first, &in_more)))
				return err;
			if (!in_more)
				break;
			err = skip_ws(ps) == '{' ? parse_mapping_site(ps) : read_value(ps, &v, 3);
			if (err)
				return err;
		}
	}
}

static int top_key(const char *s)
{
	for (int i = 0; i < K_CNT; i++)
		if (!strcmp(s, TOP_KEYS[i]))
			return i;
	return -1;
}

/* A string-valued top-level key: keep it, or describe what came instead. */
static int keep_str(struct ps *ps, const struct jv *v, struct tinfo *ti, char **dst)
{
	if (v->t != JT_STR) {
		snprintf(ti->bad, sizeof(ti->bad), "%s", describe(v));
		return 0;
	}
	*dst = strdup(ps->sb);
	return *dst ? 0 : nomem(ps);
}

/* The top-level keys whose value is parsed as it comes (an array or object of the right
 * kind); any other value of theirs is typed by parse_member. */
/* clang-format off */
static const struct {
	enum tkey k;
	char open; /* '[' or '{' */
	int (*parse)(struct ps *ps);
} COMPOSITE[] = {
	{ K_PPS, '[', parse_pps },	{ K_FTBL, '[', parse_ftbl },
	{ K_LOST, '{', parse_lost },	{ K_DEATH, '{', parse_death },
	{ K_RSS, '{', parse_rss },	{ K_MAPPINGS, '{', parse_mappings },
	{ K_SAMPLED, '{', parse_sampled },
};
/* clang-format on */

/* One top-level member's value, the key being k. */
static int parse_member(struct ps *ps, int k)
{
	struct dhat_profile *p = ps->p;
	struct tinfo *ti = &ps->top[k];
	struct jv v;
	int err, c = skip_ws(ps);

	ti->seen = true;
	ti->at = ps->s.at;
	for (size_t i = 0; i < sizeof(COMPOSITE) / sizeof(COMPOSITE[0]); i++)
		if ((int)COMPOSITE[i].k == k && COMPOSITE[i].open == c)
			return COMPOSITE[i].parse(ps);
	if ((err = read_value(ps, &v, 1)))
		return err;
	switch (k) {
	case K_PPS:
	case K_FTBL:
		snprintf(ti->bad, sizeof(ti->bad), "%s", describe(&v));
		return 0;
	case K_VERSION:
		/* The viewer compares with != 2, so the string "2" passes too. */
		if (v.t == JT_STR && strcmp(ps->sb, "2"))
			snprintf(ti->bad, sizeof(ti->bad), "\"%.40s\"", ps->sb);
		else if (v.t != JT_STR && !(v.u64_ok && v.u == 2))
			snprintf(ti->bad, sizeof(ti->bad), "%s", describe(&v));
		return 0;
	case K_BKLT:
	case K_BKACC:
		if (v.t != JT_BOOL)
			snprintf(ti->bad, sizeof(ti->bad), "%s", describe(&v));
		else
			*(k == K_BKLT ? &p->bklt : &p->bkacc) = v.b;
		return 0;
	case K_PID:
	case K_TE:
	case K_TG:
	case K_TUTH:
		if (!v.u64_ok) {
			snprintf(ti->bad, sizeof(ti->bad), "%s", describe(&v));
			return 0;
		}
		if (k == K_PID)
			p->pid = (int64_t)v.u;
		else
			*(k == K_TE ? &p->te : k == K_TG ? &p->tg : &p->tuth) = v.u;
		return 0;
	case K_MODE:
		return keep_str(ps, &v, ti, &p->mode);
	case K_VERB:
		return keep_str(ps, &v, ti, &p->verb);
	case K_TU:
		return keep_str(ps, &v, ti, &p->tu);
	case K_MTU:
		return keep_str(ps, &v, ti, &p->mtu);
	case K_BU:
		return keep_str(ps, &v, ti, &p->bu);
	case K_BSU:
		return keep_str(ps, &v, ti, &p->bsu);
	case K_BKSU:
		return keep_str(ps, &v, ti, &p->bksu);
	case K_CMD:
		return keep_str(ps, &v, ti, &p->cmd);
	}
	return 0;
}

/* text := [BOM] ws value ws EOF, the value being the DHAT object
 *	{ "dhatFileVersion": 2, "mode": ..., "pps": [...], "ftbl": [...], ... } */
static int parse_text(struct ps *ps)
{
	bool first = true, more;
	struct jv v;
	int c, k, err;

	/* FileReader drops a UTF-8 BOM before JSON.parse sees the text: do the same. */
	if (peekc(ps) == 0xef) {
		advance(ps);
		if (peekc(ps) != 0xbb)
			return syntax(ps, "a UTF-8 byte-order mark");
		advance(ps);
		if (peekc(ps) != 0xbf)
			return syntax(ps, "a UTF-8 byte-order mark");
		advance(ps);
		ps->s.at.col = 1;
	}
	c = skip_ws(ps);
	if (c < 0) {
		if (ps->io_err)
			return ps->io_err;
		fail_at(ps, NULL, "empty file, expected a DHAT JSON object");
		return -EINVAL;
	}
	ps->top_at = ps->s.at;
	if (c != '{') {
		if ((err = read_value(ps, &v, 0)))
			return err;
		ps->top_type = v.t;
	} else {
		ps->top_type = JT_OBJ;
		advance(ps);
		for (;;) {
			if ((err = next_item(ps, true, &first, &more)))
				return err;
			if (!more)
				break;
			k = top_key(ps->sb);
			if (k < 0 && !strcmp(ps->sb, LIVE_KEY)) {
				err = parse_live(ps);
			} else if (k < 0) {
				err = read_value(ps, &v, 1);
			} else if (ps->top[k].seen) {
				struct pos at = ps->s.at;

				defer(&ps->dup_key, 0, &at, false, "key \"%s\" given twice",
				      TOP_KEYS[k]);
				err = read_value(ps, &v, 1);
			} else {
				err = parse_member(ps, k);
			}
			if (err)
				return err;
		}
	}
	if (skip_ws(ps) >= 0) {
		struct pos at = ps->s.at;

		return fail_at(ps, &at,
			       "not valid JSON: unexpected data after the top-level "
			       "value");
	}
	return ps->io_err;
}

/* ---- content checks, in the viewer's order ----------------------------------------- */

/* PP k's deferred checks: required counters present, frame indices in range. */
static int check_pp(struct ps *ps, size_t k)
{
	const struct dhat_profile *p = ps->p;
	const struct dhat_pp *pp = &p->pps[k];
	const struct ppmeta *m = &ps->meta[k];
	int f = pp_missing(ps, m->have);

	if (f >= 0)
		return fail_at(ps, &m->at, "pps[%zu]: missing field \"%s\"", k, PP_KEYS[f]);
	const uint32_t *fs = dhat_profile__pp_fs(p, pp);

	for (size_t i = 0; i < pp->fs_cnt; i++)
		if (fs[i] >= p->ftbl_cnt)
			return fail_at(ps, &m->at,
				       "pps[%zu]: fs[%zu] = %u is out of range (ftbl has %zu "
				       "frames)",
				       k, i, fs[i], p->ftbl_cnt);
	return 0;
}

/* The file's totals, one PP more. A sum past 64 bits is refused, not wrapped: a crafted
 * "tb": 18446744073709551615 made a 283 KiB total under a 16 EiB site, and could steer
 * diff --fail-if. */
static int add_totals(struct ps *ps, size_t k)
{
	struct dhat_profile *p = ps->p;
	const struct dhat_pp *pp = &p->pps[k];
	const struct {
		uint64_t *sum, v;
		const char *key;
	} add[] = {
		{ &p->total_bytes, pp->tb, "tb" },   { &p->total_blocks, pp->tbk, "tbk" },
		{ &p->gmax_bytes, pp->gb, "gb" },    { &p->gmax_blocks, pp->gbk, "gbk" },
		{ &p->end_bytes, pp->eb, "eb" },     { &p->end_blocks, pp->ebk, "ebk" },
		{ &p->total_reads, dhat_profile__pp_rb(p, pp), "rb" },
		{ &p->total_writes, dhat_profile__pp_wb(p, pp), "wb" },
		{ &ps->tl_sum, pp->tl, "tl" },
	};

	for (size_t i = 0; i < sizeof(add) / sizeof(add[0]); i++)
		if (__builtin_add_overflow(*add[i].sum, add[i].v, add[i].sum))
			return fail_at(ps, &ps->meta[k].at,
				       "pps[%zu]: \"%s\": %llu takes the file's total past 64 bits",
				       k, add[i].key, (unsigned long long)add[i].v);
	return 0;
}

static int check_content(struct ps *ps)
{
	struct dhat_profile *p = ps->p;
	const struct tinfo *t = ps->top;

	if (ps->top_type != JT_OBJ)
		return fail_at(ps, &ps->top_at, "top level is %s, expected an object",
			       type_name(ps->top_type));
	if (ps->dup_key.set)
		return fail_at(ps, &ps->dup_key.at, "%s", ps->dup_key.msg);
	for (int k = 0; k < K_REQUIRED_CNT; k++)
		if (!t[k].seen)
			return fail_at(ps, &ps->top_at, "missing field \"%s\"", TOP_KEYS[k]);
	if (t[K_VERSION].bad[0])
		return fail_at(ps, &t[K_VERSION].at, "dhatFileVersion is %s, expected 2",
			       t[K_VERSION].bad);
	/* The remaining header keys, in the order Valgrind writes them. */
	static const enum tkey order[] = {K_MODE, K_VERB, K_BKLT, K_BKACC, K_TU, K_MTU, K_BU,
					  K_BSU,  K_BKSU, K_CMD,  K_PID,   K_TE, K_TG,	K_TUTH};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		enum tkey k = order[i];
		const char *want = k == K_BKLT || k == K_BKACC ? "true or false"
				   : k == K_PID || k == K_TE || k == K_TG || k == K_TUTH
				       ? "a non-negative integer"
				       : "a string";

		if ((k == K_TG || k == K_TUTH) && !p->bklt)
			continue;
		if ((k == K_TG || k == K_TUTH) && !t[k].seen)
			return fail_at(ps, &ps->top_at,
				       "missing field \"%s\" (required when "
				       "\"bklt\" is true)",
				       TOP_KEYS[k]);
		if (t[k].bad[0])
			return fail_at(ps, &t[k].at, "field \"%s\" is %s, expected %s", TOP_KEYS[k],
				       t[k].bad, want);
	}
	if (t[K_FTBL].bad[0])
		return fail_at(ps, &t[K_FTBL].at, "field \"ftbl\" is %s, expected an array",
			       t[K_FTBL].bad);
	if (ps->ftbl_err.set)
		return fail_at(ps, &ps->ftbl_err.at, "%s", ps->ftbl_err.msg);
	if (t[K_PPS].bad[0])
		return fail_at(ps, &t[K_PPS].at, "field \"pps\" is %s, expected an array",
			       t[K_PPS].bad);
	/* PPs before the first bad one may still lack a field or point outside ftbl. */
	for (size_t k = 0; k < p->pp_cnt; k++) {
		int err = check_pp(ps, k);

		if (err)
			return err;
		err = add_totals(ps, k);
		if (err)
			return err;
		if (k < p->est_cnt) {
			p->total_bytes_var += p->est[k].tb_se * p->est[k].tb_se;
			p->total_blocks_var += p->est[k].tbk_se * p->est[k].tbk_se;
		}
	}
	if (ps->pp_err.set)
		return fail_at(ps, &ps->pp_err.at, "%s", ps->pp_err.msg);
	if (p->live_cb && p->live_cb_end < p->end_bytes) { /* chunks smaller than the heap */
		free(p->live_cb);
		p->live_cb = NULL;
	}
	return 0;
}

/* ---- entry points ---------------------------------------------------------------------- */

void dhat_profile__free(struct dhat_profile *p)
{
	if (!p)
		return;
	dhat_mappings__release(&p->mappings);
	free(p->pps);
	free(p->acc);
	free(p->est);
	free(p->fs_pool);
	free(p->ftbl);
	free(p->str_pool);
	free(p->path);
	free(p->mode);
	free(p->verb);
	free(p->tu);
	free(p->mtu);
	free(p->bu);
	free(p->bsu);
	free(p->bksu);
	free(p->cmd);
	free(p->live_t);
	free(p->live_b);
	free(p->live_cb);
	free(p->rss_t);
	free(p->rss_b);
	free(p);
}

const char *dhat_profile__frame(const struct dhat_profile *p, uint32_t i)
{
	return i < p->ftbl_cnt ? p->ftbl[i] : "???";
}

/* Parse everything ps->s delivers into a new profile. */
static struct dhat_profile *parse(struct ps *ps)
{
	struct dhat_profile *p;
	int err;

	if (ps->err && ps->errsz)
		ps->err[0] = '\0';
	ps->s.at = (struct pos){1, 1};
	p = ps->p = calloc(1, sizeof(*p));
	if (!p || !(p->path = strdup(ps->name))) {
		err = -ENOMEM;
		fail_at(ps, NULL, "out of memory");
		goto cleanup;
	}
	err = parse_text(ps);
	/* The pools are the profile's from here on (freed with it); the growth slack of the
	 * arrays goes back below. */
	p->fs_pool = ps->fs_pool;
	p->str_pool = ps->str_pool;
	free(ps->dup);
	ps->dup = NULL;
	if (!err)
		err = check_content(ps);
	if (!err && p->ftbl_cnt < ps->ftbl_cap) {
		/* Give back the growth slack of the two big arrays. */
		char **nf = realloc(p->ftbl, (p->ftbl_cnt ? p->ftbl_cnt : 1) * sizeof(*nf));

		if (nf)
			p->ftbl = nf;
	}
	if (!err && p->pp_cnt < ps->pp_cap) {
		struct dhat_pp *np = realloc(p->pps, (p->pp_cnt ? p->pp_cnt : 1) * sizeof(*np));

		if (np)
			p->pps = np;
	}
	if (!err && p->est_cnt && p->est_cnt < ps->est_cap) { /* and of the sampled details */
		struct dhat_pp_est *ne = realloc(p->est, p->est_cnt * sizeof(*ne));

		if (ne)
			p->est = ne;
	}
	if (!err && ps->fs_used < ps->fs_cap) {
		uint32_t *nf = realloc(p->fs_pool, (ps->fs_used ? ps->fs_used : 1) * sizeof(*nf));

		if (nf)
			p->fs_pool = ps->fs_pool = nf;
	}
cleanup:
	free(ps->sb);
	free(ps->dup);
	free(ps->meta);
	if (err) {
		if (err == -ENOMEM && ps->err && ps->errsz && !ps->err[0])
			fail_at(ps, NULL, "out of memory");
		dhat_profile__free(p);
		errno = -err;
		return NULL;
	}
	return p;
}

struct dhat_profile *dhat_profile__parse(const char *text, size_t len, const char *name, char *err,
					 size_t errsz)
{
	struct ps ps = {.name = name ? name : "<input>", .err = err, .errsz = errsz};

	ps.s.buf = (const unsigned char *)text;
	ps.s.len = len;
	return parse(&ps);
}

struct dhat_profile *dhat_profile__load(const char *path, char *err, size_t errsz)
{
	struct ps ps = {.name = path, .err = err, .errsz = errsz};
	struct dhat_profile *p = NULL;
	struct stat st;
	int fd, ret = 0;

	if (err && errsz)
		err[0] = '\0';
	/* Never blocks on a FIFO; a directory or device is refused before any read. */
	fd = safe_open__read(AT_FDCWD, path, 0, SAFE_OPEN_ANY_SZ);
	if (fd < 0) {
		ret = fd;
		if (fd == -EINVAL && !stat(path, &st) && S_ISDIR(st.st_mode)) {
			ret = -EISDIR;
			fail_at(&ps, NULL, "cannot read: %s", strerror(EISDIR));
		} else {
			fail_at(&ps, NULL, "cannot open: %s", safe_open__strerror(fd));
		}
		goto cleanup;
	}
	/* gzread passes a plain file through unchanged, so one path serves both. */
	ps.s.gz = gzdopen(fd, "rb");
	ps.s.win = malloc(WIN_SZ);
	if (!ps.s.gz || !ps.s.win) {
		if (!ps.s.gz)
			close(fd);
		ret = -ENOMEM;
		fail_at(&ps, NULL, "cannot read: out of memory");
		goto cleanup;
	}
	gzbuffer(ps.s.gz, WIN_SZ);
	/* A gzip file's text is bounded by what its size can reasonably hold (profiles
	 * compress 4-30 times): a 1 MB bomb holding 1 GiB is refused, not read. */
	ps.s.read_max = DHAT_INFLATE_FLOOR;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size * DHAT_INFLATE_RATIO_MAX > ps.s.read_max)
		ps.s.read_max = (uint64_t)st.st_size * DHAT_INFLATE_RATIO_MAX;
	p = parse(&ps);
	if (!p)
		ret = -errno;
cleanup:
	if (ps.s.gz)
		gzclose(ps.s.gz);
	free(ps.s.win);
	if (ret)
		errno = -ret;
	return p;
}

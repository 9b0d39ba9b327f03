// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * json_reader - the streaming JSON tokenizer (see json_reader.h). Kept small and
 * allocation-free on the hot path: a value is converted as its bytes pass through the
 * window, strings into one growable buffer (jr->str), numbers into a fixed text buffer.
 */
#include "json_reader.h"
#include "grow.h"
#include "safe_open.h"
#include "safe_text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

/* ---- messages ----------------------------------------------------------------------- */

/* Write "NAME:L:C: " (or "NAME: " without a position) + message into the error buffer, on
 * one line and safe for a terminal whatever a file name or a string in the file contained
 * (control characters as \xHH: a file named "\e]0;X\a.json" must not retitle it). */
static void vfail(struct json_reader *jr, const struct json_pos *at, const char *fmt, va_list ap)
{
	char raw[2048];
	int n;

	if (!jr->err || !jr->errsz)
		return;
	if (at)
		n = snprintf(raw, sizeof(raw), "%s:%u:%u: ", jr->name, at->line, at->col);
	else
		n = snprintf(raw, sizeof(raw), "%s: ", jr->name);
	if (n < 0 || (size_t)n >= sizeof(raw))
		n = 0;
	vsnprintf(raw + n, sizeof(raw) - (size_t)n, fmt, ap);
	safe_text__copy_term(jr->err, jr->errsz, raw);
}

int json_reader__fail(struct json_reader *jr, const struct json_pos *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(jr, at, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int json_reader__nomem(struct json_reader *jr)
{
	struct json_pos at = jr->at;

	json_reader__fail(jr, &at, "out of memory");
	return -ENOMEM;
}

const char *json_reader__type_name(enum json_type t)
{
	static const char *const names[] = {"null",	"a boolean", "a number",
					    "a string", "an array",  "an object"};
	return names[t];
}

/* The value as a message shows it: numbers as written, other types by name. */
const char *json_reader__describe(const struct json_value *v)
{
	return v->t == JSON_NUM ? v->num : json_reader__type_name(v->t);
}

/* ---- input -------------------------------------------------------------------------- */

int json_reader__refill(struct json_reader *jr)
{
	int n, zerr;

	if (!jr->gz)
		return -1;
	errno = 0;
	n = gzread(jr->gz, jr->win, JSON_READER_WIN_SZ);
	if (n <= 0) {
		const char *msg = gzerror(jr->gz, &zerr), *tail;

		if (n == 0 && zerr == Z_OK)
			return -1;
		/* zlib names a gzdopen'ed stream "<fd:N>: ": our message names the file. */
		if (!strncmp(msg, "<fd:", 4) && (tail = strstr(msg, ">: ")))
			msg = tail + 3;
		if (zerr == Z_ERRNO) {
			jr->io_err = errno ? -errno : -EIO;
			json_reader__fail(jr, NULL, "cannot read: %s", strerror(-jr->io_err));
		} else {
			jr->io_err = -EINVAL;
			json_reader__fail(jr, NULL, "corrupt gzip data: %s", msg);
		}
		return -1;
	}
	jr->read += (uint64_t)n;
	if (jr->read > jr->read_max) {
		jr->io_err = -EINVAL;
		json_reader__fail(jr, NULL,
				  "decompresses to more than %llu bytes (%u times the file, or %u "
				  "MiB): not %s",
				  (unsigned long long)jr->read_max, jr->lim->inflate_ratio,
				  jr->lim->inflate_floor >> 20, jr->lim->not_a);
		return -1;
	}
	jr->buf = jr->win;
	jr->len = (size_t)n;
	jr->off = 0;
	return jr->buf[0];
}

int json_reader__syntax(struct json_reader *jr, const char *expected)
{
	struct json_pos at = jr->at;
	int c;

	if (jr->io_err)
		return jr->io_err;
	c = json_reader__peek(jr);
	if (jr->io_err)
		return jr->io_err;
	if (c < 0)
		return json_reader__fail(
		    jr, &at, "not valid JSON: expected %s, found the end of the file", expected);
	if (c >= 0x20 && c < 0x7f)
		return json_reader__fail(jr, &at, "not valid JSON: expected %s, found '%c'",
					 expected, c);
	return json_reader__fail(jr, &at, "not valid JSON: expected %s, found byte 0x%02x",
				 expected, c);
}

/* Consume ch after optional whitespace, or fail. */
static int expect(struct json_reader *jr, int ch, const char *expected)
{
	if (json_reader__skip_ws(jr) != ch)
		return json_reader__syntax(jr, expected);
	json_reader__advance(jr);
	return 0;
}

/* ---- scalars ------------------------------------------------------------------------ */

static int str_put(struct json_reader *jr, const char *data, size_t n)
{
	if (jr->str_len + n > jr->lim->str_max)
		return json_reader__fail(jr, &jr->at, "a string longer than %u bytes%s: not %s",
					 jr->lim->str_max, jr->lim->str_why, jr->lim->not_a);
	if (grow__array(&jr->str, &jr->str_cap, jr->str_len + n + 1, 1))
		return json_reader__nomem(jr);
	memcpy(jr->str + jr->str_len, data, n);
	jr->str_len += n;
	jr->str[jr->str_len] = '\0';
	return 0;
}

static int hex4(struct json_reader *jr, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		int c = json_reader__peek(jr);

		if (c >= '0' && c <= '9')
			v = v * 16 + (unsigned)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = v * 16 + (unsigned)((c | 0x20) - 'a' + 10);
		else
			return json_reader__syntax(jr, "4 hex digits after \\u");
		json_reader__advance(jr);
	}
	*out = v;
	return 0;
}

/* UTF-8 of code point cp; lone surrogates and U+0000 (which C strings cannot hold) become
 * U+FFFD. */
static int put_utf8(struct json_reader *jr, unsigned cp)
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
	return str_put(jr, u, n);
}

/* string := '"' { char | '\' escape } '"'  -- decoded into jr->str. Raw bytes >= 0x20 are
 * copied as they are (JSON.parse would see the same text after FileReader's decoding). */
static int read_string(struct json_reader *jr)
{
	static const char ESC_IN[] = "\"\\/bfnrt", ESC_OUT[] = "\"\\/\b\f\n\r\t";
	int c, err;

	jr->str_len = 0;
	if ((err = str_put(jr, "", 0)))
		return err;
	if (json_reader__peek(jr) != '"')
		return json_reader__syntax(jr, "a string");
	json_reader__advance(jr);
	for (;;) {
		/* Fast path: a run of plain bytes inside the window. */
		size_t start = jr->off, end = start;

		while (end < jr->len && jr->buf[end] != '"' && jr->buf[end] != '\\' &&
		       jr->buf[end] >= 0x20)
			end++;
		if (end > start) {
			if ((err = str_put(jr, (const char *)jr->buf + start, end - start)))
				return err;
			jr->off = end;
			jr->at.col = jr->at.col + (end - start) > UINT32_MAX
					 ? UINT32_MAX
					 : (uint32_t)(jr->at.col + (end - start));
		}
		c = json_reader__peek(jr);
		if (c == '"') {
			json_reader__advance(jr);
			return 0;
		}
		if (c < 0x20) /* also the end of the text */
			return json_reader__syntax(jr, "'\"' to close the string");
		if (c != '\\')
			continue; /* the window was refilled */
		json_reader__advance(jr);
		c = json_reader__peek(jr);
		const char *e = c > 0 ? strchr(ESC_IN, c) : NULL;

		if (e) {
			json_reader__advance(jr);
			if ((err = str_put(jr, &ESC_OUT[e - ESC_IN], 1)))
				return err;
		} else if (c == 'u') {
			unsigned cp = 0, lo = 0; /* set by hex4 on success (gcc -O3 cannot tell) */

			json_reader__advance(jr);
			if ((err = hex4(jr, &cp)))
				return err;
			/* A high surrogate followed by \u+low surrogate is one code point. */
			if (cp >= 0xd800 && cp <= 0xdbff && json_reader__peek(jr) == '\\') {
				json_reader__advance(jr);
				if (json_reader__peek(jr) != 'u')
					return json_reader__syntax(jr, "'u' after '\\'");
				json_reader__advance(jr);
				if ((err = hex4(jr, &lo)))
					return err;
				if (lo >= 0xdc00 && lo <= 0xdfff) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				} else if ((err = put_utf8(jr, cp))) {
					return err;
				} else {
					cp = lo;
				}
			}
			if ((err = put_utf8(jr, cp)))
				return err;
		} else {
			return json_reader__syntax(
			    jr, "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
		}
	}
}

/* Append c to the number text (keeping room for "..."), noting an overflow. */
static void num_put(char *txt, size_t *n, bool *overlong, int c)
{
	if (*n < JSON_READER_NUM_TXT - 4)
		txt[(*n)++] = (char)c;
	else
		*overlong = true;
}

/* Consume a run of digits; returns how many. */
static size_t digits(struct json_reader *jr, char *txt, size_t *n, bool *overlong)
{
	size_t cnt = 0;
	int c;

	while ((c = json_reader__peek(jr)) >= '0' && c <= '9') {
		num_put(txt, n, overlong, c);
		json_reader__advance(jr);
		cnt++;
	}
	return cnt;
}

/* number := ['-'] ('0' | [1-9][0-9]*) ['.' [0-9]+] [('e'|'E') ['+'|'-'] [0-9]+] */
static int read_number(struct json_reader *jr, struct json_value *v)
{
	bool overlong = false, plain = true;
	size_t n = 0;
	int c = json_reader__peek(jr);

	v->t = JSON_NUM;
	if (c == '-') {
		num_put(v->num, &n, &overlong, c);
		json_reader__advance(jr);
		plain = false;
	}
	c = json_reader__peek(jr);
	if (c == '0') {
		num_put(v->num, &n, &overlong, c);
		json_reader__advance(jr);
	} else if (!digits(jr, v->num, &n, &overlong)) {
		return json_reader__syntax(jr, "a digit");
	}
	if (json_reader__peek(jr) == '.') {
		num_put(v->num, &n, &overlong, '.');
		json_reader__advance(jr);
		plain = false;
		if (!digits(jr, v->num, &n, &overlong))
			return json_reader__syntax(jr, "a digit after '.'");
	}
	c = json_reader__peek(jr);
	if (c == 'e' || c == 'E') {
		num_put(v->num, &n, &overlong, c);
		json_reader__advance(jr);
		plain = false;
		c = json_reader__peek(jr);
		if (c == '+' || c == '-') {
			num_put(v->num, &n, &overlong, c);
			json_reader__advance(jr);
		}
		if (!digits(jr, v->num, &n, &overlong))
			return json_reader__syntax(jr, "a digit in the exponent");
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

static int read_literal(struct json_reader *jr, const char *word)
{
	for (const char *w = word; *w; w++) {
		if (json_reader__peek(jr) != *w)
			return json_reader__syntax(jr, word[0] == 't'	? "'true'"
						       : word[0] == 'f' ? "'false'"
									: "'null'");
		json_reader__advance(jr);
	}
	return 0;
}

static int skip_composite(struct json_reader *jr, int depth);

int json_reader__value(struct json_reader *jr, struct json_value *v, int depth)
{
	int c = json_reader__skip_ws(jr);

	/* Every field defined whatever the type (fuzzing found a stale u64_ok). */
	v->at = jr->at;
	v->b = v->u64_ok = false;
	v->u = 0;
	v->d = 0;
	v->num[0] = '\0';
	switch (c) {
	case '{':
		v->t = JSON_OBJ;
		return skip_composite(jr, depth);
	case '[':
		v->t = JSON_ARR;
		return skip_composite(jr, depth);
	case '"':
		v->t = JSON_STR;
		return read_string(jr);
	case 't':
		v->t = JSON_BOOL;
		v->b = true;
		return read_literal(jr, "true");
	case 'f':
		v->t = JSON_BOOL;
		v->b = false;
		return read_literal(jr, "false");
	case 'n':
		v->t = JSON_NULL;
		return read_literal(jr, "null");
	default:
		if (c == '-' || (c >= '0' && c <= '9'))
			return read_number(jr, v);
		return json_reader__syntax(jr, "a value");
	}
}

int json_reader__next(struct json_reader *jr, bool obj, bool *first, bool *more)
{
	int c = json_reader__skip_ws(jr), err;

	if (*first) {
		*first = false;
		if (c == (obj ? '}' : ']')) {
			json_reader__advance(jr);
			*more = false;
			return 0;
		}
	} else if (c == (obj ? '}' : ']')) {
		json_reader__advance(jr);
		*more = false;
		return 0;
	} else if (c == ',') {
		json_reader__advance(jr);
		c = json_reader__skip_ws(jr);
	} else {
		return json_reader__syntax(jr, obj ? "',' or '}'" : "',' or ']'");
	}
	*more = true;
	if (!obj)
		return 0;
	if (c != '"')
		return json_reader__syntax(jr, "a key string");
	if ((err = read_string(jr)))
		return err;
	return expect(jr, ':', "':' after the key");
}

/* Skip the object or array starting at the current '{' / '[', checking its syntax. */
static int skip_composite(struct json_reader *jr, int depth)
{
	bool obj = json_reader__peek(jr) == '{', first = true, more;
	struct json_value v;
	int err;

	if (depth >= JSON_READER_MAX_DEPTH) {
		struct json_pos at = jr->at;

		return json_reader__fail(jr, &at, "not valid JSON: nested deeper than %d levels",
					 JSON_READER_MAX_DEPTH);
	}
	json_reader__advance(jr);
	for (;;) {
		if ((err = json_reader__next(jr, obj, &first, &more)))
			return err;
		if (!more)
			return 0;
		if ((err = json_reader__value(jr, &v, depth + 1)))
			return err;
	}
}

int json_reader__bom(struct json_reader *jr)
{
	if (json_reader__peek(jr) != 0xef)
		return 0;
	json_reader__advance(jr);
	if (json_reader__peek(jr) != 0xbb)
		return json_reader__syntax(jr, "a UTF-8 byte-order mark");
	json_reader__advance(jr);
	if (json_reader__peek(jr) != 0xbf)
		return json_reader__syntax(jr, "a UTF-8 byte-order mark");
	json_reader__advance(jr);
	jr->at.col = 1;
	return 0;
}

int json_reader__end(struct json_reader *jr)
{
	if (json_reader__skip_ws(jr) >= 0) {
		struct json_pos at = jr->at;

		return json_reader__fail(jr, &at,
					 "not valid JSON: unexpected data after the top-level "
					 "value");
	}
	return jr->io_err;
}

/* ---- set-up ------------------------------------------------------------------------- */

/* The fields common to both inputs; the message buffer emptied. */
static void init(struct json_reader *jr, const char *name, char *err, size_t errsz,
		 const struct json_reader_limits *lim)
{
	memset(jr, 0, sizeof(*jr));
	jr->name = name;
	jr->err = err;
	jr->errsz = errsz;
	jr->lim = lim;
	jr->at = (struct json_pos){1, 1};
	if (err && errsz)
		err[0] = '\0';
}

void json_reader__init_buf(struct json_reader *jr, const char *text, size_t len, const char *name,
			   char *err, size_t errsz, const struct json_reader_limits *lim)
{
	init(jr, name, err, errsz, lim);
	jr->buf = (const unsigned char *)text;
	jr->len = len;
}

int json_reader__open(struct json_reader *jr, const char *path, char *err, size_t errsz,
		      const struct json_reader_limits *lim)
{
	struct stat st;
	int fd;

	init(jr, path, err, errsz, lim);
	/* Never blocks on a FIFO; a directory or device is refused before any read. */
	fd = safe_open__read(AT_FDCWD, path, 0, SAFE_OPEN_ANY_SZ);
	if (fd < 0) {
		if (fd == -EINVAL && !stat(path, &st) && S_ISDIR(st.st_mode)) {
			json_reader__fail(jr, NULL, "cannot read: %s", strerror(EISDIR));
			return -EISDIR;
		}
		json_reader__fail(jr, NULL, "cannot open: %s", safe_open__strerror(fd));
		return fd;
	}
	/* gzread passes a plain file through unchanged, so one path serves both. */
	jr->gz = gzdopen(fd, "rb");
	jr->win = malloc(JSON_READER_WIN_SZ);
	if (!jr->gz || !jr->win) {
		if (!jr->gz)
			close(fd);
		json_reader__fail(jr, NULL, "cannot read: out of memory");
		return -ENOMEM;
	}
	gzbuffer(jr->gz, JSON_READER_WIN_SZ);
	/* A gzip file's text is bounded by what its size can reasonably hold: a 1 MB bomb
	 * holding 1 GiB is refused, not read. */
	jr->read_max = lim->inflate_floor;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size * lim->inflate_ratio > jr->read_max)
		jr->read_max = (uint64_t)st.st_size * lim->inflate_ratio;
	return 0;
}

void json_reader__release(struct json_reader *jr)
{
	if (jr->gz)
		gzclose(jr->gz);
	free(jr->win);
	free(jr->str);
	init(jr, jr->name, NULL, 0, jr->lim); /* empty: releasing again is harmless */
}

int json_reader__next_element(struct json_reader *jr, bool *first, bool *more,
			      struct json_value *v, int depth)
{
	int err = json_reader__next(jr, false, first, more);

	return err || !*more ? err : json_reader__value(jr, v, depth);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "json_writer.h"
#include "grow.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "safe_text.h"

struct json_level {
	bool is_obj;
	size_t cnt; /* members or items written so far */
};

struct json_writer {
	FILE *f;      /* NULL: into buf */
	char *buf;    /* NUL-terminated */
	size_t len, cap;
	bool pretty;
	int err;      /* sticky */
	size_t depth; /* open containers */
	struct json_level lvl[JSON_WRITER_MAX_DEPTH];
};

struct json_writer *json_writer__new(FILE *f, unsigned flags)
{
	struct json_writer *jw = calloc(1, sizeof(*jw));

	if (!jw)
		return NULL;
	jw->f = f;
	jw->pretty = flags & JSON_WRITER_PRETTY;
	return jw;
}

void json_writer__free(struct json_writer *jw)
{
	if (!jw)
		return;
	free(jw->buf);
	free(jw);
}

static void put(struct json_writer *jw, const char *s, size_t n)
{
	if (jw->err)
		return;
	if (jw->f) {
		if (fwrite(s, 1, n, jw->f) != n)
			jw->err = -EIO;
		return;
	}
	if (grow__array(&jw->buf, &jw->cap, jw->len + n + 1, 1)) {
		jw->err = -ENOMEM;
		return;
	}
	memcpy(jw->buf + jw->len, s, n);
	jw->len += n;
	jw->buf[jw->len] = '\0';
}

static void puts_(struct json_writer *jw, const char *s)
{
	put(jw, s, strlen(s));
}

static void tabs(struct json_writer *jw, size_t n)
{
	while (n--)
		put(jw, "\t", 1);
}

/* s as JSON string content: quotes, backslash and control characters escaped,
 * each byte that is not UTF-8 written as \ufffd, as dhat_writer.c writes them. */
static void put_escaped(struct json_writer *jw, const char *s)
{
	const char *run = s;
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = *p >= 0x80 ? safe_text__utf8_len(p) : 1;
		char esc[8];

		if (n && *p >= 0x20 && *p != '"' && *p != '\\') {
			p += n;
			continue;
		}
		put(jw, run, (size_t)((const char *)p - run));
		run = (const char *)p + 1;
		switch (n ? *p : 0x80) {
		case '"':
			puts_(jw, "\\\"");
			break;
		case '\\':
			puts_(jw, "\\\\");
			break;
		case '\b':
			puts_(jw, "\\b");
			break;
		case '\f':
			puts_(jw, "\\f");
			break;
		case '\n':
			puts_(jw, "\\n");
			break;
		case '\r':
			puts_(jw, "\\r");
			break;
		case '\t':
			puts_(jw, "\\t");
			break;
		case 0x80: /* not UTF-8: U+FFFD */
			puts_(jw, "\\ufffd");
			break;
		default:
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			puts_(jw, esc);
		}
		p++;
	}
	puts_(jw, run);
}

static void put_string(struct json_writer *jw, const char *s)
{
	put(jw, "\"", 1);
	put_escaped(jw, s);
	put(jw, "\"", 1);
}

/* Whatever goes before a value: the separator, and its key inside an object. */
static void value_start(struct json_writer *jw, const char *key)
{
	struct json_level *l;

	if (jw->err)
		return;
	if (!jw->depth) {
		if (key)
			jw->err = -EINVAL;
		return;
	}
	l = &jw->lvl[jw->depth - 1];
	if (l->is_obj != !!key) {
		jw->err = -EINVAL; /* a member without a key, or an item with one */
		return;
	}
	if (l->is_obj) {
		if (l->cnt)
			puts_(jw, jw->pretty ? ",\n" : ",");
		tabs(jw, jw->pretty ? jw->depth : 0);
		put_string(jw, key);
		puts_(jw, jw->pretty ? ":\t" : ":");
	} else if (l->cnt) {
		puts_(jw, jw->pretty ? ", " : ",");
	}
	l->cnt++;
}

static void begin(struct json_writer *jw, const char *key, bool is_obj)
{
	value_start(jw, key);
	if (jw->err)
		return;
	if (jw->depth == JSON_WRITER_MAX_DEPTH) {
		jw->err = -EINVAL;
		return;
	}
	jw->lvl[jw->depth++] = (struct json_level){ .is_obj = is_obj };
	puts_(jw, is_obj ? (jw->pretty ? "{\n" : "{") : "[");
}

static void end(struct json_writer *jw, bool is_obj)
{
	if (jw->err)
		return;
	if (!jw->depth || jw->lvl[jw->depth - 1].is_obj != is_obj) {
		jw->err = -EINVAL;
		return;
	}
	if (is_obj && jw->pretty) {
		if (jw->lvl[jw->depth - 1].cnt)
			put(jw, "\n", 1);
		tabs(jw, jw->depth - 1);
	}
	jw->depth--;
	put(jw, is_obj ? "}" : "]", 1);
}

void json_writer__begin_object(struct json_writer *jw, const char *key)
{
	begin(jw, key, true);
}

void json_writer__end_object(struct json_writer *jw)
{
	end(jw, true);
}

void json_writer__begin_array(struct json_writer *jw, const char *key)
{
	begin(jw, key, false);
}

void json_writer__end_array(struct json_writer *jw)
{
	end(jw, false);
}

void json_writer__raw(struct json_writer *jw, const char *key, const char *text)
{
	value_start(jw, key);
	puts_(jw, text);
}

void json_writer__string(struct json_writer *jw, const char *key, const char *s)
{
	if (!s) {
		json_writer__null(jw, key);
		return;
	}
	value_start(jw, key);
	put_string(jw, s);
}

void json_writer__uint(struct json_writer *jw, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	json_writer__raw(jw, key, buf);
}

void json_writer__int(struct json_writer *jw, const char *key, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	json_writer__raw(jw, key, buf);
}

void json_writer__double(struct json_writer *jw, const char *key, double v)
{
	char buf[32];

	if (!isfinite(v)) {
		json_writer__null(jw, key); /* JSON has no NaN or Infinity */
		return;
	}
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	json_writer__raw(jw, key, buf);
}

void json_writer__bool(struct json_writer *jw, const char *key, bool v)
{
	json_writer__raw(jw, key, v ? "true" : "false");
}

void json_writer__null(struct json_writer *jw, const char *key)
{
	json_writer__raw(jw, key, "null");
}

int json_writer__error(const struct json_writer *jw)
{
	if (jw->err)
		return jw->err;
	return jw->depth ? -EINVAL : 0;
}

const char *json_writer__buf(const struct json_writer *jw, size_t *len)
{
	if (jw->f)
		return NULL;
	if (len)
		*len = jw->len;
	return jw->buf ? jw->buf : "";
}

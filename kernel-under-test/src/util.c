/* SPDX-License-Identifier: MIT */
/*
 * util.c - string builder, string vector and the small JSON text helpers.
 *
 * Every buffer is plain malloc/realloc: the tracer must see the real per-string traffic.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void sb_init(struct sbuf *b)
{
	b->s = NULL;
	b->len = b->cap = 0;
	b->oom = false;
}

/* Grow geometrically so appends are amortized O(1). */
static bool sb_reserve(struct sbuf *b, size_t extra)
{
	if (b->oom)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 32;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (!s) {
		b->oom = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

void sb_add(struct sbuf *b, const char *p, size_t n)
{
	if (!sb_reserve(b, n))
		return;
	if (n)
		memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sb_adds(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void sb_addc(struct sbuf *b, char c)
{
	sb_add(b, &c, 1);
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !sb_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *sb_str(const struct sbuf *b)
{
	return b->s ? b->s : "";
}

char *sb_detach(struct sbuf *b)
{
	char *s = b->s;
	if (!s)
		s = calloc(1, 1);
	sb_init(b);
	return s;
}

void sb_free(struct sbuf *b)
{
	free(b->s);
	sb_init(b);
}

void strv_init(struct strv *sv)
{
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

int strv_push(struct strv *sv, char *s)
{
	if (!s)
		return -1;
	if (sv->n + 2 > sv->cap) {
		int cap = sv->cap ? sv->cap * 2 : 8;
		char **v = realloc(sv->v, (size_t)cap * sizeof(*v));
		if (!v) {
			free(s);
			return -1;
		}
		sv->v = v;
		sv->cap = cap;
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
	return 0;
}

int strv_pushdup(struct strv *sv, const char *s)
{
	return strv_push(sv, strdup(s));
}

int strv_split_lines(struct strv *sv, const char *buf, size_t len)
{
	size_t start = 0;
	while (start < len) {
		const char *nl = memchr(buf + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - buf) : len;
		if (strv_push(sv, kstrndup(buf + start, end - start)) < 0)
			return -1;
		start = end + 1;
	}
	return 0;
}

void strv_free(struct strv *sv)
{
	for (int i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	strv_init(sv);
}

char *kstrndup(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

bool is_name(const char *s, size_t n)
{
	if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

void json_add_string(struct sbuf *b, const char *s, size_t n)
{
	sb_addc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': sb_adds(b, "\\\""); break;
		case '\\': sb_adds(b, "\\\\"); break;
		case '\n': sb_adds(b, "\\n"); break;
		case '\r': sb_adds(b, "\\r"); break;
		case '\t': sb_adds(b, "\\t"); break;
		case '\b': sb_adds(b, "\\b"); break;
		case '\f': sb_adds(b, "\\f"); break;
		default:
			if (c < 0x20)
				sb_printf(b, "\\u%04x", c);
			else
				sb_addc(b, (char)c);
		}
	}
	sb_addc(b, '"');
}

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* Skip one JSON value; returns the char after it, or NULL if malformed. */
static const char *json_skip(const char *p, int depth)
{
	if (depth > 256)
		return NULL;
	p = json_ws(p);
	if (*p == '"') {
		for (p++; *p && *p != '"'; p++)
			if (*p == '\\' && p[1])
				p++;
		return *p == '"' ? p + 1 : NULL;
	}
	if (*p == '[' || *p == '{') {
		char close = *p == '[' ? ']' : '}';
		p = json_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			p = json_skip(p, depth + 1);
			if (!p)
				return NULL;
			p = json_ws(p);
			if (close == '}' && *p == ':') {
				p = json_skip(p + 1, depth + 1);
				if (!p)
					return NULL;
				p = json_ws(p);
			}
			if (*p == ',') {
				p++;
				continue;
			}
			return *p == close ? p + 1 : NULL;
		}
	}
	const char *start = p;
	while (*p && !strchr(",]}: \t\r\n", *p))
		p++;
	return p > start ? p : NULL;
}

char *json_member(const char *json, const char *key)
{
	const char *p = json_ws(json);
	char *k = NULL;
	bool obj = *p == '{';
	long idx = 0;
	if (*p != '[' && !obj)
		return NULL;
	if (!obj) { /* an array takes a decimal index */
		char *end;
		idx = strtol(key, &end, 10);
		if (!*key || *end || idx < 0)
			return NULL;
	}
	p = json_ws(p + 1);
	for (long i = 0; *p && *p != ']' && *p != '}'; i++) {
		const char *e;
		bool hit = !obj && i == idx;
		if (obj) { /* "key": value */
			if (!(e = json_skip(p, 0)))
				return NULL;
			k = json_string_value(p);
			hit = k && !strcmp(k, key);
			free(k);
			p = json_ws(e);
			if (*p != ':')
				return NULL;
			p = json_ws(p + 1);
		}
		if (!(e = json_skip(p, 0)))
			return NULL;
		if (hit)
			return kstrndup(p, (size_t)(e - p));
		p = json_ws(e);
		if (*p == ',')
			p = json_ws(p + 1);
	}
	return NULL;
}

int json_array_split(const char *json, struct strv *out)
{
	const char *p = json_ws(json);
	if (*p != '[')
		return -1;
	p = json_ws(p + 1);
	if (*p == ']')
		return 0;
	for (;;) {
		const char *e = json_skip(p, 0);
		if (!e)
			return -1;
		if (strv_push(out, kstrndup(p, (size_t)(e - p))) < 0)
			return -1;
		p = json_ws(e);
		if (*p == ',') {
			p = json_ws(p + 1);
			continue;
		}
		return *p == ']' ? 0 : -1;
	}
}

char *json_string_value(const char *json)
{
	const char *p = json_ws(json);
	if (*p != '"')
		return NULL;
	struct sbuf b;
	sb_init(&b);
	for (p++; *p && *p != '"'; p++) {
		if (*p != '\\') {
			sb_addc(&b, *p);
			continue;
		}
		p++;
		switch (*p) {
		case 'n': sb_addc(&b, '\n'); break;
		case 't': sb_addc(&b, '\t'); break;
		case 'r': sb_addc(&b, '\r'); break;
		case 'b': sb_addc(&b, '\b'); break;
		case 'f': sb_addc(&b, '\f'); break;
		case 'u': {
			unsigned v = 0;
			if (sscanf(p + 1, "%4x", &v) == 1)
				p += 4;
			/* BMP code point to UTF-8; surrogate pairs are kept as-is. */
			if (v < 0x80) {
				sb_addc(&b, (char)v);
			} else if (v < 0x800) {
				sb_addc(&b, (char)(0xc0 | (v >> 6)));
				sb_addc(&b, (char)(0x80 | (v & 0x3f)));
			} else {
				sb_addc(&b, (char)(0xe0 | (v >> 12)));
				sb_addc(&b, (char)(0x80 | ((v >> 6) & 0x3f)));
				sb_addc(&b, (char)(0x80 | (v & 0x3f)));
			}
			break;
		}
		case '\0': p--; break;
		default: sb_addc(&b, *p);
		}
	}
	return sb_detach(&b);
}

char json_kind(const char *json)
{
	const char *p = json_ws(json);
	switch (*p) {
	case '[': return 'a';
	case '{': return 'o';
	case '"': return 's';
	case 't':
	case 'f': return 'b';
	case 'n': return 'z';
	default: return (*p == '-' || isdigit((unsigned char)*p)) ? 'n' : '?';
	}
}

/* Pretty-print compact JSON the way serde_json's to_string_pretty does: two-space indent,
 * "key": value, empty containers as [] / {}. Input is trusted (produced by the kernel). */
void json_pretty(struct sbuf *b, const char *json)
{
	int depth = 0;
	for (const char *p = json; *p; p++) {
		char c = *p;
		if (c == '"') {
			const char *s = p;
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			sb_add(b, s, (size_t)(p - s) + (*p ? 1 : 0));
			if (!*p)
				break;
		} else if (c == '[' || c == '{') {
			const char *q = json_ws(p + 1);
			if (*q == (c == '[' ? ']' : '}')) {
				sb_addc(b, c);
				sb_addc(b, *q);
				p = q;
				continue;
			}
			sb_addc(b, c);
			depth++;
			sb_printf(b, "\n%*s", depth * 2, "");
		} else if (c == ']' || c == '}') {
			depth--;
			sb_printf(b, "\n%*s%c", depth * 2, "", c);
		} else if (c == ',') {
			sb_printf(b, ",\n%*s", depth * 2, "");
		} else if (c == ':') {
			sb_adds(b, ": ");
		} else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
			sb_addc(b, c);
		}
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * util.h - the bottom layer every phase builds on: a string builder, a string vector and
 * the JSON text helpers (data sidebands travel as compact JSON text). Plain malloc/realloc,
 * so the tracer sees the real per-string traffic.
 */
#ifndef KAISH_UTIL_H
#define KAISH_UTIL_H

#include <stdbool.h>
#include <stddef.h>

/* A string builder. A failed allocation sets oom and turns later appends into no-ops. */
struct sbuf {
	char *s;    /* NUL-terminated when non-NULL */
	size_t len; /* bytes used, excluding the NUL */
	size_t cap; /* bytes allocated */
	bool oom;   /* an append failed */
};

void sb_init(struct sbuf *b);
void sb_add(struct sbuf *b, const char *p, size_t n);
void sb_adds(struct sbuf *b, const char *s);
void sb_addc(struct sbuf *b, char c);
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *sb_str(const struct sbuf *b); /* "" when empty */
/* Hand the bytes to the caller (malloc'd, never NULL unless out of memory); b is reset. */
char *sb_detach(struct sbuf *b);
void sb_free(struct sbuf *b);

/* A growable vector of owned strings. */
struct strv {
	char **v; /* v[n] is NULL when n < cap */
	int n;
	int cap;
};

void strv_init(struct strv *sv);
/* Take ownership of s (NULL s means out of memory: returns -1). Returns 0 or -1. */
int strv_push(struct strv *sv, char *s);
int strv_pushdup(struct strv *sv, const char *s);
/* Append each line of buf[0..len) without its '\n' (a last line needs no '\n'), as owned
 * copies. Returns 0, or -1 when out of memory (lines keeps what was pushed). */
int strv_split_lines(struct strv *sv, const char *buf, size_t len);
void strv_free(struct strv *sv);

char *kstrndup(const char *s, size_t n);
bool is_name(const char *s, size_t n); /* [A-Za-z_][A-Za-z0-9_]* */

void json_add_string(struct sbuf *b, const char *s, size_t n);
/* Split a top-level JSON array into its element texts. Returns 0, or -1 if not an array. */
int json_array_split(const char *json, struct strv *out);
/* The member text (malloc'd) of a JSON array (key: a decimal index) or object (key: a
 * field name), or NULL if json is neither or has no such member. */
char *json_member(const char *json, const char *key);
/* If json is a string literal, its decoded text (malloc'd), else NULL. */
char *json_string_value(const char *json);
/* 'a'rray, 'o'bject, 's'tring, 'n'umber, 'b'ool, 'z' null, or '?' */
char json_kind(const char *json);
/* Append json (compact) pretty-printed with two-space indentation, as serde_json. */
void json_pretty(struct sbuf *b, const char *json);

#endif /* KAISH_UTIL_H */

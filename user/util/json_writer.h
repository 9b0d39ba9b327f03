/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * json_writer - streaming JSON output, to a FILE or a growing buffer: values are written as
 * they come, so a report with 500k rows never exists as a tree. cJSON stays for reading.
 *
 * Every value function takes the member's key: a key inside an object, NULL inside an array
 * or at the top. Errors are sticky: after the first one (-ENOMEM, -EIO, or -EINVAL for a
 * misuse such as a missing key or an unbalanced end) every call does nothing, and
 * json_writer__error() reports it, so a caller checks once at the end.
 *
 *	struct json_writer *jw = json_writer__new(stdout, JSON_WRITER_PRETTY);
 *	json_writer__begin_object(jw, NULL);
 *	json_writer__string(jw, "file", path);
 *	json_writer__begin_array(jw, "rows");
 *	...
 *	json_writer__end_array(jw);
 *	json_writer__end_object(jw);
 *	err = json_writer__error(jw);
 *	json_writer__free(jw);
 */
#ifndef TRACER_JSON_WRITER_H
#define TRACER_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Layout of cJSON_Print, so that output moved off cJSON stays byte-identical: members one
 * a line, indented by a tab per level, as "key":<TAB>value; array items on one line,
 * separated by ", ". Without it: no whitespace at all.
 */
#define JSON_WRITER_PRETTY 0x1u

#define JSON_WRITER_MAX_DEPTH 64 /* nesting beyond this is -EINVAL */

struct json_writer;

/* A writer to f (borrowed; never flushed or closed here), or into a growing buffer when f
 * is NULL. NULL with errno ENOMEM. */
struct json_writer *json_writer__new(FILE *f, unsigned flags);

/* Accepts NULL. */
void json_writer__free(struct json_writer *jw);

void json_writer__begin_object(struct json_writer *jw, const char *key);
void json_writer__end_object(struct json_writer *jw);
void json_writer__begin_array(struct json_writer *jw, const char *key);
void json_writer__end_array(struct json_writer *jw);

/* s escaped as JSON: '"' and '\' backslashed, \b \f \n \r \t, other bytes below 0x20 as
 * \u00XX; every other byte (UTF-8 sequences included) as is. s NULL writes null. */
void json_writer__string(struct json_writer *jw, const char *key, const char *s);
void json_writer__uint(struct json_writer *jw, const char *key, uint64_t v);
void json_writer__int(struct json_writer *jw, const char *key, int64_t v);
/* The shortest of %.15g and %.17g that reads back as v; NaN and infinities as null. */
void json_writer__double(struct json_writer *jw, const char *key, double v);
void json_writer__bool(struct json_writer *jw, const char *key, bool v);
void json_writer__null(struct json_writer *jw, const char *key);
/* text, already valid JSON (a number formatted by the caller), written as is. */
void json_writer__raw(struct json_writer *jw, const char *key, const char *text);

/* 0, or the first error; -EINVAL too if a container is still open. */
int json_writer__error(const struct json_writer *jw);

/* The buffer of a writer made with f NULL: NUL-terminated, *len (if not NULL) its length,
 * valid until the next call on jw. NULL for a FILE writer. */
const char *json_writer__buf(const struct json_writer *jw, size_t *len);

#endif

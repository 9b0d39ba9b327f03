/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * json_reader - a streaming JSON tokenizer (RFC 8259) for readers that convert each value
 * straight into their own structs: no tree, no whole text in memory. The text passes once
 * through a window (zlib's gzread for a file, plain or gzip; the caller's buffer for
 * json_reader__init_buf). The caller walks the grammar itself:
 *
 *	value  := object | array | string | number | "true" | "false" | "null"
 *	object := '{' [ string ':' value { ',' string ':' value } ] '}'
 *	array  := '[' [ value { ',' value } ] ']'
 *	text   := [BOM] ws value ws EOF
 *
 * with json_reader__next stepping through the items of an object or array it entered, and
 * json_reader__value reading a scalar (or skipping, syntax-checked, what it does not
 * want). A syntax error stops the read; the message, one terminal-safe line, is
 * "NAME:LINE:COL: not valid JSON: expected X, found Y" (byte columns, counted after a
 * UTF-8 BOM) or "NAME: problem" when there is no position (an unreadable file).
 *
 * Input bounds (a crafted file must not take unbounded memory): strings of at most
 * str_max bytes, and a file yields at most max(inflate_floor, inflate_ratio x its size)
 * bytes of text (a gzip bomb is refused, not read).
 */
#ifndef TRACER_JSON_READER_H
#define TRACER_JSON_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_READER_WIN_SZ    (256 * 1024) /* read window for files */
#define JSON_READER_MAX_DEPTH 256	   /* nesting bound */
#define JSON_READER_NUM_TXT   40	   /* number text kept for messages */

/* A position in the text, 1-based. Saturates rather than wraps. */
struct json_pos {
	uint32_t line, col;
};

/* Value types, for messages. */
enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

/* One scalar value as read (composite values are skipped and only typed). */
struct json_value {
	enum json_type t;
	struct json_pos at;	       /* where it starts */
	bool b;			       /* JSON_BOOL */
	bool u64_ok;		       /* JSON_NUM: a non-negative integer below 2^64 */
	uint64_t u;		       /* its value */
	double d;		       /* JSON_NUM as a double */
	char num[JSON_READER_NUM_TXT]; /* JSON_NUM as written (truncated with "...") */
};				       /* JSON_STR: the decoded text is in jr->str */

/* What the caller accepts, and how its refusals are worded. */
struct json_reader_limits {
	uint32_t str_max;	/* longest string, in bytes */
	const char *str_why;	/* appended to the refusal of a longer one, e.g. " (no...)" */
	uint32_t inflate_ratio; /* a file's text: at most max(floor, ratio x its size) */
	uint32_t inflate_floor; /* bytes */
	const char *not_a;	/* the refusals end ": not <not_a>", e.g. "a profile" */
};

struct gzFile_s;

struct json_reader {
	const char *name; /* the text's name, for messages */
	char *err;	  /* the message buffer (may be NULL) */
	size_t errsz;
	const struct json_reader_limits *lim;
	/* the input: a window over the text plus where it is */
	struct gzFile_s *gz;	  /* NULL: buf is the whole text */
	const unsigned char *buf; /* current window */
	size_t len, off;	  /* window length, read offset */
	unsigned char *win;	  /* owned window storage (gz) */
	struct json_pos at;	  /* position of buf[off] */
	uint64_t read, read_max;  /* gz: bytes of text so far, and the most it may give */
	int io_err;		  /* refill failure (message already written) */
	/* the last string read (a value or a key), decoded, NUL-terminated */
	char *str;
	size_t str_len, str_cap;
};

/* Read text[0..len) (borrowed until the reader is released) under lim (borrowed), with
 * messages naming name into err[0..errsz), which is emptied. */
void json_reader__init_buf(struct json_reader *jr, const char *text, size_t len, const char *name,
			   char *err, size_t errsz, const struct json_reader_limits *lim);

/*
 * Read the file at path, plain or gzip-compressed, the same way. Never blocks on a FIFO; a
 * directory or device is refused. Returns 0, or -errno with the message written ("cannot
 * open: ...", "cannot read: ..."); release the reader either way.
 */
int json_reader__open(struct json_reader *jr, const char *path, char *err, size_t errsz,
		      const struct json_reader_limits *lim);

/* Close the file and free the buffers (not jr), leaving an empty reader: may be called
 * again. */
void json_reader__release(struct json_reader *jr);

/* Make the window non-empty; returns the next byte or -1 at the end (or on a read error,
 * with jr->io_err set). For json_reader__peek. */
int json_reader__refill(struct json_reader *jr);

/* The next byte, not consumed, or -1 at the end of the text. */
static inline int json_reader__peek(struct json_reader *jr)
{
	return jr->off < jr->len ? jr->buf[jr->off] : json_reader__refill(jr);
}

/* Consume the byte json_reader__peek returned. */
static inline void json_reader__advance(struct json_reader *jr)
{
	if (jr->buf[jr->off++] == '\n') {
		if (jr->at.line < UINT32_MAX)
			jr->at.line++;
		jr->at.col = 1;
	} else if (jr->at.col < UINT32_MAX) {
		jr->at.col++;
	}
}

/* Skip whitespace; returns the next byte (not consumed) or -1. */
static inline int json_reader__skip_ws(struct json_reader *jr)
{
	int c;

	while ((c = json_reader__peek(jr)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		json_reader__advance(jr);
	return c;
}

/* Skip a UTF-8 byte-order mark if the text starts with one (FileReader drops it before
 * JSON.parse sees the text). 0 or a syntax error. */
int json_reader__bom(struct json_reader *jr);

/*
 * value: read a scalar into v (a string's text into jr->str); skip an array or object,
 * checking its syntax and typing it, depth being its nesting level (bounded by
 * JSON_READER_MAX_DEPTH). 0 or -errno with the message written.
 */
int json_reader__value(struct json_reader *jr, struct json_value *v, int depth);

/*
 * After '{' or '[' was seen (and consumed), *first set true: step to the next member or
 * element. Sets *more = false at the closing bracket (consumed). For objects, reads the
 * key into jr->str and the ':' after it. 0 or -errno with the message written.
 */
int json_reader__next(struct json_reader *jr, bool obj, bool *first, bool *more);

/* json_reader__next in an array, then its element read whole into v (json_reader__value at
 * depth); at the closing bracket *more is false and v untouched. 0 or -errno. */
int json_reader__next_element(struct json_reader *jr, bool *first, bool *more,
			      struct json_value *v, int depth);

/* At the end of the top-level value: 0 if only whitespace follows, else an error. */
int json_reader__end(struct json_reader *jr);

/* A syntax error at the current position, naming what was found there: "not valid JSON:
 * expected <expected>, found ...". Returns -EINVAL (or the read error). */
int json_reader__syntax(struct json_reader *jr, const char *expected);

/* Write "NAME:L:C: " (or "NAME: " when at is NULL) + the message into the error buffer.
 * Returns -EINVAL. */
__attribute__((format(printf, 3, 4))) int
json_reader__fail(struct json_reader *jr, const struct json_pos *at, const char *fmt, ...);

/* "NAME:L:C: out of memory" at the current position. Returns -ENOMEM. */
int json_reader__nomem(struct json_reader *jr);

/* A type as messages name it: "null", "a boolean", "a number", ... */
const char *json_reader__type_name(enum json_type t);

/* The value as a message shows it: numbers as written, other types by name. */
const char *json_reader__describe(const struct json_value *v);

#endif

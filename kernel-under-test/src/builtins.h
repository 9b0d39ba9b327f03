/* SPDX-License-Identifier: MIT */
/*
 * builtins.h - the builtin registry the executor and validator dispatch through, and the
 * helpers builtins share (bi_table.c, bi_test.c). The entry points are in bi_table.h.
 */
#ifndef KAISH_BUILTINS_H
#define KAISH_BUILTINS_H

#include <stdbool.h>
#include <stddef.h>

#include "kaish.h"

struct io;
struct sbuf;
struct strv;

struct bi_ctx {
	kaish_kernel *k;
	struct io *io;
	const char *name; /* argv[0] */
};

typedef int (*bi_fn)(struct bi_ctx *c, int argc, char **argv);
/* Static check of literal arguments (non-literal ones are NULL). 0 or -1 with *msg. */
typedef int (*bi_check_fn)(int argc, char **argv, char **msg);

struct builtin {
	const char *name;
	bi_fn fn;
	const char *usage;
	bi_check_fn check; /* optional validator hook */
};

const struct builtin *bi_lookup(const char *name);
/* Special forms handled by the executor itself (true, false, :, break, ...). */
bool bi_is_special(const char *name);

void bi_err(struct bi_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print usage to out when argv has --help. Returns true if handled. */
bool bi_help(struct bi_ctx *c, int argc, char **argv, const char *usage);
/* Read a named file (or "-" = stdin) for a text builtin. Returns 0, or an exit code after
 * writing "NAME: path: msg" to err. */
int bi_read_input(struct bi_ctx *c, const char *path, char **buf, size_t *len);
/* Stdin as a text buffer (never NULL). */
const char *bi_stdin(struct bi_ctx *c, size_t *len);
/* Parse argv[1..] as clusters of single-letter flags ("-rn") until "--": set[i] becomes true
 * for each letters[i] seen; other words are pushed to ops. On an unknown letter writes
 * "unknown option '-X'" to err and returns -1 (ops keeps what was pushed). */
int bi_flags(struct bi_ctx *c, int argc, char **argv, const char *letters, bool *set,
	     struct strv *ops);
/* Parse a non-negative integer option value. */
bool bi_parse_long(const char *s, long *v);

int bi_regex_compile(void *re /* regex_t* */, const char *pat, int flags, char **msg);
/* Convert GNU BRE spellings (\( \) \| \+ \? \{ \}) to ERE; other escapes (\. \\) are kept.
 * bi_bre_append appends to b and returns whether anything was rewritten; bi_bre_to_ere
 * returns a malloc'd copy and sets *rewrote (may be NULL). */
bool bi_bre_append(struct sbuf *b, const char *pat);
char *bi_bre_to_ere(const char *pat, bool *rewrote);
/* Replace the malloc'd compile error *msg with one that explains the BRE rewrite (the
 * pattern the engine saw is not the one written) and names the strict_flag (-E, -E/-r). */
void bi_dialect_hint(char **msg, const char *strict_flag);

/* The test / [ / [[ evaluator (bi_test.c); dbl for [[ ]]. */
int bi_test_eval(struct bi_ctx *c, char **argv, int argc, bool dbl);

#endif /* KAISH_BUILTINS_H */

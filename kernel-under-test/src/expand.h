/* SPDX-License-Identifier: MIT */
/* expand.h - word expansion: parsed words -> strings (variables, $( ), $(( )), globs). */
#ifndef KAISH_EXPAND_H
#define KAISH_EXPAND_H

#include "kaish.h"

struct io;
struct strv;
struct word;

enum expand_mode {
	EXP_ARG, /* one field per word; unquoted $@ gives one field per positional */
	EXP_FOR, /* for-loop items: $( ) text splits on newlines, typed arrays per element */
	EXP_STR, /* exactly one string */
};

/* Expand w into fields appended to out. Returns 0, or -1 if the command must fail (the
 * message is already in io->err). */
int expand_word(kaish_kernel *k, struct word *w, struct io *io, enum expand_mode mode,
		struct strv *out);
/* Expand to a single malloc'd string, or NULL on failure. */
char *expand_str(kaish_kernel *k, struct word *w, struct io *io);

#endif /* KAISH_EXPAND_H */

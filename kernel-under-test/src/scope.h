/* SPDX-License-Identifier: MIT */
/*
 * scope.h - variables: a stack of frames (the root scope, then one per function call)
 * and the positional parameters.
 */
#ifndef KAISH_SCOPE_H
#define KAISH_SCOPE_H

#include <stdbool.h>

#include "util.h" /* struct strv */

struct var {
	char *name;
	char *value;
	bool exported;
};

struct frame {
	struct var *vars;
	int n;
	int cap;
};

struct scope {
	struct frame **frames; /* frames[0] is the root scope */
	int nframes;
	int cap;
	struct strv pos; /* $1..$N */
	int func_frame;	 /* frame index of the innermost function call, -1 outside */
};

int scope_init(struct scope *s);
void scope_free(struct scope *s);
int scope_copy(struct scope *dst, const struct scope *src); /* deep copy (a fork snapshot) */
const char *scope_get(const struct scope *s, const char *name);
/* Set in the frame that already holds name, else in the root frame. */
int scope_set(struct scope *s, const char *name, const char *value);
int scope_set_in(struct scope *s, int frame, const char *name, const char *value);
int scope_export(struct scope *s, const char *name);
int scope_unset(struct scope *s, const char *name);
int scope_push(struct scope *s);
void scope_pop(struct scope *s);

#endif /* KAISH_SCOPE_H */

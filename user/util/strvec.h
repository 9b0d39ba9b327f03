/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A growable vector of owned C strings. */
#ifndef TRACER_STRVEC_H
#define TRACER_STRVEC_H

#include <stddef.h>

struct strvec {
	char **items; /* owned strings */
	size_t cnt;   /* used slots */
	size_t cap;   /* allocated slots */
};

/* Append a copy of s. Returns 0 or -ENOMEM. */
int strvec__push(struct strvec *v, const char *s);
/* Append a printf-formatted string. Returns 0 or -ENOMEM. */
int strvec__pushf(struct strvec *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Free every string but keep the storage, for reuse. */
void strvec__clear(struct strvec *v);
/* Free everything; v is left empty and reusable. Accepts an empty vector. */
void strvec__release(struct strvec *v);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * strpool - many small strings kept until the pool is freed, packed into large chunks: no
 * malloc per string, so a million short texts cost their bytes, not a malloc header and
 * rounding each (the report's row tails). Strings are never freed one by one, and their
 * pointers stay valid until strpool__free.
 */
#ifndef TRACER_STRPOOL_H
#define TRACER_STRPOOL_H

#include <stddef.h>

struct strpool;

/* An empty pool; NULL with errno ENOMEM. Free with strpool__free. */
struct strpool *strpool__new(void);

/* Accepts NULL. Frees every string of the pool. */
void strpool__free(struct strpool *sp);

/* A copy of s[0..len) with a NUL after it, owned by sp; NULL on ENOMEM. */
char *strpool__add(struct strpool *sp, const char *s, size_t len);

/* The printf of fmt, owned by sp; NULL on ENOMEM (or an encoding error). */
char *strpool__printf(struct strpool *sp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif

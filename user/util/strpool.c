// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "strpool.h"
#include "grow.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Big enough that the chunk list stays short, small enough that the last chunk's unused
 * end does not matter. */
#define CHUNK_SZ (256u * 1024)

struct strpool {
	char **chunks; /* owned, each CHUNK_SZ bytes or one string larger than that */
	size_t cnt, cap;
	char *at;    /* free space in the last chunk */
	size_t left; /* bytes of it */
};

struct strpool *strpool__new(void)
{
	return calloc(1, sizeof(struct strpool));
}

void strpool__free(struct strpool *sp)
{
	if (!sp)
		return;
	for (size_t i = 0; i < sp->cnt; i++)
		free(sp->chunks[i]);
	free(sp->chunks);
	free(sp);
}

/* Room for n bytes at sp->at, in a new chunk if the last one lacks it. */
static int reserve(struct strpool *sp, size_t n)
{
	size_t sz = n > CHUNK_SZ ? n : CHUNK_SZ;
	char *c;

	if (n <= sp->left)
		return 0;
	if (grow__array(&sp->chunks, &sp->cap, sp->cnt + 1, sizeof(*sp->chunks)))
		return -ENOMEM;
	if (!(c = malloc(sz)))
		return -ENOMEM;
	sp->chunks[sp->cnt++] = c;
	sp->at = c;
	sp->left = sz;
	return 0;
}

char *strpool__add(struct strpool *sp, const char *s, size_t len)
{
	char *r;

	if (reserve(sp, len + 1))
		return NULL;
	r = sp->at;
	memcpy(r, s, len);
	r[len] = '\0';
	sp->at += len + 1;
	sp->left -= len + 1;
	return r;
}

char *strpool__printf(struct strpool *sp, const char *fmt, ...)
{
	va_list ap;
	char *r;
	int n;

	/* Straight into the chunk when it fits; else again into a new one, the size known. */
	va_start(ap, fmt);
	n = vsnprintf(sp->at, sp->left, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	if ((size_t)n >= sp->left) {
		if (reserve(sp, (size_t)n + 1))
			return NULL;
		va_start(ap, fmt);
		vsnprintf(sp->at, sp->left, fmt, ap);
		va_end(ap);
	}
	r = sp->at;
	sp->at += n + 1;
	sp->left -= (size_t)n + 1;
	return r;
}

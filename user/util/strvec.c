// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "strvec.h"
#include "grow.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int strvec__take(struct strvec *v, char *s)
{
	if (grow__array(&v->items, &v->cap, v->cnt + 1, sizeof(*v->items)))
		return -ENOMEM;
	v->items[v->cnt++] = s;
	return 0;
}

int strvec__push(struct strvec *v, const char *s)
{
	char *copy = strdup(s);
	int err;

	if (!copy)
		return -ENOMEM;
	err = strvec__take(v, copy);
	if (err)
		free(copy);
	return err;
}

int strvec__pushf(struct strvec *v, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n, err;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	err = strvec__take(v, s);
	if (err)
		free(s);
	return err;
}

void strvec__clear(struct strvec *v)
{
	for (size_t i = 0; i < v->cnt; i++)
		free(v->items[i]);
	v->cnt = 0;
}

void strvec__release(struct strvec *v)
{
	strvec__clear(v);
	free(v->items);
	v->items = NULL;
	v->cap = 0;
}

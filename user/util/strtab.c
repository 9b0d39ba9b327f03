// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "strtab.h"
#include "hash.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>

struct strtab *strtab__new(void)
{
	struct strtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->slot_cnt = 256;
	t->slots = calloc(t->slot_cnt, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void strtab__free(struct strtab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->cnt; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->slots);
	free(t);
}

static int strtab__grow(struct strtab *t)
{
	size_t n = t->slot_cnt * 2;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->cnt; i++) {
		const char *s = t->strs[i];
		size_t k = hash__fnv1a64(s, strlen(s)) & (n - 1);

		while (slots[k])
			k = (k + 1) & (n - 1);
		slots[k] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->slot_cnt = n;
	return 0;
}

int64_t strtab__intern(struct strtab *t, const char *s, size_t len)
{
	size_t k;
	char *copy;
	int err;

	/* Keep the load factor under 1/2 so probe runs stay short. */
	if ((t->cnt + 1) * 2 > t->slot_cnt) {
		err = strtab__grow(t);
		if (err)
			return err;
	}
	k = hash__fnv1a64(s, len) & (t->slot_cnt - 1);
	while (t->slots[k]) {
		const char *o = t->strs[t->slots[k] - 1];

		if (!strncmp(o, s, len) && o[len] == '\0')
			return t->slots[k] - 1;
		k = (k + 1) & (t->slot_cnt - 1);
	}
	if (grow__array(&t->strs, &t->cap, t->cnt + 1, sizeof(*t->strs)))
		return -ENOMEM;
	copy = strndup(s, len);
	if (!copy)
		return -ENOMEM;
	t->strs[t->cnt] = copy;
	t->slots[k] = (uint32_t)++t->cnt;
	return (int64_t)t->cnt - 1;
}

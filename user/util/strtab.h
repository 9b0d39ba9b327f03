/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * strtab - string interning, shared by the DHAT writer (its ftbl), the exporters (names,
 * pprof's string table) and diff (stack keys): equal strings get one index, in first-seen
 * order, and one stable pointer, so interned strings also compare equal by pointer.
 * Open addressing with FNV-1a, load factor under 1/2.
 */
#ifndef TRACER_STRTAB_H
#define TRACER_STRTAB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct strtab {
	char **strs; /* strs[i]: the string with index i (owned, NUL-terminated); stable */
	size_t cnt;  /* strings interned */
	size_t cap;	 /* of strs */
	uint32_t *slots; /* index + 1; 0 = empty */
	size_t slot_cnt; /* power of two */
};

/* An empty table; NULL with errno ENOMEM. Free with strtab__free. */
struct strtab *strtab__new(void);

/* Accepts NULL. Frees every interned string. */
void strtab__free(struct strtab *t);

/* Index of s[0..len) in t, adding a copy if new (the new index is then t->cnt - 1). s must
 * hold no NUL before len. Returns the index or -ENOMEM. */
int64_t strtab__intern(struct strtab *t, const char *s, size_t len);

/* strtab__intern of a NUL-terminated string. */
static inline int64_t strtab__intern_str(struct strtab *t, const char *s)
{
	return strtab__intern(t, s, strlen(s));
}

#endif

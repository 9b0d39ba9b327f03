/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* cfi_table - stub bodies (the interface first, for the kernel-unwind branch). */
#include <stdlib.h>

#include "cfi_table.h"

struct cfi_table *cfi_table__load(const char *path, const char *cache_dir, const char **why)
{
	(void)path;
	(void)cache_dir;
	if (why)
		*why = "CFI tables are not built yet";
	return NULL;
}

void cfi_table__free(struct cfi_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t);
}

const struct unwind_row *cfi_table__find(const struct cfi_table *t, uint64_t pc)
{
	const struct unwind_row *best = NULL;
	uint32_t lo = 0, hi = t ? t->n_rows : 0;

	/* The last row whose pc <= the pc asked. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc) {
			best = &t->rows[mid];
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return best;
}

const char *cfi_table__default_cache_dir(void)
{
	return NULL;
}

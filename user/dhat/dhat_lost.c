// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The "lost" object of a DHAT file: see dhat_lost.h. */
#include "dhat_lost.h"

#include <stdio.h>
#include <string.h>

const char *const dhat_lost_keys[DHAT_LOST_CNT] = {
	"droppedRecords", "unknownFrees",	  "stackFailures",
	"cutShortStacks", "untracedProcesses", "noAllocatorCalls",
	"sampledMapFull", "mappingsNotTraced",
};

/* What one unit of each count is, in the plural. */
static const char *const WHAT[DHAT_LOST_CNT] = {
	"ring-buffer records dropped",
	"frees of blocks whose allocation was not traced",
	"allocations without a stack",
	"program points whose stack stops before the thread's entry",
	"processes seen but not traced",
	"traces in which the probed allocator was never called",
	"sampled blocks dropped (BPF's sampled-block map was full)",
	"traces whose memory mapped outside malloc was not traced (mmap probes not attached)",
};

bool dhat_lost__any_of(const struct dhat_lost *l, unsigned mask)
{
	for (int k = 0; k < DHAT_LOST_CNT; k++)
		if (l->n[k] && mask & 1u << k)
			return true;
	return false;
}

void dhat_lost__write(FILE *f, const struct dhat_lost *l)
{
	if (!dhat_lost__any(l))
		return;
	fputs(",\"" DHAT_LOST_KEY "\":", f);
	for (int k = 0; k < DHAT_LOST_CNT; k++)
		fprintf(f, "%s\"%s\":%llu", k ? "," : "{", dhat_lost_keys[k],
			(unsigned long long)l->n[k]);
	fputs("}\n", f);
}

void dhat_lost__set(struct dhat_lost *l, const char *key, bool u_ok, uint64_t u)
{
	int k = 0;

	while (k < DHAT_LOST_CNT && strcmp(key, dhat_lost_keys[k]))
		k++;
	if (k < DHAT_LOST_CNT && u_ok)
		l->n[k] = u;
}

bool dhat_lost__any(const struct dhat_lost *l)
{
	return dhat_lost__any_of(l, ~0u);
}

void dhat_lost__describe(const struct dhat_lost *l, unsigned mask, char *buf, size_t sz)
{
	size_t used = 0;

	if (sz)
		buf[0] = '\0';
	for (int k = 0; k < DHAT_LOST_CNT && used < sz; k++) {
		int n;

		if (!l->n[k] || !(mask & 1u << k))
			continue;
		n = snprintf(buf + used, sz - used, "%s%llu %s", used ? ", " : "",
			     (unsigned long long)l->n[k], WHAT[k]);
		if (n < 0)
			return;
		used += (size_t)n;
	}
}

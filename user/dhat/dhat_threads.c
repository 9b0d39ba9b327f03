// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* dhat_threads - the "threads" and "sizes" arrays: see dhat_threads.h. */
#include "dhat_threads.h"

#include <string.h>

#include "dhat_json.h"

void dhat_threads__write(FILE *f, const struct dhat_thread *t, size_t cnt)
{
	if (!cnt)
		return;
	fputs(",\"" DHAT_THREADS_KEY "\":\n [", f);
	for (size_t i = 0; i < cnt; i++) {
		fprintf(f, "%s{\"tid\":%llu,\"comm\":", i ? "\n ," : "", (unsigned long long)t[i].tid);
		dhat__json_str(f, t[i].comm);
		fprintf(f, ",\"tb\":%llu,\"tbk\":%llu,\"mb\":%llu,\"mbk\":%llu,\"eb\":%llu,\"ebk\":%llu",
			(unsigned long long)t[i].tb, (unsigned long long)t[i].tbk,
			(unsigned long long)t[i].mb, (unsigned long long)t[i].mbk,
			(unsigned long long)t[i].eb, (unsigned long long)t[i].ebk);
		if (t[i].top_pp >= 0)
			fprintf(f, ",\"topPp\":%lld", (long long)t[i].top_pp);
		fputc('}', f);
	}
	fputs("]\n", f);
}

void dhat_sizes__write(FILE *f, const struct dhat_size_bucket *b, size_t cnt)
{
	if (!cnt)
		return;
	fputs(",\"" DHAT_SIZES_KEY "\":\n [", f);
	for (size_t i = 0; i < cnt; i++) {
		fprintf(f, "%s{\"log2\":%llu,\"tbk\":%llu,\"tb\":%llu", i ? "\n ," : "",
			(unsigned long long)b[i].log2, (unsigned long long)b[i].tbk,
			(unsigned long long)b[i].tb);
		if (b[i].top_pp >= 0)
			fprintf(f, ",\"topPp\":%lld,\"topTbk\":%llu", (long long)b[i].top_pp,
				(unsigned long long)b[i].top_tbk);
		fputc('}', f);
	}
	fputs("]\n", f);
}

void dhat_thread__set(struct dhat_thread *t, const char *key, const char *str, int u_ok,
		      uint64_t u)
{
	static const char *const K[] = { "tb", "tbk", "mb", "mbk", "eb", "ebk" };
	uint64_t *dst[] = { &t->tb, &t->tbk, &t->mb, &t->mbk, &t->eb, &t->ebk };

	if (!strcmp(key, "comm") && str) {
		snprintf(t->comm, sizeof(t->comm), "%s", str);
		return;
	}
	if (!u_ok)
		return;
	if (!strcmp(key, "tid"))
		t->tid = u;
	else if (!strcmp(key, "topPp") && u < INT64_MAX)
		t->top_pp = (int64_t)u;
	for (size_t i = 0; i < sizeof(K) / sizeof(K[0]); i++)
		if (!strcmp(key, K[i]))
			*dst[i] = u;
}

void dhat_size_bucket__set(struct dhat_size_bucket *b, const char *key, int u_ok, uint64_t u)
{
	if (!u_ok)
		return;
	if (!strcmp(key, "log2"))
		b->log2 = u < 64 ? u : 63;
	else if (!strcmp(key, "tbk"))
		b->tbk = u;
	else if (!strcmp(key, "tb"))
		b->tb = u;
	else if (!strcmp(key, "topPp") && u < INT64_MAX)
		b->top_pp = (int64_t)u;
	else if (!strcmp(key, "topTbk"))
		b->top_tbk = u;
}

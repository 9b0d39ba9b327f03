// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The "rss" object of a DHAT file: see dhat_rss.h. */
#include "dhat_rss.h"

#include <inttypes.h>
#include <string.h>

#include "dhat_death.h"

static const char *const FIELDS[] = {"anon", "file", "shmem", "swap"};

static uint64_t field(const struct dhat_rss_sample *s, int k)
{
	return k == 0 ? s->anon : k == 1 ? s->file : k == 2 ? s->shmem : s->swap;
}

/* ns -> µs as the writer rounds te. */
static uint64_t us(uint64_t ns)
{
	return (ns + 500) / 1000;
}

void dhat_rss__write(FILE *f, const struct dhat_rss_sample *s, size_t cnt, uint64_t start_ns,
		     uint64_t te_ns)
{
	size_t first = 0, end;

	while (first < cnt && s[first].t_ns < start_ns)
		first++;
	for (end = first; end < cnt && s[end].t_ns - start_ns <= te_ns; end++)
		;
	if (first == end)
		return;
	fputs(",\"" DHAT_RSS_KEY "\":{\"unit\":\"bytes\",\"t\":[", f);
	for (size_t i = first; i < end; i++)
		fprintf(f, "%s%" PRIu64, i > first ? "," : "", us(s[i].t_ns - start_ns));
	fputc(']', f);
	for (int k = 0; k < 4; k++) {
		fprintf(f, "\n  ,\"%s\":[", FIELDS[k]);
		for (size_t i = first; i < end; i++)
			fprintf(f, "%s%" PRIu64, i > first ? "," : "", field(&s[i], k));
		fputc(']', f);
	}
	fprintf(f, "\n  ,\"atEnd\":{\"t\":%" PRIu64, us(s[end - 1].t_ns - start_ns));
	for (int k = 0; k < 4; k++)
		fprintf(f, ",\"%s\":%" PRIu64, FIELDS[k], field(&s[end - 1], k));
	fputs("}}\n", f);
}

void dhat_rss__set_end(struct dhat_rss_end *e, const char *key, bool u_ok, uint64_t u)
{
	uint64_t *dst = !strcmp(key, "t")	? &e->t
			: !strcmp(key, "anon")	? &e->anon
			: !strcmp(key, "file")	? &e->file
			: !strcmp(key, "shmem") ? &e->shmem
			: !strcmp(key, "swap")	? &e->swap
						: NULL;

	if (dst && u_ok)
		*dst = u;
}

void dhat_rss__print_split(FILE *out, const struct dhat_rss_end *e, uint64_t live_bytes,
			   const char *when, uint64_t te, const uint64_t *outside_malloc)
{
	char rss[32], heap[32], rest[32], other[32], swap[32];
	uint64_t age = te > e->t ? te - e->t : 0;

	dhat_death__size(e->anon + e->file + e->shmem, rss, sizeof(rss));
	dhat_death__size(live_bytes, heap, sizeof(heap));
	dhat_death__size(e->file + e->shmem, other, sizeof(other));
	dhat_death__size(e->swap, swap, sizeof(swap));
	if (te)
		fprintf(out, "  RSS at %s: %s (sampled %" PRIu64 " ms before), of which\n", when,
			rss, (age + 500) / 1000);
	else
		fprintf(out, "  RSS at %s: %s, of which\n", when, rss);
	fprintf(out, "    live heap                          : %s\n", heap);
	if (e->anon >= live_bytes && outside_malloc) {
		/* Mapped is not resident: at most the anonymous RSS left over the heap. */
		uint64_t rest_b = e->anon - live_bytes;
		uint64_t mapped = *outside_malloc < rest_b ? *outside_malloc : rest_b;

		dhat_death__size(mapped, rest, sizeof(rest));
		fprintf(out, "    mapped outside malloc (if resident): %s\n", rest);
		dhat_death__size(rest_b - mapped, rest, sizeof(rest));
		fprintf(out, "    allocator overhead, free chunks    : %s%s\n", rest,
			mapped < rest_b ? "" : " (at least)");
	} else if (e->anon >= live_bytes) {
		dhat_death__size(e->anon - live_bytes, rest, sizeof(rest));
		fprintf(out,
			"    allocator overhead, free chunks and\n"
			"    anonymous mappings outside malloc  : %s\n",
			rest);
	} else { /* blocks asked for but never touched are not resident */
		dhat_death__size(live_bytes - e->anon, rest, sizeof(rest));
		fprintf(out, "    (heap not all resident: anonymous RSS is %s below it)\n", rest);
	}
	fprintf(out, "    file-backed and shared             : %s\n", other);
	fprintf(out, "    swapped out (not in RSS)           : %s\n", swap);
}

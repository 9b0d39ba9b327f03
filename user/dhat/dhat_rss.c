// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The "rss" object of a DHAT file: see dhat_rss.h. */
#include "dhat_rss.h"

#include <inttypes.h>
#include <string.h>

#include "units.h"

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

/* One line of the split: "    LABEL: SIZE[suffix]". */
static void split_line(FILE *out, const struct dhat_rss_split *s, const char *label, uint64_t bytes,
		       const char *suffix)
{
	char size[UNITS_BYTES_SZ];

	fprintf(out, "    %-35s: %s%s\n", label,
		units__bytes(bytes, s->exact_bytes, size, sizeof(size)), suffix);
}

/* The anonymous memory beyond the heap (rest bytes), split as far as it is known. The
 * chunks' overhead first: headers and rounding of live blocks are as resident as the heap
 * itself; a mapping outside malloc only as far as it was touched, so it gets at most what
 * is left; free chunks and the rest of the allocator's memory are what remains. */
static void split_rest(FILE *out, const struct dhat_rss_split *s, uint64_t rest)
{
	uint64_t mapped = 0, over = 0;

	if (!s->outside_malloc && !s->chunk_bytes) {
		split_line(out, s, "allocator overhead, free chunks and\n    anonymous mappings "
				"outside malloc  ", rest, "");
		return;
	}
	if (s->chunk_bytes && *s->chunk_bytes > s->live_bytes)
		over = *s->chunk_bytes - s->live_bytes < rest ? *s->chunk_bytes - s->live_bytes : rest;
	if (s->outside_malloc) {
		mapped = *s->outside_malloc < rest - over ? *s->outside_malloc : rest - over;
		split_line(out, s, "mapped outside malloc (if resident)", mapped, "");
	}
	if (!s->chunk_bytes) {
		split_line(out, s, "allocator overhead, free chunks", rest - mapped,
			   mapped < rest ? "" : " (at least)");
		return;
	}
	split_line(out, s, "allocator overhead (chunk headers)", over, "");
	if (s->arena_free) { /* measured: the arenas' free chunks (resident or not) */
		uint64_t left = rest - mapped - over;

		split_line(out, s, "free in glibc arenas (measured)", *s->arena_free,
			   " (heap vs RSS below)");
		split_line(out, s, "other anonymous", left > *s->arena_free ? left - *s->arena_free : 0,
			   "");
		return;
	}
	split_line(out, s, s->outside_malloc ? "free chunks, other anonymous" :
					    "free chunks, other anonymous mappings",
		   rest - mapped - over, mapped + over < rest ? "" : " (at least)");
}

void dhat_rss__print_split(FILE *out, const struct dhat_rss_split *s)
{
	const struct dhat_rss_end *e = s->e;
	char rss[UNITS_BYTES_SZ];
	uint64_t age = s->te > e->t ? s->te - e->t : 0;

	units__bytes(e->anon + e->file + e->shmem, s->exact_bytes, rss, sizeof(rss));
	if (s->te)
		fprintf(out, "  RSS at %s: %s (sampled %" PRIu64 " ms before), of which\n", s->when,
			rss, (age + 500) / 1000);
	else
		fprintf(out, "  RSS at %s: %s, of which\n", s->when, rss);
	split_line(out, s, "live heap", s->live_bytes, "");
	if (e->anon >= s->live_bytes) {
		split_rest(out, s, e->anon - s->live_bytes);
	} else { /* blocks asked for but never touched are not resident */
		char rest[UNITS_BYTES_SZ];

		units__bytes(s->live_bytes - e->anon, s->exact_bytes, rest, sizeof(rest));
		fprintf(out, "    (heap not all resident: anonymous RSS is %s below it)\n", rest);
	}
	split_line(out, s, "file-backed and shared", e->file + e->shmem, "");
	split_line(out, s, "swapped out (not in RSS)", e->swap, "");
}

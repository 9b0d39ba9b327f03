// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The "arenas" and "arenaSettings" members of a DHAT file: see dhat_arenas.h. */
#include "dhat_arenas.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dhat_json.h"
#include "safe_text.h"
#include "units.h"

/* The written index of collector program point pp, or -1 when it has none. */
static int64_t mapped_pp(int64_t pp, const size_t *pp_map, size_t map_cnt)
{
	if (pp < 0)
		return -1;
	if (!pp_map)
		return pp;
	return (uint64_t)pp < map_cnt ? (int64_t)pp_map[pp] : -1;
}

static void write_one(FILE *f, const struct dhat_arena *ar, const size_t *pp_map, size_t map_cnt)
{
	int64_t pin = mapped_pp(ar->pin_pp, pp_map, map_cnt);
	bool first = true;

	fputs("{\"arena\":", f);
	dhat__json_str(f, ar->name);
	fprintf(f,
		",\"systemBytes\":%" PRIu64 ",\"inUseBytes\":%" PRIu64 ",\"freeBytes\":%" PRIu64
		"\n   ,\"topFreeBytes\":%" PRIu64 ",\"trimmableBytes\":%" PRIu64
		",\"residentBytes\":%" PRIu64,
		ar->system, ar->in_use, ar->free, ar->top_free, ar->trimmable, ar->resident);
	fprintf(f, ",\"fastBytes\":%" PRIu64, ar->fast);
	if (ar->fast_cut)
		fprintf(f, ",\"fastbinCut\":%" PRIu64, ar->fast_cut);
	if (ar->has_tcache)
		fprintf(f, ",\"tcacheBytes\":%" PRIu64, ar->tcache);
	if (pin >= 0)
		fprintf(f, ",\"pinPp\":%" PRId64 ",\"pinBytes\":%" PRIu64, pin, ar->pin_bytes);
	fputs("\n   ,\"fragmenters\":[", f);
	for (size_t i = 0; i < ar->frag_cnt; i++) {
		int64_t pp = mapped_pp(ar->frag[i].pp, pp_map, map_cnt);

		if (pp < 0)
			continue;
		fprintf(f, "%s{\"pp\":%" PRId64 ",\"bytes\":%" PRIu64 ",\"blocks\":%" PRIu64 "}",
			first ? "" : ",", pp, ar->frag[i].bytes, ar->frag[i].blocks);
		first = false;
	}
	fputs("]}", f);
}

void dhat_arenas__write(FILE *f, const struct dhat_arenas *a, const size_t *pp_map,
			size_t map_cnt)
{
	fputs(",\"" DHAT_ARENAS_KEY "\":\n  [", f);
	for (size_t i = 0; i < a->cnt; i++) {
		if (i)
			fputs("\n  ,", f);
		write_one(f, &a->v[i], pp_map, map_cnt);
	}
	fputs("]\n", f);
	if (!a->cnt && (*a->allocator || *a->not_measured)) {
		fputs(",\"" DHAT_ARENA_SETTINGS_KEY "\":{", f);
		fputs(*a->allocator ? "\"allocator\":" : "\"notMeasured\":", f);
		dhat__json_str(f, *a->allocator ? a->allocator : a->not_measured);
		fputs("}\n", f);
		return;
	}
	if (!a->has_settings)
		return;
	fputs(",\"" DHAT_ARENA_SETTINGS_KEY "\":{", f);
	fprintf(f, "\"mmapThreshold\":%" PRIu64 ",\"mmapThresholdSource\":", a->mmap_threshold);
	dhat__json_str(f, a->mmap_threshold_src);
	if (a->arena_max) {
		fprintf(f, ",\"arenaMax\":%" PRIu64 ",\"arenaMaxSource\":", a->arena_max);
		dhat__json_str(f, a->arena_max_src);
	}
	fputs(",\"source\":", f);
	dhat__json_str(f, a->source);
	if (*a->main_checked) {
		fputs(",\"mainArenaChecked\":", f);
		dhat__json_str(f, a->main_checked);
	}
	fputs("}\n", f);
}

void dhat_arenas__release(struct dhat_arenas *a)
{
	if (!a)
		return;
	free(a->v);
	a->v = NULL;
	a->cnt = 0;
}

struct dhat_arena *dhat_arenas__add(struct dhat_arenas *a)
{
	struct dhat_arena *grown;

	if (a->cnt >= DHAT_ARENAS_MAX)
		return NULL;
	grown = realloc(a->v, (a->cnt + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	a->v = grown;
	memset(&a->v[a->cnt], 0, sizeof(*grown));
	a->v[a->cnt].pin_pp = -1;
	return &a->v[a->cnt++];
}

void dhat_arena__set(struct dhat_arena *ar, const char *key, const char *str, bool u_ok,
		     uint64_t u)
{
	static const struct {
		const char *key;
		size_t off;
	} NUMS[] = {
		{ "systemBytes", offsetof(struct dhat_arena, system) },
		{ "inUseBytes", offsetof(struct dhat_arena, in_use) },
		{ "freeBytes", offsetof(struct dhat_arena, free) },
		{ "topFreeBytes", offsetof(struct dhat_arena, top_free) },
		{ "trimmableBytes", offsetof(struct dhat_arena, trimmable) },
		{ "residentBytes", offsetof(struct dhat_arena, resident) },
		{ "pinBytes", offsetof(struct dhat_arena, pin_bytes) },
		{ "fastBytes", offsetof(struct dhat_arena, fast) },
		{ "fastbinCut", offsetof(struct dhat_arena, fast_cut) },
	};

	if (str && !strcmp(key, "arena")) {
		safe_text__copy_term(ar->name, sizeof(ar->name), str);
		return;
	}
	if (!u_ok)
		return;
	if (!strcmp(key, "tcacheBytes")) {
		ar->tcache = u;
		ar->has_tcache = true;
		return;
	}
	if (!strcmp(key, "pinPp") && u <= INT64_MAX) {
		ar->pin_pp = (int64_t)u;
		return;
	}
	for (size_t i = 0; i < sizeof(NUMS) / sizeof(*NUMS); i++)
		if (!strcmp(key, NUMS[i].key))
			*(uint64_t *)((char *)ar + NUMS[i].off) = u;
}

void dhat_arena_frag__set(struct dhat_arena_frag *fr, const char *key, bool u_ok, uint64_t u)
{
	if (!u_ok)
		return;
	if (!strcmp(key, "pp") && u <= INT64_MAX)
		fr->pp = (int64_t)u;
	else if (!strcmp(key, "bytes"))
		fr->bytes = u;
	else if (!strcmp(key, "blocks"))
		fr->blocks = u;
}

void dhat_arenas__set(struct dhat_arenas *a, const char *key, const char *str, bool u_ok,
		      uint64_t u)
{
	a->has_settings = true;
	if (u_ok && !strcmp(key, "mmapThreshold"))
		a->mmap_threshold = u;
	else if (u_ok && !strcmp(key, "arenaMax"))
		a->arena_max = u;
	else if (str && !strcmp(key, "mmapThresholdSource"))
		safe_text__copy_term(a->mmap_threshold_src, sizeof(a->mmap_threshold_src), str);
	else if (str && !strcmp(key, "arenaMaxSource"))
		safe_text__copy_term(a->arena_max_src, sizeof(a->arena_max_src), str);
	else if (str && !strcmp(key, "source"))
		safe_text__copy_term(a->source, sizeof(a->source), str);
	else if (str && !strcmp(key, "allocator"))
		safe_text__copy_term(a->allocator, sizeof(a->allocator), str);
	else if (str && !strcmp(key, "notMeasured"))
		safe_text__copy_term(a->not_measured, sizeof(a->not_measured), str);
	else if (str && !strcmp(key, "mainArenaChecked"))
		safe_text__copy_term(a->main_checked, sizeof(a->main_checked), str);
}

/* ---- the report's section ------------------------------------------------------------- */

/* Arena indices by free bytes, most first (stable: equal ones keep the file's order). */
static void by_free(const struct dhat_arenas *a, size_t *order)
{
	for (size_t i = 0; i < a->cnt; i++) {
		size_t j = i;

		while (j && a->v[order[j - 1]].free < a->v[i].free) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
}

static const char *b(uint64_t v, bool exact, char *buf)
{
	return units__bytes(v, exact, buf, UNITS_BYTES_SZ);
}

/* One fragmenter row of arena ar. */
struct frag_row {
	const struct dhat_arena *ar;
	const struct dhat_arena_frag *fr;
};

static void print_fragmenters(FILE *out, const struct dhat_arenas *a, bool exact,
			      dhat_arenas_site_fn site, void *ctx)
{
	struct frag_row rows[16];
	size_t n = 0;
	char c[UNITS_BYTES_SZ];

	/* The largest over every arena, at most 16: insertion into a short sorted list. */
	for (size_t i = 0; i < a->cnt; i++)
		for (size_t k = 0; k < a->v[i].frag_cnt; k++) {
			const struct dhat_arena_frag *fr = &a->v[i].frag[k];
			size_t j;

			if (!fr->bytes)
				continue;
			if (n == sizeof(rows) / sizeof(*rows)) {
				if (rows[n - 1].fr->bytes >= fr->bytes)
					continue;
				n--;
			}
			for (j = n++; j && rows[j - 1].fr->bytes < fr->bytes; j--)
				rows[j] = rows[j - 1];
			rows[j] = (struct frag_row){ &a->v[i], fr };
		}
	if (!n)
		return;
	fputs("  fragmenters: live blocks alone on pages otherwise free (pages they keep)\n", out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "    %14s  %9" PRIu64 " blocks  %-14s  ", b(rows[i].fr->bytes, exact, c),
			rows[i].fr->blocks, rows[i].ar->name);
		site(out, ctx, rows[i].fr->pp);
		fputc('\n', out);
	}
}

/* What the free is made of that malloc_trim cannot give back by itself: the fastbins' (in
 * freeBytes) and the tcaches' (not: malloc_info counts them in use). */
static void print_tcache(FILE *out, const struct dhat_arenas *a, bool exact)
{
	uint64_t fast = 0, tc = 0, cut = 0;
	bool found = false;
	char c1[UNITS_BYTES_SZ], c2[UNITS_BYTES_SZ];

	for (size_t i = 0; i < a->cnt; i++) {
		fast += a->v[i].fast;
		cut += a->v[i].fast_cut;
		tc += a->v[i].tcache;
		found |= a->v[i].has_tcache;
	}
	if (!fast && !found)
		return;
	fprintf(out, "  of the free, %s in fastbins", b(fast, exact, c1));
	if (cut)
		fprintf(out, " (%" PRIu64 " list%s cut short)", cut, cut == 1 ? "" : "s");
	if (found)
		fprintf(out, "; tcaches found hold %s more, in use to glibc", b(tc, exact, c2));
	fputc('\n', out);
}

void dhat_arenas__summary(FILE *out, const struct dhat_arenas *a, bool exact)
{
	uint64_t sys = 0, fr = 0, trim = 0, res = 0, used = 0;
	char c1[UNITS_BYTES_SZ], c2[UNITS_BYTES_SZ], c3[UNITS_BYTES_SZ];

	for (size_t i = 0; i < a->cnt; i++) {
		sys += a->v[i].system;
		fr += a->v[i].free;
		trim += a->v[i].trimmable;
		res += a->v[i].resident;
		used += a->v[i].in_use;
	}
	fprintf(out, "  %zu arena%s hold%s %s, of which %s free and %s in live blocks;\n", a->cnt,
		a->cnt == 1 ? "" : "s", a->cnt == 1 ? "s" : "", b(sys, exact, c1),
		b(fr, exact, c2), b(used, exact, c3));
	fprintf(out, "  malloc_trim(0) would return %s; %s of the arenas is resident now\n",
		b(trim, exact, c1), b(res, exact, c2));
}

void dhat_arenas__print(FILE *out, const struct dhat_arenas *a, const char *when, bool exact,
			dhat_arenas_site_fn site, void *ctx)
{
	char c1[UNITS_BYTES_SZ], c2[UNITS_BYTES_SZ], c3[UNITS_BYTES_SZ], c4[UNITS_BYTES_SZ];
	char c5[UNITS_BYTES_SZ];
	size_t order[DHAT_ARENAS_MAX];

	if (!a->cnt && *a->allocator) {
		fputs("\n  arena forensics: glibc only; ", out);
		safe_text__fputs_term(out, a->allocator);
		fputs(" is not glibc's malloc\n", out);
	} else if (!a->cnt && *a->not_measured) {
		fprintf(out, "\n  heap vs RSS at %s: not measured: the process was gone before its "
			"arenas could be read (--pid has no exit stop; docs/OOM.md)\n", when);
	}
	if (!a->cnt)
		return;
	fprintf(out, "\n  heap vs RSS at %s (glibc arenas)\n", when);
	dhat_arenas__summary(out, a, exact);
	for (size_t i = 0; i < a->cnt; i++) {
		const struct dhat_arena *ar = &a->v[i];

		if (ar->pin_pp < 0)
			continue;
		if (!strcmp(ar->name, "main"))
			fprintf(out, "  the main arena's top is pinned by %s from ",
				b(ar->pin_bytes, exact, c1));
		else
			fprintf(out, "  arena %s's top is pinned by %s from ", ar->name,
				b(ar->pin_bytes, exact, c1));
		site(out, ctx, ar->pin_pp);
		fputc('\n', out);
	}
	fputs("    arena                   system         free     top free    trimmable     resident\n",
	      out);
	by_free(a, order);
	for (size_t i = 0; i < a->cnt; i++) {
		const struct dhat_arena *ar = &a->v[order[i]];

		fprintf(out, "    %-14s  %12s %12s %12s %12s %12s\n", ar->name,
			b(ar->system, exact, c1), b(ar->free, exact, c2),
			b(ar->top_free, exact, c3), b(ar->trimmable, exact, c4),
			b(ar->resident, exact, c5));
	}
	print_tcache(out, a, exact);
	print_fragmenters(out, a, exact, site, ctx);
	if (!a->has_settings)
		return;
	if (a->mmap_threshold)
		fprintf(out, "  mmap threshold: %s (%s)", b(a->mmap_threshold, exact, c1),
			a->mmap_threshold_src);
	else
		fputs("  mmap threshold: unknown", out);
	if (a->arena_max)
		fprintf(out, "; arena max: %" PRIu64 " (%s)\n", a->arena_max, a->arena_max_src);
	else
		fputs("; arena max: glibc's default (8 per core)\n", out);
	if (*a->source && *a->main_checked)
		fprintf(out, "  free chunks known from: %s; main arena found by %s (docs/ACCURACY.md)\n",
			a->source, a->main_checked);
	else if (*a->source)
		fprintf(out, "  free chunks known from: %s (docs/ACCURACY.md)\n", a->source);
}

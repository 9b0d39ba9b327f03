// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Exporter tests, part 2: pprof. The written file is gunzipped with zlib and walked with a
 * small protobuf decoder written here (independent of the encoder in export_pprof.c), then
 * checked: string_table[0] == "", sample types of a Go heap profile plus gmax_* (the peak),
 * sample totals equal to the DHAT totals, ids resolving, inlined frames as one Location,
 * allocator plumbing left out by default. If `go` is installed, `go tool pprof -top` must
 * print the same totals and must not rank an allocator first (under CI=true go is required).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export_helpers.h"
#include "test_util.h"

#define MAXN 4096 /* strings, locations, functions, mappings */
#define MAXS 1024 /* samples */
#define MAXL 256  /* locations / values of one sample */

/* --- a minimal protobuf reader ----------------------------------------------------------- */

struct pbr {
	const uint8_t *p, *end;
};

static uint64_t rd_varint(struct pbr *r)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		cr_assert(r->p < r->end, "truncated varint");
		v |= (uint64_t)(*r->p & 0x7f) << shift;
		if (!(*r->p++ & 0x80))
			return v;
	}
	cr_assert_fail("varint longer than 10 bytes");
	return 0;
}

/* Next field of r: its number and either a varint (*v) or a length-delimited slice (*sub). */
static bool rd_field(struct pbr *r, unsigned *field, unsigned *wt, uint64_t *v, struct pbr *sub)
{
	uint64_t key, n;

	if (r->p >= r->end)
		return false;
	key = rd_varint(r);
	*field = (unsigned)(key >> 3);
	*wt = (unsigned)(key & 7);
	cr_assert(*field > 0, "field number 0");
	switch (*wt) {
	case 0:
		*v = rd_varint(r);
		break;
	case 2:
		n = rd_varint(r);
		cr_assert(n <= (uint64_t)(r->end - r->p), "length %" PRIu64 " past the end", n);
		sub->p = r->p;
		sub->end = r->p + n;
		r->p += n;
		break;
	default:
		cr_assert_fail("unexpected wire type %u (field %u)", *wt, *field);
	}
	return true;
}

/* A repeated integer field: packed (wt 2) or not (wt 0); appends to vals. */
static void rd_ints(unsigned wt, uint64_t v, struct pbr *sub, uint64_t *vals, size_t *n)
{
	if (wt == 0) {
		cr_assert(*n < MAXL);
		vals[(*n)++] = v;
		return;
	}
	while (sub->p < sub->end) {
		cr_assert(*n < MAXL);
		vals[(*n)++] = rd_varint(sub);
	}
}

struct d_line {
	uint64_t fn;
	int64_t line;
};
struct d_loc {
	uint64_t id, map, addr;
	struct d_line lines[16];
	size_t line_cnt;
};
struct d_fn {
	uint64_t id, name, sys, file;
};
struct d_map {
	uint64_t id, file;
	bool has_fn;
};
struct d_sample {
	uint64_t locs[MAXL], vals[MAXL];
	size_t loc_cnt, val_cnt;
};
struct d_prof {
	char *strs[MAXN];
	size_t str_cnt;
	uint64_t st_type[8], st_unit[8];
	size_t st_cnt;
	struct d_sample *samples;
	size_t sample_cnt;
	struct d_loc locs[MAXN];
	size_t loc_cnt;
	struct d_fn fns[MAXN];
	size_t fn_cnt;
	struct d_map maps[MAXN];
	size_t map_cnt;
	uint64_t pt_type, pt_unit, period, duration, time, default_st;
	uint64_t comments[8];
	size_t comment_cnt;
};

static void rd_value_type(struct pbr *r, uint64_t *type, uint64_t *unit)
{
	unsigned f, wt;
	uint64_t v = 0;
	struct pbr s;

	while (rd_field(r, &f, &wt, &v, &s)) {
		if (f == 1)
			*type = v;
		else if (f == 2)
			*unit = v;
	}
}

static void decode(const uint8_t *buf, size_t len, struct d_prof *d)
{
	struct pbr r = {buf, buf + len}, s, s2;
	unsigned f, wt, f2, wt2;
	uint64_t v = 0, v2 = 0;

	memset(d, 0, sizeof(*d));
	d->samples = calloc(MAXS, sizeof(*d->samples));
	cr_assert(d->samples);
	while (rd_field(&r, &f, &wt, &v, &s)) {
		switch (f) {
		case 1:
			cr_assert(d->st_cnt < 8);
			rd_value_type(&s, &d->st_type[d->st_cnt], &d->st_unit[d->st_cnt]);
			d->st_cnt++;
			break;
		case 2: {
			struct d_sample *sm = &d->samples[d->sample_cnt++];

			cr_assert(d->sample_cnt <= MAXS);
			while (rd_field(&s, &f2, &wt2, &v2, &s2)) {
				if (f2 == 1)
					rd_ints(wt2, v2, &s2, sm->locs, &sm->loc_cnt);
				else if (f2 == 2)
					rd_ints(wt2, v2, &s2, sm->vals, &sm->val_cnt);
			}
			break;
		}
		case 3: {
			struct d_map *m = &d->maps[d->map_cnt++];

			cr_assert(d->map_cnt <= MAXN);
			while (rd_field(&s, &f2, &wt2, &v2, &s2)) {
				if (f2 == 1)
					m->id = v2;
				else if (f2 == 5)
					m->file = v2;
				else if (f2 == 7)
					m->has_fn = v2;
			}
			break;
		}
		case 4: {
			struct d_loc *l = &d->locs[d->loc_cnt++];

			cr_assert(d->loc_cnt <= MAXN);
			while (rd_field(&s, &f2, &wt2, &v2, &s2)) {
				struct pbr s3;
				unsigned f3, wt3;
				uint64_t v3 = 0;

				if (f2 == 1)
					l->id = v2;
				else if (f2 == 2)
					l->map = v2;
				else if (f2 == 3)
					l->addr = v2;
				else if (f2 == 4) {
					struct d_line *ln = &l->lines[l->line_cnt++];

					cr_assert(l->line_cnt <= 16);
					while (rd_field(&s2, &f3, &wt3, &v3, &s3)) {
						if (f3 == 1)
							ln->fn = v3;
						else if (f3 == 2)
							ln->line = (int64_t)v3;
					}
				}
			}
			break;
		}
		case 5: {
			struct d_fn *fn = &d->fns[d->fn_cnt++];

			cr_assert(d->fn_cnt <= MAXN);
			while (rd_field(&s, &f2, &wt2, &v2, &s2)) {
				if (f2 == 1)
					fn->id = v2;
				else if (f2 == 2)
					fn->name = v2;
				else if (f2 == 3)
					fn->sys = v2;
				else if (f2 == 4)
					fn->file = v2;
			}
			break;
		}
		case 6:
			cr_assert_eq(wt, 2);
			cr_assert(d->str_cnt < MAXN);
			d->strs[d->str_cnt++] = strndup((const char *)s.p, (size_t)(s.end - s.p));
			break;
		case 9:
			d->time = v;
			break;
		case 10:
			d->duration = v;
			break;
		case 11:
			rd_value_type(&s, &d->pt_type, &d->pt_unit);
			break;
		case 12:
			d->period = v;
			break;
		case 13:
			cr_assert(d->comment_cnt < 8);
			d->comments[d->comment_cnt++] = v;
			break;
		case 14:
			d->default_st = v;
			break;
		default:
			cr_assert_fail("unexpected Profile field %u", f);
		}
	}
}

static void d_free(struct d_prof *d)
{
	for (size_t i = 0; i < d->str_cnt; i++)
		free(d->strs[i]);
	free(d->samples);
}

static const char *str(const struct d_prof *d, uint64_t i)
{
	cr_assert(i < d->str_cnt, "string index %" PRIu64 " out of %zu", i, d->str_cnt);
	return d->strs[i];
}

static const struct d_loc *loc_by_id(const struct d_prof *d, uint64_t id)
{
	for (size_t i = 0; i < d->loc_cnt; i++)
		if (d->locs[i].id == id)
			return &d->locs[i];
	cr_assert_fail("location id %" PRIu64 " not found", id);
	return NULL;
}

static const struct d_fn *fn_by_id(const struct d_prof *d, uint64_t id)
{
	for (size_t i = 0; i < d->fn_cnt; i++)
		if (d->fns[i].id == id)
			return &d->fns[i];
	cr_assert_fail("function id %" PRIu64 " not found", id);
	return NULL;
}

static const struct d_map *map_by_id(const struct d_prof *d, uint64_t id)
{
	for (size_t i = 0; i < d->map_cnt; i++)
		if (d->maps[i].id == id)
			return &d->maps[i];
	cr_assert_fail("mapping id %" PRIu64 " not found", id);
	return NULL;
}

#define NTYPES 6

/* Export fixture to artifacts/<out> (opts NULL: the defaults, plumbing left out), gunzip it,
 * decode it, check the invariants. */
static void export_and_decode_opts(const struct dhat_profile *p, const char *out, struct d_prof *d,
				   char *path, size_t path_sz, const struct export_opts *opts)
{
	static const char *const types[NTYPES][2] = {
	    {"alloc_objects", "count"}, {"alloc_space", "bytes"},  {"inuse_objects", "count"},
	    {"inuse_space", "bytes"},	{"gmax_objects", "count"}, {"gmax_space", "bytes"}};
	uint64_t sums[NTYPES] = {0};
	unsigned char magic[2];
	size_t len;
	char *raw;
	FILE *f;

	snprintf(path, path_sz, "%s/%s", ex_artifacts(), out);
	if (opts)
		cr_assert_eq(export__to_path(p, EXPORT_FMT_PPROF, path, opts), 0);
	else
		cr_assert_eq(export__pprof(p, path), 0);
	/* gzip, as pprof and Go write it */
	f = fopen(path, "rb");
	cr_assert(f);
	cr_assert_eq(fread(magic, 1, 2, f), 2);
	fclose(f);
	cr_expect(magic[0] == 0x1f && magic[1] == 0x8b, "not gzip: %02x %02x", magic[0], magic[1]);
	raw = tu_slurp(path, &len); /* gzread inflates */
	cr_assert(raw);
	decode((const uint8_t *)raw, len, d);
	free(raw);

	cr_assert_gt(d->str_cnt, 0);
	cr_expect_str_eq(d->strs[0], "", "string_table[0] must be empty");
	cr_assert_eq(d->st_cnt, NTYPES);
	for (size_t i = 0; i < NTYPES; i++) {
		cr_expect_str_eq(str(d, d->st_type[i]), types[i][0]);
		cr_expect_str_eq(str(d, d->st_unit[i]), types[i][1]);
	}
	/* pprof's default view stays inuse_space, as for a Go heap profile. */
	cr_expect_str_eq(str(d, d->default_st), "inuse_space");
	cr_expect_str_eq(str(d, d->pt_type), "space");
	cr_expect_str_eq(str(d, d->pt_unit), "bytes");
	cr_expect_eq(d->period, 1);
	cr_expect_eq(d->sample_cnt, p->pp_cnt, "one sample per PP");
	for (size_t i = 0; i < d->sample_cnt; i++) {
		const struct d_sample *s = &d->samples[i];

		cr_assert_eq(s->val_cnt, NTYPES);
		for (size_t k = 0; k < NTYPES; k++)
			sums[k] += s->vals[k];
		cr_expect_gt(s->loc_cnt, 0, "sample %zu has no location", i);
		for (size_t k = 0; k < s->loc_cnt; k++) {
			const struct d_loc *l = loc_by_id(d, s->locs[k]);

			cr_expect_gt(l->line_cnt, 0);
			for (size_t m = 0; m < l->line_cnt; m++)
				str(d, fn_by_id(d, l->lines[m].fn)->name);
			if (l->map)
				map_by_id(d, l->map);
		}
	}
	cr_expect_eq(sums[0], p->total_blocks, "Σalloc_objects %" PRIu64 " != Σtbk", sums[0]);
	cr_expect_eq(sums[1], p->total_bytes, "Σalloc_space %" PRIu64 " != Σtb", sums[1]);
	cr_expect_eq(sums[2], p->end_blocks, "Σinuse_objects %" PRIu64 " != Σebk", sums[2]);
	cr_expect_eq(sums[3], p->end_bytes, "Σinuse_space %" PRIu64 " != Σeb", sums[3]);
	cr_expect_eq(sums[4], p->gmax_blocks, "Σgmax_objects %" PRIu64 " != Σgbk", sums[4]);
	cr_expect_eq(sums[5], p->gmax_bytes, "Σgmax_space %" PRIu64 " != Σgb", sums[5]);
	/* ids unique and non-zero */
	for (size_t i = 0; i < d->loc_cnt; i++) {
		cr_expect_neq(d->locs[i].id, 0);
		for (size_t j = i + 1; j < d->loc_cnt; j++)
			cr_expect_neq(d->locs[i].id, d->locs[j].id);
	}
	for (size_t i = 0; i < d->fn_cnt; i++) {
		cr_expect_neq(d->fns[i].id, 0);
		for (size_t j = i + 1; j < d->fn_cnt; j++)
			cr_expect_neq(d->fns[i].id, d->fns[j].id);
	}
}

static void export_and_decode(const struct dhat_profile *p, const char *out, struct d_prof *d,
			      char *path, size_t path_sz)
{
	export_and_decode_opts(p, out, d, path, path_sz, NULL);
}

static const struct export_opts KEEP = {.keep_plumbing = true};

/* The Location of sample s whose first Line is function name. */
static const struct d_loc *find_loc(const struct d_prof *d, const char *name)
{
	for (size_t i = 0; i < d->loc_cnt; i++)
		if (d->locs[i].line_cnt &&
		    !strcmp(str(d, fn_by_id(d, d->locs[i].lines[0].fn)->name), name))
			return &d->locs[i];
	cr_assert_fail("no location for %s", name);
	return NULL;
}

Test(export_pprof, prog_totals_and_frames)
{
	struct dhat_profile *p = ex_load("prog.json");
	static struct d_prof d; /* large: not on the stack */
	char path[4096];
	const struct d_loc *l;
	const struct d_fn *fn;

	export_and_decode_opts(p, "prog.pb.gz", &d, path, sizeof(path), &KEEP);
	cr_expect_eq(p->total_bytes, 526);
	cr_expect_eq(p->total_blocks, 7);
	/* `fn (file:line)`: address, line, file */
	l = find_loc(&d, "make_table");
	cr_expect_eq(l->addr, 0x10918F);
	cr_expect_eq(l->lines[0].line, 21);
	cr_expect_str_eq(str(&d, fn_by_id(&d, l->lines[0].fn)->file), "prog.c");
	/* `fn (in /obj)`: object as the file name and as a Mapping */
	l = find_loc(&d, "calloc");
	fn = fn_by_id(&d, l->lines[0].fn);
	cr_expect_str_eq(str(&d, fn->file), "/usr/libexec/valgrind/vgpreload_dhat-amd64-linux.so");
	cr_expect_str_eq(str(&d, fn->sys), "calloc");
	cr_assert_neq(l->map, 0);
	cr_expect_str_eq(str(&d, map_by_id(&d, l->map)->file),
			 "/usr/libexec/valgrind/vgpreload_dhat-amd64-linux.so");
	cr_expect(map_by_id(&d, l->map)->has_fn);
	/* leaf first: the first location of the calloc sample is calloc, the last main */
	for (size_t i = 0; i < d.sample_cnt; i++) {
		if (d.samples[i].vals[1] != 80)
			continue;
		cr_assert_eq(d.samples[i].loc_cnt, 3);
		cr_expect_eq(loc_by_id(&d, d.samples[i].locs[0])->addr, 0x48417B4);
		cr_expect_eq(loc_by_id(&d, d.samples[i].locs[2])->addr, 0x1091E5);
	}
	/* instrs are no time unit: no duration */
	cr_expect_eq(d.duration, 0);
	cr_expect_eq(d.comment_cnt, 1);
	d_free(&d);
	dhat_profile__free(p);
}

Test(export_pprof, inlined_frames_share_a_location)
{
	struct dhat_profile *p = ex_load("odd.json");
	static struct d_prof d; /* large: not on the stack */
	char path[4096];
	bool seen = false;

	export_and_decode_opts(p, "odd.pb.gz", &d, path, sizeof(path), &KEEP);
	for (size_t i = 0; i < d.sample_cnt; i++) {
		const struct d_sample *s = &d.samples[i];
		const struct d_loc *l;

		if (s->vals[1] != 1000)
			continue;
		seen = true;
		/* fs [alloc, push@A, fill@A, main]: 3 locations, the middle one with 2 lines */
		cr_assert_eq(s->loc_cnt, 3);
		l = loc_by_id(&d, s->locs[1]);
		cr_expect_eq(l->addr, 0x55d0c0a05678);
		cr_assert_eq(l->line_cnt, 2);
		cr_expect_str_eq(str(&d, fn_by_id(&d, l->lines[0].fn)->name),
				 "alloc::vec::Vec<T,A>::push");
		cr_expect_eq(l->lines[0].line, 1830);
		cr_expect_str_eq(str(&d, fn_by_id(&d, l->lines[1].fn)->name), "demo::fill");
		cr_expect_str_eq(str(&d, fn_by_id(&d, l->lines[1].fn)->file), "src/main.rs");
		cr_expect_eq(l->lines[1].line, 12);
		cr_expect_eq(s->vals[0], 10);
		cr_expect_eq(s->vals[2], 2);
		cr_expect_eq(s->vals[3], 200);
	}
	cr_expect(seen);
	/* tu "µs": te 2500000 µs = 2.5 s */
	cr_expect_eq(d.duration, 2500000000ULL);
	/* the PP without frames */
	cr_expect_str_eq(str(&d, fn_by_id(&d, find_loc(&d, "[unknown]")->lines[0].fn)->name),
			 "[unknown]");
	d_free(&d);
	dhat_profile__free(p);
}

/* The name of the leaf Location (first Line) of sample s. */
static const char *leaf_name(const struct d_prof *d, const struct d_sample *s)
{
	const struct d_loc *l = loc_by_id(d, s->locs[0]);

	return str(d, fn_by_id(d, l->lines[0].fn)->name);
}

Test(export_pprof, plumbing_left_out_by_default)
{
	struct dhat_profile *p = ex_load("prog.json");
	static struct d_prof d; /* large: not on the stack */
	char path[4096];
	size_t calloc_seen = 0;

	export_and_decode(p, "prog-default.pb.gz", &d, path, sizeof(path));
	for (size_t i = 0; i < d.sample_cnt; i++) {
		const struct d_sample *s = &d.samples[i];
		const char *leaf = leaf_name(&d, s);

		cr_expect(strcmp(leaf, "malloc") && strcmp(leaf, "calloc") &&
			      strcmp(leaf, "realloc"),
			  "sample %zu starts at allocator %s", i, leaf);
		if (s->vals[1] == 80) {
			/* calloc <- make_table <- main: make_table is the leaf now, at its line */
			calloc_seen++;
			cr_expect_eq(s->loc_cnt, 2);
			cr_expect_str_eq(leaf, "make_table");
			cr_expect_eq(loc_by_id(&d, s->locs[0])->lines[0].line, 21);
		}
	}
	cr_expect_eq(calloc_seen, 1);
	d_free(&d);
	dhat_profile__free(p);

	/* odd.json: dhat-rs's allocator frame, Vec::push, operator new and std::vector's
	 * _M_realloc_insert all go; the frames of the program stay. */
	p = ex_load("odd.json");
	export_and_decode(p, "odd-default.pb.gz", &d, path, sizeof(path));
	for (size_t i = 0; i < d.sample_cnt; i++) {
		const struct d_sample *s = &d.samples[i];

		if (s->vals[1] == 1000)
			cr_expect_str_eq(leaf_name(&d, s), "demo::fill");
		if (s->vals[1] == 4096)
			cr_expect_str_eq(leaf_name(&d, s),
					 "(anonymous namespace)::weird:name&\"quoted\" 'x'");
	}
	d_free(&d);
	dhat_profile__free(p);
}

Test(export_pprof, valgrind_profile)
{
	struct dhat_profile *p = ex_load("valgrind_ls.json");
	static struct d_prof d; /* large: not on the stack */
	char path[4096];

	export_and_decode(p, "valgrind_ls.pb.gz", &d, path, sizeof(path));
	/* what Valgrind printed: "Total: 125,340 bytes in 446 blocks", "At t-end: 23,452 bytes
	 * in 82 blocks" */
	cr_expect_eq(p->total_bytes, 125340);
	cr_expect_eq(p->total_blocks, 446);
	cr_expect_eq(p->end_bytes, 23452);
	cr_expect_eq(p->end_blocks, 82);
	d_free(&d);
	dhat_profile__free(p);
}

Test(export_pprof, empty_and_big_profiles)
{
	struct dhat_profile *p = ex_load("empty.json");
	static struct d_prof d; /* large: not on the stack */
	char path[4096];

	export_and_decode(p, "empty.pb.gz", &d, path, sizeof(path));
	cr_expect_eq(d.sample_cnt, 0);
	d_free(&d);
	dhat_profile__free(p);

	p = ex_load("big.json");
	export_and_decode(p, "big.pb.gz", &d, path, sizeof(path));
	d_free(&d);
	dhat_profile__free(p);
}

Test(export_pprof, gzip_holds_the_encoded_profile)
{
	struct dhat_profile *p = ex_load("odd.json");
	char path[4096];
	uint8_t *buf;
	size_t len, glen;
	char *g;

	snprintf(path, sizeof(path), "%s/odd-again.pb.gz", ex_artifacts());
	cr_assert_eq(export__pprof(p, path), 0);
	cr_assert_eq(export__pprof_encode(p, &buf, &len), 0);
	g = tu_slurp(path, &glen);
	cr_assert(g);
	cr_expect_eq(glen, len);
	cr_expect(!memcmp(g, buf, len));
	free(g);
	free(buf);
	cr_expect_lt(export__pprof(p, "/nonexistent-dir/x.pb.gz"), 0);
	dhat_profile__free(p);
}

/* --- go tool pprof ----------------------------------------------------------------------- */

/* The total in `go tool pprof -top` output: "... of 526B total" -> 526. */
static unsigned long long pprof_total(const char *out)
{
	const char *t = strstr(out, "% of ");

	cr_assert(t, "no total in go tool pprof output:\n%s", out);
	return strtoull(t + 5, NULL, 10);
}

/* The function of the first row of `go tool pprof -top` output (the last column of the line
 * after the "flat  flat%" header); a static buffer. */
static const char *pprof_first_row(const char *out)
{
	static char name[512];
	const char *h = strstr(out, "flat%"), *l, *e, *c;

	cr_assert(h, "no table in go tool pprof output:\n%s", out);
	l = strchr(h, '\n');
	cr_assert(l && l[1], "no rows:\n%s", out);
	l++;
	e = strchr(l, '\n');
	e = e ? e : l + strlen(l);
	/* columns: flat flat% sum% cum cum% NAME...; NAME may hold spaces */
	c = l;
	for (int col = 0; col < 5; col++) {
		while (c < e && *c == ' ')
			c++;
		while (c < e && *c != ' ')
			c++;
	}
	while (c < e && *c == ' ')
		c++;
	snprintf(name, sizeof(name), "%.*s", (int)(e - c), c);
	return name;
}

/* An allocator entry point, as pprof would print it (" (inline)" may follow). */
static bool is_allocator(const char *fn)
{
	static const char *const alloc[] = {"malloc",	     "calloc",	     "realloc",
					    "free",	     "operator new", "_Znwm",
					    "__libc_malloc", "_int_malloc",  "reallocarray"};

	for (size_t i = 0; i < sizeof(alloc) / sizeof(alloc[0]); i++)
		if (!strncmp(fn, alloc[i], strlen(alloc[i])) &&
		    (!fn[strlen(alloc[i])] || strchr(" (", fn[strlen(alloc[i])])))
			return true;
	return false;
}

/* go tool pprof -top -sample_index=INDEX on path, every node shown (with plumbing left out
 * the leaves are many small functions, none may be dropped for being small): its output
 * (exit 0 asserted). -unit=B: exact bytes, not "1.21GB"; HOME/GOCACHE: pprof may want to
 * write there. */
static char *go_top(const char *path, const char *index)
{
	char cmd[8192];
	char *out;
	int st;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && HOME='%s' GOCACHE='%s/gocache' go tool pprof -top -unit=B "
		 "-nodefraction=0 -nodecount=100000 -sample_index=%s '%s' 2>&1",
		 ex_artifacts(), ex_artifacts(), ex_artifacts(), index, path);
	out = ex_run(cmd, &st);
	cr_assert(out && st == 0, "%s: exit %d\n%s", cmd, st, out ? out : "");
	return out;
}

/* `go tool pprof -top -sample_index=index` on path totals want (of what, for messages). */
static void go_total_is(const char *path, const char *fixture, const char *index, uint64_t want,
			const char *what)
{
	char type[64];
	char *out = go_top(path, index);

	snprintf(type, sizeof(type), "Type: %s", index);
	fprintf(stderr, "[export] %s: go tool pprof %s total %llu, %s %" PRIu64 "\n", fixture,
		index, pprof_total(out), what, want);
	cr_expect_eq(pprof_total(out), want, "%s: pprof %s total %llu != %s %" PRIu64, fixture,
		     index, pprof_total(out), what, want);
	cr_expect(strstr(out, type), "%s", out);
	cr_expect_null(strstr(out, "symbolization failed"), "%s", out);
	/* every sample has a node: "accounting for X, 100%" */
	cr_expect(strstr(out, ", 100% of "), "%s", out);
	free(out);
}

static void go_pprof_check(const char *fixture, const char *file)
{
	struct dhat_profile *p = ex_load(fixture);
	static struct d_prof d; /* large: not on the stack */
	char path[4096];

	export_and_decode(p, file, &d, path, sizeof(path));
	d_free(&d);
	go_total_is(path, fixture, "alloc_space", p->total_bytes, "Σtb");
	go_total_is(path, fixture, "alloc_objects", p->total_blocks, "Σtbk");
	/* The peak as its own sample type: it sums to the DHAT peak (Σgb). */
	if (p->gmax_bytes)
		go_total_is(path, fixture, "gmax_space", p->gmax_bytes, "Σgb");
	dhat_profile__free(p);
}

/* `go tool pprof -top` on path ranks a function of the program first, not an allocator,
 * by alloc_space and by the default (inuse_space) and gmax_space where they have data. */
static void go_pprof_no_allocator_first(const char *path, const char *what)
{
	static const char *const idx[] = {"alloc_space", "alloc_objects", "gmax_space"};

	for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
		char *out = go_top(path, idx[i]);
		const char *first = pprof_first_row(out);

		fprintf(stderr, "[export] %s: go tool pprof -top -sample_index=%s: first row %s\n",
			what, idx[i], first);
		cr_expect(!is_allocator(first), "%s, %s: allocator %s ranked first:\n%s", what,
			  idx[i], first, out);
		free(out);
	}
}

Test(export_pprof, go_tool_pprof_top_is_not_an_allocator)
{
	/* A file our DHAT writer wrote (its golden output), and Valgrind's prog.c file. */
	static const char *const files[][2] = {
	    {TESTS_SRC_DIR "/data/writer_prog_c.golden.json", "writer-prog-c.pb.gz"},
	    {EX_DATA "/prog.json", "prog-top.pb.gz"}};

	if (!ex_have("go")) {
		cr_assert(!ex_ci(), "CI=true: `go` is required (Debian golang-go)");
		cr_skip("go not installed: `go tool pprof` check skipped (apt-get install "
			"golang-go)");
	}
	for (size_t i = 0; i < 2; i++) {
		char err[512], path[4096];
		struct dhat_profile *p = dhat_profile__load(files[i][0], err, sizeof(err));
		char *out;

		cr_assert(p, "%s", err);
		snprintf(path, sizeof(path), "%s/%s", ex_artifacts(), files[i][1]);
		cr_assert_eq(export__pprof(p, path), 0);
		go_pprof_no_allocator_first(path, files[i][1]);
		/* --keep-plumbing really keeps it: then the allocator IS first by alloc_space,
		 * which is what the default is there to prevent. */
		snprintf(path, sizeof(path), "%s/keep-%s", ex_artifacts(), files[i][1]);
		cr_assert_eq(export__to_path(p, EXPORT_FMT_PPROF, path, &KEEP), 0);
		out = go_top(path, "alloc_space");
		cr_expect(is_allocator(pprof_first_row(out)), "kept plumbing, first row %s:\n%s",
			  pprof_first_row(out), out);
		free(out);
		dhat_profile__free(p);
	}
}

Test(export_pprof, go_tool_pprof_totals)
{
	if (!ex_have("go")) {
		cr_assert(!ex_ci(),
			  "CI=true: `go` is required (Debian golang-go) to check the pprof "
			  "files with go tool pprof");
		cr_skip("go not installed: `go tool pprof` check skipped (apt-get install "
			"golang-go)");
	}
	go_pprof_check("prog.json", "prog-go.pb.gz");
	go_pprof_check("odd.json", "odd-go.pb.gz");
	go_pprof_check("big.json", "big-go.pb.gz");
	/* real Valgrind 3.19 output: `valgrind --tool=dhat ls -la /usr/lib` */
	go_pprof_check("valgrind_ls.json", "valgrind_ls-go.pb.gz");
}

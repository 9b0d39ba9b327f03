// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * diff - two DHAT files, matched by cleaned frame text (see diff.h).
 *
 * Text layout (numbers with thousands separators, changes signed), from diff_unit's golden
 * file of two Valgrind runs (tests/data/report/diff_vg.golden.txt):
 *
 *	<blank line>
 *	==============================================================
 *	  diff  vg_1.json  ->  vg_2.json
 *	--------------------------------------------------------------
 *	  old: heap, 4 program points, cmd ./dhat_vg_diff_prog 1
 *	  new: heap, 4 program points, cmd ./dhat_vg_diff_prog 2
 *	  [note: the files count different things (...)     when verb/bsu/bksu differ]
 *
 *	                                 old             new      change
 *	  total allocations :              7              10          +3 (+42.9%)
 *	  total bytes       :            976           1,872        +896 (+91.8%)
 *	  peak live bytes   :            812           1,544        +732 (+90.1%)   (both bklt)
 *	  end live bytes    :             32           1,064      +1,032 (+3225.0%) (both bklt)
 *
 *	  program points by change in BYTES: 4 changed (1 added, 1 removed), 1 unchanged
 *	           bytes      allocs      peak B       end B   site
 *	          +1,000          +1      +1,000      +1,000   only_twice (..:57)  <-  main (..:74)
 *[added] -500          -1        -500           0   only_once (..:52)  <-  main (..:72)  [removed]
 *	            +300           0        +200           0   grow (..:30)  <-  main (..:69)
 *	  [    ... N more (--top N)]
 *
 * Only changed stacks are listed (a change in tb, tbk, gb or eb), largest absolute change
 * of the sort metric first; ties by |Δbytes|, |Δblocks|, then site text.
 */
#include "diff.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dhat_reader.h"
#include "dhat_sampled.h"
#include "json_writer.h"
#include "parse_num.h"
#include "safe_text.h"
#include "site.h"
#include "strtab.h"
#include "units.h"

#define DEFAULT_TOP 12
#define KEY_SEP	    DIFF_KEY_SEP

/* ---- matching ------------------------------------------------------------------------- */

/* Whether s[0..n) is a location suffix's inside: "in OBJ" or "FILE:LINE[:COL]". */
static bool is_location(const char *s, size_t n)
{
	size_t i = n, groups = 0;

	if (n > 3 && !strncmp(s, "in ", 3))
		return true;
	/* from the end: ":LINE", then maybe ":COL" before it */
	while (groups < 2) {
		size_t end = i;

		while (i && isdigit((unsigned char)s[i - 1]))
			i--;
		if (i == end || i < 2 || s[i - 1] != ':') {
			i = end;
			break;
		}
		i--;
		groups++;
	}
	return groups && i;
}

/* The part of a cleaned frame that --match function compares, into *len bytes of f:
 * "fn (file:line)" and "fn (in /obj)" give "fn"; "??? (in /lib/libc.so.6)" keeps its
 * object, by basename (producers name one library by different paths). The suffix is the
 * last " (...)" that is a location, so "f(int) const" stays whole. */
static const char *function_of(const char *f, size_t *len, bool *unnamed_obj)
{
	size_t n = strlen(f);
	const char *open;

	*unnamed_obj = false;
	*len = n;
	if (n < 4 || f[n - 1] != ')')
		return f;
	for (open = f + n - 2; open > f && !(open[0] == '(' && open[-1] == ' '); open--)
		;
	if (open <= f || !is_location(open + 1, (size_t)(f + n - 1 - (open + 1))))
		return f;
	if ((size_t)(open - 1 - f) == 3 && !strncmp(f, "???", 3) && !strncmp(open + 1, "in ", 3)) {
		const char *obj = open + 4, *slash = memrchr(obj, '/', (size_t)(f + n - obj));

		*unnamed_obj = true;
		obj = slash ? slash + 1 : obj;
		*len = (size_t)(f + n - 1 - obj);
		return obj;
	}
	*len = (size_t)(open - 1 - f);
	return f;
}

/* Frame i of pp as compared (match) or shown (full): appended to w, returns the new end. */
static char *put_frame(char *w, const struct dhat_profile *p, const struct dhat_pp *pp, size_t i,
		       enum diff_match match, bool full)
{
	const char *f = site__clean_frame(dhat_profile__pp_frame(p, pp, i));
	size_t n = strlen(f);
	bool obj;

	if (!full && match == DIFF_MATCH_FUNCTION) {
		f = function_of(f, &n, &obj);
		if (obj) {
			memcpy(w, "??? (in ", 8);
			w += 8;
			memcpy(w, f, n);
			w += n;
			*w++ = ')';
			return w;
		}
	}
	memcpy(w, f, n);
	return w + n;
}

/* The key of a PP (full: its shown frames): its first depth frames (0: all) joined by
 * KEY_SEP. */
static char *key_of(const struct dhat_profile *p, const struct dhat_pp *pp, enum diff_match match,
		    size_t depth, bool full)
{
	size_t len = 1, cnt = depth && depth < pp->fs_cnt ? depth : pp->fs_cnt;
	char *k, *w;

	for (size_t i = 0; i < cnt; i++)
		len += strlen(site__clean_frame(dhat_profile__pp_frame(p, pp, i))) + 10;
	k = w = malloc(len);
	if (!k)
		return NULL;
	for (size_t i = 0; i < cnt; i++) {
		if (i)
			*w++ = KEY_SEP;
		w = put_frame(w, p, pp, i, match, full);
	}
	*w = '\0';
	return k;
}

/* Split a key back into frames (pointers into the copy *buf, which the caller frees). */
static const char **frames_of(const char *key, char **buf, size_t *cnt)
{
	size_t n = *key ? 1 : 0;
	const char **f;
	char *c;

	for (const char *s = key; *s; s++)
		n += *s == KEY_SEP;
	*buf = strdup(key);
	f = malloc((n ? n : 1) * sizeof(*f));
	if (!*buf || !f) {
		free(*buf);
		free(f);
		*buf = NULL;
		return NULL;
	}
	*cnt = n;
	for (size_t i = 0, j = 0; j < n; j++) {
		f[j] = *buf + i;
		c = strchr(*buf + i, KEY_SEP);
		if (c) {
			*c = '\0';
			i = (size_t)(c - *buf) + 1;
		}
	}
	return f;
}

static void side_add(struct diff_side *s, const struct dhat_profile *p, const struct dhat_pp *pp)
{
	struct dhat_pp_est se = dhat_profile__pp_est(p, pp);

	s->tb_var += se.tb_se * se.tb_se;
	s->tbk_var += se.tbk_se * se.tbk_se;
	s->tb += pp->tb;
	s->tbk += pp->tbk;
	s->tl += pp->tl;
	s->gb += pp->gb;
	s->gbk += pp->gbk;
	s->eb += pp->eb;
	s->ebk += pp->ebk;
	s->pp_cnt++;
}

/* Add every PP of p to d's rows, on the old or the new side. Row i has key d->keys->strs[i]:
 * a key seen first makes a new row. Each side keeps its PP of most bytes to show. */
static int add_profile(struct diff *d, const struct dhat_profile *p, bool is_new)
{
	for (size_t k = 0; k < p->pp_cnt; k++) {
		char *key = key_of(p, &p->pps[k], d->match, d->depth, false);
		struct diff_side *side;
		struct diff_row *r;
		size_t *rep;
		int64_t i;

		if (!key)
			return -ENOMEM;
		i = strtab__intern_str(d->keys, key);
		free(key);
		if (i < 0)
			return (int)i;
		r = &d->rows[i];
		if ((size_t)i == d->row_cnt) {
			memset(r, 0, sizeof(*r));
			r->key = d->keys->strs[i];
			d->row_cnt++;
		}
		side = is_new ? &r->new : &r->old;
		rep = is_new ? &r->new_rep : &r->old_rep;
		if (!*rep || p->pps[k].tb > p->pps[*rep - 1].tb)
			*rep = k + 1;
		side_add(side, p, &p->pps[k]);
	}
	return 0;
}

/* Frame i as shown: NEW's text (its lines are the current ones). Under --match function a
 * row may pair an old line with a moved or new call site of the same function; then both
 * lines are shown, "f (a.c:10 -> a.c:12)", so a call site folded into an old row is not
 * taken for the old one. */
static char *put_shown_frame(char *w, const struct diff *d, const struct diff_row *r, size_t i)
{
	const char *fo, *fn, *lo, *ln;
	size_t no, nn, co, cn;
	bool obj_o, obj_n;

	if (!r->new_rep)
		return put_frame(w, d->old, &d->old->pps[r->old_rep - 1], i, d->match, true);
	if (!r->old_rep || d->match != DIFF_MATCH_FUNCTION)
		return put_frame(w, d->new, &d->new->pps[r->new_rep - 1], i, d->match, true);
	fo = site__clean_frame(dhat_profile__pp_frame(d->old, &d->old->pps[r->old_rep - 1], i));
	fn = site__clean_frame(dhat_profile__pp_frame(d->new, &d->new->pps[r->new_rep - 1], i));
	no = strlen(fo);
	nn = strlen(fn);
	function_of(fo, &co, &obj_o);
	function_of(fn, &cn, &obj_n);
	/* both "fn (LOC)", the same fn, two locations: "fn (OLD -> NEW)" */
	if (strcmp(fo, fn) && !obj_o && !obj_n && co + 3 < no && cn + 3 < nn && co == cn &&
	    !strncmp(fo, fn, cn)) {
		lo = fo + co + 2;
		ln = fn + cn + 2;
		w += sprintf(w, "%.*s (%.*s -> %.*s)", (int)cn, fn, (int)(fo + no - 1 - lo), lo,
			     (int)(fn + nn - 1 - ln), ln);
		return w;
	}
	memcpy(w, fn, nn);
	return w + nn;
}

/* Row r's shown frames (diff_row.frames), joined by KEY_SEP. */
static char *row_frames(const struct diff *d, const struct diff_row *r)
{
	const struct dhat_profile *p = r->new_rep ? d->new : d->old;
	const struct dhat_pp *pp = &p->pps[(r->new_rep ? r->new_rep : r->old_rep) - 1];
	const struct dhat_pp *po = r->old_rep ? &d->old->pps[r->old_rep - 1] : NULL;
	size_t len = 1, cnt = d->depth && d->depth < pp->fs_cnt ? d->depth : pp->fs_cnt;
	char *k, *w;

	for (size_t i = 0; i < cnt; i++) {
		len += strlen(site__clean_frame(dhat_profile__pp_frame(p, pp, i))) + 16;
		if (po && i < po->fs_cnt)
			len += strlen(site__clean_frame(dhat_profile__pp_frame(d->old, po, i)));
	}
	k = w = malloc(len);
	if (!k)
		return NULL;
	for (size_t i = 0; i < cnt; i++) {
		if (i)
			*w++ = KEY_SEP;
		w = put_shown_frame(w, d, r, i);
	}
	*w = '\0';
	return k;
}

/* The producer of a file, from its mode: "ebpf-heap" us, "rust-heap" dhat-rs, Valgrind. */
static int producer(const struct dhat_profile *p)
{
	const char *m = p->mode ? p->mode : "";

	return !strncmp(m, "ebpf-", 5) ? 1 : !strncmp(m, "rust-", 5) ? 2 : 0;
}

static size_t max_depth(const struct dhat_profile *p)
{
	size_t m = 0;

	for (size_t i = 0; i < p->pp_cnt; i++)
		m = p->pps[i].fs_cnt > m ? p->pps[i].fs_cnt : m;
	return m;
}

size_t diff__default_depth(const struct dhat_profile *old, const struct dhat_profile *new)
{
	size_t a = max_depth(old), b = max_depth(new);

	if (producer(old) == producer(new))
		return 0;
	return a < b ? a : b;
}

static void diff_status(struct diff *d, struct diff_row *r)
{
	if (!r->old.pp_cnt) {
		r->status = DIFF_ADDED;
		d->added_cnt++;
	} else if (!r->new.pp_cnt) {
		r->status = DIFF_REMOVED;
		d->removed_cnt++;
	} else if (r->old.tb != r->new.tb || r->old.tbk != r->new.tbk || r->old.gb != r->new.gb ||
		   r->old.eb != r->new.eb) {
		r->status = DIFF_CHANGED;
		d->changed_cnt++;
	} else {
		r->status = DIFF_UNCHANGED;
		d->unchanged_cnt++;
	}
}

/* A row's frames, split out of its key text while the rows are named. */
struct row_frames {
	const char **f;
	size_t cnt;
	char *buf;
};

static const char *row_frame_at(const void *ctx, const void *item, size_t i)
{
	(void)ctx;
	return ((const struct row_frames *)item)->f[i];
}

static size_t row_frame_cnt(const void *ctx, const void *item)
{
	(void)ctx;
	return ((const struct row_frames *)item)->cnt;
}

/* Every row's site text, as the report names its rows (site.h): rows that share a site get
 * the frame that tells them apart. Returns 0 or -ENOMEM. */
static int name_rows(struct diff *d, const struct site_opts *opts)
{
	const struct site_frames src = {.at = row_frame_at, .cnt = row_frame_cnt};
	size_t n = d->row_cnt;
	struct row_frames *rf = calloc(n ? n : 1, sizeof(*rf));
	struct site_row *sr = calloc(n ? n : 1, sizeof(*sr));
	struct site_row **o = calloc(n ? n : 1, sizeof(*o));
	struct site_names *names = site_names__new();
	int err = rf && sr && o && names ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && !err; i++) {
		const struct diff_row *r = &d->rows[i];

		rf[i].f = frames_of(r->frames, &rf[i].buf, &rf[i].cnt);
		if (!rf[i].f)
			err = -ENOMEM;
		/* rows that read the same are numbered by their bytes in both files */
		sr[i] = (struct site_row){.item = &rf[i], .tb = r->old.tb + r->new.tb,
					  .tbk = r->old.tbk + r->new.tbk};
		o[i] = &sr[i];
	}
	if (!err)
		err = site_names__name(names, o, n, &src, opts);
	for (size_t i = 0; i < n && !err; i++)
		if (!(d->rows[i].site = site_row__text(&sr[i], true)))
			err = -ENOMEM;
	for (size_t i = 0; rf && i < n; i++) {
		free(rf[i].f);
		free(rf[i].buf);
	}
	site_names__free(names);
	free(o);
	free(sr);
	free(rf);
	return err;
}

struct diff *diff__new(const struct dhat_profile *old, const struct dhat_profile *new,
		       const struct diff_opts *opts)
{
	const struct site_opts *site = opts ? opts->site : NULL;
	size_t n = old->pp_cnt + new->pp_cnt;
	struct diff *d;
	int err = -ENOMEM;

	d = calloc(1, sizeof(*d));
	if (!d)
		goto cleanup;
	d->old = old;
	d->new = new;
	d->match = opts ? opts->match : DIFF_MATCH_FUNCTION;
	d->depth = opts ? opts->depth : 0;
	if (!d->depth) {
		d->depth = diff__default_depth(old, new);
		d->depth_defaulted = d->depth != 0;
	}
	d->rows = calloc(n ? n : 1, sizeof(*d->rows));
	d->keys = strtab__new();
	if (!d->rows || !d->keys)
		goto cleanup;
	if ((err = add_profile(d, old, false)) || (err = add_profile(d, new, true)))
		goto cleanup;
	for (size_t i = 0; i < d->row_cnt; i++) {
		err = -ENOMEM;
		if (!(d->rows[i].frames = row_frames(d, &d->rows[i])))
			goto cleanup;
		err = 0;
	}
	for (size_t i = 0; i < d->row_cnt; i++)
		diff_status(d, &d->rows[i]);
	err = name_rows(d, site);
cleanup:
	if (err) {
		diff__free(d);
		errno = -err;
		return NULL;
	}
	return d;
}

void diff__free(struct diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->row_cnt; i++) {
		free(d->rows[i].site);
		free(d->rows[i].frames);
	}
	strtab__free(d->keys);
	free(d->rows);
	free(d);
}

/* Index of name in names[0..n), or -EINVAL. */
static int name_index(const char *name, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -EINVAL;
}

int diff__parse_sort(const char *name, enum diff_sort *out)
{
	static const char *const names[] = {"bytes", "blocks", "peak", "end"};
	int i = name_index(name, names, 4);

	*out = i < 0 ? *out : (enum diff_sort)i;
	return i < 0 ? i : 0;
}

int diff__parse_match(const char *name, enum diff_match *out)
{
	static const char *const names[] = {"function", "line"};
	int i = name_index(name, names, 2);

	*out = i < 0 ? *out : (enum diff_match)i;
	return i < 0 ? i : 0;
}

int diff__parse_format(const char *name, enum diff_format *out)
{
	static const char *const names[] = {"text", "json", "markdown", "svg"};
	int i = name_index(name, names, 4);

	*out = i < 0 ? *out : (enum diff_format)i;
	return i < 0 ? i : 0;
}

/* ---- ordering ------------------------------------------------------------------------- */

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static uint64_t metric_change(const struct diff_row *r, enum diff_sort s)
{
	switch (s) {
	case DIFF_SORT_BLOCKS:
		return absdiff(r->old.tbk, r->new.tbk);
	case DIFF_SORT_PEAK:
		return absdiff(r->old.gb, r->new.gb);
	case DIFF_SORT_END:
		return absdiff(r->old.eb, r->new.eb);
	default:
		return absdiff(r->old.tb, r->new.tb);
	}
}

static int cmp_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

/* ctx: the enum diff_sort */
static int cmp_rows(const void *x, const void *y, void *ctx)
{
	const struct diff_row *a = *(const struct diff_row *const *)x;
	const struct diff_row *b = *(const struct diff_row *const *)y;
	enum diff_sort s = *(const enum diff_sort *)ctx;
	int c = cmp_desc(metric_change(a, s), metric_change(b, s));

	if (!c)
		c = cmp_desc(absdiff(a->old.tb, a->new.tb), absdiff(b->old.tb, b->new.tb));
	if (!c)
		c = cmp_desc(absdiff(a->old.tbk, a->new.tbk), absdiff(b->old.tbk, b->new.tbk));
	if (!c)
		c = strcmp(a->site, b->site);
	return c ? c : strcmp(a->key, b->key);
}

/* The changed rows (added and removed included), in print order. */
static const struct diff_row **changed_rows(const struct diff *d, enum diff_sort s, size_t *n)
{
	const struct diff_row **o = malloc((d->row_cnt ? d->row_cnt : 1) * sizeof(*o));

	*n = 0;
	if (!o)
		return NULL;
	for (size_t i = 0; i < d->row_cnt; i++)
		if (d->rows[i].status != DIFF_UNCHANGED)
			o[(*n)++] = &d->rows[i];
	qsort_r(o, *n, sizeof(*o), cmp_rows, &s);
	return o;
}

/* ---- text ----------------------------------------------------------------------------- */

/* v with thousands separators: 1234567 -> "1,234,567". */
static char *fmt_u64(char *buf, size_t sz, uint64_t v)
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	size_t w = 0;

	for (int i = 0; i < n && w + 2 < sz; i++) {
		if (i && (n - i) % 3 == 0)
			buf[w++] = ',';
		buf[w++] = digits[i];
	}
	buf[w] = '\0';
	return buf;
}

/* new - old, signed, with separators: "+1,234", "-350", "0". */
static char *fmt_delta(char *buf, size_t sz, uint64_t old, uint64_t new)
{
	char mag[32];

	if (old == new)
		snprintf(buf, sz, "0");
	else
		snprintf(buf, sz, "%c%s", new > old ? '+' : '-',
			 fmt_u64(mag, sizeof(mag), absdiff(old, new)));
	return buf;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* " (+12.5%)", " (new)" from 0, or "" when unchanged. */
static char *fmt_pct(char *buf, size_t sz, uint64_t old, uint64_t new)
{
	*buf = '\0';
	if (old && old != new)
		snprintf(buf, sz, " (%+.1f%%)", ((double)new - (double)old) * 100.0 / (double)old);
	else if (!old && new)
		snprintf(buf, sz, " (new)");
	return buf;
}

static void total_line(FILE *out, const char *label, uint64_t old, uint64_t new)
{
	char o[32], n[32], dl[40], pct[32];

	fmt_pct(pct, sizeof(pct), old, new);
	fmt_delta(dl, sizeof(dl), old, new);
	fprintf(out, "  %-18s: %14s  %14s  %10s%s\n", label, fmt_u64(o, sizeof(o), old),
		fmt_u64(n, sizeof(n), new), dl, pct);
}

static bool allocs(const struct dhat_profile *p)
{
	return !p->bksu && (!p->verb || !strcmp(p->verb, "Allocated"));
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static const char *bytes_unit(const struct dhat_profile *p)
{
	return p->bsu ? p->bsu : "bytes";
}

static const char *blocks_unit(const struct dhat_profile *p)
{
	return p->bksu ? p->bksu : allocs(p) ? "allocs" : "blocks";
}

double diff_row__noise(const struct diff_row *r, enum diff_metric m)
{
	double var = m == DIFF_M_BYTES	  ? r->old.tb_var + r->new.tb_var
		     : m == DIFF_M_BLOCKS ? r->old.tbk_var + r->new.tbk_var
					  : 0;

	return DHAT_SAMPLED_Z95 * sqrt(var);
}

bool diff_row__within_noise(const struct diff_row *r)
{
	double noise = diff_row__noise(r, DIFF_M_BYTES);

	return noise > 0 && (double)absdiff(r->old.tb, r->new.tb) <= noise;
}

/* "added", "removed", "within noise", "added, within noise" or "" (buf: 32 bytes). */
static const char *status_tag(const struct diff_row *r, char *buf, size_t sz)
{
	const char *s = r->status == DIFF_ADDED	    ? "added"
			: r->status == DIFF_REMOVED ? "removed"
						    : "";
	bool noise = diff_row__within_noise(r);

	snprintf(buf, sz, "%s%s%s", s, *s && noise ? ", " : "", noise ? "within noise" : "");
	return buf;
}

/* The total lines, each by line(out, label, old, new): blocks, bytes, and with both files'
 * block lifetimes, peak and end bytes. */
static void totals(FILE *out, const struct diff *d,
		   void (*line)(FILE *, const char *, uint64_t, uint64_t))
{
	const struct dhat_profile *o = d->old, *n = d->new;
	char label[64];

	snprintf(label, sizeof(label), "total %s", allocs(n) ? "allocations" : blocks_unit(n));
	line(out, label, o->total_blocks, n->total_blocks);
	snprintf(label, sizeof(label), "total %s", bytes_unit(n));
	line(out, label, o->total_bytes, n->total_bytes);
	if (o->bklt && n->bklt) {
		line(out, "peak live bytes", o->gmax_bytes, n->gmax_bytes);
		line(out, "end live bytes", o->end_bytes, n->end_bytes);
	}
}

/* A row's changes of bytes, blocks, peak and end bytes, as text ("+1,234", "0"). */
static void row_deltas(const struct diff_row *r, char cell[4][40])
{
	fmt_delta(cell[0], sizeof(cell[0]), r->old.tb, r->new.tb);
	fmt_delta(cell[1], sizeof(cell[1]), r->old.tbk, r->new.tbk);
	fmt_delta(cell[2], sizeof(cell[2]), r->old.gb, r->new.gb);
	fmt_delta(cell[3], sizeof(cell[3]), r->old.eb, r->new.eb);
}

/* What the rows were matched on, when it is not the default: a line for the text and the
 * Markdown header, into buf ("" if nothing to say). */
static char *matching_note(char *buf, size_t sz, const struct diff *d)
{
	int n = 0;

	*buf = '\0';
	if (d->match == DIFF_MATCH_LINE)
		n = snprintf(buf, sz, "stacks matched by function and file:line");
	if (d->depth && n >= 0 && (size_t)n < sz)
		snprintf(buf + n, sz - (size_t)n, "%sstacks cut to their %zu innermost frames%s",
			 n ? "; " : "", d->depth,
			 d->depth_defaulted ? " (the shallower file's depth: the files come from "
					      "different producers; --depth N to change)"
					    : "");
	return buf;
}

static double total_noise(const struct diff *d, enum diff_metric m);

/* x >= 0 rounded, saturated (a crafted file's standard errors can be any size). */
static uint64_t u64_of(double x)
{
	return !(x > 0) ? 0 : x >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)(x + 0.5);
}

/* With standard errors on a side (sampled): how much the totals may move by sampling alone,
 * into buf ("" otherwise). */
static char *noise_note(char *buf, size_t sz, const struct diff *d)
{
	double nb = total_noise(d, DIFF_M_BYTES), nk = total_noise(d, DIFF_M_BLOCKS);
	char b[32], k[32];

	buf[0] = '\0';
	if (nb <= 0 && nk <= 0)
		return buf;
	snprintf(buf, sz,
		 "sampling noise (95%%) of a change: total bytes \xc2\xb1%s, total blocks "
		 "\xc2\xb1%s; \"within noise\": a site's bytes changed by no more than theirs",
		 fmt_u64(b, sizeof(b), u64_of(nb)), fmt_u64(k, sizeof(k), u64_of(nk)));
	return buf;
}

/* A sampled side's figures are estimates (dhat_sampled.h): one note per such side, in the
 * printf format fmt taking the side ("old", "new") and the label. */
static void sampled_notes(FILE *out, const struct diff *d, const char *fmt)
{
	const struct dhat_profile *side[2] = { d->old, d->new };
	char label[128];

	for (int i = 0; i < 2; i++) {
		if (!side[i]->sample_bytes)
			continue;
		dhat_sampled__label(side[i]->sample_bytes, label, sizeof(label));
		fprintf(out, fmt, i ? "new" : "old", label);
	}
}

static int print_text(FILE *out, const struct diff *d, const struct diff_opts *opts)
{
	static const char *const sort_hdr[] = {"BYTES", "BLOCKS", "PEAK BYTES", "END BYTES"};
	const struct dhat_profile *o = d->old, *n = d->new;
	size_t top = opts && opts->top ? opts->top : DEFAULT_TOP, cnt;
	enum diff_sort s = opts ? opts->sort : DIFF_SORT_BYTES;
	bool lt = o->bklt && n->bklt;
	const char *bu = bytes_unit(n), *bk = blocks_unit(n);
	const struct diff_row **rows = changed_rows(d, s, &cnt);
	char cell[4][40], note[256], tag[32];

	if (!rows)
		return -ENOMEM;
	fputs("\n==============================================================\n", out);
	fprintf(out, "  diff  %s  ->  %s\n", base_name(o->path), base_name(n->path));
	fputs("--------------------------------------------------------------\n", out);
	/* mode, cmd and sites come from the files (the target): terminal-safe (safe_text.h). */
	fputs("  old: ", out);
	safe_text__fputs_term(out, o->mode);
	fprintf(out, ", %zu program points, cmd ", o->pp_cnt);
	safe_text__fputs_term(out, o->cmd);
	fputs("\n  new: ", out);
	safe_text__fputs_term(out, n->mode);
	fprintf(out, ", %zu program points, cmd ", n->pp_cnt);
	safe_text__fputs_term(out, n->cmd);
	fputc('\n', out);
	if (!same_str(o->bsu, n->bsu) || !same_str(o->bksu, n->bksu) || !same_str(o->verb, n->verb))
		fprintf(out, "  note: the files count different things (%s: \"%s\", %s: \"%s\")\n",
			o->mode, o->verb, n->mode, n->verb);
	if (*matching_note(note, sizeof(note), d))
		fprintf(out, "  note: %s\n", note);
	sampled_notes(out, d, "  note: %s: %s\n");
	if (*noise_note(note, sizeof(note), d))
		fprintf(out, "  note: %s\n", note);
	fprintf(out, "\n  %-18s  %14s  %14s  %10s\n", "", "old", "new", "change");
	totals(out, d, total_line);

	fprintf(out,
		"\n  program points by change in %s: %zu changed (%zu added, %zu removed), "
		"%zu unchanged\n",
		s < 4 ? sort_hdr[s] : "?", cnt, d->added_cnt, d->removed_cnt, d->unchanged_cnt);
	if (cnt) {
		fprintf(out, "    %12s  %10s", bu, bk);
		if (lt)
			fprintf(out, "  %10s  %10s", "peak B", "end B");
		fputs("   site\n", out);
	}
	for (size_t i = 0; i < cnt && i < top; i++) {
		const struct diff_row *r = rows[i];

		row_deltas(r, cell);
		fprintf(out, "    %12s  %10s", cell[0], cell[1]);
		if (lt)
			fprintf(out, "  %10s  %10s", cell[2], cell[3]);
		fputs("   ", out);
		safe_text__fputs_term(out, r->site);
		status_tag(r, tag, sizeof(tag));
		fprintf(out, "%s%s%s\n", *tag ? "  [" : "", tag, *tag ? "]" : "");
	}
	if (cnt > top)
		fprintf(out, "    ... %zu more (--top N)\n", cnt - top);
	free(rows);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

/* ---- Markdown ------------------------------------------------------------------------- */

/* s as a Markdown code span inside a table cell: '|' escaped (GitHub splits cells on it even
 * in code), a longer fence when s holds a backtick. */
static void md_code(FILE *out, const char *s)
{
	bool tick = strchr(s, '`');

	fputs(tick ? "`` " : "`", out);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s == '\n' ? ' ' : *s, out);
	}
	fputs(tick ? " ``" : "`", out);
}

static void md_total(FILE *out, const char *label, uint64_t old, uint64_t new)
{
	char o[32], n[32], dl[40], pct[32];

	fprintf(out, "| %s | %s | %s | %s%s |\n", label, fmt_u64(o, sizeof(o), old),
		fmt_u64(n, sizeof(n), new), fmt_delta(dl, sizeof(dl), old, new),
		fmt_pct(pct, sizeof(pct), old, new));
}

/*
 * GitHub-flavoured Markdown, to paste into a pull request:
 *	### Heap profile diff: `vg_1.json` → `vg_2.json`
 *	| | old | new | change |			(totals, as the text)
 *	**Program points by change in bytes:** 4 changed (1 added, 1 removed), 1 unchanged
 *	| bytes | allocs | peak B | end B | site | |	(top rows, as the text)
 */
static int print_markdown(FILE *out, const struct diff *d, const struct diff_opts *opts)
{
	static const char *const sort_hdr[] = {"bytes", "blocks", "peak bytes", "end bytes"};
	const struct dhat_profile *o = d->old, *n = d->new;
	size_t top = opts && opts->top ? opts->top : DEFAULT_TOP, cnt;
	enum diff_sort s = opts ? opts->sort : DIFF_SORT_BYTES;
	bool lt = o->bklt && n->bklt;
	const struct diff_row **rows = changed_rows(d, s, &cnt);
	char cell[4][40], note[256], tag[32];

	if (!rows)
		return -ENOMEM;
	fputs("### Heap profile diff: ", out);
	md_code(out, base_name(o->path));
	fputs(" \xe2\x86\x92 ", out);
	md_code(out, base_name(n->path));
	fputs("\n\n", out);
	if (*matching_note(note, sizeof(note), d))
		fprintf(out, "_Note: %s._\n\n", note);
	sampled_notes(out, d, "_Note: %s: %s._\n\n");
	if (*noise_note(note, sizeof(note), d))
		fprintf(out, "_Note: %s._\n\n", note);
	fputs("| | old | new | change |\n|---|--:|--:|--:|\n", out);
	totals(out, d, md_total);
	fprintf(out,
		"\n**Program points by change in %s:** %zu changed (%zu added, %zu removed), "
		"%zu unchanged\n",
		s < 4 ? sort_hdr[s] : "?", cnt, d->added_cnt, d->removed_cnt, d->unchanged_cnt);
	if (cnt) {
		fprintf(out, "\n| %s | %s |%s site | |\n|--:|--:|%s---|---|\n", bytes_unit(n),
			blocks_unit(n), lt ? " peak B | end B |" : "", lt ? "--:|--:|" : "");
	}
	for (size_t i = 0; i < cnt && i < top; i++) {
		const struct diff_row *r = rows[i];

		row_deltas(r, cell);
		fprintf(out, "| %s | %s |", cell[0], cell[1]);
		if (lt)
			fprintf(out, " %s | %s |", cell[2], cell[3]);
		fputc(' ', out);
		md_code(out, r->site);
		fprintf(out, " | %s |\n", status_tag(r, tag, sizeof(tag)));
	}
	if (cnt > top)
		fprintf(out, "\n_\xe2\x80\xa6 %zu more (`--top N`)_\n", cnt - top);
	free(rows);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

/* ---- JSON ----------------------------------------------------------------------------- */

/* new - old as an exact signed integer. */
static void json_delta(struct json_writer *jw, const char *key, uint64_t old, uint64_t new)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%s%llu", new < old ? "-" : "",
		 (unsigned long long)absdiff(old, new));
	json_writer__raw(jw, key, buf);
}

/* {"old": o, "new": n, "delta": n - o} */
static void json_triple(struct json_writer *jw, const char *key, uint64_t o, uint64_t n)
{
	json_writer__begin_object(jw, key);
	json_writer__uint(jw, "old", o);
	json_writer__uint(jw, "new", n);
	json_delta(jw, "delta", o, n);
	json_writer__end_object(jw);
}

static void json_file(struct json_writer *jw, const char *key, const struct dhat_profile *p)
{
	json_writer__begin_object(jw, key);
	json_writer__string(jw, "file", p->path);
	json_writer__string(jw, "mode", p->mode);
	json_writer__string(jw, "cmd", p->cmd);
	json_writer__uint(jw, "pp_count", p->pp_cnt);
	json_writer__bool(jw, "bklt", p->bklt);
	if (p->sample_bytes) /* its figures are estimates (dhat_sampled.h) */
		json_writer__uint(jw, "sampleBytes", p->sample_bytes);
	json_writer__end_object(jw);
}

static void json_side(struct json_writer *jw, const char *key, const struct diff_side *s, bool lt)
{
	json_writer__begin_object(jw, key);
	json_writer__uint(jw, "pps", s->pp_cnt);
	json_writer__uint(jw, "tb", s->tb);
	json_writer__uint(jw, "tbk", s->tbk);
	if (lt) {
		json_writer__uint(jw, "tl", s->tl);
		json_writer__uint(jw, "gb", s->gb);
		json_writer__uint(jw, "gbk", s->gbk);
		json_writer__uint(jw, "eb", s->eb);
		json_writer__uint(jw, "ebk", s->ebk);
	}
	json_writer__end_object(jw);
}

static int json_row(struct json_writer *jw, const struct diff_row *r, bool lt)
{
	static const char *const status[] = {"unchanged", "changed", "added", "removed"};
	const char **frames;
	char *buf = NULL;
	size_t cnt = 0;

	frames = frames_of(r->frames, &buf, &cnt);
	if (!frames)
		return -ENOMEM;
	json_writer__begin_object(jw, NULL);
	json_writer__string(jw, "status", status[r->status]);
	if (diff_row__noise(r, DIFF_M_BYTES) > 0 || diff_row__noise(r, DIFF_M_BLOCKS) > 0) {
		/* sampled: the 95% noise of the changes, and whether tb's is within it */
		json_writer__begin_object(jw, "noise");
		json_writer__uint(jw, "tb", u64_of(diff_row__noise(r, DIFF_M_BYTES)));
		json_writer__uint(jw, "tbk", u64_of(diff_row__noise(r, DIFF_M_BLOCKS)));
		json_writer__end_object(jw);
		json_writer__bool(jw, "withinNoise", diff_row__within_noise(r));
	}
	json_writer__string(jw, "site", r->site);
	json_writer__begin_array(jw, "frames");
	for (size_t i = 0; i < cnt; i++)
		json_writer__string(jw, NULL, frames[i]);
	json_writer__end_array(jw);
	json_side(jw, "old", &r->old, lt);
	json_side(jw, "new", &r->new, lt);
	json_writer__begin_object(jw, "delta");
	json_delta(jw, "tb", r->old.tb, r->new.tb);
	json_delta(jw, "tbk", r->old.tbk, r->new.tbk);
	if (lt) {
		json_delta(jw, "gb", r->old.gb, r->new.gb);
		json_delta(jw, "eb", r->old.eb, r->new.eb);
	}
	json_writer__end_object(jw);
	json_writer__end_object(jw);
	free(frames);
	free(buf);
	return 0;
}

/*
 * {"old": {"file", "mode", "cmd", "pp_count", "bklt"}, "new": {...},
 *  "totals": {"blocks": {"old", "new", "delta"}, "bytes": {...},
 *             "peak_bytes", "peak_blocks", "end_bytes", "end_blocks"  (both bklt)},
 *  "sort": "bytes", "match": "function"|"line", "depth": N (0: whole stacks),
 *  "changed": N, "added": N, "removed": N, "unchanged": N,
 *  "rows": [{"status": "changed"|"added"|"removed", "site", "frames": [...],
 *            "noise": {"tb", "tbk"}, "withinNoise": bool  (a side sampled: 95% noise),
 *            "old": {"pps", "tb", "tbk", "tl", "gb", "gbk", "eb", "ebk"}, "new": {...},
 *            "delta": {"tb", "tbk", "gb", "eb"}}]}
 * "changed" counts every listed row (added and removed included). Laid out as cJSON_Print
 * did (JSON_WRITER_PRETTY), rows streamed one at a time.
 */
static int print_json(FILE *out, const struct diff *d, const struct diff_opts *opts)
{
	static const char *const sort_names[] = {"bytes", "blocks", "peak", "end"};
	const struct dhat_profile *o = d->old, *n = d->new;
	enum diff_sort s = opts ? opts->sort : DIFF_SORT_BYTES;
	bool lt = o->bklt && n->bklt;
	const struct diff_row **rows = NULL;
	struct json_writer *jw = NULL;
	size_t cnt = 0, shown;
	int err = -ENOMEM;

	rows = changed_rows(d, s, &cnt);
	jw = json_writer__new(out, JSON_WRITER_PRETTY);
	if (!rows || !jw)
		goto cleanup;
	shown = opts && opts->top && opts->top < cnt ? opts->top : cnt;
	json_writer__begin_object(jw, NULL);
	json_file(jw, "old", o);
	json_file(jw, "new", n);
	json_writer__begin_object(jw, "totals");
	json_triple(jw, "blocks", o->total_blocks, n->total_blocks);
	json_triple(jw, "bytes", o->total_bytes, n->total_bytes);
	if (lt) {
		json_triple(jw, "peak_bytes", o->gmax_bytes, n->gmax_bytes);
		json_triple(jw, "peak_blocks", o->gmax_blocks, n->gmax_blocks);
		json_triple(jw, "end_bytes", o->end_bytes, n->end_bytes);
		json_triple(jw, "end_blocks", o->end_blocks, n->end_blocks);
	}
	json_writer__end_object(jw);
	json_writer__string(jw, "sort", s < 4 ? sort_names[s] : "?");
	json_writer__string(jw, "match", d->match == DIFF_MATCH_LINE ? "line" : "function");
	json_writer__uint(jw, "depth", d->depth);
	json_writer__uint(jw, "changed", cnt);
	json_writer__uint(jw, "added", d->added_cnt);
	json_writer__uint(jw, "removed", d->removed_cnt);
	json_writer__uint(jw, "unchanged", d->unchanged_cnt);
	json_writer__begin_array(jw, "rows");
	err = 0;
	for (size_t i = 0; i < shown && !err; i++)
		err = json_row(jw, rows[i], lt);
	json_writer__end_array(jw);
	json_writer__end_object(jw);
	err = err ?: json_writer__error(jw);
	if (!err)
		err = fputc('\n', out) == EOF || fflush(out) || ferror(out) ? -EIO : 0;
cleanup:
	json_writer__free(jw);
	free(rows);
	return err;
}

int diff__print(FILE *out, const struct diff *d, const struct diff_opts *opts)
{
	enum diff_format f = opts ? opts->format : DIFF_FMT_TEXT;

	if (opts && opts->json)
		f = DIFF_FMT_JSON;
	switch (f) {
	case DIFF_FMT_TEXT:
		return print_text(out, d, opts);
	case DIFF_FMT_JSON:
		return print_json(out, d, opts);
	case DIFF_FMT_MARKDOWN:
		return print_markdown(out, d, opts);
	default:
		return -EINVAL;
	}
}

/* ---- --fail-if ------------------------------------------------------------------------ */

static const char *const metric_names[] = {"total-bytes", "total-blocks", "peak-bytes",
					   "end-bytes"};

int diff_threshold__parse(const char *text, struct diff_threshold *t, char *err, size_t errsz)
{
	const char *gt = strchr(text, '>'), *v;
	size_t mlen;
	char *end = NULL;
	double pct;
	int i = -1, e;

	memset(t, 0, sizeof(*t));
	t->text = text;
	if (!gt) {
		snprintf(err, errsz, "--fail-if '%s': expected METRIC>+N%% or METRIC>+SIZE", text);
		return -EINVAL;
	}
	t->site = !strncmp(text, "site-", 5);
	mlen = (size_t)(gt - text) - (t->site ? 5 : 0);
	for (size_t k = 0; k < 4; k++)
		if (strlen(metric_names[k]) == mlen &&
		    !strncmp(text + (t->site ? 5 : 0), metric_names[k], mlen))
			i = (int)k;
	if (i < 0) {
		snprintf(err, errsz,
			 "--fail-if '%s': unknown metric '%.*s' (total-bytes, total-blocks, "
			 "peak-bytes, end-bytes, or one of them after site-)",
			 text, (int)(gt - text), text);
		return -EINVAL;
	}
	t->metric = (enum diff_metric)i;
	v = gt + 1 + (gt[1] == '+');
	pct = isdigit((unsigned char)*v) ? strtod(v, &end) : 0;
	if (isdigit((unsigned char)*v) && *end == '%' && !end[1]) {
		t->pct = true;
		t->pct_limit = pct;
		return 0;
	}
	if (t->metric == DIFF_M_BLOCKS) { /* blocks are counted: no unit */
		if (!parse_num__u64(v, 0, UINT64_MAX, &t->abs_limit))
			return 0;
		snprintf(err, errsz,
			 "--fail-if '%s': bad threshold '%s' (a percentage like 5%%, or a count "
			 "like 1000)",
			 text, gt + 1);
		return -EINVAL;
	}
	e = units__parse_size(v, &t->abs_limit);
	if (!e)
		return 0;
	snprintf(err, errsz,
		 "--fail-if '%s': bad threshold '%s' (a percentage like 5%%, or a size): %s", text,
		 gt + 1, units__size_error(e));
	return -EINVAL;
}

uint64_t diff_side__value(const struct diff_side *s, enum diff_metric m)
{
	const uint64_t v[] = {s->tb, s->tbk, s->gb, s->eb};

	return v[m];
}

static uint64_t total_metric(const struct dhat_profile *p, enum diff_metric m)
{
	const uint64_t v[] = {p->total_bytes, p->total_blocks, p->gmax_bytes, p->end_bytes};

	return v[m];
}

/* Whether old -> new grows past t. With sampling noise (the 95% half width of the change,
 * sampled files), by more than the noise allows: the change's lower bound must pass. */
static bool exceeds(const struct diff_threshold *t, uint64_t old, uint64_t new, double noise)
{
	double low;

	if (new <= old)
		return false;
	if (noise <= 0) {
		if (!t->pct)
			return new - old > t->abs_limit;
		return !old || (double)(new - old) * 100.0 > t->pct_limit * (double)old;
	}
	low = (double)(new - old) - noise;
	if (low <= 0)
		return false;
	if (!t->pct)
		return low > (double)t->abs_limit;
	return !old || low * 100.0 > t->pct_limit * (double)old;
}

/* The 95% sampling noise of the change of a total (0 between files without standard
 * errors, and for peak and end bytes, which have none). */
static double total_noise(const struct diff *d, enum diff_metric m)
{
	double var = m == DIFF_M_BYTES	  ? d->old->total_bytes_var + d->new->total_bytes_var
		     : m == DIFF_M_BLOCKS ? d->old->total_blocks_var + d->new->total_blocks_var
					  : 0;

	return DHAT_SAMPLED_Z95 * sqrt(var);
}

/* "976 -> 1,872 (+896, +91.8%)"; "0 -> 1,000 (+1,000, new)" */
static void change_text(char *buf, size_t sz, uint64_t old, uint64_t new)
{
	char o[32], n[32], dl[40], pct[32];
	size_t k;

	fmt_pct(pct, sizeof(pct), old, new);
	k = strlen(pct);
	if (k > 2) /* " (+91.8%)" -> "+91.8%" */
		memmove(pct, pct + 2, k - 2), pct[k - 3] = '\0';
	snprintf(buf, sz, "%s -> %s (%s%s%s)", fmt_u64(o, sizeof(o), old),
		 fmt_u64(n, sizeof(n), new), fmt_delta(dl, sizeof(dl), old, new), *pct ? ", " : "",
		 pct);
}

int diff__check(const struct diff *d, const struct diff_threshold *t, size_t n, FILE *msgs,
		size_t *exceeded, char *err, size_t errsz)
{
	bool lt = d->old->bklt && d->new->bklt;
	char what[128];

	*exceeded = 0;
	for (size_t i = 0; i < n; i++) {
		const struct diff_threshold *c = &t[i];
		const struct diff_row *worst = NULL;
		size_t hits = 0, noisy = 0;

		if (!lt && (c->metric == DIFF_M_PEAK || c->metric == DIFF_M_END)) {
			snprintf(err, errsz,
				 "--fail-if '%s': %s needs block lifetimes (bklt) in both files",
				 c->text, metric_names[c->metric]);
			return -EINVAL;
		}
		if (!c->site) {
			uint64_t o = total_metric(d->old, c->metric);
			uint64_t w = total_metric(d->new, c->metric);
			double noise = total_noise(d, c->metric);

			if (!exceeds(c, o, w, noise)) {
				if (noise > 0 && exceeds(c, o, w, 0) && msgs) {
					char nz[32], low[40];
					double l = (double)(w - o) - noise;

					change_text(what, sizeof(what), o, w);
					snprintf(low, sizeof(low), "%s%s", l > 0 ? "+" : "",
						 l > 0 ? fmt_u64(nz, sizeof(nz), u64_of(l))
						       : "none");
					fprintf(msgs,
						"tracer: diff: --fail-if '%s' not counted: %s "
						"exceeds it only with its sampling noise "
						"(\xc2\xb1%s); beyond the noise: %s\n",
						c->text, what,
						fmt_u64(nz, sizeof(nz), u64_of(noise)), low);
				}
				continue;
			}
			change_text(what, sizeof(what), o, w);
			if (msgs)
				fprintf(msgs, "tracer: diff: --fail-if '%s' exceeded: %s\n",
					c->text, what);
			(*exceeded)++;
			continue;
		}
		for (size_t r = 0; r < d->row_cnt; r++) {
			const struct diff_row *row = &d->rows[r];
			uint64_t o = diff_side__value(&row->old, c->metric);
			uint64_t w = diff_side__value(&row->new, c->metric);
			double noise = diff_row__noise(row, c->metric);

			if (!exceeds(c, o, w, noise)) {
				noisy += noise > 0 && exceeds(c, o, w, 0);
				continue;
			}
			hits++;
			if (!worst || w - o > diff_side__value(&worst->new, c->metric) -
						  diff_side__value(&worst->old, c->metric))
				worst = row;
		}
		if (noisy && msgs)
			fprintf(msgs,
				"tracer: diff: --fail-if '%s' not counted at %zu program point%s: "
				"exceeded only with the sampling noise\n",
				c->text, noisy, noisy == 1 ? "" : "s");
		if (!worst)
			continue;
		change_text(what, sizeof(what), diff_side__value(&worst->old, c->metric),
			    diff_side__value(&worst->new, c->metric));
		if (msgs)
			fprintf(msgs,
				"tracer: diff: --fail-if '%s' exceeded at %zu program point%s; the "
				"largest: %s: %s\n",
				c->text, hits, hits == 1 ? "" : "s", worst->site, what);
		(*exceeded)++;
	}
	return msgs && (fflush(msgs) || ferror(msgs)) ? -EIO : 0;
}

int diff__print_files(FILE *out, const char *old_path, const char *new_path,
		      const struct diff_opts *opts, char *err, size_t errsz)
{
	struct dhat_profile *o = NULL, *n = NULL;
	struct diff *d = NULL;
	int ret;

	o = dhat_profile__load(old_path, err, errsz);
	if (!o) {
		ret = errno ? -errno : -EINVAL;
		goto cleanup;
	}
	n = dhat_profile__load(new_path, err, errsz);
	if (!n) {
		ret = errno ? -errno : -EINVAL;
		goto cleanup;
	}
	d = diff__new(o, n, opts);
	if (!d) {
		ret = -errno;
		snprintf(err, errsz, "diff: %s", strerror(errno));
		goto cleanup;
	}
	ret = diff__print(out, d, opts);
	if (ret && err && errsz)
		snprintf(err, errsz, "cannot print the diff: %s", strerror(-ret));
cleanup:
	diff__free(d);
	dhat_profile__free(n);
	dhat_profile__free(o);
	return ret;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * dhat_reader - DHAT v2 file -> struct dhat_profile, validated (see dhat_reader.h).
 *
 * Streaming. The text passes once through a 256 KiB window (zlib's gzread for a file, plain
 * or gzip; the caller's buffer for dhat_profile__parse) and a small hand-written JSON
 * tokenizer (json_reader.h) whose values are converted straight into the final structs.
 * Neither the whole text nor a JSON tree is held at any time, so peak memory is the profile
 * itself (0.8-0.9x a file of 10-30-frame stacks, docs/BENCHMARKS.md) instead of text + tree
 * + structs (8x the file size with cJSON).
 *
 * The JSON grammar is json_reader's (RFC 8259); the parse functions below walk the DHAT
 * schema through it, each with its production. Two kinds of error, reported the way dh_view
 * would meet them:
 *   - syntax errors (what JSON.parse rejects) stop the parse at once, with line:column;
 *   - content errors (types, missing fields, ranges) are remembered, the first of each
 *     kind, and reported after the whole text has parsed, in the viewer's order (required
 *     keys, version, header fields, ftbl, then PPs by index), so that a file gets the same
 *     complaint whatever its key order. pps may come before ftbl and before bklt, hence the
 *     deferral.
 *   - a repeated location (a PP whose fs equals an earlier PP's) stops the parse at once:
 *     it needs neither ftbl nor the header, and a file made of them (a writer looping) is
 *     better refused at its first one than after gigabytes.
 *
 * Memory: PPs go into one array, their fs into one pool (a seq_intern, which also finds
 * repeated ones) and the ftbl strings into another (pointers into a pool are re-based when
 * it moves): no per-PP or per-frame allocation and its overhead.
 * Messages are "NAME:LINE:COL: problem" (byte columns, counted after a UTF-8 BOM), or
 * "NAME: problem" when there is no position (an empty file, an unreadable one).
 */
#include "dhat_reader.h"
#include "dhat_sampled.h"
#include "dhat_threads.h"
#include "grow.h"
#include "json_reader.h"
#include "seq_intern.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* clang-format off */
/* The top-level keys; the first 12 are required, in the order the viewer checks them. */
enum tkey {
	K_VERSION, K_MODE, K_VERB, K_BKLT, K_BKACC, K_TU, K_MTU, K_CMD, K_PID, K_TE, K_PPS,
	K_FTBL, K_REQUIRED_CNT, K_BU = K_REQUIRED_CNT, K_BSU, K_BKSU, K_TUTH, K_TG, K_LOST,
	K_DEATH, K_RSS, K_MAPPINGS, K_SAMPLED, K_ARENAS, K_ARENA_SETTINGS, K_SKIP, K_THREADS,
	K_SIZES, K_CNT
};
static const char *const TOP_KEYS[K_CNT] = {
	"dhatFileVersion", "mode", "verb", "bklt", "bkacc", "tu", "Mtu", "cmd", "pid", "te",
	"pps", "ftbl", "bu", "bsu", "bksu", "tuth", "tg", DHAT_LOST_KEY,
	DHAT_DEATH_KEY, DHAT_RSS_KEY, DHAT_MAPPINGS_KEY, DHAT_SAMPLED_KEY, DHAT_ARENAS_KEY,
	DHAT_ARENA_SETTINGS_KEY, DHAT_SKIP_KEY, DHAT_THREADS_KEY, DHAT_SIZES_KEY,
};

/* clang-format on */

/* What was seen of one top-level key. */
struct tinfo {
	bool seen;
	struct json_pos at; /* of its value */
	char bad[64];  /* "" or the wrong value described ("a number", "-5", ...) */
};

/* clang-format off */
/* The per-PP counters, in the order missing ones are reported; F_FS last. */
enum pkey { F_TB, F_TBK, F_TL, F_MB, F_MBK, F_GB, F_GBK, F_EB, F_EBK, F_RB, F_WB, F_FS,
	    F_ACC, F_CNT };
static const char *const PP_KEYS[F_CNT] = {
	"tb", "tbk", "tl", "mb", "mbk", "gb", "gbk", "eb", "ebk", "rb", "wb", "fs", "acc",
};

/* clang-format on */

/* Where a PP starts and which of its keys were present (kept until the final checks). */
struct ppmeta {
	struct json_pos at;
	uint16_t have; /* bit (1 << enum pkey) */
};

/* A remembered content error: the first one of its kind. */
struct defer {
	bool set;
	size_t idx; /* PP or ftbl index */
	struct json_pos at;
	char msg[320];
};

struct ps {
	struct json_reader jr; /* the text, its position, the messages */
	uint64_t tl_sum;       /* Σtl so far: bounded like the totals (diff sums it per row) */
	struct dhat_profile *p;
	/* the kept PPs' fs, interned: its pool is p->fs_pool at the end, and its indices are
	 * the PP numbers (a PP whose fs is there already is a repeated location). The fs being
	 * read is built at the pool's tail. */
	struct seq_intern fs;
	/* the pool behind p->ftbl[] (handed to p at the end) */
	char *str_pool;
	size_t str_used, str_cap;
	/* what the content checks need */
	struct tinfo top[K_CNT];
	enum json_type top_type; /* type of the top-level value */
	struct json_pos top_at;
	struct defer dup_key; /* a known key given twice */
	struct defer ftbl_err, pp_err;
	struct ppmeta *meta; /* per stored PP */
	size_t pp_cap, ftbl_cap, acc_cap, est_cap;
};

/* Remember a content error if it is the first of its kind. */
__attribute__((format(printf, 5, 6))) static void
defer(struct defer *d, size_t idx, const struct json_pos *at, bool force, const char *fmt, ...)
{
	va_list ap;

	if (d->set && !force)
		return;
	d->set = true;
	d->idx = idx;
	d->at = *at;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
}

/* ---- the DHAT structure --------------------------------------------------------------- */

/* Element i of the fs being read, at the tail of the kept ones. */
static int fs_put(struct ps *ps, size_t i, uint32_t v)
{
	int err;
	uint32_t *tail = seq_intern__tail(&ps->fs, i + 1, &err);

	if (!tail)
		return json_reader__nomem(&ps->jr);
	tail[i] = v;
	return 0;
}

/* fs := '[' index { ',' index } ']'  -- at the tail of the kept fs in ps->fs. A content problem
 * goes to ps->pp_err and sets *bad; the array is still read to its end. */
static int parse_fs(struct ps *ps, size_t k, uint32_t *cnt, bool *bad)
{
	bool first = true, more;
	struct json_value v;
	size_t i = 0;
	int err;

	json_reader__advance(&ps->jr); /* '[' */
	for (;; i++) {
		if ((err = json_reader__next_element(&ps->jr, &first, &more, &v, 4)))
			return err;
		if (!more)
			break;
		if (*bad)
			continue;
		if (!v.u64_ok) {
			defer(&ps->pp_err, k, &v.at, false,
			      "pps[%zu]: fs[%zu] is %s, expected a frame index", k, i,
			      json_reader__describe(&v));
			*bad = true;
		} else if (v.u >= UINT32_MAX) {
			defer(&ps->pp_err, k, &v.at, false,
			      "pps[%zu]: fs[%zu] = %llu is out of range", k, i,
			      (unsigned long long)v.u);
			*bad = true;
		} else if (i >= DHAT_FS_CNT_MAX) {
			defer(&ps->pp_err, k, &v.at, false, "pps[%zu]: fs has too many frames", k);
			*bad = true;
		} else if (ps->fs.pool_len + i >= UINT32_MAX) { /* struct dhat_pp's fs_off */
			defer(&ps->pp_err, k, &v.at, false,
			      "pps[%zu]: too many frames in all fs (2^32)", k);
			*bad = true;
		} else if ((err = fs_put(ps, i, (uint32_t)v.u))) {
			return err;
		}
	}
	*cnt = (uint32_t)i;
	return 0;
}

/* acc := '[' count-or-run { ',' count-or-run } ']'  -- checked, not kept. The viewer asserts
 * on a count above 0xffff; -N starts a run of N equal values. */
static int parse_acc(struct ps *ps, size_t k, bool *bad)
{
	bool first = true, more;
	struct json_value v;
	int err;

	json_reader__advance(&ps->jr); /* '[' */
	for (size_t i = 0;; i++) {
		if ((err = json_reader__next_element(&ps->jr, &first, &more, &v, 4)))
			return err;
		if (!more)
			return 0;
		if (*bad)
			continue;
		/* range first: casting an out-of-range double is undefined */
		if (v.t != JSON_NUM || v.d > 65535 || v.d < -4294967296.0 ||
		    v.d != (double)(int64_t)v.d) {
			defer(
			    &ps->pp_err, k, &v.at, false,
			    "pps[%zu]: acc[%zu] is not an access count (0..65535) or a run length",
			    k, i);
			*bad = true;
		}
	}
}

static int pp_key(const char *s)
{
	for (int i = 0; i < F_CNT; i++)
		if (!strcmp(s, PP_KEYS[i]))
			return i;
	return -1;
}

/* Make room for PP k in p->pps and ps->meta. */
static int pps_grow(struct ps *ps, size_t k)
{
	struct dhat_profile *p = ps->p;

	if (k < ps->pp_cap)
		return 0;
	size_t cap = ps->pp_cap ? ps->pp_cap * 2 : 64;
	struct dhat_pp *np = realloc(p->pps, cap * sizeof(*np));

	if (!np)
		return json_reader__nomem(&ps->jr);
	p->pps = np;
	struct ppmeta *nm = realloc(ps->meta, cap * sizeof(*nm));

	if (!nm)
		return json_reader__nomem(&ps->jr);
	ps->meta = nm;
	ps->pp_cap = cap;
	return 0;
}

/* The first field a PP with keys have lacks, or -1. The bklt/bkacc fields count once that
 * header key has been read: parse_pp checks with what it knows, check_pp again at the end. */
static int pp_missing(const struct ps *ps, uint16_t have)
{
	uint32_t need = 1u << F_TB | 1u << F_TBK | 1u << F_FS;

	if (ps->p->bklt)
		need |=
		    1u << F_MB | 1u << F_MBK | 1u << F_GB | 1u << F_GBK | 1u << F_EB | 1u << F_EBK;
	if (ps->p->bkacc)
		need |= 1u << F_RB | 1u << F_WB;
	for (int f = 0; f < F_CNT; f++)
		if ((need & (1u << f)) && !(have & (1u << f)))
			return f;
	return -1;
}

/* Keep the kept PP k's fs, the fs_cnt frames at the tail of ps->fs. The viewer aborts on
 * two PPs with equal fs ("repeated location"): so do we, as soon as the second one is read.
 * Every kept PP's fs is interned, in order, so an index is a PP number. */
static int keep_fs(struct ps *ps, size_t k, uint32_t fs_cnt)
{
	bool added;
	int64_t j;
	size_t off;

	if (k + 1 >= UINT32_MAX)
		return json_reader__fail(&ps->jr, &ps->meta[k].at,
					 "pps[%zu]: too many program points", k);
	j = seq_intern__intern_tail(&ps->fs, fs_cnt, &added);
	if (j < 0)
		return json_reader__nomem(&ps->jr);
	if (!added)
		return json_reader__fail(
		    &ps->jr, &ps->meta[k].at,
		    "pps[%zu]: same \"fs\" as pps[%zu] at line %u (a repeated location)", k,
		    (size_t)j, ps->meta[j].at.line);
	seq_intern__get(&ps->fs, (size_t)j, NULL, &off);
	ps->p->pps[k].fs_off = (uint32_t)off;
	return 0;
}

/* PP k's record val of elem bytes into the side array *arr, which holds *cnt records in
 * *cap slots: grown to k + 1 here, the PPs in between (which had none) zeroed. */
static int side_keep(struct ps *ps, void **arr, size_t *cap, size_t *cnt, size_t elem, size_t k,
		     const void *val)
{
	if (grow__array(arr, cap, k + 1, elem))
		return json_reader__nomem(&ps->jr);
	memset((char *)*arr + *cnt * elem, 0, (k - *cnt) * elem);
	memcpy((char *)*arr + k * elem, val, elem);
	*cnt = k + 1;
	return 0;
}

/* PP k's reads and writes, in p->acc. */
static int acc_keep(struct ps *ps, size_t k, const struct dhat_pp_acc *acc)
{
	void *arr = ps->p->acc;
	int err = side_keep(ps, &arr, &ps->acc_cap, &ps->p->acc_cnt, sizeof(*acc), k, acc);

	ps->p->acc = arr;
	return err;
}

/* PP k's estimate details, in p->est. */
static int est_keep(struct ps *ps, size_t k, const struct dhat_pp_est *est)
{
	void *arr = ps->p->est;
	int err = side_keep(ps, &arr, &ps->est_cap, &ps->p->est_cnt, sizeof(*est), k, est);

	ps->p->est = arr;
	return err;
}

/* Which estimate detail an optional PP key is (0: tbSe, 1: tbkSe, 2: tbRealloc,
 * 3: tbkReallocd), or -1. */
static int est_key(const char *s)
{
	static const char *const KEYS[] = {DHAT_SAMPLED_TB_SE, DHAT_SAMPLED_TBK_SE,
					   DHAT_SAMPLED_TB_REALLOC, DHAT_SAMPLED_TBK_REALLOCD};

	for (int i = 0; i < (int)(sizeof(KEYS) / sizeof(KEYS[0])); i++)
		if (!strcmp(s, KEYS[i]))
			return i;
	return -1;
}

/* pp := '{' { key ':' value } '}'  with the keys tb tbk tl mb mbk gb gbk eb ebk rb wb acc fs.
 * Kept as p->pps[k] unless a content error was found in it. */
static int parse_pp(struct ps *ps, size_t k)
{
	struct dhat_profile *p = ps->p;
	struct dhat_pp pp = {0};
	struct dhat_pp_acc acc = {0};
	struct dhat_pp_est est = {0, 0, 0, 0};
	uint32_t fs_cnt = 0;
	struct ppmeta meta = {.at = ps->jr.at};
	bool first = true, more, bad = false;
	struct json_value v;
	int err, key, extra;

	if (json_reader__skip_ws(&ps->jr) != '{') {
		if ((err = json_reader__value(&ps->jr, &v, 3)))
			return err;
		defer(&ps->pp_err, k, &v.at, false, "pps[%zu] is %s, expected an object", k,
		      json_reader__describe(&v));
		return 0;
	}
	meta.at = ps->jr.at;
	json_reader__advance(&ps->jr);
	for (;;) {
		if ((err = json_reader__next(&ps->jr, true, &first, &more)))
			goto cleanup;
		if (!more)
			break;
		key = pp_key(ps->jr.str);
		extra = key < 0 ? est_key(ps->jr.str) : -1;
		if (key >= 0 && (meta.have & (1u << key)) && !bad) {
			struct json_pos at = ps->jr.at;

			defer(&ps->pp_err, k, &at, false, "pps[%zu]: key \"%s\" given twice", k,
			      PP_KEYS[key]);
			bad = true;
		}
		if (key >= 0)
			meta.have = (uint16_t)(meta.have | 1u << key);
		if ((key == F_FS || key == F_ACC) && !bad && json_reader__skip_ws(&ps->jr) == '[') {
			err = key == F_FS ? parse_fs(ps, k, &fs_cnt, &bad) : parse_acc(ps, k, &bad);
			if (err)
				goto cleanup;
			continue;
		}
		if ((err = json_reader__value(&ps->jr, &v, 3)))
			goto cleanup;
		/* Optional and lenient: a bad value is ignored; given twice, the last good one
		 * counts (JSON.parse would keep the last one whatever it is). */
		if (extra >= 0 && extra < 2 && v.t == JSON_NUM && v.d >= 0 && isfinite(v.d))
			*(extra ? &est.tbk_se : &est.tb_se) = v.d;
		else if (extra >= 2 && v.u64_ok)
			*(extra == 2 ? &est.tb_realloc : &est.tbk_reallocd) = v.u;
		if (key < 0 || bad)
			continue;
		if (key == F_FS || key == F_ACC) {
			defer(&ps->pp_err, k, &v.at, false,
			      "pps[%zu]: field \"%s\" is %s, expected an array", k, PP_KEYS[key],
			      json_reader__describe(&v));
			bad = true;
		} else if (!v.u64_ok) {
			defer(&ps->pp_err, k, &v.at, false,
			      "pps[%zu]: field \"%s\" is %s, expected a non-negative integer", k,
			      PP_KEYS[key], json_reader__describe(&v));
			bad = true;
		} else {
			uint64_t *dst[] = {&pp.tb,  &pp.tbk, &pp.tl,  &pp.mb,  &pp.mbk, &pp.gb,
					   &pp.gbk, &pp.eb,  &pp.ebk, &acc.rb, &acc.wb};
			*dst[key] = v.u;
		}
	}
	/* A PP lacking a field is the first bad one now, so that a repeated location after it
	 * does not stop the parse before the viewer's first complaint. */
	if (!bad && !ps->pp_err.set && (key = pp_missing(ps, meta.have)) >= 0) {
		defer(&ps->pp_err, k, &meta.at, false, "pps[%zu]: missing field \"%s\"", k,
		      PP_KEYS[key]);
		bad = true;
	}
	if (bad || ps->pp_err.set)
		return 0; /* nothing after the first bad PP is kept */
	if ((err = pps_grow(ps, k)))
		goto cleanup;
	if ((acc.rb || acc.wb) && (err = acc_keep(ps, k, &acc)))
		goto cleanup;
	if ((est.tb_se || est.tbk_se || est.tb_realloc || est.tbk_reallocd) &&
	    (err = est_keep(ps, k, &est)))
		goto cleanup;
	pp.has_tl = !!(meta.have & (1u << F_TL));
	pp.fs_cnt = fs_cnt & DHAT_FS_CNT_MAX; /* parse_fs keeps it below */
	p->pps[k] = pp;
	ps->meta[k] = meta;
	p->pp_cnt = k + 1;
	return keep_fs(ps, k, fs_cnt);
cleanup:
	return err;
}

/* pps := '[' { pp } ']' */
static int parse_pps(struct ps *ps)
{
	bool first = true, more;
	struct json_value v;
	int err;

	json_reader__advance(&ps->jr); /* '[' */
	for (size_t k = 0;; k++) {
		if ((err = json_reader__next(&ps->jr, false, &first, &more)))
			return err;
		if (!more)
			return 0;
		if (ps->pp_err.set)
			err = json_reader__value(&ps->jr, &v, 2); /* syntax only from here on */
		else
			err = parse_pp(ps, k);
		if (err)
			return err;
	}
}

/* Append ps->jr.str to the string pool as p->ftbl[i] (the strings are in ftbl order). */
static int str_keep(struct ps *ps, size_t i)
{
	struct dhat_profile *p = ps->p;
	size_t n = ps->jr.str_len + 1;

	if (ps->str_used + n > ps->str_cap) {
		if (grow__array(&ps->str_pool, &ps->str_cap, ps->str_used + n, 1))
			return json_reader__nomem(&ps->jr);
		/* re-base the kept strings: they lie end to end, each with its NUL */
		for (size_t j = 0, off = 0; j < i; j++) {
			p->ftbl[j] = ps->str_pool + off;
			off += strlen(ps->str_pool + off) + 1;
		}
	}
	p->ftbl[i] = ps->str_pool + ps->str_used;
	memcpy(p->ftbl[i], ps->jr.str, n);
	ps->str_used += n;
	return 0;
}

/* ftbl := '[' { string } ']' */
static int parse_ftbl(struct ps *ps)
{
	struct dhat_profile *p = ps->p;
	bool first = true, more;
	struct json_value v;
	int err;

	json_reader__advance(&ps->jr); /* '[' */
	for (size_t i = 0;; i++) {
		if ((err = json_reader__next_element(&ps->jr, &first, &more, &v, 2)))
			return err;
		if (!more)
			return 0;
		if (ps->ftbl_err.set)
			continue;
		if (v.t != JSON_STR) {
			defer(&ps->ftbl_err, i, &v.at, false, "ftbl[%zu] is %s, expected a string",
			      i, json_reader__describe(&v));
			continue;
		}
		if (grow__array(&p->ftbl, &ps->ftbl_cap, i + 1, sizeof(*p->ftbl)))
			return json_reader__nomem(&ps->jr);
		if ((err = str_keep(ps, i)))
			return err;
		p->ftbl_cnt = i + 1;
	}
}

/* Tracer's live-heap series: {"t":[...],"b":[...]}, read optionally (see dhat_reader.h). */
#define LIVE_KEY "heapTimeline"

/* u64-array := '[' { integer } ']'  -- into a new *out (*cnt entries); *bad on any element
 * that is not a non-negative integer (the array is still read to its end). */
static int parse_u64s(struct ps *ps, uint64_t **out, size_t *cnt, bool *bad)
{
	bool first = true, more;
	size_t cap = 0;
	struct json_value v;
	int err;

	json_reader__advance(&ps->jr); /* '[' */
	for (;;) {
		if ((err = json_reader__next_element(&ps->jr, &first, &more, &v, 3)))
			return err;
		if (!more)
			return 0;
		if (*bad || !v.u64_ok) {
			*bad = true;
			continue;
		}
		if (grow__array(out, &cap, *cnt + 1, sizeof(**out)))
			return json_reader__nomem(&ps->jr);
		(*out)[(*cnt)++] = v.u;
	}
}

/* The members of heapTimeline kept by parse_live. */
enum live_key { L_T, L_B, L_CB, L_CNT };
static const char *const LIVE_SERIES[L_CNT] = { "t", "b", "cb" };

/* Keep heapTimeline's series when well formed: t and b, equal lengths, t ascending; cb too
 * when it has their length and is nowhere below b (the heap in chunks, with cbEnd). Frees
 * what it does not keep. */
static void keep_live(struct dhat_profile *p, uint64_t **a, const size_t *n, const bool *bad,
		      bool has_end, uint64_t end)
{
	bool ok = a[L_T] && a[L_B] && !bad[L_T] && !bad[L_B] && n[L_T] == n[L_B];
	bool cb_ok = ok && a[L_CB] && !bad[L_CB] && n[L_CB] == n[L_T] && has_end;

	for (size_t i = 1; ok && i < n[L_T]; i++)
		ok = a[L_T][i] >= a[L_T][i - 1];
	for (size_t i = 0; cb_ok && i < n[L_T]; i++)
		cb_ok = a[L_CB][i] >= a[L_B][i];
	if (ok) {
		p->live_t = a[L_T];
		p->live_b = a[L_B];
		p->live_cnt = n[L_T];
		a[L_T] = a[L_B] = NULL;
	}
	if (ok && cb_ok) {
		p->live_cb = a[L_CB];
		p->live_cb_end = end;
		a[L_CB] = NULL;
	}
	for (int k = 0; k < L_CNT; k++)
		free(a[k]);
}

/* heapTimeline := '{' "t" ':' u64-array ',' "b" ':' u64-array [ ',' "cb" ':' u64-array
 *		    ',' "cbEnd" ':' integer ] '}'  -- kept in p->live_* only when well formed
 * (keep_live). The first one given is kept; other members are skipped. */
static int parse_live(struct ps *ps)
{
	uint64_t *a[L_CNT] = { 0 }, end = 0;
	size_t n[L_CNT] = { 0 };
	bool first = true, more, bad[L_CNT] = { 0 }, has_end = false, end_seen = false;
	struct json_value v;
	int err = 0, k;

	if (json_reader__skip_ws(&ps->jr) != '{' || ps->p->live_t)
		return json_reader__value(&ps->jr, &v, 1);
	json_reader__advance(&ps->jr);
	for (;;) {
		if ((err = json_reader__next(&ps->jr, true, &first, &more)) || !more)
			break;
		for (k = 0; k < L_CNT && strcmp(ps->jr.str, LIVE_SERIES[k]); k++)
			;
		if (k < L_CNT && json_reader__skip_ws(&ps->jr) == '[' && !a[k] && !bad[k]) {
			err = parse_u64s(ps, &a[k], &n[k], &bad[k]);
			bad[k] |= !a[k]; /* an empty array */
		} else if (k < L_CNT) {
			bad[k] = true; /* not an array, or given twice */
			err = json_reader__value(&ps->jr, &v, 2);
		} else if (!strcmp(ps->jr.str, "cbEnd")) {
			err = json_reader__value(&ps->jr, &v, 2);
			has_end = !end_seen && v.u64_ok; /* given twice: neither */
			end = v.u;
			end_seen = true;
		} else {
			err = json_reader__value(&ps->jr, &v, 2);
		}
		if (err)
			break;
	}
	keep_live(ps->p, a, n, bad, has_end, end);
	return err;
}

/* A member of one of our flat optional objects: its key and value (str: a string's text). */
typedef void (*member_fn)(void *ctx, const char *key, const struct json_value *v, const char *str);

/* flat := '{' { key ':' value } '}'  -- at nesting depth, each member handed to fn. Lenient
 * as "lost": fn ignores what it does not know; the syntax is still checked. */
static int parse_flat(struct ps *ps, int depth, member_fn fn, void *ctx)
{
	bool first = true, more;
	char key[32];
	struct json_value v;
	int err;

	json_reader__advance(&ps->jr); /* '{' */
	for (;;) {
		if ((err = json_reader__next(&ps->jr, true, &first, &more)))
			return err;
		if (!more)
			return 0;
		snprintf(key, sizeof(key), "%s", ps->jr.str); /* json_reader__value reuses jr.str */
		if ((err = json_reader__value(&ps->jr, &v, depth)))
			return err;
		fn(ctx, key, &v, v.t == JSON_STR ? ps->jr.str : NULL);
	}
}

static void lost_member(void *ctx, const char *key, const struct json_value *v, const char *str)
{
	(void)str;
	dhat_lost__set(ctx, key, v->u64_ok, v->u);
}

static void death_member(void *ctx, const char *key, const struct json_value *v, const char *str)
{
	dhat_death__set(ctx, key, str, v->u64_ok, v->u);
}

static void rss_end_member(void *ctx, const char *key, const struct json_value *v, const char *str)
{
	(void)str;
	dhat_rss__set_end(ctx, key, v->u64_ok, v->u);
}

static void site_member(void *ctx, const char *key, const struct json_value *v, const char *str)
{
	dhat_mapping_site__set(ctx, key, str, v->u64_ok, v->u, v->t == JSON_BOOL, v->b);
}

static void sampled_member(void *ctx, const char *key, const struct json_value *v, const char *str)
{
	(void)str;
	dhat_sampled__set(ctx, key, v->u64_ok, v->u);
}

/* lost := flat  -- our optional object (dhat_lost.h). Lenient, as the viewer ignores it:
 * counts that are not non-negative integers stay 0, other keys and values are skipped. */
static int parse_lost(struct ps *ps)
{
	ps->p->has_lost = true;
	return parse_flat(ps, 2, lost_member, &ps->p->lost);
}

/* sampled := flat  -- our optional object (dhat_sampled.h), as lenient. */
static int parse_sampled(struct ps *ps)
{
	return parse_flat(ps, 2, sampled_member, &ps->p->sample_bytes);
}

/* death := flat  -- our optional object (dhat_death.h). */
static int parse_death(struct ps *ps)
{
	ps->p->has_death = true;
	return parse_flat(ps, 2, death_member, &ps->p->death);
}

/* The RSS series of parse_rss, by its keys: t, anon, file, shmem. */
static const char *const RSS_SERIES[] = { "t", "anon", "file", "shmem" };
#define RSS_SERIES_CNT (sizeof(RSS_SERIES) / sizeof(*RSS_SERIES))

/* Keep the series when well formed (all four, equal lengths, t ascending): p->rss_t and
 * p->rss_b = anon + file + shmem. Frees what it does not keep. */
static void keep_rss_series(struct dhat_profile *p, uint64_t **a, const size_t *n, bool bad)
{
	for (size_t k = 0; k < RSS_SERIES_CNT && !bad; k++)
		bad = !a[k] || n[k] != n[0];
	for (size_t i = 1; !bad && i < n[0]; i++)
		bad = a[0][i] < a[0][i - 1];
	if (!bad && !p->rss_t) {
		for (size_t i = 0; i < n[0]; i++)
			a[1][i] += a[2][i] + a[3][i];
		p->rss_t = a[0];
		p->rss_b = a[1];
		p->rss_cnt = n[0];
		a[0] = a[1] = NULL;
	}
	for (size_t k = 0; k < RSS_SERIES_CNT; k++)
		free(a[k]);
}

/* rss := '{' { key ':' value } '}'  -- our optional object (dhat_rss.h): "atEnd" (a flat
 * object) and the series (u64 arrays) are kept, the rest is syntax-checked and skipped. As
 * lenient as "lost": a malformed series is dropped. */
static int parse_rss(struct ps *ps)
{
	uint64_t *a[RSS_SERIES_CNT] = { 0 };
	size_t n[RSS_SERIES_CNT] = { 0 }, k;
	bool first = true, more, bad = false;
	struct json_value v;
	int err;

	json_reader__advance(&ps->jr); /* '{' */
	for (;;) {
		if ((err = json_reader__next(&ps->jr, true, &first, &more)) || !more)
			break;
		for (k = 0; k < RSS_SERIES_CNT && strcmp(ps->jr.str, RSS_SERIES[k]); k++)
			;
		if (!strcmp(ps->jr.str, "atEnd") && json_reader__skip_ws(&ps->jr) == '{') {
			ps->p->has_rss = true;
			err = parse_flat(ps, 3, rss_end_member, &ps->p->rss_end);
		} else if (k < RSS_SERIES_CNT && !a[k] && json_reader__skip_ws(&ps->jr) == '[') {
			err = parse_u64s(ps, &a[k], &n[k], &bad);
			bad |= !a[k]; /* an empty array */
		} else {
			err = json_reader__value(&ps->jr, &v, 2);
		}
		if (err)
			break;
	}
	keep_rss_series(ps->p, a, n, bad || err);
	return err;
}

/* One site of "mappings" (a flat object), appended to the profile's sites. */
static int parse_mapping_site(struct ps *ps)
{
	struct dhat_mappings *m = &ps->p->mappings;
	struct dhat_mapping_site *grown = realloc(m->sites, (m->cnt + 1) * sizeof(*grown));

	if (!grown)
		return json_reader__nomem(&ps->jr);
	m->sites = grown;
	memset(&m->sites[m->cnt], 0, sizeof(*grown));
	return parse_flat(ps, 4, site_member, &m->sites[m->cnt++]);
}

/* mappings := '{' { key ':' value } '}'  -- our optional object (dhat_mappings.h), as
 * lenient as "lost": "sites" is an array of objects, anything else in it is skipped. */
static int parse_mappings(struct ps *ps)
{
	bool first = true, more, in_first, in_more;
	char key[32];
	struct json_value v;
	int err;

	json_reader__advance(&ps->jr); /* '{' */
	ps->p->has_mappings = true;
	for (;;) {
		if ((err = json_reader__next(&ps->jr, true, &first, &more)))
			return err;
		if (!more)
			return 0;
		snprintf(key, sizeof(key), "%s", ps->jr.str);
		if (strcmp(key, "sites") || json_reader__skip_ws(&ps->jr) != '[') {
			if ((err = json_reader__value(&ps->jr, &v, 2)))
				return err;
			dhat_mappings__set(&ps->p->mappings, key, v.u64_ok, v.u);
			continue;
		}
		json_reader__advance(&ps->jr); /* '[' */
		for (in_first = true;;) {
			if ((err = json_reader__next(&ps->jr, false, &in_first, &in_more)))
				return err;
			if (!in_more)
				break;
			err = json_reader__skip_ws(&ps->jr) == '{'
				  ? parse_mapping_site(ps)
				  : json_reader__value(&ps->jr, &v, 3);
			if (err)
				return err;
		}
	}
}

static void thread_member(void *ctx, const char *key, const struct json_value *v,
			  const char *str)
{
	dhat_thread__set(ctx, key, str, v->u64_ok, v->u);
}

static void bucket_member(void *ctx, const char *key, const struct json_value *v,
			  const char *str)
{
	(void)str;
	dhat_size_bucket__set(ctx, key, v->u64_ok, v->u);
}

/* An array of flat objects of elem bytes each, appended to *arr (*cnt of them), at most max
 * kept; each starts as init. As lenient as "mappings": a member that is not an object is
 * skipped. */
static int parse_flat_array(struct ps *ps, void **arr, size_t *cnt, size_t elem, size_t max,
			    const void *init, member_fn fn)
{
	bool first = true, more;
	struct json_value v;
	int err;

	json_reader__advance(&ps->jr); /* '[' */
	for (;;) {
		if ((err = json_reader__next(&ps->jr, false, &first, &more)))
			return err;
		if (!more)
			return 0;
		if (json_reader__skip_ws(&ps->jr) != '{' || *cnt >= max) {
			if ((err = json_reader__value(&ps->jr, &v, 3)))
				return err;
			continue;
		}
		void *grown = realloc(*arr, (*cnt + 1) * elem);

		if (!grown)
			return json_reader__nomem(&ps->jr);
		*arr = grown;
		memcpy((char *)grown + *cnt * elem, init, elem);
		if ((err = parse_flat(ps, 3, fn, (char *)grown + (*cnt)++ * elem)))
			return err;
	}
}

/* threads := '[' { flat } ']'  (dhat_threads.h) */
static int parse_threads(struct ps *ps)
{
	static const struct dhat_thread init = { .top_pp = -1 };
	void *arr = ps->p->threads;
	int err;

	if (ps->p->threads) /* given twice: the first counts */
		return json_reader__value(&ps->jr, &(struct json_value){ 0 }, 2);
	err = parse_flat_array(ps, &arr, &ps->p->threads_cnt, sizeof(init), DHAT_THREADS_MAX + 1,
			       &init, thread_member);
	ps->p->threads = arr;
	return err;
}

/* sizes := '[' { flat } ']'  (dhat_threads.h) */
static int parse_sizes(struct ps *ps)
{
	static const struct dhat_size_bucket init = { .top_pp = -1 };
	void *arr = ps->p->sizes;
	int err;

	if (ps->p->sizes)
		return json_reader__value(&ps->jr, &(struct json_value){ 0 }, 2);
	err = parse_flat_array(ps, &arr, &ps->p->sizes_cnt, sizeof(init), 64, &init,
			       bucket_member);
	ps->p->sizes = arr;
	return err;
}

static void frag_member(void *ctx, const char *key, const struct json_value *v, const char *str)
{
	(void)str;
	dhat_arena_frag__set(ctx, key, v->u64_ok, v->u);
}

static void settings_member(void *ctx, const char *key, const struct json_value *v,
			    const char *str)
{
	dhat_arenas__set(ctx, key, str, v->u64_ok, v->u);
}

/* "fragmenters" of one arena: an array of flat objects, at most DHAT_ARENA_FRAG_MAX kept. */
static int parse_fragmenters(struct ps *ps, struct dhat_arena *ar)
{
	bool first = true, more;
	struct json_value v;
	int err;

	json_reader__advance(&ps->jr); /* '[' */
	for (;;) {
		if ((err = json_reader__next(&ps->jr, false, &first, &more)) || !more)
			return err;
		if (json_reader__skip_ws(&ps->jr) == '{' && ar->frag_cnt < DHAT_ARENA_FRAG_MAX) {
			struct dhat_arena_frag *fr = &ar->frag[ar->frag_cnt++];

			*fr = (struct dhat_arena_frag){ .pp = -1 };
			err = parse_flat(ps, 5, frag_member, fr);
		} else {
			err = json_reader__value(&ps->jr, &v, 4);
		}
		if (err)
			return err;
	}
}

/* One arena object: scalar members and "fragmenters". */
static int parse_arena(struct ps *ps)
{
	struct dhat_arena *ar = dhat_arenas__add(&ps->p->arenas);
	bool first = true, more;
	char key[32];
	struct json_value v;
	int err;

	if (!ar) /* past the bound: skipped, still checked */
		return json_reader__value(&ps->jr, &v, 2);
	json_reader__advance(&ps->jr); /* '{' */
	for (;;) {
		if ((err = json_reader__next(&ps->jr, true, &first, &more)) || !more)
			return err;
		snprintf(key, sizeof(key), "%s", ps->jr.str);
		if (!strcmp(key, "fragmenters") && json_reader__skip_ws(&ps->jr) == '[') {
			err = parse_fragmenters(ps, ar);
		} else {
			err = json_reader__value(&ps->jr, &v, 3);
			if (!err)
				dhat_arena__set(ar, key, v.t == JSON_STR ? ps->jr.str : NULL,
						v.u64_ok, v.u);
		}
		if (err)
			return err;
	}
}

/* arenas := '[' { arena } ']'  -- our optional array (dhat_arenas.h), as lenient as "lost":
 * what is not an object is skipped. */
static int parse_arenas(struct ps *ps)
{
	bool first = true, more;
	struct json_value v;
	int err;

	json_reader__advance(&ps->jr); /* '[' */
	ps->p->has_arenas = true;
	for (;;) {
		if ((err = json_reader__next(&ps->jr, false, &first, &more)) || !more)
			return err;
		err = json_reader__skip_ws(&ps->jr) == '{' ? parse_arena(ps)
							    : json_reader__value(&ps->jr, &v, 2);
		if (err)
			return err;
	}
}

/* skip := '[' { value } ']'  -- our optional array (dhat_skip.h), as lenient as "lost": what
 * is not a string is skipped. */
static int parse_skip(struct ps *ps)
{
	bool first = true, more;
	struct json_value v;
	int err;

	json_reader__advance(&ps->jr); /* '[' */
	for (;;) {
		if ((err = json_reader__next_element(&ps->jr, &first, &more, &v, 2)) || !more)
			return err;
		if (v.t == JSON_STR && dhat_skip__add(&ps->p->skip, ps->jr.str))
			return json_reader__nomem(&ps->jr);
	}
}

/* arenaSettings := flat  -- our optional object (dhat_arenas.h). */
static int parse_arena_settings(struct ps *ps)
{
	return parse_flat(ps, 2, settings_member, &ps->p->arenas);
}

static int top_key(const char *s)
{
	for (int i = 0; i < K_CNT; i++)
		if (!strcmp(s, TOP_KEYS[i]))
			return i;
	return -1;
}

/* A string-valued top-level key: keep it, or describe what came instead. */
static int keep_str(struct ps *ps, const struct json_value *v, struct tinfo *ti, char **dst)
{
	if (v->t != JSON_STR) {
		snprintf(ti->bad, sizeof(ti->bad), "%s", json_reader__describe(v));
		return 0;
	}
	*dst = strdup(ps->jr.str);
	return *dst ? 0 : json_reader__nomem(&ps->jr);
}

/* The top-level keys whose value is parsed as it comes (an array or object of the right
 * kind); any other value of theirs is typed by parse_member. */
/* clang-format off */
static const struct {
	enum tkey k;
	char open; /* '[' or '{' */
	int (*parse)(struct ps *ps);
} COMPOSITE[] = {
	{ K_PPS, '[', parse_pps },	{ K_FTBL, '[', parse_ftbl },
	{ K_LOST, '{', parse_lost },	{ K_DEATH, '{', parse_death },
	{ K_RSS, '{', parse_rss },	{ K_MAPPINGS, '{', parse_mappings },
	{ K_SAMPLED, '{', parse_sampled },	{ K_ARENAS, '[', parse_arenas },
	{ K_ARENA_SETTINGS, '{', parse_arena_settings },	{ K_SKIP, '[', parse_skip },
	{ K_THREADS, '[', parse_threads },	{ K_SIZES, '[', parse_sizes },
};
/* clang-format on */

/* One top-level member's value, the key being k. */
static int parse_member(struct ps *ps, int k)
{
	struct dhat_profile *p = ps->p;
	struct tinfo *ti = &ps->top[k];
	struct json_value v;
	int err, c = json_reader__skip_ws(&ps->jr);

	ti->seen = true;
	ti->at = ps->jr.at;
	for (size_t i = 0; i < sizeof(COMPOSITE) / sizeof(COMPOSITE[0]); i++)
		if ((int)COMPOSITE[i].k == k && COMPOSITE[i].open == c)
			return COMPOSITE[i].parse(ps);
	if ((err = json_reader__value(&ps->jr, &v, 1)))
		return err;
	switch (k) {
	case K_PPS:
	case K_FTBL:
		snprintf(ti->bad, sizeof(ti->bad), "%s", json_reader__describe(&v));
		return 0;
	case K_VERSION:
		/* The viewer compares with != 2, so the string "2" passes too. */
		if (v.t == JSON_STR && strcmp(ps->jr.str, "2"))
			snprintf(ti->bad, sizeof(ti->bad), "\"%.40s\"", ps->jr.str);
		else if (v.t != JSON_STR && !(v.u64_ok && v.u == 2))
			snprintf(ti->bad, sizeof(ti->bad), "%s", json_reader__describe(&v));
		return 0;
	case K_BKLT:
	case K_BKACC:
		if (v.t != JSON_BOOL)
			snprintf(ti->bad, sizeof(ti->bad), "%s", json_reader__describe(&v));
		else
			*(k == K_BKLT ? &p->bklt : &p->bkacc) = v.b;
		return 0;
	case K_PID:
	case K_TE:
	case K_TG:
	case K_TUTH:
		if (!v.u64_ok) {
			snprintf(ti->bad, sizeof(ti->bad), "%s", json_reader__describe(&v));
			return 0;
		}
		if (k == K_PID)
			p->pid = (int64_t)v.u;
		else
			*(k == K_TE ? &p->te : k == K_TG ? &p->tg : &p->tuth) = v.u;
		return 0;
	case K_MODE:
		return keep_str(ps, &v, ti, &p->mode);
	case K_VERB:
		return keep_str(ps, &v, ti, &p->verb);
	case K_TU:
		return keep_str(ps, &v, ti, &p->tu);
	case K_MTU:
		return keep_str(ps, &v, ti, &p->mtu);
	case K_BU:
		return keep_str(ps, &v, ti, &p->bu);
	case K_BSU:
		return keep_str(ps, &v, ti, &p->bsu);
	case K_BKSU:
		return keep_str(ps, &v, ti, &p->bksu);
	case K_CMD:
		return keep_str(ps, &v, ti, &p->cmd);
	}
	return 0;
}

/* text := [BOM] ws value ws EOF, the value being the DHAT object
 *	{ "dhatFileVersion": 2, "mode": ..., "pps": [...], "ftbl": [...], ... } */
static int parse_text(struct ps *ps)
{
	bool first = true, more;
	struct json_value v;
	int c, k, err;

	/* FileReader drops a UTF-8 BOM before JSON.parse sees the text: do the same. */
	if ((err = json_reader__bom(&ps->jr)))
		return err;
	c = json_reader__skip_ws(&ps->jr);
	if (c < 0) {
		if (ps->jr.io_err)
			return ps->jr.io_err;
		json_reader__fail(&ps->jr, NULL, "empty file, expected a DHAT JSON object");
		return -EINVAL;
	}
	ps->top_at = ps->jr.at;
	if (c != '{') {
		if ((err = json_reader__value(&ps->jr, &v, 0)))
			return err;
		ps->top_type = v.t;
	} else {
		ps->top_type = JSON_OBJ;
		json_reader__advance(&ps->jr);
		for (;;) {
			if ((err = json_reader__next(&ps->jr, true, &first, &more)))
				return err;
			if (!more)
				break;
			k = top_key(ps->jr.str);
			if (k < 0 && !strcmp(ps->jr.str, LIVE_KEY)) {
				err = parse_live(ps);
			} else if (k < 0) {
				err = json_reader__value(&ps->jr, &v, 1);
			} else if (ps->top[k].seen) {
				struct json_pos at = ps->jr.at;

				defer(&ps->dup_key, 0, &at, false, "key \"%s\" given twice",
				      TOP_KEYS[k]);
				err = json_reader__value(&ps->jr, &v, 1);
			} else {
				err = parse_member(ps, k);
			}
			if (err)
				return err;
		}
	}
	return json_reader__end(&ps->jr);
}

/* ---- content checks, in the viewer's order ----------------------------------------- */

/* PP k's deferred checks: required counters present, frame indices in range. */
static int check_pp(struct ps *ps, size_t k)
{
	const struct dhat_profile *p = ps->p;
	const struct dhat_pp *pp = &p->pps[k];
	const struct ppmeta *m = &ps->meta[k];
	int f = pp_missing(ps, m->have);

	if (f >= 0)
		return json_reader__fail(&ps->jr, &m->at, "pps[%zu]: missing field \"%s\"", k,
					 PP_KEYS[f]);
	const uint32_t *fs = dhat_profile__pp_fs(p, pp);

	for (size_t i = 0; i < pp->fs_cnt; i++)
		if (fs[i] >= p->ftbl_cnt)
			return json_reader__fail(
			    &ps->jr, &m->at,
			    "pps[%zu]: fs[%zu] = %u is out of range (ftbl has %zu "
			    "frames)",
			    k, i, fs[i], p->ftbl_cnt);
	return 0;
}

/* The file's totals, one PP more. A sum past 64 bits is refused, not wrapped: a crafted
 * "tb": 18446744073709551615 made a 283 KiB total under a 16 EiB site, and could steer
 * diff --fail-if. */
static int add_totals(struct ps *ps, size_t k)
{
	struct dhat_profile *p = ps->p;
	const struct dhat_pp *pp = &p->pps[k];
	const struct {
		uint64_t *sum, v;
		const char *key;
	} add[] = {
		{ &p->total_bytes, pp->tb, "tb" },   { &p->total_blocks, pp->tbk, "tbk" },
		{ &p->gmax_bytes, pp->gb, "gb" },    { &p->gmax_blocks, pp->gbk, "gbk" },
		{ &p->end_bytes, pp->eb, "eb" },     { &p->end_blocks, pp->ebk, "ebk" },
		{ &p->total_reads, dhat_profile__pp_rb(p, pp), "rb" },
		{ &p->total_writes, dhat_profile__pp_wb(p, pp), "wb" },
		{ &ps->tl_sum, pp->tl, "tl" },
	};

	for (size_t i = 0; i < sizeof(add) / sizeof(add[0]); i++)
		if (__builtin_add_overflow(*add[i].sum, add[i].v, add[i].sum))
			return json_reader__fail(
			    &ps->jr, &ps->meta[k].at,
			    "pps[%zu]: \"%s\": %llu takes the file's total past 64 bits", k,
			    add[i].key, (unsigned long long)add[i].v);
	return 0;
}

static int check_content(struct ps *ps)
{
	struct dhat_profile *p = ps->p;
	const struct tinfo *t = ps->top;

	if (ps->top_type != JSON_OBJ)
		return json_reader__fail(&ps->jr, &ps->top_at,
					 "top level is %s, expected an object",
					 json_reader__type_name(ps->top_type));
	if (ps->dup_key.set)
		return json_reader__fail(&ps->jr, &ps->dup_key.at, "%s", ps->dup_key.msg);
	for (int k = 0; k < K_REQUIRED_CNT; k++)
		if (!t[k].seen)
			return json_reader__fail(&ps->jr, &ps->top_at, "missing field \"%s\"",
						 TOP_KEYS[k]);
	if (t[K_VERSION].bad[0])
		return json_reader__fail(&ps->jr, &t[K_VERSION].at,
					 "dhatFileVersion is %s, expected 2", t[K_VERSION].bad);
	/* The remaining header keys, in the order Valgrind writes them. */
	static const enum tkey order[] = {K_MODE, K_VERB, K_BKLT, K_BKACC, K_TU, K_MTU, K_BU,
					  K_BSU,  K_BKSU, K_CMD,  K_PID,   K_TE, K_TG,	K_TUTH};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		enum tkey k = order[i];
		const char *want = k == K_BKLT || k == K_BKACC ? "true or false"
				   : k == K_PID || k == K_TE || k == K_TG || k == K_TUTH
				       ? "a non-negative integer"
				       : "a string";

		if ((k == K_TG || k == K_TUTH) && !p->bklt)
			continue;
		if ((k == K_TG || k == K_TUTH) && !t[k].seen)
			return json_reader__fail(&ps->jr, &ps->top_at,
						 "missing field \"%s\" (required when "
						 "\"bklt\" is true)",
						 TOP_KEYS[k]);
		if (t[k].bad[0])
			return json_reader__fail(&ps->jr, &t[k].at,
						 "field \"%s\" is %s, expected %s", TOP_KEYS[k],
						 t[k].bad, want);
	}
	if (t[K_FTBL].bad[0])
		return json_reader__fail(&ps->jr, &t[K_FTBL].at,
					 "field \"ftbl\" is %s, expected an array", t[K_FTBL].bad);
	if (ps->ftbl_err.set)
		return json_reader__fail(&ps->jr, &ps->ftbl_err.at, "%s", ps->ftbl_err.msg);
	if (t[K_PPS].bad[0])
		return json_reader__fail(&ps->jr, &t[K_PPS].at,
					 "field \"pps\" is %s, expected an array", t[K_PPS].bad);
	/* PPs before the first bad one may still lack a field or point outside ftbl. */
	for (size_t k = 0; k < p->pp_cnt; k++) {
		int err = check_pp(ps, k);

		if (err)
			return err;
		err = add_totals(ps, k);
		if (err)
			return err;
		if (k < p->est_cnt) {
			p->total_bytes_var += p->est[k].tb_se * p->est[k].tb_se;
			p->total_blocks_var += p->est[k].tbk_se * p->est[k].tbk_se;
		}
	}
	if (ps->pp_err.set)
		return json_reader__fail(&ps->jr, &ps->pp_err.at, "%s", ps->pp_err.msg);
	if (p->live_cb && p->live_cb_end < p->end_bytes) { /* chunks smaller than the heap */
		free(p->live_cb);
		p->live_cb = NULL;
	}
	return 0;
}

/* ---- entry points ---------------------------------------------------------------------- */

void dhat_profile__free(struct dhat_profile *p)
{
	if (!p)
		return;
	dhat_mappings__release(&p->mappings);
	dhat_arenas__release(&p->arenas);
	free(p->threads);
	free(p->sizes);
	free(p->pps);
	free(p->acc);
	free(p->est);
	free(p->fs_pool);
	free(p->ftbl);
	free(p->str_pool);
	free(p->path);
	free(p->mode);
	free(p->verb);
	free(p->tu);
	free(p->mtu);
	free(p->bu);
	free(p->bsu);
	free(p->bksu);
	free(p->cmd);
	free(p->live_t);
	free(p->live_b);
	free(p->live_cb);
	free(p->rss_t);
	free(p->rss_b);
	dhat_skip__release(&p->skip);
	free(p);
}

const char *dhat_profile__frame(const struct dhat_profile *p, uint32_t i)
{
	return i < p->ftbl_cnt ? p->ftbl[i] : "???";
}

/* The bounds of a DHAT text (dhat_reader.h), and how their refusals read. */
static const struct json_reader_limits LIMITS = {
    .str_max = DHAT_STRING_MAX,
    .str_why = " (no frame or field is that long)",
    .inflate_ratio = DHAT_INFLATE_RATIO_MAX,
    .inflate_floor = DHAT_INFLATE_FLOOR,
    .not_a = "a profile",
};

/* Parse everything ps->jr delivers into a new profile. */
static struct dhat_profile *parse(struct ps *ps)
{
	struct dhat_profile *p;
	size_t fs_len;
	int err;

	seq_intern__init(&ps->fs, sizeof(uint32_t));
	p = ps->p = calloc(1, sizeof(*p));
	if (!p || !(p->path = strdup(ps->jr.name))) {
		err = -ENOMEM;
		json_reader__fail(&ps->jr, NULL, "out of memory");
		goto cleanup;
	}
	err = parse_text(ps);
	/* The pools are the profile's from here on (freed with it), the fs one trimmed to its
	 * length and without its index; the growth slack of the arrays goes back below. */
	p->fs_pool = seq_intern__take_pool(&ps->fs, &fs_len);
	p->str_pool = ps->str_pool;
	if (!err)
		err = check_content(ps);
	if (!err && p->ftbl_cnt < ps->ftbl_cap) {
		/* Give back the growth slack of the two big arrays. */
		char **nf = realloc(p->ftbl, (p->ftbl_cnt ? p->ftbl_cnt : 1) * sizeof(*nf));

		if (nf)
			p->ftbl = nf;
	}
	if (!err && p->pp_cnt < ps->pp_cap) {
		struct dhat_pp *np = realloc(p->pps, (p->pp_cnt ? p->pp_cnt : 1) * sizeof(*np));

		if (np)
			p->pps = np;
	}
	if (!err && p->est_cnt && p->est_cnt < ps->est_cap) { /* and of the sampled details */
		struct dhat_pp_est *ne = realloc(p->est, p->est_cnt * sizeof(*ne));

		if (ne)
			p->est = ne;
	}
cleanup:
	seq_intern__release(&ps->fs);
	free(ps->meta);
	if (err) {
		if (err == -ENOMEM && ps->jr.err && ps->jr.errsz && !ps->jr.err[0])
			json_reader__fail(&ps->jr, NULL, "out of memory");
		dhat_profile__free(p);
		errno = -err;
		return NULL;
	}
	return p;
}

struct dhat_profile *dhat_profile__parse(const char *text, size_t len, const char *name, char *err,
					 size_t errsz)
{
	struct ps ps = {0};
	struct dhat_profile *p;

	json_reader__init_buf(&ps.jr, text, len, name ? name : "<input>", err, errsz, &LIMITS);
	p = parse(&ps);
	json_reader__release(&ps.jr);
	return p;
}

struct dhat_profile *dhat_profile__load(const char *path, char *err, size_t errsz)
{
	struct ps ps = {0};
	struct dhat_profile *p = NULL;
	int ret;

	ret = json_reader__open(&ps.jr, path, err, errsz, &LIMITS);
	if (!ret) {
		p = parse(&ps);
		if (!p)
			ret = -errno;
	}
	json_reader__release(&ps.jr);
	if (ret)
		errno = -ret;
	return p;
}

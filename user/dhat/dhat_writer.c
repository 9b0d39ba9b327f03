// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * dhat_writer - one finished collector as DHAT JSON, dhatFileVersion 2.
 *
 * Annotated sample of what this file writes (comma-first, as Valgrind's dh_main.c does;
 * the annotations after "<-" are not part of the output):
 *
 *   {"dhatFileVersion":2                  <- the viewer requires exactly 2
 *   ,"mode":"ebpf-heap","verb":"Allocated" <- mode is free text; verb labels "Allocated at {"
 *   ,"bklt":true,"bkacc":false            <- lifetimes yes; no reads/writes (uprobes can't see
 * them)
 *   ,"tu":"µs","Mtu":"s"                  <- time unit (UTF-8 C2 B5) and the name of 10^6 tu
 *   ,"tuth":10                            <- "short-lived" threshold, in tu (required by bklt)
 *   ,"cmd":"./kaish-workloads grep"       <- traced command line, JSON-escaped
 *   ,"pid":1234                           <- traced process
 *   ,"te":162                             <- t-end: µs from window start to finish
 *   ,"tg":25                              <- t-gmax: µs to the latest global peak (tg <= te)
 *   ,"lost":{"droppedRecords":0           <- only when a count is not 0 (dhat_lost.h); the
 *     ,"unknownFrees":3,"stackFailures":0    viewer ignores keys it does not know
 *     ,"cutShortStacks":1                 <- written program points, so merged ones count once
 *     ,"untracedProcesses":0}
 *   ,"sampled":{"meanBytes":65536}       <- --sample-bytes: figures are estimates
 *                                            (dhat_sampled.h); absent when exact
 *   ,"death":{"cause":"oom-kill",...}    <- only when the process's end was seen (dhat_death.h)
 *   ,"rss":{"unit":"bytes","t":[...],...} <- the target's RSS over the profile (dhat_rss.h)
 *   ,"mappings":{"outsideMalloc":...}     <- its own anonymous mappings (dhat_mappings.h)
 *   ,"arenas":[{"arena":"main",...}]      <- glibc's arenas at te (dhat_arenas.h)
 *   ,"pps":                               <- program points, one per distinct frame list
 *    [{"tb":80,"tbk":1                    <- total bytes / blocks (each realloc: +1 block)
 *     ,"tbSe":12.5,"tbkSe":0.8            <- sampled only: their standard errors (dhat_sampled.h)
 *     ,"tbRealloc":40                     <- sampled, when not 0: bytes of tb charged by reallocs
 *     ,"tbkReallocd":1                    <- sampled, when not 0: its blocks a realloc moved
 *     ,"tl":20                            <- sum of block lifetimes, µs (live ones up to te)
 *     ,"mb":80,"mbk":1                    <- this PP's own peak (dhat-rs meaning)
 *     ,"gb":80,"gbk":1                    <- live at t-gmax; Σgb = the global peak
 *     ,"eb":0,"ebk":0                     <- live at t-end; Σeb = bytes never freed
 *     ,"fs":[1,2,3]                       <- indices into ftbl, innermost frame first; never 0
 *     }
 *    ,{...}
 *    ]
 *   ,"ftbl":                              <- frame table, each string once
 *    ["[root]"                            <- index 0: the viewer's root, never in any fs
 *    ,"0x401136: make_table (prog.c:21)"  <- Valgrind's VG_(describe_IP) frame text
 *    ,"0x4011A2: main (prog.c:35)"
 *    ,"0x4011B0: _start (in /path/prog)"
 *    ]
 *   ,"heapTimeline":                      <- tracer's own key (dh_view ignores unknown keys);
 *                                            absent when nothing was ever live
 *    {"t":[0,12,25]                       <- µs since window start: bucket starts (timeline.h)
 *    ,"b":[0,80,120]                      <- highest live bytes within each bucket
 *    ,"cb":[0,96,144]                     <- glibc's malloc only (dhat_meta.glibc_chunks): the
 *                                            same heap in malloc chunks, header and rounding
 *                                            included (heap_chunk.h); cb[i] >= b[i]
 *    ,"cbEnd":144}                        <- in chunks at te (Σeb in chunks)
 *   }
 *
 * An empty profile is written with ,"pps":\n [\n ] like Valgrind.
 *
 * Program points whose final frame lists are identical are merged (the viewer aborts on a
 * repeated fs): tb, tbk, tl, gb, gbk, eb and ebk add exactly; mb/mbk become the largest of
 * the members' peaks and of the merged gb and eb, so the merged point still satisfies
 * gb <= mb and eb <= mb (the true merged peak lies between that and the sum of the peaks).
 */
#include "dhat_writer.h"

#include "dhat_json.h"
#include <math.h>
#include "dhat_sampled.h"
#include "dhat_threads.h"
#include "output.h"
#include "safe_text.h"
#include "seq_intern.h"
#include "strtab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Frames used when a PP has no frames (no callback, or an empty list). */
#define NO_STACK_FRAME "[no stack]"

/* One written program point: the merge of every PP with the same fs. */
struct out_pp {
	__u64 tb, tbk, tl_ns, mb, mbk, gb, gbk, eb, ebk;
	double tb_var, tbk_var; /* sampled: variances add over merged PPs */
	__u64 tb_realloc;	/* sampled: bytes charged by reallocs */
	__u64 tbk_reallocd;	/* sampled: blocks a realloc then moved */
	bool cut_short;	       /* a member's stack stops before the thread's entry */
};

struct writer {
	struct strtab *ftbl; /* index 0 = "[root]" */
	struct seq_intern fs; /* every group's fs: its index is the group's */
	struct out_pp *grp;   /* by group */
	size_t grp_cnt, grp_cap;
	size_t *pp_map;	      /* collector PP -> its group: the written index ("pinPp") */
};

static void writer__release(struct writer *w)
{
	strtab__free(w->ftbl);
	seq_intern__release(&w->fs);
	free(w->grp);
	free(w->pp_map);
}

static int writer__init(struct writer *w, size_t pp_cnt)
{
	memset(w, 0, sizeof(*w));
	w->ftbl = strtab__new();
	if (!w->ftbl || strtab__intern_str(w->ftbl, "[root]") < 0)
		return -ENOMEM;
	seq_intern__init(&w->fs, sizeof(__u32));
	w->grp_cap = pp_cnt ? pp_cnt : 1;
	w->grp = calloc(w->grp_cap, sizeof(*w->grp));
	w->pp_map = calloc(w->grp_cap, sizeof(*w->pp_map));
	if (!w->grp || !w->pp_map)
		return -ENOMEM;
	return 0;
}

/* Add one collector PP whose fs_cnt frame indices were just written at the tail of w->fs. */
static int writer__add(struct writer *w, size_t k, const struct pp_stats *pp, size_t fs_cnt,
		       bool cut_short)
{
	bool added;
	int64_t idx = seq_intern__intern_tail(&w->fs, fs_cnt, &added);
	struct out_pp *g;

	if (idx < 0)
		return (int)idx;
	w->pp_map[k] = (size_t)idx;
	g = &w->grp[idx];
	if (!added) {
		/* Same final frames as an earlier PP: merge (the new copy was dropped). */
		g->tb += pp->tb;
		g->tbk += pp->tbk;
		g->tb_var += pp->tb_var;
		g->tbk_var += pp->tbk_var;
		g->tb_realloc += pp->tb_realloc;
		g->tbk_reallocd += pp->tbk_reallocd;
		g->tl_ns += pp->tl_ns;
		g->cut_short = g->cut_short || cut_short;
		g->gb += pp->gb;
		g->gbk += pp->gbk;
		g->eb += pp->eb;
		g->ebk += pp->ebk;
		if (pp->mb > g->mb) {
			g->mb = pp->mb;
			g->mbk = pp->mbk;
		}
		return 0;
	}
	/* grp_cap == PP count: room is guaranteed. */
	w->grp_cnt++;
	*g = (struct out_pp){
		.tb = pp->tb, .tbk = pp->tbk, .tl_ns = pp->tl_ns,
		.tb_var = pp->tb_var, .tbk_var = pp->tbk_var, .tb_realloc = pp->tb_realloc,
		.tbk_reallocd = pp->tbk_reallocd,
		.mb = pp->mb, .mbk = pp->mbk, .gb = pp->gb, .gbk = pp->gbk,
		.eb = pp->eb, .ebk = pp->ebk, .cut_short = cut_short,
	};
	return 0;
}


/* If s holds bytes that are not UTF-8, a copy with each replaced by U+FFFD (the caller
 * frees it); NULL if s is valid (or on -ENOMEM, with *err set). Done before interning, so
 * that two frames that print alike also share one index. */
static char *utf8_fixed_copy(const char *s, int *err)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, bad = 0;
	char *out, *o;

	for (; *p; p += n ? n : 1)
		if (!(n = safe_text__utf8_len(p)))
			bad++;
	if (!bad)
		return NULL;
	out = malloc(strlen(s) + 2 * bad + 1);
	if (!out) {
		*err = -ENOMEM;
		return NULL;
	}
	for (p = (const unsigned char *)s, o = out; *p; p += n ? n : 1) {
		n = safe_text__utf8_len(p);
		if (n) {
			memcpy(o, p, n);
			o += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
		}
	}
	*o = '\0';
	return out;
}

/* Resolve, intern and merge every PP of c. */
static int writer__build(struct writer *w, const struct collector *c, pp_frames_fn frames,
			 void *ctx)
{
	struct strvec sv = {};
	const struct pp_stats *pps;
	size_t cnt;
	int err = 0;

	pps = collector__pps(c, &cnt);
	for (size_t k = 0; k < cnt; k++) {
		bool cut_short = false;
		__u32 *fs;

		strvec__clear(&sv);
		if (frames) {
			err = frames(ctx, &pps[k], &sv);
			if (err < 0)
				goto cleanup;
			cut_short = err == DHAT_FRAMES_CUT_SHORT;
			err = 0;
		} else {
			err = strvec__pushf(&sv, "%s", alloc_fn_name(pps[k].fn));
			if (!err)
				err = strvec__pushf(&sv, "[stack %d]", (int)pps[k].stack_id);
			if (err)
				goto cleanup;
		}
		if (!sv.cnt) {
			err = strvec__push(&sv, NO_STACK_FRAME);
			if (err)
				goto cleanup;
		}
		fs = seq_intern__tail(&w->fs, sv.cnt, &err);
		if (!fs)
			goto cleanup;
		for (size_t j = 0; j < sv.cnt; j++) {
			char *fixed = utf8_fixed_copy(sv.items[j], &err);
			int64_t idx;

			if (err)
				goto cleanup;
			idx = strtab__intern_str(w->ftbl, fixed ? fixed : sv.items[j]);
			free(fixed);
			if (idx < 0) {
				err = (int)idx;
				goto cleanup;
			}
			fs[j] = (__u32)idx;
		}
		err = writer__add(w, k, &pps[k], sv.cnt, cut_short);
		if (err)
			goto cleanup;
	}
	/* Keep every merged point consistent: gb <= mb and eb <= mb. */
	for (size_t g = 0; g < w->grp_cnt; g++) {
		struct out_pp *o = &w->grp[g];

		if (o->gb > o->mb) {
			o->mb = o->gb;
			o->mbk = o->gbk;
		}
		if (o->eb > o->mb) {
			o->mb = o->eb;
			o->mbk = o->ebk;
		}
	}
cleanup:
	strvec__release(&sv);
	return err;
}

/* ns -> µs, rounded half up: monotonic, so tg <= te survives the conversion. */
static inline unsigned long long ns_to_us(__u64 ns)
{
	return (unsigned long long)((ns + 500) / 1000);
}

/* The live-heap series, so that `tracer export --format timeline` can draw any of our
 * files later (dhat_reader.h reads it back). Left out when nothing was ever live: no chart
 * to draw, and the empty file keeps Valgrind's layout. */
static void emit_live(FILE *f, const struct collector *c, bool chunks)
{
	const struct timeline *tl = collector__timeline(c);
	size_t live = 0;

	while (live < tl->cnt && !tl->bytes[live])
		live++;
	if (live == tl->cnt)
		return;
	fputs(",\"heapTimeline\":\n {\"t\":[", f);
	for (size_t i = 0; i < tl->cnt; i++)
		fprintf(f, "%s%llu", i ? "," : "", ns_to_us(tl->t_ns[i]));
	fputs("]\n ,\"b\":[", f);
	for (size_t i = 0; i < tl->cnt; i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)tl->bytes[i]);
	if (chunks) {
		fputs("]\n ,\"cb\":[", f);
		for (size_t i = 0; i < tl->cnt; i++)
			fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)tl->chunks[i]);
		fprintf(f, "]\n ,\"cbEnd\":%llu}\n",
			(unsigned long long)collector__totals(c)->live_chunk_bytes);
		return;
	}
	fputs("]}\n", f);
}

/* The "lost" object, when the profile misses anything (see dhat_lost.h). */
static void writer__emit_lost(const struct writer *w, FILE *f, const struct collector *c,
			      const struct dhat_meta *meta)
{
	const struct collector_totals *t = collector__totals(c);
	struct dhat_lost l = { 0 };

	if (meta)
		l = meta->lost;
	l.n[DHAT_LOST_UNKNOWN_FREES] += t->unknown_frees;
	l.n[DHAT_LOST_STACK_FAILURES] += t->stack_failures;
	for (size_t g = 0; g < w->grp_cnt; g++)
		l.n[DHAT_LOST_CUT_SHORT] += w->grp[g].cut_short;
	dhat_lost__write(f, &l);
}

/* A sub-total of one output group: the collector's PPs that the writer merged into one
 * (the same frames once symbolized: a stack the kernel walked and the same stack from a
 * fallback copy have two ids) count together. */
struct group_sub {
	__u32 tag;
	int64_t g;
	__u64 tb, tbk;
};

static int group_sub_cmp(const void *a, const void *b)
{
	const struct group_sub *x = a, *y = b;

	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return x->g < y->g ? -1 : x->g > y->g;
}

/* One collector sub-total as its group's. */
static struct group_sub group_of(const struct writer *w, const struct pp_sub *e)
{
	return (struct group_sub){ .tag = e->tag, .tb = e->tb, .tbk = e->tbk,
				   .g = e->pp < w->grp_cap ? (int64_t)w->pp_map[e->pp] : -1 };
}

/* The collector's sub-totals summed per (tag, group) into *out (malloc'd): their count.
 * *out is NULL when there is no memory: the caller then takes them one by one. */
static size_t group_subs(const struct writer *w, const struct pp_sub *sub, size_t scnt,
			 struct group_sub **out)
{
	struct group_sub *v = scnt ? malloc(scnt * sizeof(*v)) : NULL;
	size_t n = 0;

	*out = v;
	if (!v)
		return scnt;
	for (size_t i = 0; i < scnt; i++)
		v[i] = group_of(w, &sub[i]);
	qsort(v, scnt, sizeof(*v), group_sub_cmp);
	for (size_t i = 0; i < scnt; i++) {
		if (n && v[n - 1].tag == v[i].tag && v[n - 1].g == v[i].g && v[i].g >= 0) {
			v[n - 1].tb += v[i].tb;
			v[n - 1].tbk += v[i].tbk;
		} else {
			v[n++] = v[i];
		}
	}
	return n;
}

/* "threads" and "sizes" (dhat_threads.h) from the collector's sub-totals; a thread's or
 * bucket's top program point is its largest output group. */
static void writer__emit_threads(const struct writer *w, FILE *f, const struct collector *c)
{
	struct dhat_thread th[COLLECTOR_THREADS_MAX + 1];
	struct dhat_size_bucket sz[64];
	uint64_t top_tb[COLLECTOR_THREADS_MAX + 1] = { 0 };
	size_t tcnt, scnt, n = 0;
	const struct thread_stats *ts = collector__threads(c, &tcnt);
	const struct pp_sub *raw = collector__pp_subs(c, &scnt);
	struct group_sub *sub;

	memset(sz, 0, sizeof(sz));
	for (size_t i = 0; i < tcnt && i <= COLLECTOR_THREADS_MAX; i++) {
		th[i] = (struct dhat_thread){ .tid = ts[i].tid, .tb = ts[i].tb, .tbk = ts[i].tbk,
					      .mb = ts[i].mb, .mbk = ts[i].mbk, .eb = ts[i].eb,
					      .ebk = ts[i].ebk, .top_pp = -1 };
		memcpy(th[i].comm, ts[i].comm, sizeof(th[i].comm));
		th[i].comm[sizeof(th[i].comm) - 1] = '\0';
	}
	for (size_t k = 0; k < 64; k++)
		sz[k] = (struct dhat_size_bucket){ .log2 = k, .top_pp = -1 };
	scnt = group_subs(w, raw, scnt, &sub);
	for (size_t i = 0; i < scnt; i++) {
		const struct group_sub one = sub ? sub[i] : group_of(w, &raw[i]), *e = &one;
		int64_t g = e->g;

		if (e->tag >= PP_SUB_SIZE && e->tag - PP_SUB_SIZE < 64) {
			struct dhat_size_bucket *b = &sz[e->tag - PP_SUB_SIZE];

			b->tb += e->tb;
			b->tbk += e->tbk;
			if (e->tbk > b->top_tbk) {
				b->top_tbk = e->tbk;
				b->top_pp = g;
			}
		} else if (e->tag < tcnt && e->tb > top_tb[e->tag]) {
			top_tb[e->tag] = e->tb;
			th[e->tag].top_pp = g;
		}
	}
	free(sub);
	/* slot 0 (the threads beyond the table) only when it holds any */
	if (tcnt > 1 || (tcnt && th[0].tbk))
		dhat_threads__write(f, th + !th[0].tbk, tcnt - !th[0].tbk);
	for (size_t k = 0; k < 64; k++)
		if (sz[k].tbk)
			sz[n++] = sz[k];
	dhat_sizes__write(f, sz, n);
}

static void writer__emit(const struct writer *w, FILE *f, const struct collector *c,
			 const struct dhat_meta *meta)
{
	const struct collector_totals *t = collector__totals(c);
	const char *mode = meta && meta->mode ? meta->mode : "ebpf-heap";

	fputs("{\"dhatFileVersion\":2\n,\"mode\":", f);
	dhat__json_str(f, mode);
	fputs(",\"verb\":\"Allocated\"\n", f);
	fputs(",\"bklt\":true,\"bkacc\":false\n", f);
	fputs(",\"tu\":\"\xc2\xb5s\",\"Mtu\":\"s\"\n", f);
	fputs(",\"tuth\":10\n", f);
	fputs(",\"cmd\":", f);
	dhat__json_str(f, meta && meta->cmd ? meta->cmd : "");
	fprintf(f, "\n,\"pid\":%d\n", meta ? meta->pid : 0);
	fprintf(f, ",\"te\":%llu\n", ns_to_us(t->te_ns));
	fprintf(f, ",\"tg\":%llu\n", ns_to_us(t->tg_ns));
	writer__emit_lost(w, f, c, meta);
	dhat_sampled__write(f, collector__sample_bytes(c));
	if (meta && meta->death)
		dhat_death__write(f, meta->death);
	if (meta && meta->rss)
		dhat_rss__write(f, meta->rss, meta->rss_cnt, collector__start_ns(c), t->te_ns);
	if (meta && meta->mappings)
		dhat_mappings__write(f, meta->mappings);
	if (meta && meta->arenas)
		dhat_arenas__write(f, meta->arenas, w->pp_map, w->grp_cap);
	if (meta)
		dhat_skip__write(f, meta->skip, meta->skip_cnt);
	writer__emit_threads(w, f, c);
	fputs(",\"pps\":\n [", f);
	for (size_t g = 0; g < w->grp_cnt; g++) {
		const struct out_pp *o = &w->grp[g];

		fprintf(f, "%s{\"tb\":%llu,\"tbk\":%llu\n", g ? "\n ," : "",
			(unsigned long long)o->tb, (unsigned long long)o->tbk);
		/* with a fraction: rounded per point, a block count's se (often < 1) would be
		 * lost or doubled before the sums that read it back */
		if (collector__sample_bytes(c))
			fprintf(f, "  ,\"%s\":%.6g,\"%s\":%.6g\n", DHAT_SAMPLED_TB_SE,
				sqrt(o->tb_var), DHAT_SAMPLED_TBK_SE, sqrt(o->tbk_var));
		if (o->tb_realloc)
			fprintf(f, "  ,\"%s\":%llu\n", DHAT_SAMPLED_TB_REALLOC,
				(unsigned long long)o->tb_realloc);
		if (o->tbk_reallocd)
			fprintf(f, "  ,\"%s\":%llu\n", DHAT_SAMPLED_TBK_REALLOCD,
				(unsigned long long)o->tbk_reallocd);
		fprintf(f, "  ,\"tl\":%llu\n", ns_to_us(o->tl_ns));
		fprintf(f, "  ,\"mb\":%llu,\"mbk\":%llu\n", (unsigned long long)o->mb,
			(unsigned long long)o->mbk);
		fprintf(f, "  ,\"gb\":%llu,\"gbk\":%llu\n", (unsigned long long)o->gb,
			(unsigned long long)o->gbk);
		fprintf(f, "  ,\"eb\":%llu,\"ebk\":%llu\n", (unsigned long long)o->eb,
			(unsigned long long)o->ebk);
		size_t fs_cnt;
		const __u32 *fs = seq_intern__get(&w->fs, g, &fs_cnt, NULL);

		fputs("  ,\"fs\":[", f);
		for (size_t j = 0; j < fs_cnt; j++)
			fprintf(f, "%s%u", j ? "," : "", fs[j]);
		fputs("]\n  }", f);
	}
	fputs("\n ]\n,\"ftbl\":\n [", f);
	for (size_t k = 0; k < w->ftbl->cnt; k++) {
		if (k)
			fputs("\n ,", f);
		dhat__json_str(f, w->ftbl->strs[k]);
	}
	fputs("\n ]\n", f);
	emit_live(f, c, meta && meta->glibc_chunks);
	fputs("}\n", f);
}

int dhat__write(FILE *f, const struct collector *c, pp_frames_fn frames, void *ctx,
		const struct dhat_meta *meta)
{
	struct writer w;
	size_t cnt;
	int err;

	collector__pps(c, &cnt);
	err = writer__init(&w, cnt);
	if (err)
		goto cleanup;
	err = writer__build(&w, c, frames, ctx);
	if (err)
		goto cleanup;
	writer__emit(&w, f, c, meta);
	errno = 0;
	if (fflush(f) || ferror(f))
		err = errno > 0 ? -errno : -EIO;
cleanup:
	writer__release(&w);
	return err;
}

int dhat__write_path(const char *path, const struct collector *c, pp_frames_fn frames, void *ctx,
		     const struct dhat_meta *meta)
{
	struct output o;
	int err;

	err = output__open(&o, path, OUTPUT_GZIP_SUFFIX);
	if (err)
		return err;
	err = dhat__write(o.f, c, frames, ctx, meta);
	return output__close(&o, err);
}

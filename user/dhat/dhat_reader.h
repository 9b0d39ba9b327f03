/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dhat_reader - loads and validates a DHAT v2 file (ours, Valgrind's "heap"/"copy"/"ad-hoc",
 * dhat-rs's "rust-heap"/"rust-ad-hoc"), plain or gzip-compressed, into plain C structs.
 * Shared by `tracer report`, `tracer diff` and the exporters.
 *
 * Validation is dh_view's (dhat-format.md §5.2) made stricter where the viewer would show
 * garbage: required top-level keys; dhatFileVersion == 2; tg and tuth when bklt; tb, tbk, fs
 * per PP, plus mb mbk gb gbk eb ebk when bklt and rb wb when bkacc; counters must be
 * non-negative integers, fs an array of in-range ftbl indices, ftbl an array of strings;
 * no two PPs with equal fs; no known key given twice in one object. The optional "lost"
 * object (dhat_lost.h) is read leniently and never rejects a file; so is tracer's optional
 * "heapTimeline" (see live_t below). Any failure gives ONE
 * line naming the file and the location, compiler style (byte columns):
 *	prof.json:12:3: not valid JSON: expected ',' or '}', found ']'
 *	prof.json:40:2: pps[3]: missing field "tbk"
 *	prof.json: empty file, expected a DHAT JSON object        (no position to give)
 *
 * The reader streams: the text goes once through a small window and a hand-written JSON
 * parser straight into these structs, never held whole and never as a JSON tree, so peak
 * memory is about the profile's own size (0.8-0.9x a file of 10-30-frame stacks;
 * docs/BENCHMARKS.md). Two PPs with equal fs are rejected when the second one is read, not
 * after the whole file.
 */
#ifndef TRACER_DHAT_READER_H
#define TRACER_DHAT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dhat_arenas.h"
#include "dhat_death.h"
#include "dhat_lost.h"
#include "dhat_skip.h"
#include "dhat_mappings.h"
#include "dhat_rss.h"
#include "dhat_threads.h"

/* Most frames one PP's fs holds (fs_cnt is 31 bits wide). */
#define DHAT_FS_CNT_MAX 0x7fffffffu

/* One program point as read. Fields absent from the file read as 0 (see has_tl). A file of
 * shallow stacks holds about 130 bytes per PP, so this stays at 80 bytes: the frames are an
 * offset (dhat_profile__pp_fs), and rb/wb, rare, live aside (dhat_profile__pp_rb/_wb). */
/* Input bounds (a crafted file must not take unbounded memory): a string (a frame, a
 * field) is at most DHAT_STRING_MAX bytes, and a file yields at most
 * max(DHAT_INFLATE_FLOOR, DHAT_INFLATE_RATIO_MAX x its size) bytes of text (gzip: real
 * profiles compress 4-30 times). The reader's memory is then at most 1.5 times that text. */
#define DHAT_STRING_MAX	       (64u << 10)
#define DHAT_INFLATE_RATIO_MAX 128u
#define DHAT_INFLATE_FLOOR     (64u << 20)

struct dhat_pp {
	uint64_t tb, tbk;     /* total bytes / blocks */
	uint64_t tl;	      /* sum of lifetimes, in tu (0 if absent) */
	uint64_t mb, mbk;     /* max (bklt) */
	uint64_t gb, gbk;     /* at t-gmax (bklt) */
	uint64_t eb, ebk;     /* at t-end (bklt) */
	uint32_t fs_off;      /* where its frame indices start in dhat_profile.fs_pool */
	uint32_t fs_cnt : 31; /* how many: innermost first */
	uint32_t has_tl : 1;  /* "tl" was present */
};

/* A PP's reads and writes (bkacc), kept apart from struct dhat_pp: most files have none. */
struct dhat_pp_acc {
	uint64_t rb, wb;
};

/* What a sampled PP says of its estimates (dhat_sampled.h), kept apart too: only sampled
 * profiles have it. The standard errors of tb and tbk ("tbSe", "tbkSe"), and the part of
 * tb charged by reallocs ("tbRealloc") and its blocks a realloc then moved ("tbkReallocd"):
 * realloc chains, which sampling charges by its own rule. */
struct dhat_pp_est {
	double tb_se, tbk_se;
	uint64_t tb_realloc, tbk_reallocd;
};

struct dhat_profile {
	char *path;	       /* as given to the loader (or the name given to parse) */
	char *mode, *verb;     /* e.g. "heap", "rust-heap", "ebpf-heap"; "Allocated" */
	bool bklt, bkacc;      /* block lifetimes / accesses recorded */
	char *tu, *mtu;	       /* time unit and the name of 10^6 tu */
	char *bu, *bsu, *bksu; /* optional units (NULL if absent) */
	char *cmd;	       /* traced command */
	int64_t pid;
	uint64_t te;	     /* t-end, tu */
	uint64_t tg;	     /* t-gmax, tu (bklt only) */
	uint64_t tuth;	     /* short-lived threshold, tu (bklt only) */
	/* Our "lost" object (dhat_lost.h), optional: what the trace missed. has_lost only when
	 * it is an object; members that are not non-negative integers read as 0, unknown
	 * members are skipped, and nothing in it makes a file invalid (dh_view ignores it). */
	bool has_lost;
	struct dhat_lost lost;
	/* Our "death" object (dhat_death.h), optional and as lenient: how the process ended. */
	bool has_death;
	struct dhat_death death;
	/* Our "rss" object (dhat_rss.h), optional and as lenient: RSS at te, and the series
	 * (rss_t in tu, ascending; rss_b = anon + file + shmem) when it is well formed. */
	bool has_rss;
	struct dhat_rss_end rss_end;
	uint64_t *rss_t, *rss_b;
	size_t rss_cnt;
	/* Our "mappings" object (dhat_mappings.h), optional and as lenient (frames not kept). */
	bool has_mappings;
	struct dhat_mappings mappings;
	/* Our "arenas" and "arenaSettings" (dhat_arenas.h), optional and as lenient: glibc's
	 * arenas at te; pin_pp and fragmenters' pp index pps (checked by whoever names them). */
	bool has_arenas;
	struct dhat_arenas arenas;
	/* Our "sampled" object (dhat_sampled.h), optional and as lenient: --sample-bytes' mean,
	 * 0 for an exact profile. Non-zero: every figure is an estimate. */
	uint64_t sample_bytes;
	/* Our "skip" array (dhat_skip.h), optional: the trace's --skip patterns. */
	struct dhat_skip skip;
	/* Our "threads" and "sizes" arrays (dhat_threads.h), optional and as lenient: NULL/0
	 * when absent; topPp is checked by whoever names it. */
	struct dhat_thread *threads;
	size_t threads_cnt;
	struct dhat_size_bucket *sizes;
	size_t sizes_cnt;
	struct dhat_pp *pps; /* program points, file order */
	size_t pp_cnt;
	/* pps[k]'s rb/wb for k < acc_cnt (NULL/0 when every PP so far had none): read them with
	 * dhat_profile__pp_rb/_wb, which give 0 beyond. */
	struct dhat_pp_acc *acc;
	size_t acc_cnt;
	/* pps[k]'s estimate details for k < est_cnt, as acc (optional keys: one that is not a
	 * non-negative integer is ignored, never an error). Read with dhat_profile__pp_est. */
	struct dhat_pp_est *est;
	size_t est_cnt;
	char **ftbl; /* frame strings; ftbl[0] is normally "[root]" (slices of str_pool) */
	size_t ftbl_cnt;
	/* Backing stores, one allocation each (no per-PP or per-frame malloc): every PP's frame
	 * indices, in PP order (fewer than 2^32 in all), and every ftbl string with its NUL, in
	 * ftbl order. */
	uint32_t *fs_pool;
	char *str_pool;
	/* Sums over pps, computed at load. */
	uint64_t total_bytes, total_blocks; /* Σtb, Σtbk */
	uint64_t gmax_bytes, gmax_blocks;   /* Σgb, Σgbk: live at the global peak */
	uint64_t end_bytes, end_blocks;	    /* Σeb, Σebk */
	uint64_t total_reads, total_writes; /* Σrb, Σwb (bkacc) */
	/* Σ tbSe^2, Σ tbkSe^2: the variances of total bytes' and blocks' estimates (sampled;
	 * 0 in a file without standard errors) */
	double total_bytes_var, total_blocks_var;
	/* Live heap over time, tracer's optional "heapTimeline" key (dh_view ignores it;
	 * Valgrind and dhat-rs files lack it): live_cnt points, live_t[i] in tu (ascending),
	 * live_b[i] the highest live bytes from live_t[i] to the next point. A malformed series
	 * is dropped (NULL/0), never an error: the viewer would not look at it either. */
	uint64_t *live_t, *live_b;
	size_t live_cnt;
	/* The same heap in glibc malloc chunks, header and rounding included ("cb", written
	 * for glibc's malloc only): live_cnt points, each >= live_b's, and live_cb_end, the
	 * chunks live at te (>= end_bytes). NULL when absent or malformed in any way (a length,
	 * a value, a point below live_b, a missing or smaller "cbEnd"): dropped, not an error. */
	uint64_t *live_cb;
	uint64_t live_cb_end;
};

/* Read path (plain or gzip, detected by content) and validate it. On failure returns NULL,
 * sets errno (EINVAL for bad content, ENOENT/EISDIR/... when unreadable) and writes one
 * line, "PATH:LINE:COL: problem", into err (which may be NULL). The caller frees the result
 * with dhat_profile__free. */
struct dhat_profile *dhat_profile__load(const char *path, char *err, size_t errsz);

/* Same as dhat_profile__load on an in-memory text of len bytes; name labels messages. */
struct dhat_profile *dhat_profile__parse(const char *text, size_t len, const char *name, char *err,
					 size_t errsz);

/* Accepts NULL. */
void dhat_profile__free(struct dhat_profile *p);

/* Frame string i of p, or "???" when out of range (never NULL). */
const char *dhat_profile__frame(const struct dhat_profile *p, uint32_t i);

/* pp's frame indices into p->ftbl, innermost first (pp->fs_cnt of them; NULL when p has no
 * frames at all). pp is one of p->pps. */
static inline const uint32_t *dhat_profile__pp_fs(const struct dhat_profile *p,
						  const struct dhat_pp *pp)
{
	return p->fs_pool ? p->fs_pool + pp->fs_off : NULL;
}

/* Frame string i (< pp->fs_cnt) of pp, innermost first, as dhat_profile__frame. */
static inline const char *dhat_profile__pp_frame(const struct dhat_profile *p,
						 const struct dhat_pp *pp, size_t i)
{
	return dhat_profile__frame(p, p->fs_pool[pp->fs_off + i]);
}

/* pp's reads / writes (bkacc; 0 when the file has none). pp is one of p->pps. */
static inline uint64_t dhat_profile__pp_rb(const struct dhat_profile *p, const struct dhat_pp *pp)
{
	size_t k = (size_t)(pp - p->pps);

	return k < p->acc_cnt ? p->acc[k].rb : 0;
}

static inline uint64_t dhat_profile__pp_wb(const struct dhat_profile *p, const struct dhat_pp *pp)
{
	size_t k = (size_t)(pp - p->pps);

	return k < p->acc_cnt ? p->acc[k].wb : 0;
}

/* pp's estimate details (zeros when the file has none). pp is one of p->pps. */
static inline struct dhat_pp_est dhat_profile__pp_est(const struct dhat_profile *p,
						    const struct dhat_pp *pp)
{
	size_t k = (size_t)(pp - p->pps);
	struct dhat_pp_est none = {0, 0, 0, 0};

	return k < p->est_cnt ? p->est[k] : none;
}

#endif

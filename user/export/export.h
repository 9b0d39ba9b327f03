/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * export - turns a DHAT profile, as loaded by dhat_reader.h, into the formats the rest of the
 * profiling ecosystem reads:
 *
 *   pprof      gzip-compressed profile.proto (github.com/google/pprof), the sample types of a
 *              Go heap profile: `go tool pprof`, pprof.me, Pyroscope, Parca, speedscope.
 *   folded     collapsed stacks "outer;...;inner N": flamegraph.pl, inferno, speedscope.
 *   svg        a self-contained interactive flame graph (flamegraph.pl look: tooltips,
 *              click-to-zoom, search), for any browser, no network.
 *   timeline   an SVG chart of live heap bytes over the traced window, t-gmax marked.
 *
 * Everything works on plain in-memory data (no BPF, no files but the one written), so it is
 * unit-tested without root. All functions return 0 or -errno and never print; on error the
 * output may be partially written. Frame strings are parsed as Valgrind writes them
 * (dhat-format.md §4): `0xADDR: fn (file:line)`, `0xADDR: fn (in /obj)`, `0xADDR: ???`, and
 * dhat-rs's `0xaddr: fn (file:line:col)`; any other text is taken as a function name.
 *
 * Typical use (the `tracer export FILE --format F` command):
 *
 *	struct dhat_profile *p = dhat_profile__load(path, err, sizeof(err));
 *	struct export_opts o = { .weight = EXPORT_WEIGHT_BYTES };
 *	int e = p ? export__to_path(p, EXPORT_FMT_SVG, "out.svg", &o) : -errno;
 */
#ifndef TRACER_EXPORT_H
#define TRACER_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct dhat_profile;

/* Which per-PP counter sizes a stack in folded output and flame graphs. */
enum export_weight {
	EXPORT_WEIGHT_BYTES = 0,  /* tb: bytes allocated over the run (default) */
	EXPORT_WEIGHT_BLOCKS,	  /* tbk: allocations */
	EXPORT_WEIGHT_GMAX_BYTES, /* gb: bytes live at t-gmax, the heap peak (0 unless bklt) */
	EXPORT_WEIGHT_END_BYTES,  /* eb: bytes still live at t-end, i.e. leaked (0 unless bklt) */
};

/* Every output format; export.c is the front door that dispatches on it. */
enum export_format {
	EXPORT_FMT_PPROF = 0, /* gzip'ed protobuf; binary */
	EXPORT_FMT_FOLDED,    /* text, one stack a line */
	EXPORT_FMT_SVG,	      /* flame graph */
	EXPORT_FMT_TIMELINE,  /* live heap over time (SVG): from a collector, not a DHAT file */
	EXPORT_FMT_CNT,
};

struct export_opts {
	enum export_weight weight; /* folded and svg; pprof always carries every value */
	/* Folded and svg: keep each frame's " (file:line)" / " (in /obj)" suffix, so that one
	 * function called from two lines becomes two frames. Default: function names only. */
	bool location;
	/* svg heading; NULL: "Heap flame graph: <what the weight counts>". Timeline: its
	 * title; NULL: "Live heap". */
	const char *title;
	/* pprof, folded, svg: keep allocation plumbing (malloc, operator new, RawVec, obmalloc,
	 * ...: plumbing.h) at the leaf of each stack. Default: each stack starts at the first
	 * frame that is not plumbing, the frame that names its site (site.h). */
	bool keep_plumbing;
	/* Where plumbing is judged (--skip, --no-default-skip). NULL: the built-in table. */
	const struct site_opts *skip;
	/* Ignore the profile's recorded --skip patterns (dhat_skip.h), applied by default. */
	bool no_recorded_skip;
	/* svg and timeline subtitle: what was profiled (a workload's name), shown before the
	 * profile's command line. NULL: the command line alone. */
	const char *workload;
};

struct heap_timeline;
struct report_opts;

/* What an export is made from: a DHAT profile for pprof, folded and svg; for timeline, a
 * heap timeline or else a profile with its live-heap series (dhat_profile.live_t, written
 * by tracer). Both borrowed. */
struct export_src {
	const struct dhat_profile *profile;
	const struct heap_timeline *timeline;
};

/* Write p as a gzip-compressed pprof profile to path ("-": stdout). One sample per PP with
 * values [alloc_objects/count, alloc_space/bytes, inuse_objects/count, inuse_space/bytes,
 * gmax_objects/count, gmax_space/bytes] = [tbk, tb, ebk, eb, gbk, gb] (gmax: live at t-gmax,
 * the peak; inuse_space is the default), allocation plumbing left out (the default
 * export_opts), locations leaf first, inlined frames (consecutive frames with the same
 * address) folded into one Location with several Lines, innermost first; `(in /obj)` frames
 * get a Mapping and /obj as their Function's file name. Returns 0 or -errno (-EIO for a
 * write or compression failure, -ENOMEM). */
int export__pprof(const struct dhat_profile *p, const char *path);

/* Write p's profile.proto, uncompressed, to out (the front door hands it a gzip stream).
 * opts may be NULL. Returns 0, -ENOMEM or -EIO. */
int export__pprof_write(const struct dhat_profile *p, FILE *out, const struct export_opts *opts);

/* The same profile as export__pprof writes, uncompressed, in a new malloc'ed buffer: on
 * success *buf (freed by the caller) and *len are set. Returns 0 or -ENOMEM. */
int export__pprof_encode(const struct dhat_profile *p, uint8_t **buf, size_t *len);

/* export__pprof_encode with options (keep_plumbing, skip); opts may be NULL. */
int export__pprof_encode_opts(const struct dhat_profile *p, const struct export_opts *opts,
			      uint8_t **buf, size_t *len);

/* Write p as collapsed stacks, outermost frame first: "main;make_table 80\n" (allocation
 * plumbing such as malloc left out, as in pprof; keep_plumbing keeps it). Frames are function names
 * without the address and without " (file:line)"; a name that is "???" becomes "[obj]" (the
 * basename of its `(in /obj)`), as stackcollapse-perf does for unknown symbols. ';' in a name
 * becomes ':', control characters '?'. Identical stacks are merged (summed), lines are sorted,
 * zero-weight stacks are left out, so the weights add up to exactly Σtb (or Σtbk, Σgb, Σeb). A PP
 * without frames is "[unknown]". Returns 0, -EINVAL (bad weight), -ENOMEM or -EIO (write error on
 * out). */
int export__folded(const struct dhat_profile *p, FILE *out, enum export_weight w);

/* export__folded with options (weight, location, plumbing); opts may be NULL. */
int export__folded_opts(const struct dhat_profile *p, FILE *out, const struct export_opts *opts);

/* Write p as a self-contained SVG flame graph to out: the "all" root at the bottom, callers
 * below callees, each rectangle as wide as its weight, siblings sorted by name (as
 * flamegraph.pl); frames narrower than 0.1 px are left out. Inline <style> and <script>,
 * no network: mouseover shows name, weight and % below the graph, every frame has a <title>
 * tooltip, a click zooms ("Reset Zoom" undoes it; `?z=REGEX` in the URL zooms on the widest
 * match), "Search" (or Ctrl-F, or `?s=REGEX` in the URL) highlights matches and shows the
 * matched %. title NULL: a default. Names are those of export__folded.
 * Returns 0, -EINVAL, -ENOMEM or -EIO. */
int export__flamegraph_svg(const struct dhat_profile *p, FILE *out, enum export_weight w,
			   const char *title);

/* export__flamegraph_svg with options (weight, location, title); opts may be NULL. */
int export__flamegraph_svg_opts(const struct dhat_profile *p, FILE *out,
				const struct export_opts *opts);

/* Write src in format fmt to path ("-": stdout) through output.h (a temporary file renamed
 * over path, never through a symlink). opts may be NULL. Returns 0, -EINVAL (unknown
 * format or weight, or src lacks what fmt is made from), -ENODATA (a timeline of a profile
 * without a live-heap series; nothing is written) or a negative errno of the failed
 * open/write/close. */
int export__write(enum export_format fmt, const struct export_src *src, const char *path,
		  const struct export_opts *opts);

/* export__write of a DHAT profile (pprof, folded, svg, and timeline from its series). */
int export__to_path(const struct dhat_profile *p, enum export_format fmt, const char *path,
		    const struct export_opts *opts);

/* Parse a --format value: "pprof", "folded" (or "collapsed"), "svg" (or "flamegraph"),
 * "timeline". Returns 0 or -EINVAL. */
int export_format__parse(const char *s, enum export_format *fmt);

/* The file suffix of fmt: ".pb.gz", ".folded", ".svg", ".timeline.svg"; NULL if unknown. */
const char *export_format__suffix(enum export_format fmt);

/* Is fmt made from a DHAT profile (pprof, folded, svg) rather than a heap timeline? */
bool export_format__from_profile(enum export_format fmt);

/* Parse a weight: "bytes", "blocks", "gmax" (bytes at t-gmax), "end" or "leaked" (bytes at
 * t-end). Returns 0 or -EINVAL. */
int export_weight__parse(const char *s, enum export_weight *w);

/* A short name of w for messages and titles ("bytes", "blocks", "bytes at t-gmax", "bytes
 * at t-end"); "?" if out of range. */
const char *export_weight__name(enum export_weight w);

/* One site's share of the peak, for the timeline's legend. */
struct heap_timeline_site {
	const char *name; /* "fn <- caller", plumbing left out; or "other sites" */
	uint64_t bytes;	  /* live at t-gmax */
};

/*
 * Live heap over time, as the collector samples it: cnt points (t_us[i], live_bytes[i]),
 * t_us ascending, microseconds since the start of tracing. Borrowed by the renderer.
 */
struct heap_timeline {
	uint64_t *t_us;	      /* sample times, µs, ascending */
	uint64_t *live_bytes; /* live heap bytes at t_us[i] (after the event at that time) */
	size_t cnt;
	uint64_t tg_us;	     /* t-gmax: time of the (last) global peak, µs */
	uint64_t te_us;	     /* t-end: length of the traced window, µs */
	uint64_t peak_bytes; /* live bytes at t-gmax */
	/* Optional: what the peak is made of, largest first (a stacked bar at t-gmax and a
	 * legend); the series itself holds no per-site data. 0/NULL: no legend. */
	const struct heap_timeline_site *sites;
	size_t site_cnt;
	const char *subtitle; /* wrapped under the title (the command); NULL: none */
	/* Optional: the process's RSS (anon + file + shmem) on the same time axis, rss_cnt
	 * samples (rss_t_us ascending); drawn as a second line. 0/NULL: none. */
	const uint64_t *rss_t_us, *rss_bytes;
	size_t rss_cnt;
	/* Optional: the same heap in the allocator's chunks (header and rounding included),
	 * cnt points parallel to live_bytes, each >= its live_bytes; drawn as a third line.
	 * NULL: none (the allocator is not glibc's malloc, or an older file): the key says so
	 * when the chart has an RSS line. */
	const uint64_t *chunk_bytes;
};

/* Write t as a self-contained SVG step/area chart of live bytes against time: x in ms, or s
 * when the window is 10 s or more; y in B/KiB/MiB/GiB by the peak; tick labels, axis labels
 * "time (ms|s)" and "live bytes (UNIT)", a vertical line labelled "t-gmax" at tg_us with the
 * peak value; with sites, a bar at t-gmax stacked by site and a legend; <title> tooltips on
 * the series (time and live bytes), the bar and the legend. title NULL: "Live heap". cnt 0
 * draws the axes and "no samples". Returns 0, -EINVAL (t NULL, or arrays NULL while
 * cnt > 0) or -EIO. */
int export__timeline_svg(const struct heap_timeline *t, FILE *out, const char *title);

/* The timeline of a DHAT file written by tracer: its live-heap series (times in the file's
 * tu, taken as µs), t-gmax, the peak, and the top sites at the peak (gb by first
 * non-plumbing frame and caller) as legend; subtitle the workload and command. opts may be
 * NULL. Returns 0, -ENODATA (!export__has_timeline: a Valgrind or dhat-rs file), -ENOMEM or
 * -EIO. */
int export__timeline_profile_svg(const struct dhat_profile *p, FILE *out,
				 const struct export_opts *opts);

/* Can p's timeline be drawn: it has the live-heap series, or nothing was allocated at all
 * (an empty chart, whoever wrote the file). */
bool export__has_timeline(const struct dhat_profile *p);

#endif

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export_timeline - live heap bytes over the traced window as a self-contained SVG chart.
 *
 * Live bytes change only at allocation/free events, so the series is drawn as steps (each
 * value holds until the next sample), from 0 at t = 0 to t-end, filled below. Axes use
 * "nice" ticks (1, 2, 5 x 10^k) in ms or s and in B/KiB/MiB/GiB, and t-gmax gets a dashed
 * vertical line with its label and the peak value, so the chart can be checked against the
 * DHAT summary ("At t-gmax: N bytes").
 *
 * The series is one total (the collector keeps no per-site history), so what the peak is
 * made of is drawn where it is known: a bar at t-gmax stacked by site, largest at the
 * bottom, with a legend to the right. Over it, when the file has them, the heap in glibc
 * malloc chunks (a solid line never below the live heap's) and RSS (dashed). Hovering shows <title> tooltips: time and live bytes
 * along the series, site and share on the bar and the legend.
 */
#include "export_int.h"

#include "dhat_reader.h"
#include "units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Geometry (px). */
#define TL_W	  1000
#define TL_H	  500
#define M_LEFT	  90
#define M_RIGHT	  30
#define M_TOP	  60
#define M_BOTTOM  60
#define LEGEND_W  330 /* right margin when there is a legend */
#define LINE_H	  15  /* subtitle lines */
#define SUB_COLS  150 /* subtitle characters per line (12 px Verdana over ~TL_W px) */
#define SUB_LINES 3
#define HOVER_PX  4 /* series tooltips: one strip per this many px at least */
#define TL_SITES  8 /* sites in the legend; the rest is "other sites" */

/* Tableau 10: distinct on screen and in print. Index TL_SITES: "other sites". */
static const char *const SITE_COLORS[TL_SITES + 1] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#bab0ac",
};

/* A step of 1, 2 or 5 x 10^k giving about `want` intervals over range; *decimals is how
 * many digits after the point its multiples need. No libm: a loop over powers of ten. */
static double nice_step(double range, int want, int *decimals)
{
	double raw = range / want, p = 1;
	int d = 0;

	if (raw <= 0)
		raw = 1;
	while (p * 10 <= raw)
		p *= 10;
	while (p > raw) {
		p /= 10;
		d++;
	}
	if (raw / p > 5) {
		p *= 10; /* the next power of ten: one decimal fewer */
		if (d > 0)
			d--;
	} else if (raw / p > 2) {
		p *= 5;
	} else if (raw / p > 1) {
		p *= 2;
	}
	*decimals = d;
	return p;
}

struct unit {
	const char *name;
	double div;
};

/* The y axis's unit, by the highest figure drawn. */
static struct unit byte_unit(uint64_t max)
{
	const char *name;
	uint64_t div = units__scale(max, &name);

	return (struct unit){name, (double)div};
}

/* Tooltips along the series: one transparent strip per run of points spanning at least
 * HOVER_PX, titled with its time span and the highest live bytes in it. */
static void hover_strips(FILE *out, const struct heap_timeline *t, uint64_t t_max, double x0,
			 double xs, double tdiv, const char *tu, int top, int plot_h)
{
	size_t i = 0;

	fputs("<g id=\"hover\" fill=\"transparent\">\n", out);
	while (i < t->cnt) {
		size_t j = i;
		uint64_t hi = t->live_bytes[i], hi_c = t->chunk_bytes ? t->chunk_bytes[i] : 0, end;
		char b[64], c[64], n1[32];

		/* Grow the run until its end is HOVER_PX to the right of its start. */
		while (j + 1 < t->cnt &&
		       (double)(t->t_us[j + 1] - t->t_us[i]) / tdiv * xs < HOVER_PX) {
			j++;
			if (t->live_bytes[j] > hi)
				hi = t->live_bytes[j];
			if (t->chunk_bytes && t->chunk_bytes[j] > hi_c)
				hi_c = t->chunk_bytes[j];
		}
		end = j + 1 < t->cnt ? t->t_us[j + 1] : t_max;
		units__bytes(hi, false, b, sizeof(b));
		units__bytes(hi_c, false, c, sizeof(c));
		fprintf(out,
			"<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>%.3f-%.3f "
			"%s: live %s (%s bytes)%s%s</title></rect>\n",
			x0 + (double)t->t_us[i] / tdiv * xs, top,
			(double)(end - t->t_us[i]) / tdiv * xs + 0.5, plot_h,
			(double)t->t_us[i] / tdiv, (double)end / tdiv, tu, b,
			export__fmt_u64(n1, hi), t->chunk_bytes ? ", in malloc chunks " : "",
			t->chunk_bytes ? c : "");
		i = j + 1;
	}
	fputs("</g>\n", out);
}

/* The peak's composition: a bar at t-gmax stacked by site, and the legend at legend_x. */
static void peak_sites(FILE *out, const struct heap_timeline *t, double x, double y0, double ys,
		       double ydiv, int legend_x, int top)
{
	double y = y0;
	char b[64], n1[32];

	fputs("<g id=\"peak-sites\">\n", out);
	for (size_t i = 0; i < t->site_cnt; i++) {
		const struct heap_timeline_site *st = &t->sites[i];
		double h = (double)st->bytes / ydiv * ys;
		double pct = t->peak_bytes ? 100.0 * (double)st->bytes / (double)t->peak_bytes : 0;

		units__bytes(st->bytes, false, b, sizeof(b));
		y -= h;
		fprintf(out,
			"<rect class=\"site\" x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"%.1f\" "
			"fill=\"%s\"><title>",
			x - 5, y, h, SITE_COLORS[i < TL_SITES ? i : TL_SITES]);
		export_xml__puts(out, st->name);
		fprintf(out, "\n%s at t-gmax (%.1f%% of the peak)</title></rect>\n", b, pct);
		/* Legend row: swatch, share, name (cut to the legend's width). */
		fprintf(out, "<g class=\"legend\"><title>%s bytes (%.1f%%) live at t-gmax: ",
			export__fmt_u64(n1, st->bytes), pct);
		export_xml__puts(out, st->name);
		fprintf(out,
			"</title><rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>",
			legend_x, top + 24 + (int)i * 36, SITE_COLORS[i < TL_SITES ? i : TL_SITES]);
		fprintf(out, "<text x=\"%d\" y=\"%d\">%s (%.1f%%)</text>", legend_x + 18,
			top + 34 + (int)i * 36, b, pct);
		export_svg__wrap(out, st->name, "class=\"lname\"", legend_x + 18,
				 top + 49 + (int)i * 36, 0, (LEGEND_W - 50) / 6, 1);
		fputs("</g>\n", out);
	}
	fprintf(out, "<text class=\"lhead\" x=\"%d\" y=\"%d\">At t-gmax, by site:</text>\n",
		legend_x, top + 10);
	fputs("</g>\n", out);
}

/* The RSS samples as a dashed step line from the first sample on, the last one held to
 * t-end (x_end: a single sample is a line too), with its key in the top-left corner (lx,
 * ly) and the last value as a tooltip. */
static void rss_line(FILE *out, const struct heap_timeline *t, double x0, double xs, double tdiv,
		     double x_end, double y0, double ys, double ydiv, int lx, int ly)
{
	char buf[64];

	fputs("<path id=\"rss\" d=\"", out);
	for (size_t i = 0; i < t->rss_cnt; i++) {
		double x = x0 + ((double)t->rss_t_us[i] / tdiv) * xs;
		double y = y0 - ((double)t->rss_bytes[i] / ydiv) * ys;

		if (i)
			fprintf(out, " H%.1f V%.1f", x, y);
		else
			fprintf(out, "M%.1f %.1f", x, y);
	}
	if (x_end > x0 + ((double)t->rss_t_us[t->rss_cnt - 1] / tdiv) * xs)
		fprintf(out, " H%.1f", x_end);
	units__bytes(t->rss_bytes[t->rss_cnt - 1], false, buf, sizeof(buf));
	fprintf(out, "\"><title>RSS (anon + file + shmem), last sample %s</title></path>\n", buf);
	fprintf(out, "<text class=\"rss\" x=\"%d\" y=\"%d\">- - RSS</text>\n", lx, ly);
}

/* The heap in malloc chunks: a step line over the live heap's, from (0, 0) to t-end, with
 * its key under the RSS key (lx, ly) and the highest value as a tooltip. */
static void chunk_line(FILE *out, const struct heap_timeline *t, double x0, double xs,
		       double tdiv, double x_end, double y0, double ys, double ydiv, int lx, int ly)
{
	uint64_t hi = 0;
	char buf[64];

	fprintf(out, "<path id=\"chunks\" d=\"M%.1f %.1f", x0, y0);
	for (size_t i = 0; i < t->cnt; i++) {
		fprintf(out, " H%.1f V%.1f", x0 + ((double)t->t_us[i] / tdiv) * xs,
			y0 - ((double)t->chunk_bytes[i] / ydiv) * ys);
		if (t->chunk_bytes[i] > hi)
			hi = t->chunk_bytes[i];
	}
	units__bytes(hi, false, buf, sizeof(buf));
	fprintf(out,
		" H%.1f\"><title>heap in malloc chunks (each block with its header and "
		"rounding), highest %s</title></path>\n",
		x_end, buf);
	fprintf(out, "<text class=\"chunks\" x=\"%d\" y=\"%d\">\xe2\x80\x94 heap in malloc chunks"
		     "</text>\n", lx, ly);
}

int export__timeline_svg(const struct heap_timeline *t, FILE *out, const char *title)
{
	uint64_t t_max, y_max_b = 0;
	struct unit tu, yu;
	double x_range, y_range, xs, ys, step;
	char buf[64], n1[32];
	int dec, sub_lines, top, plot_w, plot_h;

	if (!t || !out || (t->cnt && (!t->t_us || !t->live_bytes)) || (t->site_cnt && !t->sites))
		return -EINVAL;
	if (!title)
		title = "Live heap";
	t_max = t->te_us;
	y_max_b = t->peak_bytes;
	for (size_t i = 0; i < t->cnt; i++) {
		if (t->t_us[i] > t_max)
			t_max = t->t_us[i];
		if (t->live_bytes[i] > y_max_b)
			y_max_b = t->live_bytes[i];
		if (t->chunk_bytes && t->chunk_bytes[i] > y_max_b)
			y_max_b = t->chunk_bytes[i];
	}
	if (t->tg_us > t_max)
		t_max = t->tg_us;
	for (size_t i = 0; t->rss_t_us && t->rss_bytes && i < t->rss_cnt; i++)
		if (t->rss_bytes[i] > y_max_b)
			y_max_b = t->rss_bytes[i]; /* the RSS line stays inside the frame */
	sub_lines = export_svg__wrap(NULL, t->subtitle, "", 0, 0, 0, SUB_COLS, SUB_LINES);
	top = M_TOP + sub_lines * LINE_H;
	plot_w = TL_W - M_LEFT - (t->site_cnt ? LEGEND_W : M_RIGHT);
	plot_h = TL_H - top - M_BOTTOM;
	/* Seconds once the window is long enough that ms ticks would read 10000, 20000... */
	tu = t_max >= 10000000 ? (struct unit){"s", 1e6} : (struct unit){"ms", 1e3};
	yu = byte_unit(y_max_b);
	x_range = t_max ? (double)t_max / tu.div : 1;
	/* 5% headroom above the peak so its line does not run along the frame. */
	y_range = y_max_b ? (double)y_max_b * 1.05 / yu.div : 1;
	xs = plot_w / x_range;
	ys = plot_h / y_range;
#define X(us) (M_LEFT + ((double)(us) / tu.div) * xs)
#define Y(b)  (top + plot_h - ((double)(b) / yu.div) * ys)

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	fprintf(out,
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		TL_W, TL_H, TL_W, TL_H);
	fputs("<style type=\"text/css\">\n"
	      "text { font-family: Verdana, 'DejaVu Sans', sans-serif; font-size: 12px; fill: "
	      "#222; }\n"
	      "#title { font-size: 17px; text-anchor: middle; }\n"
	      ".sub { text-anchor: middle; fill: #444; }\n"
	      ".axis { stroke: #000; stroke-width: 1; }\n"
	      ".grid { stroke: #ddd; stroke-width: 1; }\n"
	      ".xt { text-anchor: middle; }\n"
	      ".yt { text-anchor: end; }\n"
	      ".label { font-size: 13px; text-anchor: middle; }\n"
	      ".lhead { font-size: 13px; font-weight: bold; }\n"
	      ".lname { font-size: 10px; fill: #444; }\n"
	      "#area { fill: rgba(70,130,180,0.35); stroke: none; }\n"
	      "#line { fill: none; stroke: steelblue; stroke-width: 1.5; }\n"
	      "#tgmax { stroke: #c00; stroke-width: 1.5; stroke-dasharray: 6,4; }\n"
	      ".tg { fill: #c00; }\n"
	      "#hover rect:hover { fill: rgba(0,0,0,0.08); }\n"
	      ".site { stroke: #fff; stroke-width: 0.5; }\n"
	      "g.legend:hover text { fill: #000; text-decoration: underline; }\n"
	      "#rss { fill: none; stroke: #d2691e; stroke-width: 1.5; stroke-dasharray: 5,3; }\n"
	      ".rss { fill: #d2691e; }\n"
	      "#chunks { fill: none; stroke: #6a3d9a; stroke-width: 1.2; }\n"
	      ".chunks { fill: #6a3d9a; }\n"
	      ".nochunks { fill: #888; font-size: 11px; }\n"
	      "</style>\n",
	      out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", TL_W,
		TL_H);
	fprintf(out, "<text id=\"title\" x=\"%d\" y=\"28\">", TL_W / 2);
	export_xml__puts(out, title);
	fputs("</text>\n", out);
	export_svg__wrap(out, t->subtitle, "class=\"sub\"", TL_W / 2, 48, LINE_H, SUB_COLS,
			 SUB_LINES);

	/* Grid and ticks. */
	step = nice_step(x_range, 10, &dec);
	for (int i = 0; i * step <= x_range * (1 + 1e-9); i++) {
		double x = M_LEFT + i * step * xs;

		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
			x, top, x, top + plot_h);
		fprintf(out, "<text class=\"xt\" x=\"%.1f\" y=\"%d\">%.*f</text>\n", x,
			top + plot_h + 18, dec, i * step);
	}
	step = nice_step(y_range, 8, &dec);
	for (int i = 0; i * step <= y_range * (1 + 1e-9); i++) {
		double y = top + plot_h - i * step * ys;

		fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
			M_LEFT, y, M_LEFT + plot_w, y);
		fprintf(out, "<text class=\"yt\" x=\"%d\" y=\"%.1f\">%.*f</text>\n", M_LEFT - 6,
			y + 4, dec, i * step);
	}

	/* The series: steps from (0, 0) to t-end. */
	if (t->cnt) {
		fprintf(out, "<path id=\"area\" d=\"M%.1f %.1f", X(0), Y(0));
		for (size_t i = 0; i < t->cnt; i++)
			fprintf(out, " H%.1f V%.1f", X(t->t_us[i]), Y(t->live_bytes[i]));
		fprintf(out, " H%.1f V%.1f Z\"/>\n", X(t_max), Y(0));
		fprintf(out, "<path id=\"line\" d=\"M%.1f %.1f", X(0), Y(0));
		for (size_t i = 0; i < t->cnt; i++)
			fprintf(out, " H%.1f V%.1f", X(t->t_us[i]), Y(t->live_bytes[i]));
		fprintf(out, " H%.1f\"/>\n", X(t_max));
		hover_strips(out, t, t_max, M_LEFT, xs, tu.div, tu.name, top, plot_h);
	} else {
		fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\">no samples</text>\n",
			M_LEFT + plot_w / 2, top + plot_h / 2);
	}
	if (t->cnt && t->chunk_bytes)
		chunk_line(out, t, X(0), xs, tu.div, X(t_max), top + plot_h, ys, yu.div, M_LEFT + 8,
			   top + 30);
	if (t->rss_t_us && t->rss_bytes && t->rss_cnt) {
		rss_line(out, t, X(0), xs, tu.div, X(t_max), top + plot_h, ys, yu.div, M_LEFT + 8,
			 top + 14);
		/* Next to RSS, the gap between heap and RSS is read against the chunks: say
		 * when they are not known (docs/ACCURACY.md). */
		if (!t->chunk_bytes)
			fprintf(out,
				"<text class=\"nochunks\" x=\"%d\" y=\"%d\">heap in malloc chunks: "
				"not drawn (known for glibc's malloc only)</text>\n",
				M_LEFT + 8, top + 30);
	}
	if (t->site_cnt)
		peak_sites(out, t, X(t->tg_us), Y(0), ys, yu.div, M_LEFT + plot_w + 20, top);

	/* Axes over the series. */
	fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", M_LEFT,
		top + plot_h, M_LEFT + plot_w, top + plot_h);
	fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", M_LEFT,
		top, M_LEFT, top + plot_h);
	fprintf(out, "<text id=\"xlabel\" class=\"label\" x=\"%d\" y=\"%d\">time (%s)</text>\n",
		M_LEFT + plot_w / 2, TL_H - 14, tu.name);
	fprintf(out,
		"<text id=\"ylabel\" class=\"label\" x=\"0\" y=\"0\" "
		"transform=\"translate(22 %d) rotate(-90)\">live bytes (%s)</text>\n",
		top + plot_h / 2, yu.name);

	/* t-gmax: where the DHAT "At t-gmax" snapshot was taken. */
	units__bytes(t->peak_bytes, false, buf, sizeof(buf));
	fprintf(out,
		"<g id=\"tg\"><title>t-gmax = %.3f %s, peak %s (%s bytes)</title>"
		"<line id=\"tgmax\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
		"<circle class=\"tg\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/>",
		(double)t->tg_us / tu.div, tu.name, buf, export__fmt_u64(n1, t->peak_bytes),
		X(t->tg_us), top - 4, X(t->tg_us), top + plot_h, X(t->tg_us), Y(t->peak_bytes));
	/* Label on the side with more room. */
	fprintf(
	    out,
	    "<text class=\"tg\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">t-gmax (%s)</text></g>\n",
	    X(t->tg_us) + (X(t->tg_us) > M_LEFT + plot_w * 0.75 ? -8 : 8), top + 12,
	    X(t->tg_us) > M_LEFT + plot_w * 0.75 ? "end" : "start", buf);
	fputs("</svg>\n", out);
#undef X
#undef Y
	return ferror(out) ? -EIO : 0;
}

/* Sites at the peak: gb summed by "first non-plumbing frame <- its caller". */
struct peak_sites {
	struct strtab *names;
	uint64_t *bytes; /* by name index */
};

/* The legend name of pp: its first frame after the plumbing, and that frame's caller. */
static char *site_name(const struct dhat_profile *p, const struct dhat_pp *pp, size_t cut)
{
	char *head, *caller = NULL, *s = NULL;

	if (cut >= pp->fs_cnt)
		return strdup("[unknown]");
	head = export_frame__name(dhat_profile__pp_frame(p, pp, cut), false);
	if (head && cut + 1 < pp->fs_cnt)
		caller = export_frame__name(dhat_profile__pp_frame(p, pp, cut + 1), false);
	if (head && (cut + 1 >= pp->fs_cnt || caller) &&
	    asprintf(&s, "%s%s%s", head, caller ? " \xe2\x86\x90 " : "", caller ? caller : "") < 0)
		s = NULL;
	free(head);
	free(caller);
	return s;
}

static int collect_sites(const struct dhat_profile *p, const struct export_opts *o,
			 struct peak_sites *ps)
{
	bool *plumbing = NULL;
	int err;

	ps->names = strtab__new();
	ps->bytes = calloc(p->pp_cnt + 1, sizeof(*ps->bytes));
	if (!ps->names || !ps->bytes)
		return -ENOMEM;
	err = export_plumbing__mark(p, o, &plumbing);
	for (size_t i = 0; !err && i < p->pp_cnt; i++) {
		const struct dhat_pp *pp = &p->pps[i];
		char *name;
		int64_t k;

		if (!pp->gb)
			continue;
		name = site_name(p, pp, export_plumbing__cut(plumbing, p, pp));
		k = name ? strtab__intern_str(ps->names, name) : -ENOMEM;
		free(name);
		if (k < 0)
			err = -ENOMEM;
		else
			ps->bytes[k] += pp->gb;
	}
	free(plumbing);
	return err;
}

bool export__has_timeline(const struct dhat_profile *p)
{
	return p->live_cnt || !p->total_bytes;
}

int export__timeline_profile_svg(const struct dhat_profile *p, FILE *out,
				 const struct export_opts *opts)
{
	struct heap_timeline_site sites[TL_SITES + 1];
	struct peak_sites ps = {0};
	struct heap_timeline t = {0};
	char *sub = NULL, est[160];
	uint64_t rest = 0;
	int err;

	if (!export__has_timeline(p))
		return -ENODATA;
	err = collect_sites(p, opts, &ps);
	if (err)
		goto cleanup;
	/* The TL_SITES largest, largest first (a selection: there are few of them). */
	for (size_t n = 0; n < TL_SITES; n++) {
		size_t best = SIZE_MAX;

		for (size_t k = 0; k < ps.names->cnt; k++)
			if (ps.bytes[k] && (best == SIZE_MAX || ps.bytes[k] > ps.bytes[best]))
				best = k;
		if (best == SIZE_MAX)
			break;
		sites[t.site_cnt++] =
		    (struct heap_timeline_site){ps.names->strs[best], ps.bytes[best]};
		ps.bytes[best] = 0;
	}
	for (size_t k = 0; k < ps.names->cnt; k++)
		rest += ps.bytes[k];
	if (rest)
		sites[t.site_cnt++] = (struct heap_timeline_site){"other sites", rest};
	t.sites = sites;
	t.t_us = p->live_t;
	t.live_bytes = p->live_b;
	t.cnt = p->live_cnt;
	t.tg_us = p->tg;
	t.te_us = p->te;
	t.peak_bytes = p->gmax_bytes;
	t.rss_t_us = p->rss_t;
	t.rss_bytes = p->rss_b;
	t.rss_cnt = p->rss_cnt;
	t.chunk_bytes = p->live_cb;
	if (asprintf(&sub, "%s%s%s%s", export__estimates(p, " \xe2\x80\x94 ", est, sizeof(est)),
		     opts && opts->workload ? opts->workload : "",
		     opts && opts->workload ? " \xe2\x80\x94 " : "", p->cmd ? p->cmd : "") < 0) {
		sub = NULL;
		err = -ENOMEM;
		goto cleanup;
	}
	t.subtitle = sub;
	err = export__timeline_svg(&t, out, opts ? opts->title : NULL);
cleanup:
	free(sub);
	free(ps.bytes);
	strtab__free(ps.names);
	return err;
}

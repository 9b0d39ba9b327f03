// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export_timeline - live heap bytes over the traced window as a self-contained SVG chart.
 *
 * Live bytes change only at allocation/free events, so the series is drawn as steps (each
 * value holds until the next sample), from 0 at t = 0 to t-end, filled below. Axes use
 * "nice" ticks (1, 2, 5 x 10^k) in ms or s and in B/KiB/MiB/GiB, and t-gmax gets a dashed
 * vertical line with its label and the peak value, so the chart can be checked against the
 * DHAT summary ("At t-gmax: N bytes").
 */
#include "export_int.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* Geometry (px). */
#define TL_W	 1000
#define TL_H	 500
#define M_LEFT	 90
#define M_RIGHT	 30
#define M_TOP	 60
#define M_BOTTOM 60
#define PLOT_W	 (TL_W - M_LEFT - M_RIGHT)
#define PLOT_H	 (TL_H - M_TOP - M_BOTTOM)

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

static struct unit byte_unit(uint64_t max)
{
	if (max >= (1ULL << 30))
		return (struct unit){"GiB", (double)(1ULL << 30)};
	if (max >= (1ULL << 20))
		return (struct unit){"MiB", (double)(1ULL << 20)};
	if (max >= (1ULL << 10))
		return (struct unit){"KiB", 1024.0};
	return (struct unit){"B", 1.0};
}

/* "1.50 MiB" (or "123 B"). */
static void fmt_bytes(char *buf, size_t sz, uint64_t v)
{
	struct unit u = byte_unit(v);

	if (u.div == 1.0)
		snprintf(buf, sz, "%" PRIu64 " B", v);
	else
		snprintf(buf, sz, "%.2f %s", (double)v / u.div, u.name);
}

int export__timeline_svg(const struct heap_timeline *t, FILE *out, const char *title)
{
	uint64_t t_max, y_max_b = 0;
	struct unit tu, yu;
	double x_range, y_range, xs, ys, step;
	char buf[64], n1[32];
	int dec;

	if (!t || !out || (t->cnt && (!t->t_us || !t->live_bytes)))
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
	}
	if (t->tg_us > t_max)
		t_max = t->tg_us;
	/* Seconds once the window is long enough that ms ticks would read 10000, 20000... */
	tu = t_max >= 10000000 ? (struct unit){"s", 1e6} : (struct unit){"ms", 1e3};
	yu = byte_unit(y_max_b);
	x_range = t_max ? (double)t_max / tu.div : 1;
	/* 5% headroom above the peak so its line does not run along the frame. */
	y_range = y_max_b ? (double)y_max_b * 1.05 / yu.div : 1;
	xs = PLOT_W / x_range;
	ys = PLOT_H / y_range;
#define X(us) (M_LEFT + ((double)(us) / tu.div) * xs)
#define Y(b)  (M_TOP + PLOT_H - ((double)(b) / yu.div) * ys)

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	fprintf(out,
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		TL_W, TL_H, TL_W, TL_H);
	fputs("<style type=\"text/css\">\n"
	      "text { font-family: Verdana, 'DejaVu Sans', sans-serif; font-size: 12px; fill: "
	      "#222; }\n"
	      "#title { font-size: 17px; text-anchor: middle; }\n"
	      ".axis { stroke: #000; stroke-width: 1; }\n"
	      ".grid { stroke: #ddd; stroke-width: 1; }\n"
	      ".xt { text-anchor: middle; }\n"
	      ".yt { text-anchor: end; }\n"
	      ".label { font-size: 13px; text-anchor: middle; }\n"
	      "#area { fill: rgba(70,130,180,0.35); stroke: none; }\n"
	      "#line { fill: none; stroke: steelblue; stroke-width: 1.5; }\n"
	      "#tgmax { stroke: #c00; stroke-width: 1.5; stroke-dasharray: 6,4; }\n"
	      ".tg { fill: #c00; }\n"
	      "</style>\n",
	      out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", TL_W,
		TL_H);
	fprintf(out, "<text id=\"title\" x=\"%d\" y=\"28\">", TL_W / 2);
	export_xml__puts(out, title);
	fputs("</text>\n", out);

	/* Grid and ticks. */
	step = nice_step(x_range, 10, &dec);
	for (int i = 0; i * step <= x_range * (1 + 1e-9); i++) {
		double x = M_LEFT + i * step * xs;

		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
			x, M_TOP, x, M_TOP + PLOT_H);
		fprintf(out, "<text class=\"xt\" x=\"%.1f\" y=\"%d\">%.*f</text>\n", x,
			M_TOP + PLOT_H + 18, dec, i * step);
	}
	step = nice_step(y_range, 8, &dec);
	for (int i = 0; i * step <= y_range * (1 + 1e-9); i++) {
		double y = M_TOP + PLOT_H - i * step * ys;

		fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
			M_LEFT, y, M_LEFT + PLOT_W, y);
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
	} else {
		fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\">no samples</text>\n",
			M_LEFT + PLOT_W / 2, M_TOP + PLOT_H / 2);
	}

	/* Axes over the series. */
	fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", M_LEFT,
		M_TOP + PLOT_H, M_LEFT + PLOT_W, M_TOP + PLOT_H);
	fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", M_LEFT,
		M_TOP, M_LEFT, M_TOP + PLOT_H);
	fprintf(out, "<text id=\"xlabel\" class=\"label\" x=\"%d\" y=\"%d\">time (%s)</text>\n",
		M_LEFT + PLOT_W / 2, TL_H - 14, tu.name);
	fprintf(out,
		"<text id=\"ylabel\" class=\"label\" x=\"0\" y=\"0\" "
		"transform=\"translate(22 %d) rotate(-90)\">live bytes (%s)</text>\n",
		M_TOP + PLOT_H / 2, yu.name);

	/* t-gmax: where the DHAT "At t-gmax" snapshot was taken. */
	fmt_bytes(buf, sizeof(buf), t->peak_bytes);
	fprintf(out,
		"<g id=\"tg\"><title>t-gmax = %.3f %s, peak %s (%s bytes)</title>"
		"<line id=\"tgmax\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
		"<circle class=\"tg\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/>",
		(double)t->tg_us / tu.div, tu.name, buf, export__fmt_u64(n1, t->peak_bytes),
		X(t->tg_us), M_TOP - 4, X(t->tg_us), M_TOP + PLOT_H, X(t->tg_us), Y(t->peak_bytes));
	/* Label on the side with more room. */
	fprintf(
	    out,
	    "<text class=\"tg\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">t-gmax (%s)</text></g>\n",
	    X(t->tg_us) + (X(t->tg_us) > M_LEFT + PLOT_W * 0.75 ? -5 : 5), M_TOP + 12,
	    X(t->tg_us) > M_LEFT + PLOT_W * 0.75 ? "end" : "start", buf);
	fputs("</svg>\n", out);
#undef X
#undef Y
	return ferror(out) ? -EIO : 0;
}

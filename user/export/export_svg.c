// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export_svg - DHAT profile -> interactive SVG flame graph, in the manner of Brendan Gregg's
 * flamegraph.pl: one rectangle per (call path, function), as wide as the weight allocated
 * below it, "all" at the bottom, callees above callers, siblings sorted by name.
 *
 * Layout comes from the collapsed stacks of export_util.c (sorted frame by frame), with
 * flamegraph.pl's "flow" pass: walking the sorted stacks left to right, a frame stays open
 * while consecutive stacks share the path to it, so every frame is one contiguous span
 * [start, end) of the weight axis and its children tile it in name order.
 *
 * Colours say where the code is (export_int.h, enum export_module): warm for the traced
 * program, blue for libc, green for other libraries, purple for a language runtime
 * (libpython), grey when unknown; the shade within a
 * module comes from the name, so one function keeps one colour. A label that does not fit
 * drops template arguments and parameter lists, then namespaces, before it is cut.
 *
 * The file is self-contained (inline <style> and <script>, no network) and the script only
 * reads attributes the writer put on each frame's <g>: data-o (start on the weight axis),
 * data-v (weight), data-d (depth) (data-m, the module, is for people and tests); the name is
 * the first line of its <title>.
 */
#include "export_int.h"
#include "grow.h"

#include "dhat_reader.h"
#include "hash.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Geometry (px), as flamegraph.pl's defaults. */
#define IMG_W	   1200
#define XPAD	   10
#define FRAME_H	   16
#define FONT_SZ	   12
#define FONT_W	   0.59 /* average glyph width / font size, for fitting labels */
#define PAD_TOP	   (FONT_SZ * 5) /* with one subtitle line; each further line adds LINE_H */
#define PAD_BOTTOM (FONT_SZ * 2 + 10)
#define SUB_Y	   (FONT_SZ * 2 + 18) /* first subtitle line */
#define LINE_H	   15
#define SUB_COLS   175 /* subtitle characters per line over IMG_W */
#define SUB_LINES  3
#define MIN_W	   0.1 /* narrower frames are left out: invisible, and they bloat the file */

/* Per module: the base colour and how far the name's hash moves each channel. */
static const struct {
	int r, g, b, dr, dg, db;
	const char *legend;
} MODULE_COLORS[EXPORT_MOD_CNT] = {
    [EXPORT_MOD_EXE] = {205, 80, 0, 50, 150, 55, "program"},	     /* flamegraph.pl "hot" */
    [EXPORT_MOD_LIBC] = {80, 130, 200, 40, 50, 55, "libc"},	     /* blues */
    [EXPORT_MOD_LIB] = {40, 170, 70, 50, 60, 60, "other libraries"}, /* greens */
    [EXPORT_MOD_UNKNOWN] = {165, 165, 165, 30, 30, 30, "unknown"},   /* greys */
    [EXPORT_MOD_RUNTIME] = {140, 80, 190, 40, 40, 50, "runtime"},    /* purples */
};

/* The colour of a frame: its module's, shaded by the name's hash so that one function has
 * one colour everywhere and the output is reproducible. */
static void frame_color(const char *name, enum export_module mod, char *buf, size_t sz)
{
	uint32_t h = hash__fnv1a32_str(name);
	double v1, v2;

	v1 = (h & 0xffff) / 65535.0;
	v2 = ((h * 2654435761u) >> 16) / 65535.0;
	if (mod >= EXPORT_MOD_CNT)
		mod = EXPORT_MOD_UNKNOWN;
	if (mod == EXPORT_MOD_UNKNOWN)
		v2 = v1; /* greys stay grey */
	snprintf(buf, sz, "rgb(%d,%d,%d)", MODULE_COLORS[mod].r + (int)(MODULE_COLORS[mod].dr * v1),
		 MODULE_COLORS[mod].g + (int)(MODULE_COLORS[mod].dg * v2),
		 MODULE_COLORS[mod].b + (int)(MODULE_COLORS[mod].db * v1));
}

/* name without template arguments and parameter lists ("ns::f<int>(int)" -> "ns::f"), and
 * without a leading "::" (what "<T as Trait>::f" leaves). NULL if nothing is left or on
 * ENOMEM. The script's shortNames() does the same. */
static char *strip_args(const char *name)
{
	char *o = malloc(strlen(name) + 1), *q = o, *start;
	int d = 0;

	if (!o)
		return NULL;
	for (const char *c = name; *c; c++) {
		if (*c == '<' || *c == '(')
			d++;
		else if ((*c == '>' || *c == ')') && d > 0)
			d--;
		else if (!d)
			*q++ = *c;
	}
	while (q > o && q[-1] == ' ')
		q--;
	*q = '\0';
	for (start = o; !strncmp(start, "::", 2) || *start == ' ';)
		start += *start == ' ' ? 1 : 2;
	memmove(o, start, strlen(start) + 1);
	if (!*o) {
		free(o);
		return NULL;
	}
	return o;
}

/* Label that fits w px, as flamegraph.pl but whole names first: the name, else the name
 * without arguments (strip_args), else its last "::" component, else that cut with "..",
 * or nothing under 3 characters. */
static void put_label(FILE *out, const char *name, double w)
{
	size_t fit = (size_t)((w - 3) / (FONT_SZ * FONT_W) > 0 ? (w - 3) / (FONT_SZ * FONT_W) : 0);
	char *stripped, *cut;
	const char *last;

	if (fit < 3)
		return;
	if (strlen(name) <= fit) {
		export_xml__puts(out, name);
		return;
	}
	stripped = strip_args(name);
	last = stripped ? stripped : name;
	if (stripped && strlen(stripped) > fit && strstr(stripped, "::")) {
		const char *c;

		for (c = stripped; strstr(c, "::"); c = strstr(c, "::") + 2)
			;
		if (*c)
			last = c;
	}
	if (strlen(last) <= fit) {
		export_xml__puts(out, last);
	} else if ((cut = strndup(last, fit - 2))) {
		export_xml__puts(out, cut);
		fputs("..", out);
		free(cut);
	} /* else: a label is decoration; the <title> still names the frame */
	free(stripped);
}

/* Whether flame__write leaves nd out: narrower than MIN_W px at scale. */
/* Stacks built without modules (the diff's) are drawn as the program's. */
static enum export_module frame_mod(const struct export_stacks *s, const struct export_stack *st,
				    size_t j)
{
	int m = export_stack__mod(s, st, j);

	return m < 0 ? EXPORT_MOD_EXE : (enum export_module)m;
}

static bool too_narrow(const struct flame_node *nd, double scale)
{
	return (double)(nd->end - nd->start) * scale < MIN_W;
}

/* Scale of the weight axis, px per unit. */
static double axis_scale(const struct export_stacks *s)
{
	return s->total ? (double)(IMG_W - 2 * XPAD) / (double)s->total : 0;
}

int flame__layout(const struct export_stacks *s, bool prune, struct flame_node **nodes, size_t *cnt,
		  size_t *max_depth)
{
	size_t n = 0, cap = 0, depth = 0, *open = NULL;
	const struct export_stack *prev = NULL;
	struct flame_node *v = NULL;
	double scale = axis_scale(s);
	uint64_t x = 0;
	int err;

	for (size_t i = 0; i < s->cnt; i++)
		if (s->v[i].cnt > depth)
			depth = s->v[i].cnt;
	open = calloc(depth + 1, sizeof(*open));
	if (!open || (err = grow__array(&v, &cap, 1, sizeof(*v)))) {
		err = -ENOMEM;
		goto cleanup;
	}
	v[n++] = (struct flame_node){.name = "all", .mod = EXPORT_MOD_UNKNOWN, .w2 = s->total2};
	open[0] = 0;
	for (size_t i = 0; i <= s->cnt; i++) {
		const struct export_stack *st = i < s->cnt ? &s->v[i] : NULL;
		size_t common = 0;

		while (prev && st && common < prev->cnt && common < st->cnt &&
		       export_stack__id(s, prev, common) == export_stack__id(s, st, common))
			common++;
		/* Close the previous stack's frames beyond the shared path, deepest first. A
		 * frame too narrow to be drawn goes, and with it the frames above it, all
		 * narrower and all after it: the array only holds what will be drawn. */
		for (size_t d = prev ? prev->cnt : 0; d > common; d--) {
			v[open[d]].end = x;
			if (prune && too_narrow(&v[open[d]], scale))
				n = open[d];
		}
		if (!st)
			break;
		/* ...and open this one's. */
		for (size_t d = common + 1; d <= st->cnt; d++) {
			if ((err = grow__array(&v, &cap, n + 1, sizeof(*v))))
				goto cleanup;
			open[d] = n;
			/* Stacks built without modules (the diff's) are drawn as the program's. */
			v[n++] = (struct flame_node){.name = export_stack__name(s, st, d - 1),
						     .mod = frame_mod(s, st, d - 1),
						     .depth = d,
						     .start = x};
		}
		for (size_t d = 1; d <= st->cnt; d++)
			v[open[d]].w2 += st->w2;
		x += st->w;
		prev = st;
	}
	v[0].end = x;
	*nodes = v;
	*cnt = n;
	*max_depth = depth;
	v = NULL;
	err = 0;
cleanup:
	free(open);
	free(v);
	return err;
}

/* The interactive part. Kept free of "]]>" (CDATA) and of any network access. */
static const char SCRIPT[] =
    "\"use strict\";\n"
    "var svg, frames, names, details, matchedtxt, searchbtn, unzoombtn, total, W;\n"
    "var searching = null;\n"
    "function init(evt) {\n"
    "  svg = document.documentElement;\n"
    "  total = +svg.getAttribute('data-total');\n"
    "  W = +svg.getAttribute('width') - 2 * XPAD;\n"
    "  details = document.getElementById('details').firstChild;\n"
    "  matchedtxt = document.getElementById('matched');\n"
    "  searchbtn = document.getElementById('search');\n"
    "  unzoombtn = document.getElementById('unzoom');\n"
    "  frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
    "  names = frames.map(function (g) {\n"
    "    return g.querySelector('title').textContent.split('\\n')[0];\n"
    "  });\n"
    "  svg.addEventListener('mouseover', function (e) {\n"
    "    var g = frameOf(e.target);\n"
    "    if (g)\n"
    "      details.nodeValue = g.querySelector('title').textContent.replace('\\n', ' \\u2014 ');\n"
    "  });\n"
    "  svg.addEventListener('mouseout', function (e) {\n"
    "    if (frameOf(e.target)) details.nodeValue = ' ';\n"
    "  });\n"
    "  svg.addEventListener('click', function (e) {\n"
    "    var g = frameOf(e.target);\n"
    "    if (g) zoom(g);\n"
    "  });\n"
    "  unzoombtn.addEventListener('click', unzoom);\n"
    "  searchbtn.addEventListener('click', function () {\n"
    "    if (searching !== null) { resetSearch(); return; }\n"
    "    var term = prompt('Search for (regular expression, e.g. ^malloc$):', '');\n"
    "    if (term) search(term);\n"
    "  });\n"
    "  window.addEventListener('keydown', function (e) {\n"
    "    if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {\n"
    "      e.preventDefault();\n"
    "      var term = prompt('Search for (regular expression, e.g. ^malloc$):', searching || '');\n"
    "      if (term) search(term);\n"
    "    }\n"
    "  });\n"
    "  var params = new URLSearchParams(window.location.search);\n"
    "  if (params.get('s')) search(params.get('s'));\n"
    "  if (params.get('z')) zoomTo(params.get('z'));\n"
    "}\n"
    "function frameOf(n) {\n"
    "  while (n && n !== svg) {\n"
    "    if (n.classList && n.classList.contains('f')) return n;\n"
    "    n = n.parentNode;\n"
    "  }\n"
    "  return null;\n"
    "}\n"
    "function attr(g, a) { return +g.getAttribute(a); }\n"
    "function place(g, i, x, w) {\n"
    "  var r = g.querySelector('rect'), t = g.querySelector('text');\n"
    "  r.setAttribute('x', x.toFixed(1));\n"
    "  r.setAttribute('width', Math.max(w, 0).toFixed(1));\n"
    "  t.setAttribute('x', (x + 3).toFixed(1));\n"
    "  t.textContent = label(names[i], Math.floor((w - 3) / (FONT_SZ * FONT_W)));\n"
    "}\n"
    "/* As put_label() in export_svg.c: whole names before cut ones. */\n"
    "function stripArgs(s) {\n"
    "  var o = '', d = 0;\n"
    "  for (var i = 0; i < s.length; i++) {\n"
    "    var c = s[i];\n"
    "    if (c === '<' || c === '(') d++;\n"
    "    else if ((c === '>' || c === ')') && d > 0) d--;\n"
    "    else if (!d) o += c;\n"
    "  }\n"
    "  return o.replace(/ +$/, '').replace(/^(::| )+/, '');\n"
    "}\n"
    "function label(s, fit) {\n"
    "  if (fit < 3) return '';\n"
    "  if (s.length <= fit) return s;\n"
    "  var t = stripArgs(s), last = t || s;\n"
    "  if (t && t.length > fit && t.indexOf('::') >= 0) {\n"
    "    var c = t.substring(t.lastIndexOf('::') + 2);\n"
    "    if (c) last = c;\n"
    "  }\n"
    "  return last.length <= fit ? last : last.substring(0, fit - 2) + '..';\n"
    "}\n"
    "function zoom(z) {\n"
    "  var o = attr(z, 'data-o'), v = attr(z, 'data-v'), d = attr(z, 'data-d');\n"
    "  if (!v) return;\n"
    "  unzoombtn.classList.remove('hide');\n"
    "  frames.forEach(function (g, i) {\n"
    "    var fo = attr(g, 'data-o'), fv = attr(g, 'data-v'), fd = attr(g, 'data-d');\n"
    "    g.classList.remove('hide', 'parent');\n"
    "    if (fd < d && fo <= o && fo + fv >= o + v) {\n"
    "      g.classList.add('parent');\n"
    "      place(g, i, XPAD, W);\n"
    "    } else if (fd >= d && fo >= o && fo + fv <= o + v) {\n"
    "      place(g, i, XPAD + (fo - o) / v * W, fv / v * W);\n"
    "    } else {\n"
    "      g.classList.add('hide');\n"
    "    }\n"
    "  });\n"
    "}\n"
    "/* ?z=REGEX: zoom on the widest frame whose name matches (a shareable view). */\n"
    "function zoomTo(term) {\n"
    "  var re, best = null;\n"
    "  try { re = new RegExp(term); } catch (e) { return; }\n"
    "  frames.forEach(function (g, i) {\n"
    "    if (re.test(names[i]) && (!best || attr(g, 'data-v') > attr(best, 'data-v'))) best = g;\n"
    "  });\n"
    "  if (best) zoom(best);\n"
    "}\n"
    "function unzoom() {\n"
    "  unzoombtn.classList.add('hide');\n"
    "  frames.forEach(function (g, i) {\n"
    "    g.classList.remove('hide', 'parent');\n"
    "    place(g, i, XPAD + (total ? attr(g, 'data-o') / total * W : 0),\n"
    "          total ? attr(g, 'data-v') / total * W : W);\n"
    "  });\n"
    "}\n"
    "function search(term) {\n"
    "  var re;\n"
    "  try { re = new RegExp(term); } catch (e) {\n"
    "    re = new RegExp(term.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&'));\n"
    "  }\n"
    "  resetSearch();\n"
    "  searching = term;\n"
    "  var spans = [];\n"
    "  frames.forEach(function (g, i) {\n"
    "    if (!re.test(names[i]) || attr(g, 'data-d') === 0) return;\n"
    "    var r = g.querySelector('rect');\n"
    "    r.setAttribute('data-fill', r.getAttribute('fill'));\n"
    "    r.setAttribute('fill', 'rgb(230,0,230)');\n"
    "    spans.push([attr(g, 'data-o'), attr(g, 'data-o') + attr(g, 'data-v')]);\n"
    "  });\n"
    "  /* Matched weight: the union of the spans, so a match nested in a match counts once. */\n"
    "  spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
    "  var sum = 0, end = -1;\n"
    "  spans.forEach(function (s) {\n"
    "    if (s[0] >= end) { sum += s[1] - s[0]; end = s[1]; }\n"
    "    else if (s[1] > end) { sum += s[1] - end; end = s[1]; }\n"
    "  });\n"
    "  searchbtn.textContent = 'Reset Search';\n"
    "  matchedtxt.textContent = 'Matched: ' + (total ? 100 * sum / total : 0).toFixed(2) + '%';\n"
    "  matchedtxt.setAttribute('data-matched', sum);\n"
    "}\n"
    "function resetSearch() {\n"
    "  searching = null;\n"
    "  document.querySelectorAll('rect[data-fill]').forEach(function (r) {\n"
    "    r.setAttribute('fill', r.getAttribute('data-fill'));\n"
    "    r.removeAttribute('data-fill');\n"
    "  });\n"
    "  searchbtn.textContent = 'Search';\n"
    "  matchedtxt.textContent = ' ';\n"
    "}\n";

/* The plain flame graph's look: the palette by name, "all" grey; weight, share, companion. */
static void default_look(void *ctx, const struct flame_node *nd, const struct export_stacks *s,
			 struct flame_look *look)
{
	uint64_t v = nd->end - nd->start;
	char n1[32], n2[32];

	(void)ctx;
	if (nd->depth)
		frame_color(nd->name, (enum export_module)nd->mod, look->color,
			    sizeof(look->color));
	else
		snprintf(look->color, sizeof(look->color), "rgb(200,200,200)");
	snprintf(look->tip, sizeof(look->tip), "%s %s (%.2f%%), %s %s", export__fmt_u64(n1, v),
		 s->unit, s->total ? 100.0 * (double)v / (double)s->total : 0.0,
		 export__fmt_u64(n2, nd->w2), s->unit2);
}

static void put_frame(FILE *out, const struct export_stacks *s, const struct flame_node *nd,
		      double scale, int img_h, const struct flame_style *st)
{
	double x = XPAD + (double)nd->start * scale;
	double w = (double)(nd->end - nd->start) * scale;
	double y = img_h - PAD_BOTTOM - (double)(nd->depth + 1) * FRAME_H;
	uint64_t v = nd->end - nd->start;
	struct flame_look look = {.color = "", .tip = ""};

	if (!s->total)
		w = IMG_W - 2 * XPAD; /* nothing allocated: a lone "all" across the width */
	(st->look ? st->look : default_look)(st->ctx, nd, s, &look);
	fprintf(out,
		"<g class=\"f\" data-o=\"%" PRIu64 "\" data-v=\"%" PRIu64
		"\" data-d=\"%zu\" data-m=\"%s\">",
		nd->start, v, nd->depth,
		nd->depth && nd->mod < EXPORT_MOD_CNT ? MODULE_COLORS[nd->mod].legend : "all");
	/* Tooltip: name, then the figures; the script shows the same text below the graph. */
	fputs("<title>", out);
	export_xml__puts(out, nd->name);
	fputc('\n', out);
	export_xml__puts(out, look.tip);
	fputs("</title>", out);
	fprintf(out,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"2\" "
		"ry=\"2\"/>",
		x, y, w, FRAME_H - 1, look.color);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + FRAME_H - 5);
	put_label(out, nd->name, w);
	fputs("</text></g>\n", out);
}

/* One row of swatches: the module colours, at baseline y. */
static void module_legend(FILE *out, int y)
{
	char color[32];

	fputs("<g id=\"legend\">", out);
	for (int m = 0; m < EXPORT_MOD_CNT; m++) {
		int x = XPAD + m * 140;

		frame_color("", (enum export_module)m, color, sizeof(color));
		fprintf(out,
			"<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"%d\">%s</text>",
			x, y - 10, color, x + 16, y, MODULE_COLORS[m].legend);
	}
	fputs("</g>\n", out);
}

int flame__write(FILE *out, const struct export_stacks *s, const struct flame_node *nodes,
		 size_t cnt, size_t depth, const struct flame_style *st)
{
	int sub_lines = export_svg__wrap(NULL, st->subtitle, "", 0, 0, 0, SUB_COLS, SUB_LINES);
	/* Lines under the first subtitle line: more subtitle, totals, the module legend. */
	int extra = (sub_lines > 1 ? sub_lines - 1 : 0) + (st->totals ? 1 : 0) +
		    (st->module_legend ? 1 : 0);
	int pad_top = PAD_TOP + extra * LINE_H;
	int img_h = pad_top + PAD_BOTTOM + (int)(depth + 1) * FRAME_H;
	double scale = axis_scale(s);

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	fprintf(out,
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" onload=\"init(evt)\" data-total=\"%" PRIu64
		"\">\n",
		IMG_W, img_h, IMG_W, img_h, s->total);
	fputs("<!-- Flame graph of a DHAT heap profile, written by tracer (export_svg.c). Frames:\n"
	      "     <g class=f data-o=START data-v=WEIGHT data-d=DEPTH>. URL ?s=REGEX: search, "
	      "?z=REGEX: zoom. -->\n",
	      out);
	fputs("<style type=\"text/css\">\n"
	      "text { font-family: Verdana, 'DejaVu Sans', sans-serif; font-size: 12px; fill: "
	      "#000; }\n"
	      "#title { text-anchor: middle; font-size: 17px; }\n"
	      ".subtitle { text-anchor: middle; fill: #444; }\n"
	      ".btn { cursor: pointer; fill: #225; text-decoration: underline; }\n"
	      "#matched { text-anchor: end; }\n"
	      "g.f { cursor: pointer; }\n"
	      "g.f text { pointer-events: none; font-size: 12px; }\n"
	      "g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	      ".hide { display: none; }\n"
	      ".parent { opacity: 0.5; }\n"
	      "</style>\n",
	      out);
	fprintf(out,
		"<script type=\"text/ecmascript\"><![CDATA[\nvar XPAD = %d, FONT_SZ = %d, FONT_W = "
		"%.2f;\n%s]]></script>\n",
		XPAD, FONT_SZ, FONT_W, SCRIPT);
	fputs("<defs><linearGradient id=\"bg\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
	      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#e0e0ff\" "
	      "offset=\"95%\"/></linearGradient></defs>\n",
	      out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"url(#bg)\"/>\n",
		IMG_W, img_h);
	fprintf(out, "<text id=\"title\" x=\"%d\" y=\"%d\">", IMG_W / 2, FONT_SZ * 2);
	export_xml__puts(out, st->title);
	fputs("</text>\n", out);
	export_svg__wrap(out, st->subtitle, "class=\"subtitle\"", IMG_W / 2, SUB_Y, LINE_H,
			 SUB_COLS, SUB_LINES);
	if (st->totals) {
		fprintf(out, "<text id=\"totals\" class=\"subtitle\" x=\"%d\" y=\"%d\">", IMG_W / 2,
			SUB_Y + sub_lines * LINE_H);
		export_xml__puts(out, st->totals);
		fputs("</text>\n", out);
	}
	if (st->module_legend)
		module_legend(out, SUB_Y + (sub_lines + (st->totals ? 1 : 0)) * LINE_H);
	fprintf(out, "<text id=\"unzoom\" class=\"btn hide\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n",
		XPAD, FONT_SZ * 2);
	fprintf(out,
		"<text id=\"search\" class=\"btn\" x=\"%d\" y=\"%d\" "
		"text-anchor=\"end\">Search</text>\n",
		IMG_W - XPAD, FONT_SZ * 2);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", XPAD,
		img_h - PAD_BOTTOM / 2);
	fprintf(out, "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n", IMG_W - XPAD,
		img_h - PAD_BOTTOM / 2);
	if (!s->total)
		fprintf(out,
			"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no data: every program "
			"point has 0 %s</text>\n",
			IMG_W / 2, img_h / 2, st->empty_what);

	fputs("<g id=\"frames\">\n", out);
	for (size_t i = 0; i < cnt; i++) {
		if (i && too_narrow(&nodes[i], scale))
			continue;
		put_frame(out, s, &nodes[i], scale, img_h, st);
	}
	fputs("</g>\n</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}

int export__flamegraph_svg_opts(const struct dhat_profile *p, FILE *out,
				const struct export_opts *opts)
{
	struct export_opts o = opts ? *opts : (struct export_opts){0};
	struct export_stacks *s = NULL;
	struct flame_node *nodes = NULL;
	size_t cnt = 0, depth = 0;
	char dflt[96], n1[32], n2[32], *sub = NULL, *totals = NULL;
	char est[160];
	int err;

	err = export_stacks__build_opts(p, &o, &s);
	if (err)
		goto cleanup;
	err = flame__layout(s, true, &nodes, &cnt, &depth);
	if (err)
		goto cleanup;
	if (!o.title) {
		snprintf(dflt, sizeof(dflt), "Heap flame graph: %s", export_weight__name(o.weight));
		o.title = dflt;
	}
	/* Subtitle: the workload and the command line (wrapped), then the totals. */
	if (asprintf(&sub, "%s%s%s", o.workload ? o.workload : "",
		     o.workload ? " \xe2\x80\x94 " : "", p->cmd ? p->cmd : "") < 0)
		sub = NULL;
	if (asprintf(&totals, "%stotal %s %s, %s %s%s",
		     export__estimates(p, " \xe2\x80\x94 ", est, sizeof(est)),
		     export__fmt_u64(n1, s->total), s->unit,
		     export__fmt_u64(n2, s->total2), s->unit2,
		     o.keep_plumbing ? "" : " (allocator frames left out)") < 0)
		totals = NULL;
	if (!sub || !totals) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = flame__write(out, s, nodes, cnt, depth,
			   &(struct flame_style){.title = o.title,
						 .subtitle = sub,
						 .totals = totals,
						 .module_legend = true,
						 .empty_what = export_weight__name(o.weight)});
cleanup:
	free(sub);
	free(totals);
	free(nodes);
	export_stacks__free(s);
	return err;
}

int export__flamegraph_svg(const struct dhat_profile *p, FILE *out, enum export_weight w,
			   const char *title)
{
	struct export_opts o = {.weight = w, .title = title};

	return export__flamegraph_svg_opts(p, out, &o);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export_util - what the exporters share (see export_int.h): frame-string parsing, the
 * collapsed-stack set, XML escaping, number formatting, and the weight helpers of
 * export.h. A leaf: it calls no exporter (export.c dispatches to them).
 */
#include "export_int.h"
#include "dhat_sampled.h"

#include "dhat_reader.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* All of s[0..n) is decimal digits (n > 0); their value, saturated, into *v. */
static bool parse_digits(const char *s, size_t n, uint32_t *v)
{
	uint64_t x = 0;

	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		if (x < UINT32_MAX)
			x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
	return true;
}

/* Inside of a location suffix, s[0..n) without the parentheses: "in OBJ", "FILE:LINE" or
 * "FILE:LINE:COL". Fills f and returns true if it is one of those. */
static bool parse_loc(const char *s, size_t n, struct export_frame *f)
{
	const char *c1, *c0 = NULL;
	uint32_t a, b;

	if (n > 3 && !strncmp(s, "in ", 3)) {
		/* "(in ???)": the object is unknown too. */
		if (n - 3 == 3 && !strncmp(s + 3, "???", 3))
			return true;
		f->obj = s + 3;
		f->obj_len = n - 3;
		/* "(in OBJ+0xREL)" of an unnamed frame: the object is OBJ */
		for (size_t i = f->obj_len; i > 3; i--) {
			if (!isxdigit((unsigned char)f->obj[i - 1])) {
				if (i < f->obj_len && !strncmp(f->obj + i - 3, "+0x", 3))
					f->obj_len = i - 3;
				break;
			}
		}
		return true;
	}
	c1 = memrchr(s, ':', n);
	if (!c1 || c1 == s || !parse_digits(c1 + 1, (size_t)(s + n - c1 - 1), &b))
		return false;
	c0 = memrchr(s, ':', (size_t)(c1 - s));
	if (c0 && c0 > s && parse_digits(c0 + 1, (size_t)(c1 - c0 - 1), &a)) {
		/* dhat-rs: file:line:col */
		f->file = s;
		f->file_len = (size_t)(c0 - s);
		f->line = a;
		f->col = b;
		return true;
	}
	f->file = s;
	f->file_len = (size_t)(c1 - s);
	f->line = b;
	return true;
}

void export_frame__parse(const char *text, struct export_frame *f)
{
	const char *s = text, *end;

	memset(f, 0, sizeof(*f));
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hexval(s[2]) >= 0) {
		const char *q = s + 2;
		uint64_t a = 0;

		while (hexval(*q) >= 0)
			a = (a << 4) | (uint64_t)hexval(*q++);
		if (q[0] == ':' && q[1] == ' ') {
			f->addr = a;
			f->has_addr = true;
			s = q + 2;
		}
	}
	end = s + strlen(s);
	f->fn = s;
	f->fn_len = (size_t)(end - s);
	if (end == s || end[-1] != ')')
		return;
	/* Rightmost " (" whose content parses: a C++ signature's own parentheses either do not
	 * follow a space or do not hold "in X"/"X:N". */
	for (const char *c = end - 2; c > s; c--) {
		struct export_frame t = *f;

		if (*c != '(' || c[-1] != ' ')
			continue;
		if (!parse_loc(c + 1, (size_t)(end - 1 - (c + 1)), &t))
			continue;
		*f = t;
		f->fn_len = (size_t)(c - 1 - s);
		f->loc = c;
		f->loc_len = (size_t)(end - c);
		return;
	}
}

char *export_frame__name(const char *text, bool location)
{
	struct export_frame f;
	bool unknown;
	char *name;

	export_frame__parse(text, &f);
	unknown = !f.fn_len || (f.fn_len == 3 && !strncmp(f.fn, "???", 3));
	if (location && f.loc) {
		if (asprintf(&name, "%.*s %.*s", (int)f.fn_len, unknown ? "???" : f.fn,
			     (int)f.loc_len, f.loc) < 0)
			return NULL;
	} else if (unknown && f.obj) {
		/* Unknown symbol in a known object: name the object, as stackcollapse-perf. */
		const char *base = memrchr(f.obj, '/', f.obj_len);

		base = base ? base + 1 : f.obj;
		if (asprintf(&name, "[%.*s]", (int)(f.obj + f.obj_len - base), base) < 0)
			return NULL;
	} else {
		name = unknown ? strdup("???") : strndup(f.fn, f.fn_len);
		if (!name)
			return NULL;
	}
	/* ';' separates frames in folded stacks; control characters would split lines. */
	for (char *c = name; *c; c++) {
		if (*c == ';')
			*c = ':';
		else if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	}
	return name;
}

/* Address ranges of the objects named by "(in /obj)" frames, to place the frames of the same
 * objects that carry "(file:line)" instead (libc with its debug info, say). */
struct obj_range {
	const char *obj; /* slice of a frame string */
	size_t len;
	uint64_t lo, hi;
	enum export_module mod;
};

#define OBJ_RANGES 32
#define OBJ_SLACK  (16ull << 20) /* a library's text is at most this far from a seen address */

static bool is_libc(const char *base, size_t n)
{
	static const char *const libc[] = {"libc.so",  "libc-", "libm.so", "libpthread",
					   "ld-linux", "ld-2.", "libdl"};

	for (size_t i = 0; i < sizeof(libc) / sizeof(libc[0]); i++)
		if (n >= strlen(libc[i]) && !strncmp(base, libc[i], strlen(libc[i])))
			return true;
	return false;
}

/* An interpreter's own code (CPython's eval loop, its allocator): a Python program's flame
 * graph is mostly these frames, told apart from libc and from the extension libraries.
 * "python3*" is the interpreter built with libpython linked in. */
static bool is_runtime(const char *base, size_t n)
{
	static const char *const rt[] = {"libpython", "python3"};

	for (size_t i = 0; i < sizeof(rt) / sizeof(rt[0]); i++)
		if (n >= strlen(rt[i]) && !strncmp(base, rt[i], strlen(rt[i])))
			return true;
	return false;
}

/* The module of an "(in /obj)" object: exe is the program's basename (a runtime even when it
 * is the program: `python3 app.py` runs the script, not the interpreter's code). */
static enum export_module obj_module(const char *obj, size_t n, const char *exe, size_t exe_n)
{
	const char *base = memrchr(obj, '/', n);

	base = base ? base + 1 : obj;
	n -= (size_t)(base - obj);
	if (is_libc(base, n))
		return EXPORT_MOD_LIBC;
	if (is_runtime(base, n))
		return EXPORT_MOD_RUNTIME;
	return exe_n && n == exe_n && !strncmp(base, exe, n) ? EXPORT_MOD_EXE : EXPORT_MOD_LIB;
}

/* Module of every frame of p, by "(in /obj)" when given, else by address: inside (or near)
 * a range learnt from such frames, else the usual x86-64 layout (PIE executables at
 * 0x55.., 0x56.., non-PIE and Valgrind's below 64 MiB; shared libraries at 0x7f..). */
static int frame_modules(const struct dhat_profile *p, uint8_t **out)
{
	struct obj_range r[OBJ_RANGES];
	size_t rn = 0, exe_n = 0;
	const char *exe = p->cmd ? p->cmd : "";
	const char *slash;
	uint8_t *m;

	exe_n = strcspn(exe, " ");
	slash = memrchr(exe, '/', exe_n);
	if (slash) {
		exe_n -= (size_t)(slash + 1 - exe);
		exe = slash + 1;
	}
	m = calloc(p->ftbl_cnt + 1, 1);
	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < p->ftbl_cnt; i++) {
		struct export_frame f;
		size_t k;

		export_frame__parse(p->ftbl[i], &f);
		if (!f.obj || !f.has_addr)
			continue;
		for (k = 0;
		     k < rn && !(r[k].len == f.obj_len && !memcmp(r[k].obj, f.obj, f.obj_len)); k++)
			;
		if (k == rn && rn < OBJ_RANGES)
			r[rn++] = (struct obj_range){f.obj, f.obj_len, f.addr, f.addr,
						     obj_module(f.obj, f.obj_len, exe, exe_n)};
		else if (k < rn && f.addr < r[k].lo)
			r[k].lo = f.addr;
		else if (k < rn && f.addr > r[k].hi)
			r[k].hi = f.addr;
	}
	for (size_t i = 0; i < p->ftbl_cnt; i++) {
		struct export_frame f;
		enum export_module mod = EXPORT_MOD_EXE;

		export_frame__parse(p->ftbl[i], &f);
		if (f.obj) {
			mod = obj_module(f.obj, f.obj_len, exe, exe_n);
		} else if (f.has_addr) {
			size_t k, best = rn;
			uint64_t best_d = UINT64_MAX;

			/* the nearest range within the slack, not the first: libpython is often
			 * mapped next to libc, and its file:line frames must not take libc's */
			for (k = 0; k < rn; k++) {
				uint64_t d = f.addr < r[k].lo ? r[k].lo - f.addr :
					     f.addr > r[k].hi ? f.addr - r[k].hi : 0;

				if (d <= OBJ_SLACK && d < best_d)
					best = k, best_d = d;
			}
			if (best < rn)
				mod = r[best].mod;
			else if (f.addr >= 0x7f0000000000ull)
				mod = EXPORT_MOD_LIB;
		}
		/* "???" with neither object nor file: nothing tells where it is. */
		if (!f.obj && !f.file && f.fn_len == 3 && !strncmp(f.fn, "???", 3))
			mod = EXPORT_MOD_UNKNOWN;
		m[i] = (uint8_t)mod;
	}
	*out = m;
	return 0;
}

/* The weight w of pp and its companion count. */
static void pp_weights(const struct dhat_pp *pp, enum export_weight w, uint64_t *v, uint64_t *v2)
{
	switch (w) {
	case EXPORT_WEIGHT_BLOCKS:
		*v = pp->tbk, *v2 = pp->tb;
		break;
	case EXPORT_WEIGHT_GMAX_BYTES:
		*v = pp->gb, *v2 = pp->gbk;
		break;
	case EXPORT_WEIGHT_END_BYTES:
		*v = pp->eb, *v2 = pp->ebk;
		break;
	default:
		*v = pp->tb, *v2 = pp->tbk;
		break;
	}
}

/* Frame by frame by name text; ctx: the set. */
static int cmp_stack(const void *x, const void *y, void *ctx)
{
	const struct export_stack *a = x, *b = y;
	const struct export_stacks *s = ctx;
	char *const *strs = s->names->strs;

	for (size_t i = 0; i < a->cnt && i < b->cnt; i++) {
		uint32_t ia = export_stack__id(s, a, i), ib = export_stack__id(s, b, i);

		/* Interned: equal names are the same index. */
		if (ia != ib)
			return strcmp(strs[ia], strs[ib]);
	}
	return a->cnt < b->cnt ? -1 : a->cnt > b->cnt;
}

static bool same_stack(const struct export_stacks *s, const struct export_stack *a,
		       const struct export_stack *b)
{
	if (a->cnt != b->cnt)
		return false;
	for (size_t i = 0; i < a->cnt; i++)
		if (export_stack__id(s, a, i) != export_stack__id(s, b, i))
			return false;
	return true;
}

/* cmp_stack on indices into the set's stacks; ctx: the set. */
static int cmp_stack_at(const void *x, const void *y, void *ctx)
{
	const struct export_stacks *s = ctx;

	return cmp_stack(&s->v[*(const uint32_t *)x], &s->v[*(const uint32_t *)y], ctx);
}

/* Put s->v[0..n) in the order of idx (a permutation, consumed): v[i] = old v[idx[i]]. In
 * place, cycle by cycle: no second array of stacks. */
static void apply_order(struct export_stacks *s, uint32_t *idx, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct export_stack first;
		size_t j = i;

		if (idx[i] == i)
			continue;
		first = s->v[i];
		while (idx[j] != i) {
			size_t next = idx[j];

			s->v[j] = s->v[next];
			idx[j] = (uint32_t)j;
			j = next;
		}
		s->v[j] = first;
		idx[j] = (uint32_t)j;
	}
}

/* Sorted through 32-bit indices, then moved in place: glibc's merge sort copies what it
 * sorts into a buffer as big, and indices are 6 times smaller than stacks (the reader's
 * memory bound, docs/BENCHMARKS.md). The same stable order as sorting the stacks. */
static void sort_stacks(struct export_stacks *s, size_t n)
{
	uint32_t *idx = n <= UINT32_MAX ? malloc((n ? n : 1) * sizeof(*idx)) : NULL;

	if (!idx) {
		qsort_r(s->v, n, sizeof(*s->v), cmp_stack, s);
		return;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, n, sizeof(*idx), cmp_stack_at, s);
	apply_order(s, idx, n);
	free(idx);
}

void export_stacks__merge(struct export_stacks *s, size_t n)
{
	sort_stacks(s, n);
	/* Merge runs of identical stacks: PPs differing only in addresses or lines. */
	s->cnt = 0;
	for (size_t i = 0; i < n; i++) {
		if (s->cnt && same_stack(s, &s->v[s->cnt - 1], &s->v[i])) {
			s->v[s->cnt - 1].w += s->v[i].w;
			s->v[s->cnt - 1].w2 += s->v[i].w2;
		} else {
			s->v[s->cnt++] = s->v[i];
		}
	}
}

void export_stacks__free(struct export_stacks *s)
{
	if (!s)
		return;
	strtab__free(s->names);
	free(s->pool);
	free(s->name_of);
	free((void *)s->mod_of);
	free(s->v);
	free(s);
}

/* Index in t of the interned display name of frame index fi, or -ENOMEM. */
static int64_t frame_name(const struct dhat_profile *p, struct strtab *t, uint32_t fi,
			  bool location)
{
	char *name = export_frame__name(dhat_profile__frame(p, fi), location);
	int64_t k;

	if (!name)
		return -ENOMEM;
	k = strtab__intern(t, name, strlen(name));
	free(name);
	return k;
}

int export_stacks__build_opts(const struct dhat_profile *p, const struct export_opts *opts,
			      struct export_stacks **out)
{
	enum export_weight w = opts ? opts->weight : EXPORT_WEIGHT_BYTES;
	bool location = opts && opts->location, *plumbing = NULL;
	uint8_t *mods = NULL;
	struct export_stacks *s = NULL;
	size_t n = 0;
	int64_t k;
	int err;

	*out = NULL;
	if (w < EXPORT_WEIGHT_BYTES || w > EXPORT_WEIGHT_END_BYTES)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->names = strtab__new();
	s->name_of = calloc(p->ftbl_cnt + 1, sizeof(*s->name_of));
	s->v = calloc(p->pp_cnt + 1, sizeof(*s->v));
	s->fs = p->fs_pool;
	s->ftbl_cnt = p->ftbl_cnt;
	err = export_plumbing__mark(p, opts, &plumbing);
	if (!err)
		err = frame_modules(p, &mods);
	if (err)
		goto cleanup;
	mods[p->ftbl_cnt] = EXPORT_MOD_UNKNOWN; /* frame indices out of range: "???" */
	s->mod_of = mods;
	mods = NULL;
	k = strtab__intern(s->names, "[unknown]", 9);
	if (!s->names || !s->name_of || !s->v || k < 0) {
		err = -ENOMEM;
		goto cleanup;
	}
	s->unknown = (uint32_t)k;

	for (size_t i = 0; i < p->pp_cnt; i++) {
		const struct dhat_pp *pp = &p->pps[i];
		struct export_stack *st = &s->v[n];
		const uint32_t *fs = dhat_profile__pp_fs(p, pp);
		size_t cut = export_plumbing__cut(plumbing, p, pp);
		uint64_t v, v2;

		pp_weights(pp, w, &v, &v2);
		s->total += v;
		s->total2 += v2;
		if (!v)
			continue;
		st->w = v;
		st->w2 = v2;
		if (!pp->fs_cnt) {
			st->off = EXPORT_NO_FRAMES;
			st->cnt = 1;
		} else {
			st->off = pp->fs_off + (uint32_t)cut;
			st->cnt = pp->fs_cnt - (uint32_t)cut;
		}
		/* Each frame's name, once per frame index. */
		for (size_t j = cut; j < pp->fs_cnt; j++) {
			uint32_t fi = export_stacks__slot(s, fs[j]);

			if (s->name_of[fi])
				continue;
			k = frame_name(p, s->names, fs[j], location);
			if (k < 0) {
				err = -ENOMEM;
				goto cleanup;
			}
			s->name_of[fi] = (uint32_t)k + 1;
		}
		n++;
	}

	export_stacks__merge(s, n);
	switch (w) {
	case EXPORT_WEIGHT_BLOCKS:
		s->unit = p->bksu ? p->bksu : "blocks";
		s->unit2 = p->bsu ? p->bsu : "bytes";
		break;
	default:
		s->unit = p->bsu ? p->bsu : "bytes";
		s->unit2 = p->bksu ? p->bksu : "blocks";
		break;
	}
	*out = s;
	s = NULL;
	err = 0;
cleanup:
	free(mods);
	free(plumbing);
	export_stacks__free(s);
	return err;
}

void export_xml__puts(FILE *out, const char *s)
{
	const unsigned char *c = (const unsigned char *)s;

	while (*c) {
		size_t n = 0;

		switch (*c) {
		case '&':
			fputs("&amp;", out);
			c++;
			continue;
		case '<':
			fputs("&lt;", out);
			c++;
			continue;
		case '>':
			fputs("&gt;", out);
			c++;
			continue;
		case '"':
			fputs("&quot;", out);
			c++;
			continue;
		case '\'':
			fputs("&apos;", out);
			c++;
			continue;
		}
		if (*c < 0x80) {
			/* XML 1.0 allows no control characters but tab, LF, CR. */
			fputc(*c < 0x20 && *c != '\t' && *c != '\n' && *c != '\r' ? '?' : *c, out);
			c++;
			continue;
		}
		/* A multi-byte UTF-8 sequence is copied whole if valid; a bad byte is '?'. */
		if (*c >= 0xC2 && *c <= 0xDF)
			n = 2;
		else if (*c >= 0xE0 && *c <= 0xEF)
			n = 3;
		else if (*c >= 0xF0 && *c <= 0xF4)
			n = 4;
		for (size_t i = 1; i < n; i++)
			if ((c[i] & 0xC0) != 0x80)
				n = 0;
		/* Overlong 3/4-byte forms, surrogates and > U+10FFFF are invalid too. */
		if ((n == 3 && ((c[0] == 0xE0 && c[1] < 0xA0) || (c[0] == 0xED && c[1] >= 0xA0))) ||
		    (n == 4 && ((c[0] == 0xF0 && c[1] < 0x90) || (c[0] == 0xF4 && c[1] >= 0x90))))
			n = 0;
		if (!n) {
			fputc('?', out);
			c++;
			continue;
		}
		fwrite(c, 1, n, out);
		c += n;
	}
}

int export_svg__wrap(FILE *out, const char *text, const char *attrs, double x, double y,
		     double line_h, size_t cols, int max_lines)
{
	const char *s = text ? text : "";
	int lines = 0;

	if (cols < 8)
		cols = 8;
	while (*s == ' ')
		s++;
	while (*s && lines < max_lines) {
		size_t n = strlen(s), cut = n;
		bool last = lines + 1 == max_lines && n > cols;
		char *seg;

		if (n > cols) {
			size_t room = last ? cols - 3 : cols;

			/* Break after the last space that fits; else cut inside the word, never
			 * inside a UTF-8 sequence. */
			cut = room;
			while (cut > room / 2 && s[cut - 1] != ' ')
				cut--;
			if (s[cut - 1] != ' ' || last)
				for (cut = room; cut > 1 && ((unsigned char)s[cut] & 0xC0) == 0x80;
				     cut--)
					;
		}
		if (out) {
			seg = strndup(s, cut);
			if (!seg)
				return lines;
			fprintf(out, "<text %s x=\"%.1f\" y=\"%.1f\">", attrs, x,
				y + lines * line_h);
			export_xml__puts(out, seg);
			fputs(last ? "...</text>\n" : "</text>\n", out);
			free(seg);
		}
		lines++;
		s += cut;
		while (*s == ' ')
			s++;
	}
	return lines;
}

const char *export__estimates(const struct dhat_profile *p, const char *sep, char *buf,
			      size_t sz)
{
	size_t n;

	dhat_sampled__label(p->sample_bytes, buf, sz);
	n = strlen(buf);
	if (n)
		snprintf(buf + n, sz - n, "%s", sep);
	return buf;
}

char *export__fmt_u64(char *buf, uint64_t v)
{
	char tmp[21];
	int len = snprintf(tmp, sizeof(tmp), "%" PRIu64, v), o = 0;

	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

int export_weight__parse(const char *s, enum export_weight *w)
{
	if (!s)
		return -EINVAL;
	if (!strcmp(s, "bytes"))
		*w = EXPORT_WEIGHT_BYTES;
	else if (!strcmp(s, "blocks"))
		*w = EXPORT_WEIGHT_BLOCKS;
	else if (!strcmp(s, "gmax"))
		*w = EXPORT_WEIGHT_GMAX_BYTES;
	else if (!strcmp(s, "end") || !strcmp(s, "leaked"))
		*w = EXPORT_WEIGHT_END_BYTES;
	else
		return -EINVAL;
	return 0;
}

const char *export_weight__name(enum export_weight w)
{
	switch (w) {
	case EXPORT_WEIGHT_BYTES:
		return "bytes";
	case EXPORT_WEIGHT_BLOCKS:
		return "blocks";
	case EXPORT_WEIGHT_GMAX_BYTES:
		return "bytes at t-gmax";
	case EXPORT_WEIGHT_END_BYTES:
		return "bytes at t-end";
	}
	return "?";
}

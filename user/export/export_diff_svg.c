// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export_diff_svg - differential flame graph (see export_diff.h): the diff's rows become a
 * collapsed-stack set whose weight is the NEW side and whose companion (w2) is the OLD side,
 * so the shared flame graph layout sums, for every frame, both its NEW width and the OLD
 * weight below it; a look callback colours each frame by the difference.
 */
#include "export_diff.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dhat_reader.h"
#include "export_int.h"
#include "site.h"

struct diff_look {
	uint64_t max_change; /* largest |new - old| of any frame but "all": full saturation */
	const char *unit;
};

static uint64_t change_of(const struct flame_node *nd)
{
	uint64_t w = nd->end - nd->start;

	return w > nd->w2 ? w - nd->w2 : nd->w2 - w;
}

/* Red (255, c, c) for growth, blue (c, c, 255) for shrinkage, c from 255 (white: no change)
 * down to 0 (the largest change of the graph), in proportion: a change of +0.2% beside one of
 * +50% is near white. (flamegraph.pl starts tiny changes at 210, a plain pink that read as
 * a real change.) */
static void diff_look(void *ctx, const struct flame_node *nd, const struct export_stacks *s,
		      struct flame_look *look)
{
	const struct diff_look *dl = ctx;
	uint64_t w = nd->end - nd->start, ch = change_of(nd);
	double r = dl->max_change ? (double)ch / (double)dl->max_change : 0;
	int c = 255 - (int)(255 * (r > 1 ? 1 : r));
	char n1[32], n2[32], n3[32], pct[32] = "";

	if (!ch)
		snprintf(look->color, sizeof(look->color), "rgb(255,255,255)");
	else if (w > nd->w2)
		snprintf(look->color, sizeof(look->color), "rgb(255,%d,%d)", c, c);
	else
		snprintf(look->color, sizeof(look->color), "rgb(%d,%d,255)", c, c);
	if (nd->w2 && ch)
		snprintf(pct, sizeof(pct), " (%+.1f%%)",
			 ((double)w - (double)nd->w2) * 100.0 / (double)nd->w2);
	snprintf(look->tip, sizeof(look->tip), "new %s %s (%.2f%%), old %s %s, %s%s%s",
		 export__fmt_u64(n1, w), dl->unit,
		 s->total ? 100.0 * (double)w / (double)s->total : 0.0, export__fmt_u64(n2, nd->w2),
		 dl->unit,
		 !ch	      ? "unchanged"
		 : w > nd->w2 ? "+"
			      : "-",
		 ch ? export__fmt_u64(n3, ch) : "", pct);
}

static size_t frame_cnt(const char *key)
{
	size_t n = 1;

	for (; *key; key++)
		n += *key == DIFF_KEY_SEP;
	return n;
}

/* How many innermost frames of key are allocation plumbing (the built-in table, as the
 * report names sites): left out as the other exports leave them (export_plumbing.c), all of
 * them kept when nothing else is left. */
static size_t plumbing_cut(const char *key, size_t cnt)
{
	size_t n = 0;

	for (const char *f = key; n < cnt; n++) {
		size_t len = strcspn(f, (char[]){DIFF_KEY_SEP, '\0'});
		char *text = strndup(f, len);
		bool plumbing = text && site__is_plumbing(site__clean_frame(text), NULL);

		free(text);
		if (!plumbing)
			break;
		f += len + (f[len] != '\0');
	}
	return n == cnt ? 0 : n;
}

/* Row r's stack, outermost first, into st (names interned in s), its allocator frames left
 * out. Returns 0 or -ENOMEM. */
static int row_stack(struct export_stacks *s, const struct diff_row *r, bool location,
		     struct export_stack *st)
{
	size_t cnt = frame_cnt(r->key), cut = plumbing_cut(r->key, cnt), i = cnt;
	const char *f = r->key;

	for (size_t k = 0; k < cut; k++) /* past the plumbing: innermost first in the key */
		f += strcspn(f, (char[]){DIFF_KEY_SEP, '\0'}) + 1;
	cnt -= cut;
	i = cnt;
	st->cnt = (uint32_t)cnt; /* below the pool's size, checked by diff_stacks */
	while (i--) {
		size_t n = strcspn(f, (char[]){DIFF_KEY_SEP, '\0'});
		char *text = strndup(f, n), *name = NULL;
		int64_t k = -ENOMEM;

		if (text && *text)
			name = export_frame__name(text, location);
		else if (text)
			name = strdup("[unknown]");
		if (name)
			k = strtab__intern(s->names, name, strlen(name));
		free(text);
		free(name);
		if (k < 0)
			return -ENOMEM;
		s->pool[st->off + i] = (uint32_t)k;
		f += n + (f[n] != '\0');
	}
	return 0;
}

/* The stack set: every row with a weight on either side, w = NEW, w2 = OLD. */
static int diff_stacks(const struct diff *d, enum diff_metric m, struct export_stacks **out)
{
	struct export_stacks *s = calloc(1, sizeof(*s));
	size_t frames = 0, used = 0, n = 0;
	int err = -ENOMEM;

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < d->row_cnt; i++)
		frames += frame_cnt(d->rows[i].key);
	if (frames >= UINT32_MAX) { /* export_stack.off */
		free(s);
		return -EOVERFLOW;
	}
	s->names = strtab__new();
	s->v = calloc(d->row_cnt + 1, sizeof(*s->v));
	s->pool = calloc(frames + 1, sizeof(*s->pool));
	if (!s->names || !s->v || !s->pool)
		goto cleanup;
	for (size_t i = 0; i < d->row_cnt; i++) {
		const struct diff_row *r = &d->rows[i];
		struct export_stack *st = &s->v[n];

		st->w = diff_side__value(&r->new, m);
		st->w2 = diff_side__value(&r->old, m);
		s->total += st->w;
		s->total2 += st->w2;
		if (!st->w && !st->w2)
			continue;
		st->off = (uint32_t)used;
		err = row_stack(s, r, d->match == DIFF_MATCH_LINE, st);
		if (err)
			goto cleanup;
		used += st->cnt;
		n++;
	}
	export_stacks__merge(s, n);
	*out = s;
	return 0;
cleanup:
	export_stacks__free(s);
	return err;
}

int export__diff_svg(const struct diff *d, enum diff_metric m, FILE *out)
{
	static const char *const what[] = {"bytes", "blocks", "bytes at t-gmax", "bytes at t-end"};
	struct diff_look dl = {.unit = m == DIFF_M_BLOCKS ? "blocks" : "bytes"};
	struct export_stacks *s = NULL;
	struct flame_node *nodes = NULL;
	size_t cnt = 0, depth = 0;
	char title[96], n1[32], n2[32], *sub = NULL, est[2][160];
	const char *ob, *nb;
	int err;

	err = diff_stacks(d, m, &s);
	if (!err)
		err = flame__layout(s, false, &nodes, &cnt, &depth);
	if (err)
		goto cleanup;
	for (size_t i = 1; i < cnt; i++)
		if (change_of(&nodes[i]) > dl.max_change)
			dl.max_change = change_of(&nodes[i]);
	ob = strrchr(d->old->path, '/') ? strrchr(d->old->path, '/') + 1 : d->old->path;
	nb = strrchr(d->new->path, '/') ? strrchr(d->new->path, '/') + 1 : d->new->path;
	snprintf(title, sizeof(title), "Differential flame graph: %s", what[m]);
	if (asprintf(&sub,
		     "%s%s%s \xe2\x86\x92 %s: %s \xe2\x86\x92 %s %s. Width: new; red: grew, "
		     "blue: shrank",
		     export__estimates(d->old, " (old) \xe2\x80\x94 ", est[0], sizeof(est[0])),
		     export__estimates(d->new, " (new) \xe2\x80\x94 ", est[1], sizeof(est[1])), ob,
		     nb, export__fmt_u64(n1, s->total2), export__fmt_u64(n2, s->total),
		     dl.unit) < 0) {
		sub = NULL;
		err = -ENOMEM;
		goto cleanup;
	}
	err = flame__write(out, s, nodes, cnt, depth,
			   &(struct flame_style){.title = title,
						 .subtitle = sub,
						 .empty_what = what[m],
						 .look = diff_look,
						 .ctx = &dl});
cleanup:
	free(sub);
	free(nodes);
	export_stacks__free(s);
	return err;
}

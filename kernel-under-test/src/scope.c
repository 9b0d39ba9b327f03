/* SPDX-License-Identifier: MIT */
/*
 * scope.c - variable frames.
 *
 * frames[0] is the root scope; functions and for-loops push a frame. Lookups go from the
 * innermost frame out. A fork (pipeline stage, scatter worker, $( ) save) deep-copies the
 * whole scope: that is the per-fork string traffic the tracer is meant to see.
 */
#include <stdlib.h>
#include <string.h>

#include "scope.h"
#include "util.h"

static void frame_free(struct frame *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->n; i++) {
		free(f->vars[i].name);
		free(f->vars[i].value);
	}
	free(f->vars);
	free(f);
}

int scope_push(struct scope *s)
{
	if (s->nframes == s->cap) {
		int cap = s->cap ? s->cap * 2 : 4;
		struct frame **fr = realloc(s->frames, (size_t)cap * sizeof(*fr));
		if (!fr)
			return -1;
		s->frames = fr;
		s->cap = cap;
	}
	struct frame *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	s->frames[s->nframes++] = f;
	return 0;
}

void scope_pop(struct scope *s)
{
	if (s->nframes > 1)
		frame_free(s->frames[--s->nframes]);
}

int scope_init(struct scope *s)
{
	memset(s, 0, sizeof(*s));
	strv_init(&s->pos);
	s->func_frame = -1;
	return scope_push(s);
}

void scope_free(struct scope *s)
{
	for (int i = 0; i < s->nframes; i++)
		frame_free(s->frames[i]);
	free(s->frames);
	strv_free(&s->pos);
	memset(s, 0, sizeof(*s));
}

int scope_copy(struct scope *dst, const struct scope *src)
{
	memset(dst, 0, sizeof(*dst));
	strv_init(&dst->pos);
	dst->func_frame = src->func_frame;
	for (int i = 0; i < src->nframes; i++) {
		if (scope_push(dst) < 0)
			goto fail;
		const struct frame *sf = src->frames[i];
		struct frame *df = dst->frames[i];
		if (sf->n) {
			df->vars = calloc((size_t)sf->n, sizeof(*df->vars));
			if (!df->vars)
				goto fail;
			df->cap = sf->n;
		}
		for (int j = 0; j < sf->n; j++) {
			df->vars[j].name = strdup(sf->vars[j].name);
			df->vars[j].value = strdup(sf->vars[j].value);
			df->vars[j].exported = sf->vars[j].exported;
			df->n++;
			if (!df->vars[j].name || !df->vars[j].value)
				goto fail;
		}
	}
	for (int i = 0; i < src->pos.n; i++)
		if (strv_pushdup(&dst->pos, src->pos.v[i]) < 0)
			goto fail;
	return 0;
fail:
	scope_free(dst);
	return -1;
}

static struct var *find(const struct scope *s, const char *name, int *frame)
{
	for (int i = s->nframes - 1; i >= 0; i--) {
		struct frame *f = s->frames[i];
		for (int j = 0; j < f->n; j++) {
			if (!strcmp(f->vars[j].name, name)) {
				if (frame)
					*frame = i;
				return &f->vars[j];
			}
		}
	}
	return NULL;
}

const char *scope_get(const struct scope *s, const char *name)
{
	struct var *v = find(s, name, NULL);
	return v ? v->value : NULL;
}

int scope_set_in(struct scope *s, int frame, const char *name, const char *value)
{
	struct frame *f = s->frames[frame];
	for (int j = 0; j < f->n; j++) {
		if (!strcmp(f->vars[j].name, name)) {
			char *v = strdup(value);
			if (!v)
				return -1;
			free(f->vars[j].value);
			f->vars[j].value = v;
			return 0;
		}
	}
	if (f->n == f->cap) {
		int cap = f->cap ? f->cap * 2 : 4;
		struct var *nv = realloc(f->vars, (size_t)cap * sizeof(*nv));
		if (!nv)
			return -1;
		f->vars = nv;
		f->cap = cap;
	}
	char *n = strdup(name), *v = strdup(value);
	if (!n || !v) {
		free(n);
		free(v);
		return -1;
	}
	f->vars[f->n++] = (struct var){ .name = n, .value = v, .exported = false };
	return 0;
}

int scope_set(struct scope *s, const char *name, const char *value)
{
	int frame = 0;
	if (!find(s, name, &frame))
		frame = 0;
	return scope_set_in(s, frame, name, value);
}

int scope_export(struct scope *s, const char *name)
{
	struct var *v = find(s, name, NULL);
	if (!v) {
		if (scope_set(s, name, "") < 0)
			return -1;
		v = find(s, name, NULL);
	}
	v->exported = true;
	return 0;
}

int scope_unset(struct scope *s, const char *name)
{
	int frame;
	struct var *v = find(s, name, &frame);
	if (!v)
		return 0;
	struct frame *f = s->frames[frame];
	free(v->name);
	free(v->value);
	*v = f->vars[--f->n];
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct session {
	struct session_opts opts;
	struct collector_opts copts;	/* every profile's */
	struct collector *cur;		/* the open profile, or NULL */
	char name[WINDOW_NAME_LEN + 1]; /* window name of the open profile */
	__u64 iterations;		/* announced by the window */
	bool closed_once;		/* single_window: the window has closed */
	bool has_death;			/* death: the traced process ended (EV_DEATH) */
	struct dhat_death death;
	struct session_stats stats;
};

struct session *session__new(const struct session_opts *opts)
{
	struct session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->opts = *opts;
	s->copts.sample_bytes = opts->sample_bytes;
	s->copts.thread_name = opts->thread_name;
	if (!opts->windowed || opts->open_at_start) {
		s->cur = collector__new(opts->start_ns, &s->copts);
		if (!s->cur) {
			free(s);
			return NULL;
		}
	}
	return s;
}

void session__free(struct session *s)
{
	if (!s)
		return;
	collector__free(s->cur);
	free(s);
}

/* Finish the open profile, hand it to the callback, and drop it. */
static int session__close(struct session *s, __u64 end_ns, __u64 iterations)
{
	const struct collector_totals *t;
	int err = 0;

	collector__finish(s->cur, end_ns);
	t = collector__totals(s->cur);
	s->stats.unknown_frees += t->unknown_frees;
	s->stats.stack_failures += t->stack_failures;
	s->stats.profiles++;
	if (s->opts.on_profile)
		err = s->opts.on_profile(s->opts.ctx, s->cur, s->opts.windowed ? s->name : NULL,
					 iterations);
	collector__free(s->cur);
	s->cur = NULL;
	return err;
}

static int session__window(struct session *s, const struct window_event *w)
{
	if (s->opts.single_window && (s->closed_once || (w->type == EV_WINDOW_BEGIN && s->cur)))
		return 0; /* one window per run: later marks change nothing */
	if (w->type == EV_WINDOW_BEGIN) {
		int err = 0;

		/* A begin while open means we never saw the end: close what we have. */
		if (s->cur)
			err = session__close(s, w->ts_ns, s->iterations);
		s->cur = collector__new(w->ts_ns, &s->copts);
		if (!s->cur)
			return -ENOMEM;
		memcpy(s->name, w->name, WINDOW_NAME_LEN);
		s->name[WINDOW_NAME_LEN] = '\0';
		s->iterations = w->iterations;
		return err;
	}
	if (!s->cur)
		return 0; /* an end without a begin: nothing was measured */
	s->closed_once = true;
	return session__close(s, w->ts_ns, s->opts.single_window ? s->iterations : w->iterations);
}

/* The traced process ended: its profile ends at that moment (te = the death), so the blocks
 * live then are the profile's at-end figures. */
static int session__death_event(struct session *s, const struct death_event *e)
{
	dhat_death__from_event(&s->death, e);
	s->has_death = true;
	if (!s->cur)
		return 0;
	s->closed_once = true;
	return session__close(s, e->ts_ns, s->iterations);
}

int session__handle(void *ctx, const void *data, size_t sz)
{
	struct session *s = ctx;
	__u32 type;

	s->stats.records++;
	if (sz < sizeof(type)) {
		s->stats.bad_records++;
		return 0;
	}
	memcpy(&type, data, sizeof(type));
	switch (type) {
	case EV_ALLOC:
	case EV_FREE:
	case EV_REALLOC:
		if (sz < sizeof(struct alloc_event)) {
			s->stats.bad_records++;
			return 0;
		}
		if (!s->cur) {
			s->stats.outside_window++;
			return 0;
		}
		return collector__handle(s->cur, data);
	case EV_WINDOW_BEGIN:
	case EV_WINDOW_END:
		if (sz < sizeof(struct window_event) || !s->opts.windowed) {
			s->stats.bad_records += sz < sizeof(struct window_event);
			return 0;
		}
		return session__window(s, data);
	case EV_DEATH:
		if (sz < sizeof(struct death_event)) {
			s->stats.bad_records++;
			return 0;
		}
		return session__death_event(s, data);
	default:
		s->stats.bad_records++;
		return 0;
	}
}

int session__finish(struct session *s, __u64 end_ns)
{
	if (!s->cur)
		return 0;
	return session__close(s, end_ns, s->iterations);
}

const struct collector_totals *session__current(const struct session *s)
{
	return s->cur ? collector__totals(s->cur) : NULL;
}

bool session__in_profile(const struct session *s)
{
	return s->cur != NULL;
}

struct collector *session__snapshot(const struct session *s, __u64 now_ns)
{
	struct collector *c;

	if (!s->cur) {
		errno = ENOENT;
		return NULL;
	}
	c = collector__clone(s->cur);
	if (c)
		collector__finish(c, now_ns);
	return c;
}

const struct collector *session__open(const struct session *s)
{
	return s->cur;
}

const struct dhat_death *session__death(const struct session *s)
{
	return s->has_death ? &s->death : NULL;
}

const struct session_stats *session__stats(const struct session *s)
{
	return &s->stats;
}

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * session - routes ring-buffer records to profiles. In windowed mode (the workload driver's
 * USDT marks) each window_begin..window_end pair is one profile; otherwise one profile spans
 * the whole trace. Works on plain records, so it is unit-tested without BPF.
 */
#ifndef TRACER_SESSION_H
#define TRACER_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "collector.h"
#include "dhat_death.h"

/* A profile has closed: c is finished and owned by the session (valid during the call).
 * name/iterations come from the window (NULL/0 when not windowed). Return 0 or -errno. */
typedef int (*session_profile_fn)(void *ctx, struct collector *c, const char *name,
				  __u64 iterations);

struct session_opts {
	bool windowed;		    /* profiles are cut by EV_WINDOW_BEGIN/END */
	/* One window per run (--start-at/--stop-at): a begin while open is ignored, and after
	 * the first end everything is ignored. */
	bool single_window;
	/* With windowed: the (single) window is open from start_ns (no --start-at). */
	bool open_at_start;
	__u64 start_ns;		    /* not windowed: the profile's time origin */
	__u64 sample_bytes;	    /* --sample-bytes (collector_opts), 0: exact */
	/* collector_opts.thread_name: each thread's name at first sight, or NULL */
	void (*thread_name)(void *ctx, __u32 tgid, __u32 tid, char *buf, size_t sz);
	session_profile_fn on_profile;
	void *ctx;
};

struct session_stats {
	__u64 records;		/* records received */
	__u64 outside_window;	/* allocator records while no window was open (ignored) */
	__u64 bad_records;	/* unknown type or short record (ignored, counted) */
	__u64 profiles;		/* profiles closed */
	__u64 unknown_frees;	/* summed over closed profiles */
	__u64 stack_failures;	/* summed over closed profiles */
};

struct session *session__new(const struct session_opts *opts);
void session__free(struct session *s);

/* Handle one record (a loader_record_fn). Returns 0 or -errno (callback errors included). */
int session__handle(void *s, const void *data, size_t sz);

/* Close a profile still open (target died mid-window, or end of a non-windowed trace) at
 * end_ns, so a valid profile of what was seen is written. Returns 0 or -errno. */
int session__finish(struct session *s, __u64 end_ns);

/* Totals of the open profile so far, or NULL when none is open. */
const struct collector_totals *session__current(const struct session *s);

/* The open profile itself, read-only (a periodic table reads its live blocks), or NULL.
 * Valid until the next session call that handles a record. */
const struct collector *session__open(const struct session *s);

/* True while a profile is open. */
bool session__in_profile(const struct session *s);
const struct session_stats *session__stats(const struct session *s);

/* The open profile as it is at now_ns, finished, the session's own going on: the caller
 * writes it and frees it (collector__free). NULL + errno: ENOENT (no profile open), ENOMEM. */
struct collector *session__snapshot(const struct session *s, __u64 now_ns);

/* How the traced process ended (an EV_DEATH record closed its profile at that moment), or
 * NULL while it has not. Valid until session__free. */
const struct dhat_death *session__death(const struct session *s);

#endif

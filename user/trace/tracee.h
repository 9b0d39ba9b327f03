/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracee - one traced process image and everything kept for it: its session (profile),
 * symbolizer, DWARF stack resolver and profile path. A process that forks makes a new
 * tracee; an exec closes the tracee of the old image and opens one for the new image (same
 * pid). The set routes records by tgid to the live tracee of that process.
 *
 * Each image also samples its own RSS and tracks the memory it maps itself, both written in
 * its own profile and released with the image: a /proc/PID/status descriptor and a sample
 * array of up to RSS_SAMPLES_MAX per live process, and a mapping tracker with its unwinder
 * for a process that maps anything.
 *
 * Profile paths: one profile for the program named. The final image -- the last exec of
 * the run's first process, what `env python3` or a pyenv shim ends as -- gets -o (a "%p"
 * in it replaced by its pid), or dhat-heap-<pid>.json in $KAISH_PROFILE_OUT or ".". Every
 * other image is named with its pid and program: with -o app.json in app.json.d/ beside it,
 * app.json.d/app.<pid>.<prog>.json (nothing lands in the working directory); with a "%p"
 * pattern or the default name next to the final one, app-%p.json -> app-<pid>.<prog>.json
 * (".N" added if that file was already used in this run). Which image is final is known
 * only when it is written (an image that exec'd is not): both paths are kept.
 */
#ifndef TRACER_TRACEE_H
#define TRACER_TRACEE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "collector.h"
#include "dhat_arenas.h"
#include "dwarf_stacks.h"
#include "py_stacks.h"
#include "session.h"

struct tracees;

/* Which allocator an image's probed allocations go to, as far as the heap's chunk sizes
 * are concerned (heap_chunk.h). */
enum tracee_malloc {
	TRACEE_MALLOC_UNKNOWN = 0, /* not resolved for this image: the run's first one's */
	TRACEE_MALLOC_GLIBC,	   /* glibc's malloc */
	TRACEE_MALLOC_OTHER,	   /* jemalloc, mimalloc, a Rust #[global_allocator], ... */
};

struct tracee {
	pid_t tgid;		       /* the process */
	pid_t parent;		       /* traced process that forked it; 0 for a target */
	char prog[64];		       /* program name (basename of the image's path) */
	char exe[PATH_MAX];	       /* the image's path (exec filename or /proc/PID/exe) */
	/* exe read from /proc/PID/exe between these clock__mono_ns() times (0, 0: given by a
	 * record): an exec recorded before the read was already the image read */
	__u64 exe_read_from, exe_read_by;
	char cmdline[1024];	       /* space-joined argv when readable, else exe */
	char path[PATH_MAX];	       /* its profile file as another image than the final
					* one ("" in workload mode: named there) */
	char final_path[PATH_MAX];     /* its profile file if it is the final image */
	char written_path[PATH_MAX];   /* the last profile file written for it */
	struct session *session;       /* its records; NULL once closed */
	struct symbolizer *sym;	       /* its maps and modules; NULL once closed or unreadable */
	bool sym_borrowed;	       /* sym is its parent's (a fork gone before its maps were
					* read): frozen, never refreshed from the parent's pid */
	struct dwarf_stacks *stacks;   /* --unwind dwarf: its resolver; NULL otherwise */
	struct rss_sampler *rss;       /* its RSS over its life (tracees_opts.rss); NULL once
					* closed or when /proc/PID/status could not be opened */
	struct mappings *maps;	       /* its own anonymous mappings (EV_MAPPING), from its
					* first such record on; NULL before and once closed */
	struct dhat_arenas *exit_arenas; /* glibc's arenas measured at its exit stop (the
					* profile is written once its memory is gone), or NULL */
	bool ended;		       /* the image is gone (exec'd away or exited): its maps
					* can no longer be read */
	bool written;		       /* a profile file exists (written_path) */
	bool execd;		       /* it ended by an exec: not its process's final image */
	bool too_small;		       /* no file: fewer than IMAGE_MIN_BLOCKS allocations */
	bool died;		       /* killed by a signal, the OOM killer's included (its
					* EV_DEATH): always reported */
	enum tracee_malloc malloc_kind; /* its allocator, when resolved for this image */
	char malloc_lib[64];		/* the object its malloc resolves to (basename), or "" */
	__u64 exit_ns;		       /* await_death: its EV_PROC_EXIT, the close waits for
					* EV_DEATH (0: not exited) */
	__u64 exit_poll;	       /* the batch its EV_PROC_EXIT came in (tracees.polls) */
	struct collector_totals totals; /* of its (last) profile, set when one is written */
	struct session_stats stats;    /* its session's counters, kept at close */
	struct dwarf_stacks_stats unwind; /* its resolver's counters, kept at close */
	struct py_stacks *py;	       /* its Python frames (tracees_opts.python not off);
					* freed once its profile is written */
	struct py_stacks_stats py_stats; /* py's counters, kept at close */
	char py_version[16];	       /* the CPython it runs, once known, else "" */
	bool py_said;		       /* why it cannot be read was said */
	struct tracees *set;
};

/* An image opened by an exec record (not by a hold point): owner is tracees_opts.owner. */
typedef void (*tracee_exec_fn)(void *owner, struct tracee *t);

struct tracees_opts {
	struct session_opts sopts; /* every tracee's session; ctx is replaced by the tracee */
	bool dwarf;		   /* give each tracee a dwarf_stacks resolver */
	/* --unwind kernel: the resolver's ids (snapshots of stacks BPF's tables could not
	 * serve) are tagged STACK_ID_USER_TAG, apart from BPF's stack ids */
	bool tag_user_ids;
	const char *output;	   /* -o (may hold %p), or NULL for the default name */
	bool name_paths;	   /* false: leave path empty (workloads name their profiles) */
	void *owner;		   /* for the session callback: tracees__owner() */
	pid_t held_root;	   /* spawned, follow: its records before its first exec are
				    * the tracer's own code in the held child (dropped) */
	tracee_exec_fn on_exec;	   /* may be NULL */
	/* The death probes are loaded: EV_PROC_EXIT (attached first, on the same tracepoint)
	 * precedes the process's EV_DEATH, so its image closes at that EV_DEATH, with the
	 * cause, or at tracees__close_exited for a process whose end is not recorded. */
	bool await_death;
	bool rss; /* sample each image's RSS (tracees__sample_rss) */
	/* dwarf: where each image's stack hints go (dwarf_stacks__set_hint_sink); NULL: none */
	stack_hint_fn hint_fn;
	void *hint_ctx;
	/* Python frames (py_stacks.h): each image's interpreter looked for (PY_MODE_OFF: not),
	 * its layout handed to BPF and its Python stacks read through these. */
	enum py_mode python;
	struct py_stacks_opts py;
};

struct tracees *tracees__new(const struct tracees_opts *o);
/* Free every tracee (closing none: call tracees__close_all first). Accepts NULL. */
void tracees__free(struct tracees *ts);

/*
 * A new image of process tgid starting at start_ns: exe is its path (NULL: read
 * /proc/PID/exe). Reads its maps and command line now, while it lives. The tracee is owned
 * by the set. NULL + errno (ENOMEM) on failure.
 */
struct tracee *tracees__open(struct tracees *ts, pid_t tgid, pid_t parent, const char *exe,
			     __u64 start_ns);

/*
 * The record switch (a loader_record_fn, ctx = the set). EV_MAPPING goes to the mappings of
 * the open image of its tgid (dropped when there is none). EV_PROC_FORK opens an image of the
 * child (its parent's program and command line), EV_PROC_EXEC closes the process's image
 * and opens the new one, EV_PROC_EXIT closes it (await_death: EV_DEATH does), each at its
 * place in the stream. EV_DEATH goes to the image of its tgid like every
 * other record goes to the open image of its tgid, opened on its first record if its birth
 * was not seen; --unwind dwarf snapshots are unwound with that image's resolver first.
 * Returns 0 or -errno.
 */
int tracees__handle(void *ts, const void *data, size_t sz);

/* Records of the held child before its exec, dropped (held_root). */
__u64 tracees__pre_exec_records(const struct tracees *ts);
/* Records of images exec'd away before the tracer could read them (a process that joined
 * the trace as it exec'd: its image was read after the exec), dropped. */
__u64 tracees__unread_image_records(const struct tracees *ts);

/* The open tracee of process tgid, or NULL. */
struct tracee *tracees__live(const struct tracees *ts, pid_t tgid);

/* Close t's profile at end_ns (writing it through the session callback); ended: its image is
 * gone, so its maps must not be re-read. Frees its symbolizer and resolver. Returns 0 or
 * -errno. No-op for a tracee already closed. */
int tracees__close(struct tracee *t, __u64 end_ns, bool ended);
/* Close the images that exited without an EV_DEATH in the records read so far, at their
 * exit (await_death; call after each poll). An exit read in the latest batch waits one
 * more: its EV_DEATH, sent by another program on the same tracepoint just after, may be
 * committed after the batch was read. Returns the first error. */
int tracees__close_exited(struct tracees *ts);
/* Close every open tracee. Returns the first error. */
int tracees__close_all(struct tracees *ts, __u64 end_ns);

/* Re-read t's maps into its symbolizer while the image lives (not once it ended, and not a
 * borrowed one: see sym_borrowed); make one if it has none. */
void tracee__refresh_sym(struct tracee *t);

/* Re-read the maps of every open tracee (dlopen'd libraries). */
void tracees__refresh_maps(struct tracees *ts);

/* Sample the RSS of every open image whose interval has passed (rss_sampler__tick);
 * now_ns: CLOCK_MONOTONIC. */
void tracees__sample_rss(struct tracees *ts, __u64 now_ns);

size_t tracees__count(const struct tracees *ts);
struct tracee *tracees__at(const struct tracees *ts, size_t i);
void *tracees__owner(const struct tracees *ts);

/* The sessions' counters, summed over every tracee. */
void tracees__stats(const struct tracees *ts, struct session_stats *out);

/*
 * The profile path of an image of process pid running prog (see the header comment):
 * output is -o or NULL; final: the run's final image. prog is made safe for a file name
 * (safe_text__file_name). False if it did not fit in sz.
 */
bool tracee_path(const char *output, bool final, pid_t pid, const char *prog, char *out,
		 size_t sz);

/* Images with fewer allocations than this get no file of their own (a shell, env, a shim:
 * a few allocations each, a file each was noise), only a row in the closing table, unless
 * --all-images. The final image is always written. */
#define IMAGE_MIN_BLOCKS 16

/* Is t the final image: of the run's first process, not exec'd away (so far)? */
bool tracee__final(const struct tracee *t);

/* Where t's profile goes now: final_path or path. */
const char *tracee__profile_path(const struct tracee *t);

/* The resolvers' counters, summed over every tracee (dwarf). */
/* The Python naming counters of every image summed (open ones included); true when any
 * image ran a CPython whose frames were read. */
bool tracees__py_stats(const struct tracees *ts, struct py_stacks_stats *out);
void tracees__unwind_stats(const struct tracees *ts, struct dwarf_stacks_stats *out);

/* The open tracee whose session has the most live bytes (progress line), or NULL. */
struct tracee *tracees__busiest(const struct tracees *ts);

#endif

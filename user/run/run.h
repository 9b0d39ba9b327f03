/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * run - one tracing run's state, shared by the lifecycle (main.c), what it prints and writes
 * (run_output.c) and the process images it follows (run_images.c).
 */
#ifndef TRACER_RUN_H
#define TRACER_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>

#include "collector.h"
#include "frames.h"
#include "options.h"
#include "output.h"
#include "profile_output.h"
#include "tracee.h"
#include "workloads.h"

/* Everything one tracing run owns. */
struct run {
	const struct tracer_opts *args;
	struct profile_output_opts out;
	struct target *target;
	struct loader *loader;
	struct window_probes *window; /* --start-at/--stop-at */
	struct tracees *tracees;      /* one per process image: session, symbolizer, stacks */
	/* How traced processes end (NULL: not recorded). Each image's RSS and mappings are its
	 * own (tracee.h). */
	struct death_probes *death;
	unsigned snapshots; /* snapshots written (--snapshot-at-rss, SIGUSR1): the last N */
	bool rss_snapshot_done; /* --snapshot-at-rss: its one snapshot is taken */
	__u64 next_table_ns;	/* --interval: when the next table is due (0: not yet set) */
	bool follow;		      /* process trees are followed (not --no-follow) */
	bool reports_inline;	      /* windowed: each profile's report as it is written */
	struct alloc_watch *alloc_watch; /* dlopen'd allocators (alloc_watch.h) */
	bool dwarf;		      /* stacks are snapshots unwound here (--unwind) */
	/* --unwind kernel: stacks unwound in BPF; the snapshots of stacks its tables could
	 * not serve are unwound here, their ids tagged STACK_ID_USER_TAG */
	bool kernel_unwind;
	struct workloads workloads;   /* --workload: the driver's table */
	__u64 cut_short, stacks_judged; /* frames_ctx's, summed over the profiles */
	__u64 py_mismatched;		/* frames_ctx's, summed over the profiles */
	__u64 dropped_written;		/* records dropped before the last profile was written */
	__u64 untraced_written;		/* processes not traced, likewise */
	__u64 overflow_written;		/* sampled blocks dropped (map full), likewise */
	int write_failures;
	size_t profiles_written;
	bool progress_shown; /* a progress line is on the terminal */
	__u64 start_ns;	     /* when the probes were in: the progress line's elapsed time */
	/* Where the tracer's own report and closing counters go, never the traced command's
	 * stdout (run__open_summary); NULL: not printed (-q). */
	FILE *report_out, *counters_out;
	struct top *top; /* tracer top: its view (run_top.c); NULL otherwise */
};

/* A profile being written: the run and the image it belongs to. */
struct profile_ctx {
	struct run *r;
	struct tracee *t;
};

/* ---- run_output.c: profiles, reports, counters and progress ------------------------- */

/* session_profile_fn, ctx = the tracee: write the DHAT file and its conversions; windowed,
 * print the seed's report now (otherwise at the end: run__print_reports). */
int run__on_profile(void *ctx, struct collector *c, const char *name, __u64 iterations);

/* --snapshot-at-rss: the first time the first target's RSS reaches the size (its image's
 * latest sample), write its open profile as it is now (NAME-snapshot-N.json, N counting
 * SIGUSR1's snapshots too; with its report) and trace on. Cheap when there is nothing to
 * do: call after each sampling. */
void run__snapshot_at_rss(struct run *r);
/* At t's exit stop, while its memory exists: measure its glibc arenas for the profile that
 * is written once it is gone (tracee.exit_arenas). */
void run__measure_arenas_at_exit(struct run *r, struct tracee *t);
/* Whether arena forensics apply to t: its malloc is glibc's, outside workload windows. */
bool run__arenas_apply(struct run *r, const struct tracee *t);

/* --pid: "attached to pid N (CMD): P probes; Ctrl-C to stop" on stderr (not with -q), as
 * soon as the probes are in: a long-running target gives no other sign that it works. */
void run__announce_attach(struct run *r);
/* Erase the progress line, if one is shown, so the summary starts on a clean line. */
void run__clear_progress(struct run *r);

/* SIGUSR1: write every open profile as it is now, as NAME-snapshot-N.json next to its
 * profile (N counting the run's snapshots from 1), and trace on. Says on stderr what it
 * wrote. */
void run__snapshot_now(struct run *r, const char *why);

/* The stack callbacks of an image's profile (loader or dwarf stack ids, allocator
 * functions), ctx = pc, which must outlive src. */
void run__stack_source(struct profile_ctx *pc, struct stack_source *src);

/* Once a second on a terminal: event rate, live bytes of the open profile, drops. */
void run__show_progress(struct run *r, __u64 *last_ns, __u64 *last_events);

/* The closing summary of the trace on stderr. */
void run__print_counters(struct run *r);

/* The BPF counters of the run (loader__counters), with the mapping records the ring buffer
 * could not take counted as dropped too. */
void run__counters(const struct run *r, struct probe_counters *out);

/* Whether no allocator probe has fired so far in the run (alloc_check.h): a profile written
 * then records it (the "lost" object's noAllocatorCalls). */
bool run__allocator_silent(const struct run *r);

/* No silent empty profile: name a traced image none of whose probes fired (alloc_check.h).
 * The first target's image: the probes' hit addresses are per run, not per image. */
void run__warn_no_allocator_call(struct run *r);

/* The closing reports (not windowed): the list of images when there is more than one, then
 * the report of the one with the most allocations, or of each with --report all. */
void run__print_reports(struct run *r);

/*
 * Choose where the report and the counters go (see --summary and -q in --help): --summary
 * PATH ("-": stdout), else stderr, so that the command's stdout stays byte for byte its own
 * under -- CMD and --pid; with --workload the report is the run's output and stays on stdout.
 * -q without --summary prints neither. Returns 0 or -errno (the message is logged).
 */
int run__open_summary(struct run *r, struct output *o);

/* ---- run_interval.c: --interval tables ------------------------------------------------ */

/* Called on every turn of the trace loop: when --interval is due, print a table of the
 * outstanding allocations of each open image by program point, blocks younger than
 * --min-age left out, where the report goes (stderr or --summary; nothing with -q). The first
 * call only starts the clock. */
void run__interval_tick(struct run *r, __u64 now);

/* ---- run_top.c: tracer top ------------------------------------------------------------ */

/* Start the view: the screen (ncurses on stdout) when stdout and stdin are a terminal and
 * not --batch, else plain-text frames on stdout. 0 or -1 (out of memory). */
int run__top_start(struct run *r);
/* Called on every turn of the trace loop instead of run__interval_tick: the keys typed,
 * and a frame every --delay. */
void run__top_tick(struct run *r, __u64 now);
/* q was pressed, or the -n frames are drawn: the loop ends the trace as a signal would. */
bool run__top_quit(const struct run *r);
/* Give the terminal back (before the closing counters print); run__top_free frees. Both
 * accept a run without a view. */
void run__top_end(struct run *r);
void run__top_free(struct run *r);

/* ---- run_images.c: the targets and the process images they become ---------------------- */

/* tracee_exec_fn: an image opened by an exec record, without a hold point (--pid,
 * --cgroup): its allocator as early as the record arrives. */
void run__on_image_exec(void *owner, struct tracee *t);

/* loader_record_fn: every record to the process images (tracee.h). */
int run__on_record(void *ctx, const void *data, size_t sz);

/* stack_hint_fn (ctx = the run): a stack hint into the loader's BPF map. */
int run__set_snap_hint(void *ctx, const struct snap_hint_key *k, const struct snap_hint *h);

/* --cgroup: the processes that entered the cgroup since the last look (not those its
 * traced processes forked: the fork tracepoint follows them). */
void run__add_new_procs(struct run *r);

/* Attach --start-at/--stop-at probes to the target's functions. */
int run__attach_window_symbols(struct run *r);

/*
 * fp, dwarf or kernel for this run. auto: kernel when the target executable has CFI tables
 * (cfi_table.h; main.c falls back when the BPF unwinder does not load), else DWARF unwinding
 * unless the executable keeps frame pointers (fp_detect.h), where BPF's frame-pointer walk
 * is complete and cheaper. Allocations made by libc on the program's behalf (strdup,
 * getline, ...) are charged to their caller in every mode; only code without frame pointers
 * between the allocator and main (callbacks from qsort, -O2 builds, Rust) needs dwarf or
 * kernel. no_kernel: auto without kernel (the fallback's choice).
 */
enum unwind_mode run__choose_unwind(const struct run *r, bool no_kernel);

/* Start the target: argv spawned and held, the --pid processes, or the --cgroup's. */
int run__start_target(struct run *r, char *const argv[]);

/* The attached targets besides the first (loader__new probed that one): their probes, in
 * before the attach is announced (a target gone meanwhile is said and left out). 0 or
 * -errno. */
int run__probe_targets(struct run *r);
/* An image for each probed target, its maps read now while it certainly lives. 0 or
 * -ENOMEM. */
int run__open_targets(struct run *r);

#endif

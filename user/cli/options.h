/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * options - the tracer's command line: one option table (opt_table.h) that parses argv into
 * struct tracer_opts and prints --help, the man page (--help-man) and the bash completion
 * (--completion bash) of the tracer and its subcommands.
 */
#ifndef TRACER_OPTIONS_H
#define TRACER_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>

#include "opt_table.h"

/* --unwind */
enum unwind_mode {
	UNWIND_AUTO = 0,
	UNWIND_FP,
	UNWIND_DWARF,
	UNWIND_KERNEL, /* DWARF unwinding in BPF from the modules' CFI tables (issue #33) */
};

#define TRACER_PIDS_MAX 64 /* processes in one --pid list */
#define KILL_AFTER_DEFAULT_S 5.0 /* --kill-after */
#define TRACER_DEBUG_DIRS_MAX 16 /* --debug-dir */

/* --python / --no-python, the values of enum py_mode (py_stacks.h). */
#define TRACER_PY_AUTO	  0
#define TRACER_PY_REQUIRE 1
#define TRACER_PY_OFF	  2

struct tracer_opts {
	const char *workload;		/* --workload NAME, "all" or "list" */
	pid_t pid;			/* --pid: the first process */
	pid_t pids[TRACER_PIDS_MAX];	/* --pid PID[,PID...] */
	size_t pid_cnt;
	const char *cgroup;		/* --cgroup PATH */
	bool no_follow;			/* --no-follow: neither forks nor execs open images */
	bool report_all;		/* --report all: a report for every image */
	bool all_images;		/* --all-images: a file for the small images too */
	double duration_s;		/* --duration, 0: until the target ends or Ctrl-C */
	double kill_after_s;		/* --kill-after: SIGTERM to SIGKILL of a -- CMD */
	char **cmd;			/* the command after the options (`--`), NULL-terminated */
	const char *output;		/* -o */
	const char *summary;		/* --summary: report + counters go there ("-": stdout) */
	size_t ringbuf_sz;		/* --ringbuf-size, bytes; 0: the loader's default */
	const char *lib;		/* --lib */
	const char *debug_dirs[TRACER_DEBUG_DIRS_MAX]; /* --debug-dir, in order */
	size_t debug_dir_cnt;
	bool as_root;			/* --as-root */
	size_t top;			/* --top, rows; 0: the report's default */
	bool exact_bytes;		/* --bytes: exact byte counts in the report */
	const char *skip[64];		/* --skip PATTERN (CLI_MAX_SKIP), recorded in the file */
	size_t skip_cnt;
	const char *suppressions;	/* --suppressions: LSAN leak:PATTERN file (suppress.h) */
	unsigned formats;		/* --format: bits of profile_output.h */
	const char *start_at, *stop_at; /* window symbols (--start-at/--stop-at) */
	enum unwind_mode unwind;	/* as given; the run decides what auto means */
	__u32 stack_sz;			/* --stack-size, bytes; 0: default */
	bool dense_stacks;		/* --dense-stacks: no sparse stack copies */
	int python;			/* TRACER_PY_*: --python, --no-python (py_mode) */
	int verbosity;			/* -q: -1, default 0, -v: 1, -vv: 2, -vvv: 3 */
	__u64 snapshot_at_rss;		/* --snapshot-at-rss, bytes; 0: none */
	double interval_s;		/* --interval: outstanding-allocation tables; 0: none */
	double min_age_s;		/* --min-age: blocks younger than this left out; 0: none */
	__u64 sample_bytes;		/* --sample-bytes, mean bytes per sample; 0: exact */
	bool check, check_json;		/* --check [--json]: host_check.h, no tracing */
	/* tracer top (cli_top.c): the live view instead of --interval tables */
	bool top_mode, top_batch;	/* top; --batch (or stdout not a terminal) */
	unsigned long top_frames;	/* -n: quit after this many frames; 0: at q */
	double top_delay_s;		/* --delay between frames */
};

/*
 * Parse the tracer's argv (not a subcommand's) into o, zeroed first. --help, --version,
 * --help-man and --completion print on stdout. Returns OPT_GO_ON to trace, else the exit
 * status: TRACER_EXIT_OK after printing, TRACER_EXIT_USAGE (message on stderr) on bad usage.
 * o->cmd points into argv.
 */
int options__parse(int argc, char **argv, struct tracer_opts *o);

/* `tracer top ARGS` (argv[0] is "top"): as options__parse, with top's table (cli_top.c). */
int options__parse_top(int argc, char **argv, struct tracer_opts *o);

/* The tracer's handler of one option (an opt_fn, ctx a struct tracer_opts): for the tables
 * of commands that share its options (top). */
int options__set(void *ctx, const struct opt_spec *opt, const char *arg);

/* The tracer's table and help, for the tests and the generators. */
extern const struct opt_cmd tracer_cmd;

/* The tracer and its subcommands: tracer_cmd first. */
extern const struct opt_cmd *const tracer_cmds[];
extern const int tracer_cmd_cnt;

#endif

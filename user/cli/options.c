// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The tracer's command line: see options.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "events.h"
#include "export.h"
#include "log.h"
#include "options.h"
#include "parse_num.h"
#include "profile_output.h"
#include "safe_open.h"
#include "safe_text.h"
#include "sampling.h"
#include "suppress.h"
#include "tracer_exit.h"
#include "units.h"

#ifndef TRACER_VERSION
#define TRACER_VERSION "0.0.0"
#endif

/* ids of the long-only options */
enum {
	OPT_RINGBUF = 256,
	OPT_LIB,
	OPT_AS_ROOT,
	OPT_START_AT,
	OPT_STOP_AT,
	OPT_UNWIND,
	OPT_STACK_SIZE,
	OPT_DENSE_STACKS,
	OPT_PYTHON,
	OPT_NO_PYTHON,
	OPT_HELP_MAN,
	OPT_COMPLETION,
	OPT_SUMMARY,
	OPT_SNAPSHOT_AT_RSS,
	OPT_BYTES,
	OPT_CGROUP,
	OPT_NO_FOLLOW,
	OPT_REPORT,
	OPT_KILL_AFTER,
	OPT_INTERVAL,
	OPT_MIN_AGE,
	OPT_SAMPLE_BYTES,
	OPT_CHECK,
	OPT_JSON,
	OPT_SKIP,
	OPT_SUPPRESSIONS,
	OPT_DEBUG_DIR,
	OPT_ALL_IMAGES,
};

#define G_TARGET "What to trace"
#define G_PROBES "Probes"
#define G_OUTPUT "Output"
#define G_OTHER "Other"

static const struct opt_spec tracer_opts_table[] = {
	{ "workload", 'w', "NAME", "a workload of kaish-workloads, `all` or `list`", G_TARGET,
	  "all list", 'w' },
	{ "pid", 'p', "PID[,PID...]",
	  "trace running processes (all of their threads, and what\n"
	  "they fork and exec from now on)",
	  G_TARGET, "", 'p' },
	{ "cgroup", 0, "PATH",
	  "trace every process of a cgroup (v1 or v2 directory),\n"
	  "those that enter it later too",
	  G_TARGET, "", OPT_CGROUP },
	{ "no-follow", 0, NULL,
	  "trace the target process only: not its children, and an\n"
	  "exec'd image stays in the same profile",
	  G_TARGET, NULL, OPT_NO_FOLLOW },
	{ "duration", 'd', "SECONDS",
	  "with --pid: stop after this long (default: until Ctrl-C or exit)", G_TARGET, "", 'd' },
	{ "kill-after", 0, "SECONDS",
	  "after Ctrl-C (or the end of --duration), SIGKILL a -- CMD\n"
	  "still running this long after its SIGTERM (default 5);\n"
	  "a second Ctrl-C kills it at once",
	  G_TARGET, "", OPT_KILL_AFTER },
	{ "as-root", 0, NULL, "with -- CMD under sudo: do not drop to the invoking user",
	  G_TARGET, NULL, OPT_AS_ROOT },
	{ "lib", 0, "PATH",
	  "allocator library to probe (default: where the dynamic\n"
	  "linker resolves malloc: executable, preloads, then the\n"
	  "needed libraries, by their symbols)",
	  G_PROBES, NULL, OPT_LIB },
	{ "unwind", 0, "MODE",
	  "how stacks are taken: fp (frame pointers, in BPF), dwarf\n"
	  "(stack copies unwound with the modules' CFI), kernel (the\n"
	  "modules' CFI compiled into tables, unwound in BPF; a stack\n"
	  "they cannot serve goes as a dwarf copy), auto (default:\n"
	  "kernel where the executable has CFI tables and the BPF\n"
	  "unwinder loads, else dwarf unless it has frame pointers)",
	  G_PROBES, "fp dwarf kernel auto", OPT_UNWIND },
	{ "stack-size", 0, "BYTES",
	  "dwarf: stack bytes copied per allocation (default 8192,\n"
	  "at most 65536); deeper frames are cut (unwinds ended early)",
	  G_PROBES, "", OPT_STACK_SIZE },
	{ "dense-stacks", 0, NULL,
	  "dwarf: send every stack copy whole (default: once a call\n"
	  "site's stack was unwound, its later copies carry only the\n"
	  "words the unwinder read; the same stacks, less to copy)",
	  G_PROBES, NULL, OPT_DENSE_STACKS },
	{ "python", 0, NULL,
	  "the target must be a CPython (3.8-3.13) whose Python frames\n"
	  "can be read: an error otherwise (default: detected; Python\n"
	  "frames and PyObject/PyMem allocations when it is one)",
	  G_PROBES, NULL, OPT_PYTHON },
	{ "no-python", 0, NULL,
	  "native frames and malloc only, even for a CPython: no\n"
	  "PyObject/PyMem probes, no Python frames",
	  G_PROBES, NULL, OPT_NO_PYTHON },
	{ "debug-dir", 0, "DIR",
	  "also look for debug files in DIR (repeatable; before\n"
	  "/usr/lib/debug): a .build-id/xx/rest.debug tree, or a flat\n"
	  "directory of debug files named as the modules' debuglinks.\n"
	  "With DEBUGINFOD_URLS set, debuginfod servers are asked last",
	  G_PROBES, "", OPT_DEBUG_DIR },
	{ "start-at", 0, "SYMBOL",
	  "open the profile at the first call of SYMBOL ([FILE:]NAME;\n"
	  "NAME alone is looked up in the target's executable; it may\n"
	  "be demangled, as reports show it: app::leak_some)",
	  G_PROBES, "", OPT_START_AT },
	{ "stop-at", 0, "SYMBOL", "close it at the next call of SYMBOL (default: at the end)",
	  G_PROBES, "", OPT_STOP_AT },
	{ "sample-bytes", 0, "N",
	  "sample allocations, one per N bytes on average (bytes, or\n"
	  "with K, M, G: KiB, MiB, GiB, KB and KiB alike, a fraction\n"
	  "allowed: 4096, 64K, 1.5M; at most 64M): a block of s\n"
	  "bytes is traced with probability 1 - exp(-s/N) and\n"
	  "weighted, so the figures are unbiased estimates (default\n"
	  "0: every block)",
	  G_PROBES, "", OPT_SAMPLE_BYTES },
	{ "ringbuf-size", 0, "N",
	  "ring buffer bytes, a power of two (default 16777216;\n"
	  "67108864 with --unwind dwarf)",
	  G_PROBES, "", OPT_RINGBUF },
	{ "snapshot-at-rss", 0, "SIZE",
	  "also write the profile as it is when the target's RSS\n"
	  "first reaches SIZE (a size as for --sample-bytes: 512M)\n"
	  "next to it, as NAME-snapshot-N.json; tracing goes on",
	  G_OUTPUT, "", OPT_SNAPSHOT_AT_RSS },
	{ "interval", 0, "SECONDS",
	  "every SECONDS, print the outstanding allocations by\n"
	  "program point with their stacks (--top rows, default 10),\n"
	  "where the report goes; tracing goes on. SIGUSR1 writes a\n"
	  "snapshot of the profile (NAME-snapshot-N.json) at any time",
	  G_OUTPUT, "", OPT_INTERVAL },
	{ "min-age", 0, "SECONDS",
	  "with --interval: leave out blocks younger than SECONDS", G_OUTPUT, "", OPT_MIN_AGE },
	{ "output", 'o', "PATH",
	  "profile path (default dhat-heap-<workload|pid>.json in\n"
	  "$KAISH_PROFILE_OUT or .); with --workload all: a directory;\n"
	  "a .gz suffix writes gzip",
	  G_OUTPUT, NULL, 'o' },
	{ "all-images", 0, NULL,
	  "also write a profile for each image that made fewer than\n"
	  "16 allocations (default: listed in the closing table only).\n"
	  "With -o FILE, FILE is the final image of the command (its\n"
	  "last exec: python3 behind env), the others go to FILE.d/",
	  G_OUTPUT, NULL, OPT_ALL_IMAGES },
	{ "format", 'f', "LIST",
	  "also write, next to each profile: pprof (.pb.gz), folded,\n"
	  "svg (flame graph), timeline (live heap over time, .svg)",
	  G_OUTPUT, "pprof folded svg timeline", 'f' },
	{ "summary", 0, "PATH",
	  "write the report and the closing counters to PATH (- for\n"
	  "stdout). Default: stderr with -- CMD and --pid, so the\n"
	  "command's stdout stays its own; stdout with --workload",
	  G_OUTPUT, NULL, OPT_SUMMARY },
	{ "top", 't', "N", "rows per report table (default 12)", G_OUTPUT, "", 't' },
	{ "skip", 0, "PATTERN",
	  "treat frames starting with PATTERN (or exactly =NAME) as\n"
	  "allocation plumbing, as report's --skip: in the summary and\n"
	  "the --format files; recorded in the profile, so `tracer\n"
	  "report` applies it too (--no-recorded-skip); repeatable",
	  G_OUTPUT, "", OPT_SKIP },
	{ "bytes", 0, NULL,
	  "exact byte counts in the report, --interval and the\n"
	  "progress line (default: two decimals of KiB, MiB, ...)",
	  G_OUTPUT, NULL, OPT_BYTES },
	{ "suppressions", 0, "FILE",
	  "leak suppressions in LeakSanitizer's format (leak:PATTERN\n"
	  "lines) for the report's leak suspects, besides the\n"
	  "built-in ones (libc, ld.so, Rust and CPython start-up)",
	  G_OUTPUT, "", OPT_SUPPRESSIONS },
	{ "report", 0, "WHICH",
	  "with several process images: report `top` (the one with\n"
	  "the most allocations, default) or `all`",
	  G_OUTPUT, "top all", OPT_REPORT },
	{ "quiet", 'q', NULL,
	  "print nothing but errors and warnings (no progress, report\n"
	  "or counters, unless --summary names where they go)",
	  G_OUTPUT, NULL, 'q' },
	{ "verbose", 'v', NULL, "more detail (-vv, -vvv: libbpf debug output)", G_OUTPUT, NULL,
	  'v' },
	{ "check", 0, NULL,
	  "say what this host supports and what the tracer would use\n"
	  "(kernel features, tracefs, privileges, trap cost; with\n"
	  "--pid: the allocator, unwinder and attach path for it);\n"
	  "exit 0 if tracing can work, 1 if not",
	  G_OTHER, NULL, OPT_CHECK },
	{ "json", 0, NULL, "with --check: one JSON object on stdout", G_OTHER, NULL, OPT_JSON },
	{ "version", 'V', NULL, "print the version", G_OTHER, NULL, 'V' },
	{ "help", 'h', NULL, "this help", G_OTHER, NULL, OPT_HELP },
	{ "help-man", 0, NULL, "print this help as a man page (roff)", G_OTHER, NULL,
	  OPT_HELP_MAN },
	{ "completion", 0, "SHELL", "print a completion script for SHELL (bash)", G_OTHER,
	  "bash", OPT_COMPLETION },
	{ 0 },
};

const struct opt_cmd tracer_cmd = {
	.name = "tracer",
	.synopsis =
		"Usage:\n"
		"  tracer --workload NAME|all|list [options]   trace the seed's shell-kernel "
		"workloads\n"
		"  tracer --pid PID[,PID...] [--duration SECONDS] [options]\n"
		"                                              attach to running processes\n"
		"  tracer --cgroup PATH [--duration SECONDS] [options]\n"
		"                                              trace a cgroup's processes\n"
		"  tracer [options] -- CMD [ARGS...]           start CMD traced, exit with its "
		"status\n"
		"  tracer --check [--pid PID] [--json]         what this host supports\n"
		"  tracer top --pid PID | -- CMD               live view of the heap (q quits)\n"
		"  tracer report FILE [--top N] [--sort KEY] [--json]   summarize any DHAT file\n"
		"  tracer diff OLD NEW [--top N] [--json]      compare two DHAT files per stack\n"
		"  tracer export FILE [--format pprof|folded|svg|timeline] [-o OUT]\n"
		"                                              convert a DHAT file for other "
		"tools\n",
	.opts = tracer_opts_table,
	.examples = "  sudo tracer --workload scatter-gather\n"
		    "  sudo KAISH_PROFILE_OUT=/tmp/prof tracer --workload all\n"
		    "  sudo tracer -o app.json -- ./my-embedder --serve\n"
		    "  sudo tracer --pid 4242 --duration 10\n"
		    "  sudo tracer --check --pid 4242\n"
		    "  sudo tracer -q --summary sort.txt -o sort.json -- sort big >sorted\n"
		    "  sudo tracer -o build-%p.json -- make -j2      # one profile per process\n"
		    "  sudo tracer --cgroup /sys/fs/cgroup/system.slice/app.service --report all\n"
		    "  sudo tracer --unwind dwarf -o app.json -- "
		    "./release-build-without-frame-pointers\n"
		    "  tracer report dhat-heap-grep-pipeline.json --top 20\n"
		    "  tracer diff before/dhat-heap-grep-pipeline.json "
		    "after/dhat-heap-grep-pipeline.json\n"
		    "  tracer export dhat-heap-cmdsubst.json --format svg\n",
	.exit_status = "  0  profile(s) written          3  not root, or kernel lacks BTF or uprobes,\n"
		       "                                 or --workload without the kaish component\n"
		       "  1  tracing or writing failed   4  profile written, but records were "
		       "dropped\n"
		       "  2  bad arguments or input      with -- CMD: the command's own exit "
		       "status\n"
		       "                                 (128+N if killed by signal N), or 4 if it\n"
		       "                                 exited 0 but records were dropped\n",
};

const struct opt_cmd *const tracer_cmds[] = { &tracer_cmd, &cli_report_cmd, &cli_diff_cmd,
					      &cli_export_cmd, &cli_top_cmd };
const int tracer_cmd_cnt = sizeof(tracer_cmds) / sizeof(tracer_cmds[0]);

/* "pprof,svg,timeline" -> bits (1 << enum export_format). */
static int parse_formats(const char *list, unsigned *out)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		enum export_format fmt;

		if (!export_format__parse(tok, &fmt))
			*out |= 1u << fmt;
		else
			err = -EINVAL;
	}
	free(copy);
	return err;
}

/* A power of two from 4096 to 1 GiB (the loader's own bound). */
static int parse_ringbuf_size(const char *s, size_t *out)
{
	uint64_t v;

	if (parse_num__u64(s, 4096, 1u << 30, &v) || (v & (v - 1)))
		return -EINVAL;
	*out = (size_t)v;
	return 0;
}

/* Longest --duration: a year. Longer is a typo, and *1e9 must still fit the ns clock. */
#define DURATION_MAX_S (365.0 * 24 * 3600)

/* One option's value into o; an opt_fn. */
static int set_option(void *ctx, const struct opt_spec *opt, const char *arg)
{
	struct tracer_opts *o = ctx;
	int fd;

	switch (opt->id) {
	case 'w':
		o->workload = arg;
		break;
	case 'p': {
		char *copy = strdup(arg), *save = NULL, *tok;
		int bad = !copy;

		for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !bad;
		     tok = strtok_r(NULL, ",", &save)) {
			uint64_t pid;

			bad = parse_num__u64(tok, 1, INT_MAX, &pid) || o->pid_cnt == TRACER_PIDS_MAX;
			if (!bad)
				o->pids[o->pid_cnt++] = (pid_t)pid;
		}
		free(copy);
		if (bad || !o->pid_cnt || arg[strlen(arg) - 1] == ',') {
			elog("--pid needs process ids separated by commas (at most %d), not '%s'\n",
			     TRACER_PIDS_MAX, arg);
			return TRACER_EXIT_USAGE;
		}
		o->pid = o->pids[0];
		break;
	}
	case OPT_CGROUP:
		o->cgroup = arg;
		break;
	case OPT_NO_FOLLOW:
		o->no_follow = true;
		break;
	case OPT_DENSE_STACKS:
		o->dense_stacks = true;
		break;
	case OPT_PYTHON:
	case OPT_NO_PYTHON:
		if (o->python != TRACER_PY_AUTO) {
			elog("--python and --no-python: one or the other\n");
			return TRACER_EXIT_USAGE;
		}
		o->python = opt->id == OPT_PYTHON ? TRACER_PY_REQUIRE : TRACER_PY_OFF;
		break;
	case OPT_CHECK:
		o->check = true;
		break;
	case OPT_JSON:
		o->check_json = true;
		break;
	case OPT_REPORT:
		if (strcmp(arg, "top") && strcmp(arg, "all")) {
			elog("--report takes top or all, not '%s'\n", arg);
			return TRACER_EXIT_USAGE;
		}
		o->report_all = !strcmp(arg, "all");
		break;
	case 'd':
		if (parse_num__double(arg, 0.001, DURATION_MAX_S, &o->duration_s)) {
			elog("--duration needs a positive number of seconds, not '%s' (from 0.001 "
			     "to %.0f)\n", arg, DURATION_MAX_S);
			return TRACER_EXIT_USAGE;
		}
		break;
	case OPT_KILL_AFTER:
		if (parse_num__double(arg, 0, DURATION_MAX_S, &o->kill_after_s)) {
			elog("--kill-after needs a number of seconds, not '%s' (from 0 to %.0f)\n",
			     arg, DURATION_MAX_S);
			return TRACER_EXIT_USAGE;
		}
		break;
	case OPT_INTERVAL:
	case OPT_MIN_AGE:
		if (parse_num__double(arg, 0.001, DURATION_MAX_S,
				      opt->id == OPT_INTERVAL ? &o->interval_s : &o->min_age_s)) {
			elog("--%s needs a positive number of seconds, not '%s' (from 0.001 to "
			     "%.0f)\n", opt->name, arg, DURATION_MAX_S);
			return TRACER_EXIT_USAGE;
		}
		break;
	case 'o':
		/* Not stdout: a profile is a file (and -- CMD's stdout is the command's). */
		if (!strcmp(arg, "-")) {
			elog("-o -: profiles are written to files, not stdout; give a path "
			     "(--summary - puts the report on stdout)\n");
			return TRACER_EXIT_USAGE;
		}
		o->output = arg;
		break;
	case OPT_SUMMARY:
		o->summary = arg;
		break;
	case OPT_RINGBUF:
		if (parse_ringbuf_size(arg, &o->ringbuf_sz)) {
			elog("--ringbuf-size needs a power of two >= 4096, not '%s' (at most %u)\n",
			     arg, 1u << 30);
			return TRACER_EXIT_USAGE;
		}
		break;
	case OPT_LIB:
		/* Now, not after attaching: a FIFO or a device here would block or mislead. */
		fd = safe_open__read(AT_FDCWD, arg, 0, SAFE_OPEN_ELF_MAX);
		if (fd < 0) {
			elog("--lib %s: %s\n", safe_text__term(arg), safe_open__strerror(fd));
			return TRACER_EXIT_USAGE;
		}
		/* An ELF object, now: /proc/self/mem passed as a regular file and failed
		 * only once the probes were being made (exit 1). */
		{
			char magic[4];
			bool elf = pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
				   !memcmp(magic, "\177ELF", 4);

			close(fd);
			if (!elf) {
				elog("--lib %s: not an ELF file\n", safe_text__term(arg));
				return TRACER_EXIT_USAGE;
			}
		}
		o->lib = arg;
		break;
	case OPT_SNAPSHOT_AT_RSS: {
		uint64_t v;
		int err = units__parse_size(arg, &v);

		if (err || !v) {
			elog("--snapshot-at-rss needs a size such as 512M, not '%s': %s\n",
			     safe_text__term(arg), err ? units__size_error(err) : "not above 0");
			return TRACER_EXIT_USAGE;
		}
		o->snapshot_at_rss = v;
		break;
	}
	case OPT_SAMPLE_BYTES: {
		uint64_t v;
		int err = units__parse_size(arg, &v);

		if (err || v > SAMPLE_BYTES_MAX) {
			elog("--sample-bytes needs a size from 1 to 64M (0: exact), not '%s': %s\n",
			     safe_text__term(arg), err ? units__size_error(err) : "too large");
			return TRACER_EXIT_USAGE;
		}
		o->sample_bytes = v;
		break;
	}
	case OPT_AS_ROOT:
		o->as_root = true;
		break;
	case OPT_UNWIND:
		if (!strcmp(arg, "fp")) {
			o->unwind = UNWIND_FP;
		} else if (!strcmp(arg, "dwarf")) {
			o->unwind = UNWIND_DWARF;
		} else if (!strcmp(arg, "kernel")) {
			o->unwind = UNWIND_KERNEL;
		} else if (!strcmp(arg, "auto")) {
			o->unwind = UNWIND_AUTO;
		} else {
			elog("--unwind takes fp, dwarf, kernel or auto, not '%s'\n", arg);
			return TRACER_EXIT_USAGE;
		}
		break;
	case OPT_STACK_SIZE: {
		uint64_t n;

		if (parse_num__u64(arg, 64, SNAPSHOT_STACK_MAX, &n)) {
			elog("--stack-size needs a byte count from 64 to %u, not '%s'\n",
			     SNAPSHOT_STACK_MAX, arg);
			return TRACER_EXIT_USAGE;
		}
		o->stack_sz = (__u32)n;
		break;
	}
	case 't': {
		unsigned long n;

		if (cli__parse_count("--top", arg, &n))
			return TRACER_EXIT_USAGE;
		o->top = (size_t)n;
		break;
	}
	case 'f':
		if (parse_formats(arg, &o->formats)) {
			elog("--format takes a list of pprof, folded, svg, timeline, not '%s'\n",
			     arg);
			return TRACER_EXIT_USAGE;
		}
		break;
	case OPT_BYTES:
		o->exact_bytes = true;
		break;
	case OPT_SKIP:
		if (o->skip_cnt == sizeof(o->skip) / sizeof(o->skip[0])) {
			elog("at most %zu --skip patterns\n", o->skip_cnt);
			return TRACER_EXIT_USAGE;
		}
		o->skip[o->skip_cnt++] = arg;
		break;
	case OPT_SUPPRESSIONS: { /* read now: a bad file fails before the target runs */
		char err[512];
		struct suppress *supp = suppress__load(arg, err, sizeof(err));

		if (!supp) {
			elog("%s\n", err);
			return TRACER_EXIT_USAGE;
		}
		suppress__free(supp);
		o->suppressions = arg;
		break;
	}
	case OPT_ALL_IMAGES:
		o->all_images = true;
		break;
	case OPT_DEBUG_DIR: {
		struct stat st;

		if (stat(arg, &st) || !S_ISDIR(st.st_mode) ||
		    o->debug_dir_cnt == TRACER_DEBUG_DIRS_MAX) {
			elog("--debug-dir %s: not a directory (or more than %d given)\n",
			     safe_text__term(arg), TRACER_DEBUG_DIRS_MAX);
			return TRACER_EXIT_USAGE;
		}
		o->debug_dirs[o->debug_dir_cnt++] = arg;
		break;
	}
	case OPT_START_AT:
		o->start_at = arg;
		break;
	case OPT_STOP_AT:
		o->stop_at = arg;
		break;
	case 'q':
		o->verbosity = -1;
		break;
	case 'v':
		o->verbosity = o->verbosity < 0 ? 1 : o->verbosity + 1;
		break;
	case 'V':
		printf("tracer %s\n", TRACER_VERSION);
		return TRACER_EXIT_OK;
	case OPT_HELP_MAN:
		opt__man(tracer_cmds, tracer_cmd_cnt, TRACER_VERSION, stdout);
		return TRACER_EXIT_OK;
	case OPT_COMPLETION:
		if (strcmp(arg, "bash")) {
			elog("--completion takes bash, not '%s'\n", arg);
			return TRACER_EXIT_USAGE;
		}
		opt__bash_completion(tracer_cmds, tracer_cmd_cnt, stdout);
		return TRACER_EXIT_OK;
	}
	return OPT_GO_ON;
}

int options__set(void *ctx, const struct opt_spec *opt, const char *arg)
{
	return set_option(ctx, opt, arg);
}

/* -- CMD naming a FIFO, device or directory: execve would refuse it (EACCES), and reading
 * it first (is it static? which allocator?) could block. Refused here. 0 or exit status. */
static int check_command(const char *cmd)
{
	struct stat st;

	if (!strchr(cmd, '/') || stat(cmd, &st) || S_ISREG(st.st_mode))
		return 0; /* PATH lookups and missing files: execvp's own error */
	elog("cannot run %s: not a regular file\n", cmd);
	return TRACER_EXIT_USAGE;
}

int options__parse(int argc, char **argv, struct tracer_opts *o)
{
	int ret, operand;

	*o = (struct tracer_opts){ .kill_after_s = KILL_AFTER_DEFAULT_S };
	ret = opt__parse(&tracer_cmd, argc, argv, set_option, o, &operand);
	if (ret != OPT_GO_ON)
		return ret;
	if (operand < argc)
		o->cmd = &argv[operand];
	if (o->cmd && check_command(o->cmd[0]))
		return TRACER_EXIT_USAGE;
	if (o->check_json && !o->check) {
		elog("--json goes with --check\n");
		return TRACER_EXIT_USAGE;
	}
	if (o->check) {
		if (o->workload || o->cgroup || o->cmd || o->pid_cnt > 1) {
			elog("--check takes at most one --pid PID\n");
			return TRACER_EXIT_USAGE;
		}
		return OPT_GO_ON;
	}
	if (!!o->workload + !!o->pid + !!o->cgroup + !!o->cmd != 1) {
		elog("give exactly one of --workload NAME, --pid PID, --cgroup PATH or -- CMD "
		     "(see --help)\n");
		return TRACER_EXIT_USAGE;
	}
	if ((o->start_at || o->stop_at) && o->workload) {
		elog("--start-at/--stop-at go with --pid or -- CMD (workloads mark their own windows)\n");
		return TRACER_EXIT_USAGE;
	}
	if (o->min_age_s > 0 && !(o->interval_s > 0)) {
		elog("--min-age goes with --interval\n");
		return TRACER_EXIT_USAGE;
	}
	if (o->interval_s > 0 && o->workload) {
		elog("--interval goes with --pid, --cgroup or -- CMD\n");
		return TRACER_EXIT_USAGE;
	}
	if (o->interval_s > 0 && o->verbosity < 0 && !o->summary) {
		elog("--interval with -q prints nowhere: give --summary PATH\n");
		return TRACER_EXIT_USAGE;
	}
	if (o->duration_s > 0 && !o->pid && !o->cgroup) {
		elog("--duration goes with --pid or --cgroup\n");
		return TRACER_EXIT_USAGE;
	}
	return OPT_GO_ON;
}

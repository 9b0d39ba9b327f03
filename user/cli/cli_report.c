// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `tracer report`: offline summary of any DHAT v2 file (see report.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "parse_num.h"
#include "report.h"
#include "suppress.h"

enum { OPT_SKIP = 256, OPT_NO_DEFAULT_SKIP, OPT_NO_RECORDED_SKIP, OPT_ITERATIONS, OPT_UNIT,
       OPT_TITLE, OPT_BYTES, OPT_LEAKS, OPT_SUPPRESSIONS, OPT_BY_THREAD, OPT_SIZES,
       OPT_PYTHON_ONLY };

static const struct opt_spec report_opts_table[] = {
	{ "top", 't', "N", "rows per table (default 12; with --json: all rows)", NULL, "", 't' },
	{ "sort", 's', "KEY",
	  "add a table sorted by KEY: peak (bytes live at t-gmax),\n"
	  "end (live at t-end), lifetime (average tl/tbk); total-bytes\n"
	  "and total-blocks are the two default tables. With --json:\n"
	  "the order of \"rows\" (default total-bytes)",
	  NULL, "total-bytes total-blocks peak end lifetime", 's' },
	{ "skip", 0, "PATTERN",
	  "also treat frames starting with PATTERN (or exactly\n"
	  "=NAME) as allocation plumbing; repeatable",
	  NULL, "", OPT_SKIP },
	{ "no-default-skip", 0, NULL, "forget the built-in C/C++/Rust plumbing list", NULL, NULL,
	  OPT_NO_DEFAULT_SKIP },
	{ "no-recorded-skip", 0, NULL,
	  "ignore the --skip patterns the trace recorded in FILE\n"
	  "(applied by default, after these)",
	  NULL, NULL, OPT_NO_RECORDED_SKIP },
	{ "iterations", 0, "N", "print per-iteration figures (totals / N)", NULL, "",
	  OPT_ITERATIONS },
	{ "unit", 0, "TEXT", "what one iteration is (with --iterations)", NULL, "", OPT_UNIT },
	{ "title", 0, "TEXT", "heading (default: the file name)", NULL, "", OPT_TITLE },
	{ "bytes", 0, NULL,
	  "exact byte counts (default: KiB, MiB, GiB with two\n"
	  "decimals, 1 KiB = 1024 B)",
	  NULL, NULL, OPT_BYTES },
	{ "leaks", 0, NULL,
	  "only the leak suspects (live at the end: many, old or\n"
	  "16 KiB+; by bytes x age), each with its whole stack",
	  NULL, NULL, OPT_LEAKS },
	{ "suppressions", 0, "FILE",
	  "leak suppressions in LeakSanitizer's format (leak:PATTERN\n"
	  "lines), besides the built-in ones for libc, ld.so and the\n"
	  "Rust and CPython runtimes' one-time allocations",
	  NULL, "", OPT_SUPPRESSIONS },
	{ "by-thread", 0, NULL,
	  "per thread, named: total, its own peak of live bytes, live\n"
	  "at the end, and its top site (instead of the tables)",
	  NULL, NULL, OPT_BY_THREAD },
	{ "sizes", 0, NULL,
	  "allocation sizes in power-of-two buckets: allocations,\n"
	  "bytes, and the site with the most (instead of the tables)",
	  NULL, NULL, OPT_SIZES },
	{ "python-only", 0, NULL,
	  "a CPython's program points by their Python frames alone:\n"
	  "the native frames between them folded, rows named by the\n"
	  "Python line that allocated (points without Python frames\n"
	  "stay as they are)",
	  NULL, NULL, OPT_PYTHON_ONLY },
	{ "json", 'j', NULL, "one JSON object instead of text (always exact)", NULL, NULL, 'j' },
	{ "help", 'h', NULL, "this help", NULL, NULL, OPT_HELP },
	{ 0 },
};

const struct opt_cmd cli_report_cmd = {
	.name = "report",
	.subcommand = true,
	.synopsis = "Usage: tracer report FILE [options]\n",
	.about = "Summarize a DHAT v2 file (tracer, Valgrind --tool=dhat, dhat-rs; .gz too).\n",
	.opts = report_opts_table,
	.examples = "  tracer report dhat-heap-grep-pipeline.json --top 20\n"
		    "  tracer report dhat.out.1234 --sort peak --skip xmalloc --skip =my_alloc\n"
		    "  tracer report prof.json.gz --json | jq '.rows[0]'\n"
		    "  tracer report prof.json --leaks --suppressions lsan.supp\n"
		    "  tracer report prof.json --by-thread --sizes\n",
	.exit_status = "  0 ok, 1 output error, 2 bad arguments or bad input file.\n",
	.man_title = "Heap vs RSS",
	.man_text = "\"I freed it, why is RSS still high?\" When the target used glibc's malloc and\n"
		    "its memory could be read as the profile was written (the end, a snapshot,\n"
		    "-- CMD's exit stop), the report has a \"heap vs RSS\" section from its arenas:\n"
		    "what they hold from the kernel, how much of it is free but kept (fastbins\n"
		    "included; tcaches apart, in use as malloc_info counts them), what\n"
		    "malloc_trim(0) would give back, which live block pins each arena's top, and\n"
		    "the sites whose blocks alone keep otherwise free pages. Another allocator gets\n"
		    "one line (\"arena forensics: glibc only\"); a --pid target that ended, one\n"
		    "saying they were not measured. A real run (docs/USAGE.md, \"Heap vs RSS\"):",
	.man_example =
		"  heap vs RSS at exit (glibc arenas)\n"
		"  2 arenas hold 48.15 MiB, of which 40.65 MiB free and 7.50 MiB in live blocks;\n"
		"  malloc_trim(0) would return 39.88 MiB; 48.03 MiB of the arenas is resident now\n"
		"  the main arena's top is pinned by 64 B from pin_here (arenas_prog.c:50)\n",
};

struct report_args {
	struct report_opts opts;
	const char *supp_path;
	const char *skip[CLI_MAX_SKIP];
	const char *file;
};

int cli__parse_count(const char *opt, const char *s, unsigned long *out)
{
	uint64_t n;

	if (parse_num__u64(s, 1, CLI_COUNT_MAX, &n)) {
		elog("%s needs a positive number, not '%s' (at most %llu)\n", opt, s, CLI_COUNT_MAX);
		return -EINVAL;
	}
	*out = (unsigned long)n;
	return 0;
}

int cli__add_skip(const char *cmd, struct site_opts *o, const char **slots,
		  const char *pattern)
{
	if (o->skip_cnt == CLI_MAX_SKIP) {
		elog("%s: at most %d --skip patterns\n", cmd, CLI_MAX_SKIP);
		return TRACER_EXIT_USAGE;
	}
	slots[o->skip_cnt++] = pattern;
	return OPT_GO_ON;
}

/* An opt_fn: one option or operand into struct report_args. */
static int report_arg(void *ctx, const struct opt_spec *o, const char *v)
{
	struct report_args *a = ctx;
	unsigned long n;

	switch (o ? o->id : 0) {
	case 0:
		if (a->file) {
			elog("report: one FILE at a time\n");
			return TRACER_EXIT_USAGE;
		}
		a->file = v;
		break;
	case 'j':
		a->opts.json = true;
		break;
	case OPT_BYTES:
		a->opts.exact_bytes = true;
		break;
	case OPT_NO_DEFAULT_SKIP:
		a->opts.site.no_default_skip = true;
		break;
	case OPT_NO_RECORDED_SKIP:
		a->opts.no_recorded_skip = true;
		break;
	case OPT_PYTHON_ONLY:
		a->opts.python_only = true;
		break;
	case 't':
		if (cli__parse_count("--top", v, &n))
			return TRACER_EXIT_USAGE;
		a->opts.top = n;
		break;
	case 's':
		if (report__parse_sort(v, &a->opts.sort)) {
			elog("report: --sort takes total-bytes, total-blocks, peak, end or "
			     "lifetime, not '%s'\n",
			     v);
			return TRACER_EXIT_USAGE;
		}
		break;
	case OPT_SKIP:
		return cli__add_skip("report", &a->opts.site, a->skip, v);
	case OPT_ITERATIONS:
		if (cli__parse_count("--iterations", v, &a->opts.iterations))
			return TRACER_EXIT_USAGE;
		break;
	case OPT_UNIT:
		a->opts.unit = v;
		break;
	case OPT_TITLE:
		a->opts.title = v;
		break;
	case OPT_BY_THREAD:
		a->opts.by_thread = true;
		break;
	case OPT_SIZES:
		a->opts.sizes = true;
		break;
	case OPT_LEAKS:
		a->opts.leaks_only = true;
		break;
	case OPT_SUPPRESSIONS:
		a->supp_path = v;
		break;
	}
	return OPT_GO_ON;
}

int cli_report(int argc, char **argv)
{
	struct report_args a = { .opts = { .site.skip = a.skip, .warn_lost = true } };
	struct suppress *supp = NULL;
	char err[1024];
	int ret;

	ret = opt__parse(&cli_report_cmd, argc, argv, report_arg, &a, NULL);
	if (ret != OPT_GO_ON)
		return ret;
	if (!a.file) {
		opt__help(&cli_report_cmd, stderr);
		return TRACER_EXIT_USAGE;
	}
	if (a.opts.unit && !a.opts.iterations) {
		elog("report: --unit needs --iterations\n");
		return TRACER_EXIT_USAGE;
	}
	if (a.supp_path) {
		supp = suppress__load(a.supp_path, err, sizeof(err));
		if (!supp) {
			elog("report: %s\n", err);
			return TRACER_EXIT_USAGE;
		}
		a.opts.supp = supp;
	}
	ret = report__print_file(stdout, a.file, &a.opts, err, sizeof(err));
	suppress__free(supp);
	if (ret) {
		elog("%s\n", err);
		return ret == -EIO || ret == -ENOMEM ? TRACER_EXIT_FAILURE : TRACER_EXIT_USAGE;
	}
	return TRACER_EXIT_OK;
}

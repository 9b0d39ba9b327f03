// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `tracer report`: offline summary of any DHAT v2 file (see report.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "report.h"

#define MAX_SKIP 64

static const char report_usage[] =
    "Usage: tracer report FILE [options]\n"
    "Summarize a DHAT v2 file (tracer, Valgrind --tool=dhat, dhat-rs; .gz too).\n"
    "\n"
    "Options:\n"
    "  -t, --top N            rows per table (default 12; with --json: all rows)\n"
    "  -s, --sort KEY         add a table sorted by KEY: peak (bytes live at t-gmax),\n"
    "                         end (live at t-end), lifetime (average tl/tbk); total-bytes\n"
    "                         and total-blocks are the two default tables. With --json:\n"
    "                         the order of \"rows\" (default total-bytes)\n"
    "      --skip PATTERN     also treat frames starting with PATTERN (or exactly\n"
    "                         =NAME) as allocation plumbing; repeatable\n"
    "      --no-default-skip  forget the built-in C/C++/Rust plumbing list\n"
    "      --iterations N     print per-iteration figures (totals / N)\n"
    "      --unit TEXT        what one iteration is (with --iterations)\n"
    "      --title TEXT       heading (default: the file name)\n"
    "  -j, --json             one JSON object instead of text\n"
    "  -h, --help             this help\n"
    "\n"
    "Examples:\n"
    "  tracer report dhat-heap-grep-pipeline.json --top 20\n"
    "  tracer report dhat.out.1234 --sort peak --skip xmalloc --skip =my_alloc\n"
    "  tracer report prof.json.gz --json | jq '.rows[0]'\n"
    "\n"
    "Exit status: 0 ok, 1 output error, 2 bad arguments or bad input file.\n";

int cli__opt_value(int argc, char **argv, int *i, const char *lng, const char *shrt,
		   const char **val)
{
	const char *a = argv[*i];
	size_t n = strlen(lng);

	if (!strncmp(a, lng, n) && a[n] == '=') {
		*val = a + n + 1;
		return 1;
	}
	if (strcmp(a, lng) && (!shrt || strcmp(a, shrt)))
		return 0;
	if (*i + 1 >= argc) {
		elog("%s needs a value\n", a);
		return -1;
	}
	*val = argv[++*i];
	return 1;
}

static int parse_count(const char *opt, const char *s, unsigned long *out)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (!*s || *end || errno || n == 0 || s[0] == '-') {
		elog("%s needs a positive number, not '%s'\n", opt, s);
		return -EINVAL;
	}
	*out = (unsigned long)n;
	return 0;
}

int cli_report(int argc, char **argv)
{
	const char *skip[MAX_SKIP], *file = NULL, *v;
	struct report_opts opts = {.skip = skip};
	unsigned long n;
	char err[1024];
	int r, ret;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(report_usage, stdout);
			return CLI_EXIT_OK;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			opts.json = true;
		} else if (!strcmp(a, "--no-default-skip")) {
			opts.no_default_skip = true;
		} else if ((r = cli__opt_value(argc, argv, &i, "--top", "-t", &v))) {
			if (r < 0 || parse_count("--top", v, &n))
				return CLI_EXIT_USAGE;
			opts.top = n;
		} else if ((r = cli__opt_value(argc, argv, &i, "--sort", "-s", &v))) {
			if (r < 0)
				return CLI_EXIT_USAGE;
			if (report__parse_sort(v, &opts.sort)) {
				elog("report: --sort takes total-bytes, total-blocks, peak, end or "
				     "lifetime, not '%s'\n",
				     v);
				return CLI_EXIT_USAGE;
			}
		} else if ((r = cli__opt_value(argc, argv, &i, "--skip", NULL, &v))) {
			if (r < 0)
				return CLI_EXIT_USAGE;
			if (opts.skip_cnt == MAX_SKIP) {
				elog("report: at most %d --skip patterns\n", MAX_SKIP);
				return CLI_EXIT_USAGE;
			}
			skip[opts.skip_cnt++] = v;
		} else if ((r = cli__opt_value(argc, argv, &i, "--iterations", NULL, &v))) {
			if (r < 0 || parse_count("--iterations", v, &opts.iterations))
				return CLI_EXIT_USAGE;
		} else if ((r = cli__opt_value(argc, argv, &i, "--unit", NULL, &v))) {
			if (r < 0)
				return CLI_EXIT_USAGE;
			opts.unit = v;
		} else if ((r = cli__opt_value(argc, argv, &i, "--title", NULL, &v))) {
			if (r < 0)
				return CLI_EXIT_USAGE;
			opts.title = v;
		} else if (a[0] == '-' && a[1]) {
			elog("report: unknown option %s (see tracer report --help)\n", a);
			return CLI_EXIT_USAGE;
		} else if (!file) {
			file = a;
		} else {
			elog("report: one FILE at a time\n");
			return CLI_EXIT_USAGE;
		}
	}
	if (!file) {
		fputs(report_usage, stderr);
		return CLI_EXIT_USAGE;
	}
	if (opts.unit && !opts.iterations) {
		elog("report: --unit needs --iterations\n");
		return CLI_EXIT_USAGE;
	}
	ret = report__print_file(stdout, file, &opts, err, sizeof(err));
	if (ret) {
		elog("%s\n", err);
		return ret == -EIO || ret == -ENOMEM ? CLI_EXIT_FAILURE : CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

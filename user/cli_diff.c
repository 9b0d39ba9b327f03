// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `tracer diff`: what changed between two DHAT v2 files, per stack and in total (see diff.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff.h"
#include "log.h"
#include "report.h"

#define MAX_SKIP 64

static const char diff_usage[] =
    "Usage: tracer diff OLD NEW [options]\n"
    "Compare two DHAT v2 files (tracer, Valgrind --tool=dhat, dhat-rs; .gz too): blocks,\n"
    "bytes, peak and end bytes per stack and in total. Stacks are matched by frame text\n"
    "without the 0xADDR: prefixes (addresses change between runs); stacks that only one\n"
    "file has are shown as [added] or [removed].\n"
    "\n"
    "Options:\n"
    "  -t, --top N            rows shown (default 12; with --json: all changed rows)\n"
    "  -s, --sort KEY         order by the absolute change of bytes (default), blocks,\n"
    "                         peak (bytes live at t-gmax) or end (bytes live at t-end)\n"
    "      --skip PATTERN     also treat frames starting with PATTERN (or exactly =NAME)\n"
    "                         as allocation plumbing in the site column; repeatable\n"
    "      --no-default-skip  forget the built-in C/C++/Rust plumbing list\n"
    "  -j, --json             one JSON object instead of text\n"
    "  -h, --help             this help\n"
    "\n"
    "Examples:\n"
    "  tracer diff before/dhat-heap-cmdsubst.json after/dhat-heap-cmdsubst.json\n"
    "  tracer diff dhat.out.1 dhat.out.2 --sort blocks --top 30\n"
    "  tracer diff old.json new.json --json | jq '.totals.bytes.delta'\n"
    "\n"
    "Exit status: 0 ok, 1 output error, 2 bad arguments or bad input file.\n";

int cli_diff(int argc, char **argv)
{
	const char *skip[MAX_SKIP], *files[2] = {NULL, NULL}, *v;
	struct report_opts attr = {.skip = skip};
	struct diff_opts opts = {.attr = &attr};
	int nfiles = 0, r, ret;
	char err[1024];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(diff_usage, stdout);
			return CLI_EXIT_OK;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			opts.json = true;
		} else if (!strcmp(a, "--no-default-skip")) {
			attr.no_default_skip = true;
		} else if ((r = cli__opt_value(argc, argv, &i, "--top", "-t", &v))) {
			char *end;
			long n;

			if (r < 0)
				return CLI_EXIT_USAGE;
			n = strtol(v, &end, 10);
			if (!*v || *end || n <= 0) {
				elog("--top needs a positive number, not '%s'\n", v);
				return CLI_EXIT_USAGE;
			}
			opts.top = (size_t)n;
		} else if ((r = cli__opt_value(argc, argv, &i, "--sort", "-s", &v))) {
			if (r < 0)
				return CLI_EXIT_USAGE;
			if (diff__parse_sort(v, &opts.sort)) {
				elog("diff: --sort takes bytes, blocks, peak or end, not '%s'\n",
				     v);
				return CLI_EXIT_USAGE;
			}
		} else if ((r = cli__opt_value(argc, argv, &i, "--skip", NULL, &v))) {
			if (r < 0)
				return CLI_EXIT_USAGE;
			if (attr.skip_cnt == MAX_SKIP) {
				elog("diff: at most %d --skip patterns\n", MAX_SKIP);
				return CLI_EXIT_USAGE;
			}
			skip[attr.skip_cnt++] = v;
		} else if (a[0] == '-' && a[1]) {
			elog("diff: unknown option %s (see tracer diff --help)\n", a);
			return CLI_EXIT_USAGE;
		} else if (nfiles < 2) {
			files[nfiles++] = a;
		} else {
			elog("diff: exactly two files, OLD and NEW\n");
			return CLI_EXIT_USAGE;
		}
	}
	if (nfiles != 2) {
		fputs(diff_usage, stderr);
		return CLI_EXIT_USAGE;
	}
	ret = diff__print_files(stdout, files[0], files[1], &opts, err, sizeof(err));
	if (ret) {
		elog("%s\n", err);
		return ret == -EIO || ret == -ENOMEM ? CLI_EXIT_FAILURE : CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

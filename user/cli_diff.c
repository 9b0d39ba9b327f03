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

enum { OPT_SKIP = 256, OPT_NO_DEFAULT_SKIP };

static const struct opt_spec diff_opts_table[] = {
	{ "top", 't', "N", "rows shown (default 12; with --json: all changed rows)", NULL, "",
	  't' },
	{ "sort", 's', "KEY",
	  "order by the absolute change of bytes (default), blocks,\n"
	  "peak (bytes live at t-gmax) or end (bytes live at t-end)",
	  NULL, "bytes blocks peak end", 's' },
	{ "skip", 0, "PATTERN",
	  "also treat frames starting with PATTERN (or exactly =NAME)\n"
	  "as allocation plumbing in the site column; repeatable",
	  NULL, "", OPT_SKIP },
	{ "no-default-skip", 0, NULL, "forget the built-in C/C++/Rust plumbing list", NULL, NULL,
	  OPT_NO_DEFAULT_SKIP },
	{ "json", 'j', NULL, "one JSON object instead of text", NULL, NULL, 'j' },
	{ "help", 'h', NULL, "this help", NULL, NULL, OPT_HELP },
	{ 0 },
};

const struct opt_cmd cli_diff_cmd = {
	.name = "diff",
	.subcommand = true,
	.synopsis = "Usage: tracer diff OLD NEW [options]\n",
	.about = "Compare two DHAT v2 files (tracer, Valgrind --tool=dhat, dhat-rs; .gz too): "
		 "blocks,\n"
		 "bytes, peak and end bytes per stack and in total. Stacks are matched by frame "
		 "text\n"
		 "without the 0xADDR: prefixes (addresses change between runs); stacks that only "
		 "one\n"
		 "file has are shown as [added] or [removed].\n",
	.opts = diff_opts_table,
	.examples = "  tracer diff before/dhat-heap-cmdsubst.json after/dhat-heap-cmdsubst.json\n"
		    "  tracer diff dhat.out.1 dhat.out.2 --sort blocks --top 30\n"
		    "  tracer diff old.json new.json --json | jq '.totals.bytes.delta'\n",
	.exit_status = "  0 ok, 1 output error, 2 bad arguments or bad input file.\n",
};

struct diff_args {
	struct diff_opts opts;
	struct report_opts attr;
	const char *skip[CLI_MAX_SKIP];
	const char *files[2];
	int nfiles;
};

/* An opt_fn: one option or operand into struct diff_args. */
static int diff_arg(void *ctx, const struct opt_spec *o, const char *v)
{
	struct diff_args *a = ctx;
	unsigned long n;

	switch (o ? o->id : 0) {
	case 0:
		if (a->nfiles == 2) {
			elog("diff: exactly two files, OLD and NEW\n");
			return TRACER_EXIT_USAGE;
		}
		a->files[a->nfiles++] = v;
		break;
	case 'j':
		a->opts.json = true;
		break;
	case OPT_NO_DEFAULT_SKIP:
		a->attr.no_default_skip = true;
		break;
	case 't':
		if (cli__parse_count("--top", v, &n))
			return TRACER_EXIT_USAGE;
		a->opts.top = (size_t)n;
		break;
	case 's':
		if (diff__parse_sort(v, &a->opts.sort)) {
			elog("diff: --sort takes bytes, blocks, peak or end, not '%s'\n", v);
			return TRACER_EXIT_USAGE;
		}
		break;
	case OPT_SKIP:
		return cli__add_skip("diff", &a->attr, a->skip, v);
	}
	return OPT_GO_ON;
}

int cli_diff(int argc, char **argv)
{
	struct diff_args a = { .opts = { .attr = &a.attr }, .attr = { .skip = a.skip } };
	char err[1024];
	int ret;

	ret = opt__parse(&cli_diff_cmd, argc, argv, diff_arg, &a, NULL);
	if (ret != OPT_GO_ON)
		return ret;
	if (a.nfiles != 2) {
		opt__help(&cli_diff_cmd, stderr);
		return TRACER_EXIT_USAGE;
	}
	ret = diff__print_files(stdout, a.files[0], a.files[1], &a.opts, err, sizeof(err));
	if (ret) {
		elog("%s\n", err);
		return ret == -EIO || ret == -ENOMEM ? TRACER_EXIT_FAILURE : TRACER_EXIT_USAGE;
	}
	return TRACER_EXIT_OK;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `tracer diff`: what changed between two DHAT v2 files, per stack and in total (see diff.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dhat_reader.h"
#include "diff.h"
#include "export_diff.h"
#include "log.h"
#include "site.h"

enum { OPT_SKIP = 256, OPT_NO_DEFAULT_SKIP, OPT_MATCH, OPT_DEPTH, OPT_FAIL_IF, OPT_FORMAT };

#define MAX_FAIL_IF 32

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
	{ "match", 0, "HOW",
	  "match stacks by function names (default; lines may move:\n"
	  "a row shows NEW's lines, a line that moved as\n"
	  "f (a.c:10 -> a.c:12), OLD's then NEW's)\n"
	  "or by function and file:line (line)",
	  NULL, "function line", OPT_MATCH },
	{ "depth", 0, "N",
	  "compare stacks cut to their N innermost frames (default:\n"
	  "whole stacks, or the shallower file's depth when the files\n"
	  "come from different producers, e.g. Valgrind's 12 frames)",
	  NULL, "", OPT_DEPTH },
	{ "fail-if", 0, "EXPR",
	  "exit 1 when METRIC grew by more than N% or SIZE:\n"
	  "'METRIC>+N%' or 'METRIC>+SIZE' (1000, 512K, 1.5MiB: as\n"
	  "tracer's --snapshot-at-rss, K = KB = KiB = 1024);\n"
	  "METRIC: total-bytes, total-blocks, peak-bytes, end-bytes,\n"
	  "or site-METRIC for any single program point; repeatable",
	  NULL, "", OPT_FAIL_IF },
	{ "format", 'f', "FMT",
	  "text (default), json, markdown (tables for a pull request)\n"
	  "or svg (differential flame graph: NEW's stacks, red grew,\n"
	  "blue shrank; weighted by the --sort metric)",
	  NULL, "text json markdown svg", OPT_FORMAT },
	{ "json", 'j', NULL, "one JSON object instead of text (--format json)", NULL, NULL, 'j' },
	{ "help", 'h', NULL, "this help", NULL, NULL, OPT_HELP },
	{ 0 },
};

const struct opt_cmd cli_diff_cmd = {
	.name = "diff",
	.subcommand = true,
	.synopsis = "Usage: tracer diff OLD NEW [options]\n",
	.about = "Compare two DHAT v2 files (tracer, Valgrind --tool=dhat, dhat-rs; .gz too):\n"
		 "blocks, bytes, peak and end bytes per stack and in total. Stacks are matched\n"
		 "by their function names (or with --match line, by function and file:line),\n"
		 "never by address; stacks that only one file has are shown as [added] or\n"
		 "[removed]. With --fail-if, a CI gate on heap growth.\n",
	.opts = diff_opts_table,
	.examples = "  tracer diff before/dhat-heap-cmdsubst.json after/dhat-heap-cmdsubst.json\n"
		    "  tracer diff dhat.out.1 dhat.out.2 --sort blocks --top 30\n"
		    "  tracer diff old.json new.json --json | jq '.totals.bytes.delta'\n"
		    "  tracer diff base.json pr.json --fail-if 'total-bytes>+5%' --fail-if "
		    "'peak-bytes>+1MiB'\n"
		    "  tracer diff base.json pr.json --format markdown >> \"$GITHUB_STEP_SUMMARY\"\n"
		    "  tracer diff base.json pr.json --format svg > diff.svg\n",
	.exit_status = "  0 ok (no --fail-if threshold exceeded); 1 a --fail-if threshold exceeded\n"
		       "  (each one named on stderr) or an output error; 2 bad arguments, a bad\n"
		       "  --fail-if expression or a bad input file.\n",
};

struct diff_args {
	struct diff_opts opts;
	struct site_opts site;
	struct diff_threshold fail_if[MAX_FAIL_IF];
	size_t fail_if_cnt;
	const char *skip[CLI_MAX_SKIP];
	const char *files[2];
	int nfiles;
};

/* v as a positive count (cli__parse_count: digits only, in range) into *out: OPT_GO_ON, or a
 * usage error naming opt. */
static int positive(const char *opt, const char *v, size_t *out)
{
	unsigned long n;

	if (cli__parse_count(opt, v, &n))
		return TRACER_EXIT_USAGE;
	*out = (size_t)n;
	return OPT_GO_ON;
}

/* An opt_fn: one option or operand into struct diff_args. */
static int diff_arg(void *ctx, const struct opt_spec *o, const char *v)
{
	struct diff_args *a = ctx;
	char msg[256];

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
		a->opts.format = DIFF_FMT_JSON;
		break;
	case OPT_NO_DEFAULT_SKIP:
		a->site.no_default_skip = true;
		break;
	case 't':
		return positive("--top", v, &a->opts.top);
	case 's':
		if (diff__parse_sort(v, &a->opts.sort)) {
			elog("diff: --sort takes bytes, blocks, peak or end, not '%s'\n", v);
			return TRACER_EXIT_USAGE;
		}
		break;
	case OPT_SKIP:
		return cli__add_skip("diff", &a->site, a->skip, v);
	case OPT_MATCH:
		if (diff__parse_match(v, &a->opts.match)) {
			elog("diff: --match takes function or line, not '%s'\n", v);
			return TRACER_EXIT_USAGE;
		}
		break;
	case OPT_FORMAT:
		if (diff__parse_format(v, &a->opts.format)) {
			elog("diff: --format takes text, json, markdown or svg, not '%s'\n", v);
			return TRACER_EXIT_USAGE;
		}
		a->opts.json = a->opts.format == DIFF_FMT_JSON;
		break;
	case OPT_DEPTH:
		return positive("--depth", v, &a->opts.depth);
	case OPT_FAIL_IF:
		if (a->fail_if_cnt == MAX_FAIL_IF) {
			elog("diff: at most %d --fail-if\n", MAX_FAIL_IF);
			return TRACER_EXIT_USAGE;
		}
		if (diff_threshold__parse(v, &a->fail_if[a->fail_if_cnt], msg, sizeof(msg))) {
			elog("diff: %s\n", msg);
			return TRACER_EXIT_USAGE;
		}
		a->fail_if_cnt++;
		break;
	}
	return OPT_GO_ON;
}

/* Print the diff of OLD and NEW in the chosen format, then check the thresholds: the exit
 * status. */
static int run_diff(struct diff_args *a)
{
	struct dhat_profile *o = NULL, *n = NULL;
	struct diff *d = NULL;
	size_t exceeded = 0;
	char err[1024];
	int ret;

	o = dhat_profile__load(a->files[0], err, sizeof(err));
	n = o ? dhat_profile__load(a->files[1], err, sizeof(err)) : NULL;
	if (!n) {
		elog("%s\n", err);
		ret = TRACER_EXIT_USAGE;
		goto cleanup;
	}
	d = diff__new(o, n, &a->opts);
	if (!d) {
		elog("diff: %s\n", strerror(errno));
		ret = TRACER_EXIT_FAILURE;
		goto cleanup;
	}
	/* A threshold the files cannot answer (peak-bytes without lifetimes): nothing printed. */
	ret = diff__check(d, a->fail_if, a->fail_if_cnt, NULL, &exceeded, err, sizeof(err));
	if (ret == -EINVAL) {
		elog("diff: %s\n", err);
		ret = TRACER_EXIT_USAGE;
		goto cleanup;
	}
	if (!ret)
		ret = a->opts.format == DIFF_FMT_SVG
			      ? export__diff_svg(d, (enum diff_metric)a->opts.sort, stdout)
			      : diff__print(stdout, d, &a->opts);
	if (!ret && (fflush(stdout) || ferror(stdout)))
		ret = -EIO;
	if (ret) {
		elog("diff: cannot print the diff: %s\n", strerror(-ret));
		ret = TRACER_EXIT_FAILURE;
		goto cleanup;
	}
	/* The verdict after the output, where a CI log reader looks last. */
	diff__check(d, a->fail_if, a->fail_if_cnt, stderr, &exceeded, err, sizeof(err));
	ret = exceeded ? TRACER_EXIT_FAILURE : TRACER_EXIT_OK;
cleanup:
	diff__free(d);
	dhat_profile__free(n);
	dhat_profile__free(o);
	return ret;
}

int cli_diff(int argc, char **argv)
{
	struct diff_args a = { .opts = { .site = &a.site }, .site = { .skip = a.skip } };
	int ret;

	ret = opt__parse(&cli_diff_cmd, argc, argv, diff_arg, &a, NULL);
	if (ret != OPT_GO_ON)
		return ret;
	if (a.nfiles != 2) {
		opt__help(&cli_diff_cmd, stderr);
		return TRACER_EXIT_USAGE;
	}
	return run_diff(&a);
}

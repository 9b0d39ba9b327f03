// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `tracer export`: convert any DHAT heap file to pprof, folded stacks or an SVG flame graph. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dhat_reader.h"
#include "export.h"
#include "python_only.h"
#include "log.h"
#include "safe_text.h"
#include "site.h"

enum {
	OPT_FORMAT = 256,
	OPT_WEIGHT,
	OPT_LOCATION,
	OPT_KEEP_PLUMBING,
	OPT_SKIP,
	OPT_NO_DEFAULT_SKIP,
	OPT_NO_RECORDED_SKIP,
	OPT_PYTHON_ONLY,
};

static const struct opt_spec export_opts_table[] = {
	{ "format", 0, "FMT",
	  "pprof (gzip'ed protobuf, default), folded (flamegraph.pl input), svg,\n"
	  "timeline (live heap over time; files written by tracer)",
	  NULL, "pprof folded svg timeline", OPT_FORMAT },
	{ "weight", 0, "W", "folded/svg: bytes allocated (default), blocks, bytes at t-gmax, at t-end",
	  NULL, "bytes blocks gmax end", OPT_WEIGHT },
	{ "location", 0, NULL, "folded/svg: keep file:line in frame names", NULL, NULL,
	  OPT_LOCATION },
	{ "keep-plumbing", 0, NULL,
	  "keep allocator frames (malloc, operator new, RawVec, obmalloc, ...)\n"
	  "at the leaf of each stack; default: stacks start at the caller", NULL, NULL,
	  OPT_KEEP_PLUMBING },
	{ "skip", 0, "PATTERN", "one more plumbing pattern, as report's --skip (repeatable)", NULL,
	  "", OPT_SKIP },
	{ "no-default-skip", 0, NULL, "forget the built-in plumbing list, as report's", NULL, NULL,
	  OPT_NO_DEFAULT_SKIP },
	{ "no-recorded-skip", 0, NULL, "ignore the trace's recorded --skip patterns, as report's",
	  NULL, NULL, OPT_NO_RECORDED_SKIP },
	{ "python-only", 0, NULL,
	  "a CPython's stacks by their Python frames alone, as report's", NULL, NULL,
	  OPT_PYTHON_ONLY },
	{ "output", 'o', "OUT",
	  "output path (default FILE with its .json[.gz] replaced by .pb.gz,\n"
	  ".folded, .svg or .timeline.svg; - for stdout)",
	  NULL, NULL, 'o' },
	{ "help", 'h', NULL, "this help", NULL, NULL, OPT_HELP },
	{ 0 },
};

const struct opt_cmd cli_export_cmd = {
	.name = "export",
	.subcommand = true,
	.synopsis = "Usage: tracer export FILE [--format pprof|folded|svg|timeline] "
		    "[--weight bytes|blocks|gmax|end]\n"
		    "                          [--location] [--keep-plumbing] [--skip PATTERN]... "
		    "[-o OUT]\n",
	.about = "Convert a DHAT heap file to pprof, folded stacks, an SVG flame graph or (files\n"
		 "written by tracer) an SVG timeline of the live heap.\n",
	.opts = export_opts_table,
	.examples = "  tracer export dhat-heap-cmdsubst.json --format svg\n"
		    "  tracer export prof.json.gz --format folded --weight gmax -o - | less\n"
		    "  tracer export dhat-heap-1234.json --format timeline\n"
		    "  tracer export prof.json && "
		    "go tool pprof -top -sample_index=gmax_space prof.pb.gz\n",
	.exit_status = "  0 ok, 1 output error, 2 bad arguments or bad input file (also: a timeline\n"
		       "  asked of a file without the live-heap series, e.g. Valgrind's).\n",
};

struct export_args {
	enum export_format fmt;
	struct export_opts opts;
	struct site_opts skip; /* --skip, --no-default-skip */
	const char *skip_slots[CLI_MAX_SKIP];
	const char *file, *out;
	bool python_only; /* --python-only */
};

/* An opt_fn: one option or operand into struct export_args. */
static int export_arg(void *ctx, const struct opt_spec *o, const char *v)
{
	struct export_args *a = ctx;

	switch (o ? o->id : 0) {
	case 0:
		if (a->file) {
			elog("export: one FILE at a time\n");
			return TRACER_EXIT_USAGE;
		}
		a->file = v;
		break;
	case OPT_FORMAT:
		if (export_format__parse(v, &a->fmt)) {
			elog("export: unknown format '%s' (pprof, folded, svg, timeline)\n", v);
			return TRACER_EXIT_USAGE;
		}
		break;
	case OPT_WEIGHT:
		if (export_weight__parse(v, &a->opts.weight)) {
			elog("export: unknown weight '%s' (bytes, blocks, gmax, end)\n", v);
			return TRACER_EXIT_USAGE;
		}
		break;
	case OPT_LOCATION:
		a->opts.location = true;
		break;
	case OPT_KEEP_PLUMBING:
		a->opts.keep_plumbing = true;
		break;
	case OPT_SKIP:
		return cli__add_skip("export", &a->skip, a->skip_slots, v);
	case OPT_NO_DEFAULT_SKIP:
		a->skip.no_default_skip = true;
		break;
	case OPT_PYTHON_ONLY:
		a->python_only = true;
		break;
	case OPT_NO_RECORDED_SKIP:
		a->opts.no_recorded_skip = true;
		break;
	case 'o':
		a->out = v;
		break;
	}
	return OPT_GO_ON;
}

/* FILE.json[.gz] -> FILE<suffix>, malloc'd. */
char *cli_export_path(const char *json_path, const char *suffix)
{
	size_t n = strlen(json_path);
	char *out;

	if (n > 8 && !strcmp(json_path + n - 8, ".json.gz"))
		n -= 8;
	else if (n > 5 && !strcmp(json_path + n - 5, ".json"))
		n -= 5;
	if (asprintf(&out, "%.*s%s", (int)n, json_path, suffix) < 0)
		return NULL;
	return out;
}

int cli_export(int argc, char **argv)
{
	struct export_args a = { .fmt = EXPORT_FMT_PPROF, .opts = { .weight = EXPORT_WEIGHT_BYTES } };
	struct dhat_profile *p;
	char err[512], *path;
	int ret;

	a.skip.skip = a.skip_slots;
	a.opts.skip = &a.skip;
	ret = opt__parse(&cli_export_cmd, argc, argv, export_arg, &a, NULL);
	if (ret != OPT_GO_ON)
		return ret;
	if (!a.file) {
		opt__help(&cli_export_cmd, stderr);
		return TRACER_EXIT_USAGE;
	}
	p = dhat_profile__load(a.file, err, sizeof(err));
	if (!p) {
		elog("%s\n", err);
		return TRACER_EXIT_USAGE;
	}
	if (a.python_only && python_only__fold(p) < 0) {
		dhat_profile__free(p);
		elog("out of memory\n");
		return TRACER_EXIT_FAILURE;
	}
	if (a.fmt == EXPORT_FMT_TIMELINE && !export__has_timeline(p)) {
		/* Valgrind, dhat-rs and tracer before the series was stored: say so, no file. */
		elog("export: %s has no live-heap series (\"heapTimeline\"): only files written "
		     "by tracer have one; trace again with tracer to draw a timeline\n",
		     a.file);
		dhat_profile__free(p);
		return TRACER_EXIT_USAGE;
	}
	path = a.out ? strdup(a.out) : cli_export_path(a.file, export_format__suffix(a.fmt));
	if (!path) {
		dhat_profile__free(p);
		elog("out of memory\n");
		return TRACER_EXIT_FAILURE;
	}
	ret = export__to_path(p, a.fmt, path, &a.opts);
	if (ret)
		elog("export: cannot write %s: %s\n", safe_text__term(path), strerror(-ret));
	else if (strcmp(path, "-"))
		fprintf(stderr, "wrote %s\n", safe_text__term(path));
	free(path);
	dhat_profile__free(p);
	return ret ? TRACER_EXIT_FAILURE : TRACER_EXIT_OK;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `tracer export`: convert any DHAT heap file to pprof, folded stacks or an SVG flame graph. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dhat_reader.h"
#include "export.h"
#include "log.h"

enum { OPT_FORMAT = 256, OPT_WEIGHT, OPT_LOCATION };

static const struct opt_spec export_opts_table[] = {
	{ "format", 0, "FMT", "pprof (gzip'ed protobuf, default), folded (flamegraph.pl input), svg",
	  NULL, "pprof folded svg", OPT_FORMAT },
	{ "weight", 0, "W", "folded/svg: bytes allocated (default), blocks, bytes at t-gmax, at t-end",
	  NULL, "bytes blocks gmax end", OPT_WEIGHT },
	{ "location", 0, NULL, "folded/svg: keep file:line in frame names", NULL, NULL,
	  OPT_LOCATION },
	{ "output", 'o', "OUT",
	  "output path (default FILE with its .json[.gz] replaced by .pb.gz,\n"
	  ".folded or .svg; - for stdout)",
	  NULL, NULL, 'o' },
	{ "help", 'h', NULL, "this help", NULL, NULL, OPT_HELP },
	{ 0 },
};

const struct opt_cmd cli_export_cmd = {
	.name = "export",
	.subcommand = true,
	.synopsis = "Usage: tracer export FILE [--format pprof|folded|svg] "
		    "[--weight bytes|blocks|gmax|end]\n"
		    "                          [--location] [-o OUT]\n",
	.about = "Convert a DHAT heap file to pprof, folded stacks or an SVG flame graph.\n",
	.opts = export_opts_table,
	.examples = "  tracer export dhat-heap-cmdsubst.json --format svg\n"
		    "  tracer export prof.json.gz --format folded --weight gmax -o - | less\n",
	.exit_status = "  0 ok, 1 output error, 2 bad arguments or bad input file.\n",
};

struct export_args {
	enum export_format fmt;
	struct export_opts opts;
	const char *file, *out;
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
		/* A timeline comes from a live trace, never from a DHAT file. */
		if (export_format__parse(v, &a->fmt) || !export_format__from_profile(a->fmt)) {
			elog("export: unknown format '%s' (pprof, folded, svg)\n", v);
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
	path = a.out ? strdup(a.out) : cli_export_path(a.file, export_format__suffix(a.fmt));
	if (!path) {
		dhat_profile__free(p);
		elog("out of memory\n");
		return TRACER_EXIT_FAILURE;
	}
	ret = export__to_path(p, a.fmt, path, &a.opts);
	if (ret)
		elog("export: cannot write %s: %s\n", path, strerror(-ret));
	else if (strcmp(path, "-"))
		fprintf(stderr, "wrote %s\n", path);
	free(path);
	dhat_profile__free(p);
	return ret ? TRACER_EXIT_FAILURE : TRACER_EXIT_OK;
}

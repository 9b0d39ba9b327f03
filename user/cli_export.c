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

static const char export_usage[] =
	"usage: tracer export FILE [--format pprof|folded|svg] [--weight bytes|blocks|gmax|end]\n"
	"                          [--location] [-o OUT]\n"
	"  --format    pprof (gzip'ed protobuf, default), folded (flamegraph.pl input), svg\n"
	"  --weight    folded/svg: bytes allocated (default), blocks, bytes at t-gmax, at t-end\n"
	"  --location  folded/svg: keep file:line in frame names\n"
	"  -o OUT      output path (default FILE with its .json[.gz] replaced by .pb.gz,\n"
	"              .folded or .svg; - for stdout)\n";

const char *cli_export_suffix(int fmt)
{
	return export_format__suffix((enum export_format)fmt);
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
	enum export_format fmt = EXPORT_FMT_PPROF;
	struct export_opts opts = { .weight = EXPORT_WEIGHT_BYTES };
	const char *file = NULL, *out = NULL;
	struct dhat_profile *p;
	char err[512], *path;
	int ret;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--format") && i + 1 < argc) {
			/* A timeline comes from a live trace, never from a DHAT file. */
			if (export_format__parse(argv[++i], &fmt) ||
			    !export_format__from_profile(fmt)) {
				elog("export: unknown format '%s' (pprof, folded, svg)\n", argv[i]);
				return CLI_EXIT_USAGE;
			}
		} else if (!strcmp(a, "--weight") && i + 1 < argc) {
			if (export_weight__parse(argv[++i], &opts.weight)) {
				elog("export: unknown weight '%s' (bytes, blocks, gmax, end)\n",
				     argv[i]);
				return CLI_EXIT_USAGE;
			}
		} else if (!strcmp(a, "--location")) {
			opts.location = true;
		} else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(export_usage, stdout);
			return CLI_EXIT_OK;
		} else if (a[0] == '-' && a[1]) {
			elog("export: unknown option %s\n%s", a, export_usage);
			return CLI_EXIT_USAGE;
		} else if (!file) {
			file = a;
		} else {
			elog("export: one FILE at a time\n");
			return CLI_EXIT_USAGE;
		}
	}
	if (!file) {
		fputs(export_usage, stderr);
		return CLI_EXIT_USAGE;
	}
	p = dhat_profile__load(file, err, sizeof(err));
	if (!p) {
		elog("%s\n", err);
		return CLI_EXIT_USAGE;
	}
	path = out ? strdup(out) : cli_export_path(file, cli_export_suffix(fmt));
	if (!path) {
		dhat_profile__free(p);
		elog("out of memory\n");
		return CLI_EXIT_FAILURE;
	}
	ret = export__to_path(p, fmt, path, &opts);
	if (ret)
		elog("export: cannot write %s: %s\n", path, strerror(-ret));
	else if (strcmp(path, "-"))
		fprintf(stderr, "wrote %s\n", path);
	free(path);
	dhat_profile__free(p);
	return ret ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

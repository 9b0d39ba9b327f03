// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `tracer report`: offline summary of any DHAT heap file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "report.h"

int cli_report(int argc, char **argv)
{
	struct report_opts opts = { 0 };
	const char *file = NULL;
	char err[512];

	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "--top") || !strcmp(argv[i], "-t")) && i + 1 < argc) {
			char *end;
			long n = strtol(argv[++i], &end, 10);

			if (*end || n <= 0) {
				elog("--top needs a positive number, not '%s'\n", argv[i]);
				return CLI_EXIT_USAGE;
			}
			opts.top = (size_t)n;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			elog("report: unknown option %s\n", argv[i]);
			return CLI_EXIT_USAGE;
		} else if (!file) {
			file = argv[i];
		} else {
			elog("report: one FILE at a time\n");
			return CLI_EXIT_USAGE;
		}
	}
	if (!file) {
		elog("usage: tracer report FILE [--top N]\n");
		return CLI_EXIT_USAGE;
	}
	if (report__print_file(stdout, file, &opts, err, sizeof(err))) {
		elog("%s\n", err);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}


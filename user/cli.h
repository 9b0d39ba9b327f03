/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * cli - the offline subcommands of `tracer` (no root, no BPF): each takes the arguments
 * after the subcommand name (argv[0] is the subcommand) and returns the process exit status.
 */
#ifndef TRACER_CLI_H
#define TRACER_CLI_H

/* Exit statuses shared with main.c's tracing modes. */
enum cli_exit {
	CLI_EXIT_OK = 0,
	CLI_EXIT_FAILURE = 1,
	CLI_EXIT_USAGE = 2, /* bad arguments or bad input file */
};

/* tracer report FILE [--top N] */
int cli_report(int argc, char **argv);

/* tracer export FILE [--format pprof|folded|svg] [--weight W] [--location] [-o OUT] */
int cli_export(int argc, char **argv);
/* The file suffix of an export format (enum export_format): ".pb.gz", ".folded", ".svg". */
const char *cli_export_suffix(int fmt);
/* json_path with its .json or .json.gz suffix replaced by suffix (malloc'd, NULL on ENOMEM). */
char *cli_export_path(const char *json_path, const char *suffix);

#endif

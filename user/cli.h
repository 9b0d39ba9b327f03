/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * cli - the offline subcommands of `tracer` (no root, no BPF): each takes the arguments
 * after the subcommand name (argv[0] is the subcommand) and returns the process exit status.
 * main.c dispatches `tracer report ...`, `tracer diff ...` and `tracer export ...` here.
 */
#ifndef TRACER_CLI_H
#define TRACER_CLI_H

/* Exit statuses shared with main.c's tracing modes. */
enum cli_exit {
	CLI_EXIT_OK = 0,
	CLI_EXIT_FAILURE = 1, /* the output could not be written */
	CLI_EXIT_USAGE = 2,   /* bad arguments or bad input file (one line on stderr) */
};

/* tracer report FILE [--top N] [--sort KEY] [--skip PATTERN]... [--no-default-skip]
 *                    [--iterations N [--unit TEXT]] [--title TEXT] [--json] */
int cli_report(int argc, char **argv);

/* tracer export FILE [--format pprof|folded|svg] [--weight W] [--location] [-o OUT] */
int cli_export(int argc, char **argv);
/* The file suffix of an export format (enum export_format): ".pb.gz", ".folded", ".svg". */
const char *cli_export_suffix(int fmt);
/* json_path with its .json or .json.gz suffix replaced by suffix (malloc'd, NULL on ENOMEM). */
char *cli_export_path(const char *json_path, const char *suffix);

/* tracer diff OLD NEW [--top N] [--sort bytes|blocks|peak|end] [--skip PATTERN]...
 *                     [--no-default-skip] [--json] */
int cli_diff(int argc, char **argv);

/* Option helper for the subcommands: if argv[*i] is the option long ("--top VALUE" or
 * "--top=VALUE") or short ("-t VALUE"), store VALUE in *val, step *i past it and return 1;
 * return 0 if argv[*i] is another argument, -1 (with a message) if VALUE is missing. */
int cli__opt_value(int argc, char **argv, int *i, const char *lng, const char *shrt,
		   const char **val);

#endif

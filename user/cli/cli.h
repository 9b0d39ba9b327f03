/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * cli - the offline subcommands of `tracer` (no root, no BPF): each takes the arguments
 * after the subcommand name (argv[0] is the subcommand) and returns the process exit status
 * (tracer_exit.h: 0 ok, 1 the output could not be written, 2 bad arguments or bad input
 * file, with one line on stderr). main.c dispatches `tracer report ...`, `tracer diff ...`
 * and `tracer export ...` here.
 */
#ifndef TRACER_CLI_H
#define TRACER_CLI_H

#include "opt_table.h"
#include "tracer_exit.h"

/* tracer report FILE [--top N] [--sort KEY] [--skip PATTERN]... [--no-default-skip]
 *                    [--iterations N [--unit TEXT]] [--title TEXT] [--json] */
int cli_report(int argc, char **argv);

/* tracer export FILE [--format pprof|folded|svg|timeline] [--weight W] [--location]
 * [--keep-plumbing] [-o OUT] */
int cli_export(int argc, char **argv);
/* json_path with its .json or .json.gz suffix replaced by suffix (malloc'd, NULL on ENOMEM). */
char *cli_export_path(const char *json_path, const char *suffix);

/* tracer diff OLD NEW [--top N] [--sort bytes|blocks|peak|end] [--skip PATTERN]...
 *                     [--no-default-skip] [--json] */
int cli_diff(int argc, char **argv);

/* --skip PATTERN of report and diff: one more pattern in o->skip (slots, CLI_MAX_SKIP of
 * them). Returns OPT_GO_ON, or TRACER_EXIT_USAGE once they are full (logged as cmd's). */
#define CLI_MAX_SKIP 64
struct site_opts;
int cli__add_skip(const char *cmd, struct site_opts *o, const char **slots,
		  const char *pattern);

/* Largest count option (--top, --iterations): far beyond any use, far below overflow. */
#define CLI_COUNT_MAX 1000000000ULL

/* A count option's value (1..CLI_COUNT_MAX, strict: parse_num.h) into *out; else logs
 * "OPT needs a positive number, not ..." and returns -EINVAL. */
int cli__parse_count(const char *opt, const char *s, unsigned long *out);

/* The subcommands' option tables and help (options.h lists them for the man page). */
extern const struct opt_cmd cli_report_cmd, cli_diff_cmd, cli_export_cmd, cli_top_cmd;

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * opt_table - one table per command describes its options; getopt_long's struct option[] and
 * short-option string, the --help text, the man page and the bash completion are all made
 * from it, so they cannot drift apart.
 */
#ifndef TRACER_OPT_TABLE_H
#define TRACER_OPT_TABLE_H

#include <stdbool.h>
#include <stdio.h>

/* The id of --help in every table: opt__parse prints the help itself. */
#define OPT_HELP 'h'

struct opt_spec {
	const char *name;   /* long name without "--"; NULL ends a table */
	char shrt;	    /* short form, 0 for none */
	const char *arg;    /* its argument's name in the help ("N", "PATH"); NULL: a flag */
	const char *help;   /* what it does; '\n' breaks the line in --help */
	const char *group;  /* --help heading it is listed under; NULL: "Options" */
	const char *values; /* completion: the words its argument takes; NULL: file names,
			     * "": nothing (a number) */
	int id;		    /* handed to the handler; OPT_HELP for --help */
};

struct opt_cmd {
	const char *name;	   /* "tracer", or a subcommand ("report") */
	bool subcommand;	   /* see opt__parse */
	const char *synopsis;	   /* the "Usage:" lines of --help, as printed */
	const char *about;	   /* what it does, after the synopsis; may be NULL */
	const struct opt_spec *opts;
	const char *examples;	   /* indented lines; may be NULL */
	const char *exit_status;   /* indented lines */
	/* The man page only (--help stays short): a subsection after the options, its title,
	 * its paragraph (filled) and an example (indented lines, as printed). NULL: none. */
	const char *man_title, *man_text, *man_example;
};

/* Go on parsing / the parse succeeded: any other value is an exit status. */
#define OPT_GO_ON (-1)

/* Called for each option (o, with its argument or NULL) and, in a subcommand, each operand
 * (o NULL). Returns OPT_GO_ON or the exit status to stop with. */
typedef int (*opt_fn)(void *ctx, const struct opt_spec *o, const char *arg);

/*
 * Parse argv[1..] with getopt_long. The tracer itself stops at the first operand (the
 * command to run) and stores its index in *operand (argc if none); getopt says what is wrong.
 * A subcommand takes operands anywhere, long names only in full, and says
 * "NAME: unknown option X (see tracer NAME --help)". --help prints opt__help on stdout.
 * Returns OPT_GO_ON once all is parsed, else the exit status (0 after --help, 2 after a
 * usage error).
 */
int opt__parse(const struct opt_cmd *cmd, int argc, char **argv, opt_fn fn, void *ctx,
	       int *operand);

/* The --help text of cmd. */
void opt__help(const struct opt_cmd *cmd, FILE *f);

/* A man page (roff) for the tracer, cmds[0], and its subcommands cmds[1..n-1]. */
void opt__man(const struct opt_cmd *const *cmds, int n, const char *version, FILE *f);

/* A bash completion script for the same commands. */
void opt__bash_completion(const struct opt_cmd *const *cmds, int n, FILE *f);

#endif

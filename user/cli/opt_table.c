// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Options, help, man page and completion from one table: see opt_table.h. */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "opt_table.h"
#include "tracer_exit.h"

#define OPT_MAX 48
/* getopt_long's val of table entry i; short options come back as their character. */
#define LONG_VAL(i) (256 + (i))

static int opt_cnt(const struct opt_spec *opts)
{
	int n = 0;

	while (opts[n].name)
		n++;
	return n;
}

/* The struct option[] and short-option string of a table; false if it is too long. */
static bool getopt_tables(const struct opt_cmd *cmd, struct option *lo, char *so, size_t so_sz)
{
	int n = opt_cnt(cmd->opts), k = 0;

	if (n >= OPT_MAX || so_sz < 3 + 2 * (size_t)n)
		return false;
	/* '+': stop at the command to run. '-': operands come back in order, argv is never
	 * permuted (a subcommand's argv may be read-only). ':': we say what is wrong. */
	so[k++] = cmd->subcommand ? '-' : '+';
	if (cmd->subcommand)
		so[k++] = ':';
	for (int i = 0; i < n; i++) {
		const struct opt_spec *o = &cmd->opts[i];

		lo[i] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL,
					 LONG_VAL(i) };
		if (o->shrt) {
			so[k++] = o->shrt;
			if (o->arg)
				so[k++] = ':';
		}
	}
	lo[n] = (struct option){ 0 };
	so[k] = '\0';
	return true;
}

static const struct opt_spec *opt_of_val(const struct opt_spec *opts, int val)
{
	if (val >= LONG_VAL(0))
		return &opts[val - LONG_VAL(0)];
	for (const struct opt_spec *o = opts; o->name; o++)
		if (o->shrt && o->shrt == val)
			return o;
	return NULL;
}

/* A subcommand takes long names only in full (getopt would take "--to" for "--top"). */
static bool abbreviated(const char *text, const struct opt_spec *o)
{
	size_t n = strlen(o->name);

	return strncmp(text, "--", 2) || strncmp(text + 2, o->name, n) ||
	       (text[2 + n] && text[2 + n] != '=');
}

int opt__parse(const struct opt_cmd *cmd, int argc, char **argv, opt_fn fn, void *ctx,
	       int *operand)
{
	struct option lo[OPT_MAX];
	char so[2 * OPT_MAX + 3];
	int val, ret = OPT_GO_ON;

	if (!getopt_tables(cmd, lo, so, sizeof(so))) {
		elog("%s: option table too long\n", cmd->name);
		return TRACER_EXIT_FAILURE;
	}
	optind = 0; /* a fresh parse: glibc re-reads so's leading '+' or '-' */
	opterr = !cmd->subcommand;
	for (;;) {
		/* Without permutation, argv[at] is the element being parsed. */
		int at = optind ? optind : 1, li = -1;
		const struct opt_spec *o;

		val = getopt_long(argc, argv, so, lo, &li);
		if (val == -1)
			break;
		o = opt_of_val(cmd->opts, val);
		if (cmd->subcommand && val == ':') {
			elog("%s needs a value\n", argv[at]);
			return TRACER_EXIT_USAGE;
		}
		if (cmd->subcommand && (val == '?' || (li >= 0 && abbreviated(argv[at], o)))) {
			elog("%s: unknown option %s (see tracer %s --help)\n", cmd->name, argv[at],
			     cmd->name);
			return TRACER_EXIT_USAGE;
		}
		if (val == '?' || val == ':' || (!o && val != 1)) {
			/* getopt has said what is wrong; tracer top parses as the tracer does */
			if (strcmp(cmd->name, "tracer"))
				fprintf(stderr, "try 'tracer %s --help'\n", cmd->name);
			else
				fputs("try 'tracer --help'\n", stderr);
			return TRACER_EXIT_USAGE;
		}
		if (o && o->id == OPT_HELP) {
			opt__help(cmd, stdout);
			return TRACER_EXIT_OK;
		}
		ret = fn(ctx, o, optarg);
		if (ret != OPT_GO_ON)
			return ret;
	}
	/* After "--" a subcommand's remaining arguments are operands too. */
	for (; cmd->subcommand && optind < argc; optind++) {
		ret = fn(ctx, NULL, argv[optind]);
		if (ret != OPT_GO_ON)
			return ret;
	}
	if (operand)
		*operand = optind;
	return OPT_GO_ON;
}

/* "  -w, --workload NAME" (or "      --lib PATH"): the option column of --help. */
static int option_column(const struct opt_spec *o, char *buf, size_t sz)
{
	char shrt[8] = "    ";

	if (o->shrt)
		snprintf(shrt, sizeof(shrt), "-%c, ", o->shrt);
	return snprintf(buf, sz, "  %s--%s%s%s", shrt, o->name, o->arg ? " " : "",
			o->arg ? o->arg : "");
}

static bool same_group(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Calls fn for each group of cmd's table in the order groups first appear. */
static void for_each_group(const struct opt_cmd *cmd, FILE *f,
			   void (*fn)(const struct opt_cmd *, const char *, FILE *))
{
	for (const struct opt_spec *o = cmd->opts; o->name; o++) {
		const struct opt_spec *p = cmd->opts;

		while (p < o && !same_group(p->group, o->group))
			p++;
		if (p == o)
			fn(cmd, o->group, f);
	}
}

static void help_group(const struct opt_cmd *cmd, const char *group, FILE *f)
{
	char col[128];
	int width = 0;

	for (const struct opt_spec *o = cmd->opts; o->name; o++) {
		int n = option_column(o, col, sizeof(col));

		width = n > width ? n : width;
	}
	fprintf(f, "\n%s:\n", group ? group : "Options");
	for (const struct opt_spec *o = cmd->opts; o->name; o++) {
		if (!same_group(o->group, group))
			continue;
		option_column(o, col, sizeof(col));
		fprintf(f, "%-*s", width + 2, col);
		for (const char *h = o->help; *h;) {
			size_t n = strcspn(h, "\n");

			fprintf(f, "%.*s\n", (int)n, h);
			h += n + (h[n] == '\n');
			if (*h)
				fprintf(f, "%*s", width + 2, "");
		}
	}
}

void opt__help(const struct opt_cmd *cmd, FILE *f)
{
	fputs(cmd->synopsis, f);
	if (cmd->about)
		fputs(cmd->about, f);
	for_each_group(cmd, f, help_group);
	if (cmd->examples)
		fprintf(f, "\nExamples:\n%s", cmd->examples);
	fprintf(f, "\nExit status:\n%s", cmd->exit_status);
}

/* Text into roff: backslashes and dashes escaped, '\n' as a space unless keep_lines (then
 * each line guarded against starting a request). */
static void roff(FILE *f, const char *s, bool keep_lines)
{
	bool line_start = true;

	for (; *s; s++) {
		if (line_start && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		line_start = false;
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else if (*s == '\n' && !keep_lines)
			fputc(' ', f);
		else
			fputc(*s, f);
		line_start = *s == '\n' && keep_lines;
	}
}

static void roff_block(FILE *f, const char *s)
{
	fputs(".nf\n", f);
	roff(f, s, true);
	fputs(".fi\n", f);
}

static void man_group(const struct opt_cmd *cmd, const char *group, FILE *f)
{
	fputs(".SS ", f);
	roff(f, group ? group : "Options", false);
	fputc('\n', f);
	for (const struct opt_spec *o = cmd->opts; o->name; o++) {
		if (!same_group(o->group, group))
			continue;
		fputs(".TP\n", f);
		if (o->shrt)
			fprintf(f, "\\fB\\-%c\\fR, ", o->shrt);
		fputs("\\fB\\-\\-", f);
		roff(f, o->name, false);
		fputs("\\fR", f);
		if (o->arg) {
			fputs(" \\fI", f);
			roff(f, o->arg, false);
			fputs("\\fR", f);
		}
		fputc('\n', f);
		roff(f, o->help, false);
		fputc('\n', f);
	}
}

/* The synopsis without its "Usage:" heading. */
static const char *synopsis_lines(const struct opt_cmd *cmd)
{
	const char *s = cmd->synopsis;

	if (!strncmp(s, "Usage:", 6)) {
		s += 6 + strspn(s + 6, " ");
		s += *s == '\n';
	}
	return s;
}

void opt__man(const struct opt_cmd *const *cmds, int n, const char *version, FILE *f)
{
	fprintf(f, ".TH TRACER 1 \"\" \"tracer %s\" \"User Commands\"\n", version);
	fputs(".SH NAME\ntracer \\- out\\-of\\-process heap\\-allocation tracer writing DHAT "
	      "profiles\n.SH SYNOPSIS\n", f);
	roff_block(f, synopsis_lines(cmds[0]));
	if (cmds[0]->about) {
		fputs(".SH DESCRIPTION\n", f);
		roff(f, cmds[0]->about, false);
		fputc('\n', f);
	}
	fputs(".SH OPTIONS\n", f);
	for_each_group(cmds[0], f, man_group);
	for (int i = 1; i < n; i++) {
		fputs(".SH \"TRACER ", f);
		for (const char *c = cmds[i]->name; *c; c++)
			fputc(toupper((unsigned char)*c), f);
		fputs("\"\n", f);
		roff_block(f, synopsis_lines(cmds[i]));
		if (cmds[i]->about) {
			fputs(".PP\n", f);
			roff(f, cmds[i]->about, false);
			fputc('\n', f);
		}
		for_each_group(cmds[i], f, man_group);
		if (cmds[i]->man_title) {
			fputs(".SS \"", f);
			roff(f, cmds[i]->man_title, false);
			fputs("\"\n", f);
			roff(f, cmds[i]->man_text, false);
			fputc('\n', f);
			if (cmds[i]->man_example) {
				fputs(".PP\n", f);
				roff_block(f, cmds[i]->man_example);
			}
		}
		if (cmds[i]->examples) {
			fputs(".SS Examples\n", f);
			roff_block(f, cmds[i]->examples);
		}
		/* As in its --help: a subcommand's statuses are its own (diff --fail-if). */
		if (cmds[i]->exit_status) {
			fputs(".SS \"Exit status\"\n", f);
			roff_block(f, cmds[i]->exit_status);
		}
	}
	if (cmds[0]->examples) {
		fputs(".SH EXAMPLES\n", f);
		roff_block(f, cmds[0]->examples);
	}
	fputs(".SH \"EXIT STATUS\"\n", f);
	roff_block(f, cmds[0]->exit_status);
}

/* Space-separated option words of a table: all of them, or those taking an argument. */
static void option_words(const struct opt_spec *opts, bool with_arg_only, FILE *f)
{
	for (const struct opt_spec *o = opts; o->name; o++) {
		if (with_arg_only && !o->arg)
			continue;
		fprintf(f, " --%s", o->name);
		if (o->shrt)
			fprintf(f, " -%c", o->shrt);
	}
}

void opt__bash_completion(const struct opt_cmd *const *cmds, int n, FILE *f)
{
	fputs("# bash completion for tracer: generated by `tracer --completion bash`\n"
	      "_tracer()\n{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tlocal cmd=tracer opts args words i\n"
	      "\tcase ${COMP_WORDS[1]} in\n",
	      f);
	for (int i = 1; i < n; i++)
		fprintf(f, "\t%s) ((COMP_CWORD > 1)) && cmd=%s ;;\n", cmds[i]->name, cmds[i]->name);
	/* After the tracer's "--": the command to run, then its arguments. */
	fputs("\tesac\n"
	      "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	      "\t\t[[ $cmd == tracer && ${COMP_WORDS[i]} == -- ]] || continue\n"
	      "\t\tif ((i + 1 == COMP_CWORD)); then\n"
	      "\t\t\tCOMPREPLY=($(compgen -c -- \"$cur\"))\n"
	      "\t\telse\n"
	      "\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\t\tfi\n"
	      "\t\treturn\n"
	      "\tdone\n"
	      "\tcase $cmd in\n",
	      f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "\t%s)\n\t\topts=\"", cmds[i]->name);
		option_words(cmds[i]->opts, false, f);
		fputs(" \"\n\t\targs=\"", f);
		option_words(cmds[i]->opts, true, f);
		fputs(" \" ;;\n", f);
	}
	fputs("\tesac\n\tcase \"$cmd $prev\" in\n", f);
	for (int i = 0; i < n; i++)
		for (const struct opt_spec *o = cmds[i]->opts; o->name; o++) {
			if (!o->values)
				continue;
			fprintf(f, "\t\"%s --%s\"", cmds[i]->name, o->name);
			if (o->shrt)
				fprintf(f, " | \"%s -%c\"", cmds[i]->name, o->shrt);
			if (*o->values)
				fprintf(f, ") words=\"%s\" ;;\n", o->values);
			else
				fputs(") return ;;\n", f); /* a number: nothing to offer */
		}
	fputs("\tesac\n"
	      "\tif [[ -n $words ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
	      "\telif [[ \"$args \" == *\" $prev \"* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\telif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\telif [[ $cmd == tracer ]] && ((COMP_CWORD == 1)); then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"",
	      f);
	for (int i = 1; i < n; i++)
		fprintf(f, "%s%s", i > 1 ? " " : "", cmds[i]->name);
	fputs("\" -- \"$cur\"))\n"
	      "\telse\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\tfi\n"
	      "}\n"
	      "complete -F _tracer tracer\n",
	      f);
}

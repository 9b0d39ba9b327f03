/* SPDX-License-Identifier: MIT */
/* bi_vars.c - variables and shell options: export, set, unset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bi_table.h"
#include "builtins.h"
#include "exec.h"
#include "kernel.h"
#include "scope.h"
#include "util.h"

const char bi_export_usage[] =
	"Usage: export NAME[=VALUE]...\n"
	"Mark variables as exported (optionally assigning them).\n";
const char bi_set_usage[] =
	"Usage: set [-e|+e] [-o NAME|+o NAME]... [-- ARG...]\n"
	"Set shell options: -e / -o errexit, -o pipefail, -o trash, -o glob. `+` turns off.\n"
	"`set -- ARG...` replaces the positional arguments. No arguments: the options in force;\n"
	"`set -o` alone: every option with its state.\n";
const char bi_unset_usage[] = "Usage: unset NAME...\nRemove variables.\n";

/* Exported variables only matter to subprocesses, which this kernel never starts. */
int bi_export(struct bi_ctx *c, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		size_t nl = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		if (!is_name(argv[i], nl)) {
			bi_err(c, "'%s': not a valid identifier", argv[i]);
			return 1;
		}
		char *name = kstrndup(argv[i], nl);
		int e = !name ? -1 : eq ? scope_set(&c->k->scope, name, eq + 1) : 0;
		if (e == 0)
			e = scope_export(&c->k->scope, name);
		free(name);
		if (e < 0)
			return 1;
	}
	return 0;
}

/* Named options; returns false for an unknown name. */
static bool set_option(kaish_kernel *k, const char *name, bool on)
{
	if (!strcmp(name, "errexit"))
		k->errexit = on;
	else if (!strcmp(name, "pipefail"))
		k->pipefail = on;
	else if (!strcmp(name, "trash"))
		k->trash = on;
	else if (!strcmp(name, "glob"))
		k->glob = on;
	else
		return false;
	return true;
}

static const char valid_set_o[] = "errexit, glob, pipefail, trash";

/* `set -o` alone: one row per option and its state. */
static void list_options(kaish_kernel *k, struct sbuf *out)
{
	sb_printf(out, "errexit\t%s\n", k->errexit ? "on" : "off");
	sb_printf(out, "glob\t%s\n", k->glob ? "on" : "off");
	sb_printf(out, "pipefail\t%s\n", k->pipefail ? "on" : "off");
	sb_printf(out, "trash\t%s\n", k->trash ? "on" : "off");
}

/*
 * Bare `set` prints the options in force as the commands that set them (kaish: `set -e`,
 * `set -o trash`, `set +o glob`), `set -o` lists every option with its state. An unknown -o
 * name exits 1 naming the valid ones, as kaish.
 */
int bi_set(struct bi_ctx *c, int argc, char **argv)
{
	kaish_kernel *k = c->k;
	if (argc == 1) {
		if (k->errexit)
			sb_adds(c->io->out, "set -e\n");
		if (k->trash)
			sb_adds(c->io->out, "set -o trash\n");
		if (!k->glob)
			sb_adds(c->io->out, "set +o glob\n");
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool on = a[0] == '-';
		if (!strcmp(a, "--")) {
			strv_free(&k->scope.pos);
			for (int j = i + 1; j < argc; j++)
				strv_pushdup(&k->scope.pos, argv[j]);
			return 0;
		}
		if ((a[0] == '-' || a[0] == '+') && a[1] == 'o' && !a[2]) {
			if (i + 1 >= argc) {
				list_options(k, c->io->out);
				return 0;
			}
			if (!set_option(k, argv[++i], on)) {
				bi_err(c, "%co %s: unknown option; valid names are %s", a[0], argv[i],
				       valid_set_o);
				return 1;
			}
		} else if ((a[0] == '-' || a[0] == '+') && a[1]) {
			/* Glued short flags: -e, -eo NAME, -euo pipefail (u is accepted, unset
			 * variables already expand to nothing). */
			for (const char *f = a + 1; *f; f++) {
				if (*f == 'e') {
					k->errexit = on;
				} else if (*f == 'u' || *f == 'x') {
					/* accepted, no effect here */
				} else if (*f == 'o' && !f[1] && i + 1 < argc) {
					if (!set_option(k, argv[++i], on)) {
						bi_err(c, "%co %s: unknown option; valid names are %s",
						       a[0], argv[i], valid_set_o);
						return 1;
					}
				} else {
					bi_err(c, "unknown option '%c%c'", a[0], *f);
					return 1;
				}
			}
		} else {
			bi_err(c, "unexpected argument '%s'", a);
			return 1;
		}
	}
	return 0;
}

int bi_unset(struct bi_ctx *c, int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		scope_unset(&c->k->scope, argv[i]);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* bi_echo.c - echo: join the arguments with single spaces. */
#include <string.h>

#include "bi_table.h"
#include "exec.h"
#include "util.h"

const char bi_echo_usage[] =
	"Usage: echo [-n] [ARG]...\n"
	"Print the arguments joined by single spaces, then a newline (only if the text is\n"
	"non-empty).\n"
	"  -n, --no-newline   do not print the trailing newline\n";

int bi_echo(struct bi_ctx *c, int argc, char **argv)
{
	bool newline = true;
	int i = 1;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--no-newline"))
			newline = false;
		else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else
			break;
	}
	size_t start = c->io->out->len;
	for (int j = i; j < argc; j++) {
		if (j > i)
			sb_addc(c->io->out, ' ');
		sb_adds(c->io->out, argv[j]);
	}
	/* As kaish: a bare `echo` (empty text) prints nothing at all. */
	if (newline && c->io->out->len > start)
		sb_addc(c->io->out, '\n');
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * kaish - a small CLI over the C shell kernel: run one script (-c), a script from stdin,
 * or an interactive prompt when stdin is a terminal. The kernel runs on a thread with
 * KAISH_RECOMMENDED_STACK_SIZE of stack, as kaish's REPL does.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kaish.h"

#define KAISH_CLI_VERSION "0.16.0-c"

static const char usage[] =
	"Usage: kaish [-c SCRIPT] [-r DIR] [--trash] [--no-limit] [--timeout MS]\n"
	"Run kaish scripts in a sandboxed C shell kernel (agent preset).\n"
	"\n"
	"  -c, --command SCRIPT   run SCRIPT and exit with its code\n"
	"  -r, --root DIR         sandbox root and initial cwd (default: current directory)\n"
	"      --trash            rm moves files to DIR/.Trash instead of deleting\n"
	"      --no-limit         disable the 8 KiB output limit\n"
	"  -t, --timeout MS       stop each script after MS milliseconds (exit 124)\n"
	"  -h, --help             this help\n"
	"  -V, --version          print the version\n"
	"\n"
	"Without -c, reads a script from stdin, or prompts line by line on a terminal.\n"
	"\n"
	"Examples:\n"
	"  kaish -c 'echo hello world'\n"
	"  kaish -r /srv/repo -c 'grep -rn TODO . | wc -l'\n"
	"\n"
	"Exit codes: the script's code (0 ok, 1 failure, 2 usage/refusal, 3 output truncated,\n"
	"123 gather worker failed, 124 timed out, 127 not found); 2 for a parse or\n"
	"validation error; "
	"70 if the kernel could not be built.\n";

struct cli {
	const char *script;
	const char *root;
	bool trash, no_limit;
	unsigned long timeout_ms;
	int code;
};

static int run_one(kaish_kernel *k, const char *script)
{
	kaish_result r;
	kaish_execute(k, script, &r);
	fwrite(r.out, 1, r.out_len, stdout);
	fputs(r.err, stderr);
	fflush(stdout);
	int code = r.code;
	kaish_result_free(&r);
	return code;
}

static char *slurp(FILE *f)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

static void *cli_main(void *arg)
{
	struct cli *c = arg;
	char *errmsg = NULL;
	kaish_config *cfg = kaish_config_agent_with_root(c->root);
	if (!cfg) {
		perror("kaish: config");
		c->code = 70;
		return NULL;
	}
	if (c->trash)
		kaish_config_set_trash(cfg, true);
	if (c->no_limit)
		kaish_config_set_output_limit(cfg, 0);
	kaish_config_set_request_timeout(cfg, c->timeout_ms);
	kaish_kernel *k = kaish_kernel_new(cfg, &errmsg);
	kaish_config_free(cfg);
	if (!k) {
		fprintf(stderr, "kaish: %s\n", errmsg ? errmsg : "cannot build kernel");
		free(errmsg);
		c->code = 70;
		return NULL;
	}
	if (c->script) {
		c->code = run_one(k, c->script);
	} else if (isatty(STDIN_FILENO)) {
		char *line = NULL;
		size_t cap = 0;
		for (;;) {
			fputs("kaish> ", stdout);
			fflush(stdout);
			if (getline(&line, &cap, stdin) < 0)
				break;
			c->code = run_one(k, line);
		}
		free(line);
		fputc('\n', stdout);
	} else {
		char *script = slurp(stdin);
		c->code = script ? run_one(k, script) : 70;
		free(script);
	}
	kaish_kernel_free(k);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "command", required_argument, NULL, 'c' }, { "root", required_argument, NULL, 'r' },
		{ "trash", no_argument, NULL, 'T' },	     { "no-limit", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },	     { "version", no_argument, NULL, 'V' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli c = { .root = ".", .code = 0 };
	int opt;
	while ((opt = getopt_long(argc, argv, "c:r:t:hV", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': c.script = optarg; break;
		case 'r': c.root = optarg; break;
		case 'T': c.trash = true; break;
		case 't': {
			char *end;
			c.timeout_ms = strtoul(optarg, &end, 10);
			if (*end || !*optarg) {
				fprintf(stderr, "kaish: invalid --timeout '%s'\n", optarg);
				return 2;
			}
			break;
		}
		case 'L': c.no_limit = true; break;
		case 'h': fputs(usage, stdout); return 0;
		case 'V': puts("kaish " KAISH_CLI_VERSION); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "kaish: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	pthread_attr_t attr;
	pthread_t tid;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, KAISH_RECOMMENDED_STACK_SIZE);
	if (pthread_create(&tid, &attr, cli_main, &c) != 0) {
		fputs("kaish: cannot start the kernel thread\n", stderr);
		return 70;
	}
	pthread_join(tid, NULL);
	pthread_attr_destroy(&attr);
	return c.code;
}

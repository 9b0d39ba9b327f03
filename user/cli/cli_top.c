// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `tracer top`: the command line of the live view (user/run/run_top.c draws it). It is a
 * trace like `tracer --pid`/`-- CMD`, so it parses into the same struct tracer_opts; the
 * options it shares with the tracer go to the tracer's own handler (options__set), so they
 * mean the same thing in both places.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "options.h"
#include "parse_num.h"

/* ids of top's own options (the shared ones keep the tracer's short-letter ids) */
enum { OPT_TOP_BATCH = 'b', OPT_TOP_FRAMES = 'n', OPT_TOP_DELAY = 'd', OPT_TOP_BYTES = 256 };

static const struct opt_spec top_opts_table[] = {
	{ "pid", 'p', "PID[,PID...]", "watch running processes (and what they fork and exec)",
	  NULL, "", 'p' },
	{ "batch", 'b', NULL,
	  "print plain-text frames instead of the screen, on stdout\n"
	  "(on stderr with -- CMD, whose stdout is its own)\n"
	  "(the default when stdout or stdin is not a terminal)",
	  NULL, NULL, OPT_TOP_BATCH },
	{ "iterations", 'n', "N", "quit after N frames (detaching, as q does)", NULL, "",
	  OPT_TOP_FRAMES },
	{ "delay", 'd', "SECONDS", "time between frames (default 1)", NULL, "", OPT_TOP_DELAY },
	{ "top", 't', "N", "rows per frame in batch mode (default 20; the screen: its height)",
	  NULL, "", 't' },
	{ "output", 'o', "PATH",
	  "on quitting, write the profile to PATH (default: none;\n"
	  "top is a view)",
	  NULL, NULL, 'o' },
	{ "format", 'f', "LIST", "with -o: also write pprof, folded, svg, timeline", NULL,
	  "pprof folded svg timeline", 'f' },
	{ "bytes", 0, NULL, "exact byte counts", NULL, NULL, OPT_TOP_BYTES },
	{ "verbose", 'v', NULL, "more detail on stderr", NULL, NULL, 'v' },
	{ "help", 'h', NULL, "this help", NULL, NULL, OPT_HELP },
	{ 0 },
};

const struct opt_cmd cli_top_cmd = {
	.name = "top",
	.synopsis = "Usage: tracer top [options] --pid PID[,PID...]\n"
		    "       tracer top [options] -- CMD [ARGS...]\n",
	.about = "A live view of the heap, refreshed every second: heap now and at its peak,\n"
		 "RSS, allocation and free rates, the heap over time, and the program points\n"
		 "holding the most live bytes, named as the report names them. Keys: q quit\n"
		 "(detach; with -o write the profile), l b c r sort by live bytes, total bytes,\n"
		 "count, rate; t per process (per thread: not recorded), p pause, / filter by\n"
		 "function (Enter keeps it, Esc clears it). CMD's own output goes where its\n"
		 "stdout goes, the screen too: use --pid, or redirect CMD's output inside it.\n",
	.opts = top_opts_table,
	.examples = "  sudo tracer top --pid 4242\n"
		    "  sudo tracer top -o app.json -- sh -c './app >app.log'\n"
		    "  sudo tracer top --batch -n 3 --pid 4242 > frames.txt\n",
	.exit_status = "  0 quit (q, -n); the profile, if -o, written    2 bad arguments\n"
		       "  1 tracing or writing failed   3 not root, no BTF or uprobes   "
		       "4 records dropped\n",
	.man_title = "Keys and frames",
	.man_text = "The screen shows the heap now and at its peak, RSS, live blocks, allocations\n"
		    "and frees per second, records dropped and stacks lost, the heap over time,\n"
		    "and a row per site (named as tracer report names rows): live bytes and\n"
		    "blocks, total bytes and count, RATE/s (bytes allocated per second) and\n"
		    "TREND/s (live bytes gained per second). The footer lists the keys; a batch\n"
		    "frame is one header line, the column heading, the rows and an empty line:",
	.man_example = "  q        quit: detach (a -- CMD gets SIGTERM); with -o, write the profile\n"
		       "  l b c r  sort by live bytes, total bytes, count, rate (and leave s)\n"
		       "  t        a row per thread: live, total, its top site; again: sites\n"
		       "  s        allocation sizes: a row per power-of-two bucket (allocations,\n"
		       "           bytes, the site of most); again, or l b c r: back\n"
		       "  p        pause the display; / filter by function (Enter, Esc)\n"
		       "\n"
		       "  tracer top 15:16:40  heap 86.00 KiB  peak 86.25 KiB  rss 1.42 MiB  ...\n"
		       "        LIVE    BLOCKS       TOTAL      COUNT      RATE/s     TREND/s  SITE\n"
		       "   86.00 KiB        86   86.00 KiB         86   85.87 KiB  +85.87 KiB  "
		       "grow_cache (top_prog.c:18)  <-  main (top_prog.c:45)\n",
};

/* One of top's options into o; the shared ones through the tracer's handler. */
static int set_top_option(void *ctx, const struct opt_spec *opt, const char *arg)
{
	struct tracer_opts *o = ctx;
	unsigned long n;

	switch (opt->id) {
	case OPT_TOP_BATCH:
		o->top_batch = true;
		return OPT_GO_ON;
	case OPT_TOP_FRAMES:
		if (cli__parse_count("--iterations", arg, &n))
			return TRACER_EXIT_USAGE;
		o->top_frames = n;
		return OPT_GO_ON;
	case OPT_TOP_DELAY:
		if (parse_num__double(arg, 0.05, 3600, &o->top_delay_s)) {
			elog("top: --delay needs seconds from 0.05 to 3600, not '%s'\n", arg);
			return TRACER_EXIT_USAGE;
		}
		return OPT_GO_ON;
	case OPT_TOP_BYTES:
		o->exact_bytes = true;
		return OPT_GO_ON;
	}
	return options__set(ctx, opt, arg);
}

int options__parse_top(int argc, char **argv, struct tracer_opts *o)
{
	int ret, operand;

	*o = (struct tracer_opts){ .kill_after_s = KILL_AFTER_DEFAULT_S, .top_mode = true,
				   .top_delay_s = 1.0 };
	ret = opt__parse(&cli_top_cmd, argc, argv, set_top_option, o, &operand);
	if (ret != OPT_GO_ON)
		return ret;
	if (operand < argc)
		o->cmd = &argv[operand];
	if (!!o->pid + !!o->cmd != 1) {
		elog("top: give --pid PID or -- CMD (see tracer top --help)\n");
		return TRACER_EXIT_USAGE;
	}
	return OPT_GO_ON;
}

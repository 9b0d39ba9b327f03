// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The tracer's option tables: help, man page and completion from one table; parsing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export.h"
#include "options.h"
#include "profile_output.h"
#include "test_util.h"
#include "tracer_exit.h"

/* What fn writes to a memory stream, malloc'd. */
static char *render(void (*fn)(FILE *f))
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	cr_assert_not_null(f);
	fn(f);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static const struct opt_cmd *help_cmd;
static void help_of(FILE *f)
{
	opt__help(help_cmd, f);
}
static void man_all(FILE *f)
{
	opt__man(tracer_cmds, tracer_cmd_cnt, "9.9", f);
}
static void completion_all(FILE *f)
{
	opt__bash_completion(tracer_cmds, tracer_cmd_cnt, f);
}

/* name with every '-' as roff's "\-". */
static void roff_name(const char *name, char *out, size_t sz)
{
	size_t n = 0;

	for (; *name && n + 3 < sz; name++) {
		if (*name == '-')
			out[n++] = '\\';
		out[n++] = *name;
	}
	out[n] = '\0';
}

/* The report's heap vs RSS section is described in the man page (not in --help). */
Test(options, man_describes_heap_vs_rss)
{
	char *man = render(man_all);

	cr_expect(strstr(man, ".SS \"Heap vs RSS\"\n"), "%s", man);
	cr_expect(strstr(man, "malloc_trim(0) would return 39.88 MiB"), "%s", man);
	cr_expect(strstr(man, "arena forensics: glibc only"), "%s", man);
	free(man);
}

Test(options, every_option_is_in_help_man_and_completion)
{
	char *man = render(man_all), *comp = render(completion_all);

	cr_assert_eq(tracer_cmds[0], &tracer_cmd);
	for (int i = 0; i < tracer_cmd_cnt; i++) {
		const struct opt_cmd *cmd = tracer_cmds[i];
		char *help;

		help_cmd = cmd;
		help = render(help_of);
		cr_expect(!strncmp(help, "Usage:", 6), "%s: %s", cmd->name, help);
		cr_expect(strstr(help, "Exit status:"), "%s", cmd->name);
		for (const struct opt_spec *o = cmd->opts; o->name; o++) {
			char want[128], esc[96];

			snprintf(want, sizeof(want), "--%s%s%s", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
			cr_expect(strstr(help, want), "%s: %s not in --help", cmd->name, want);
			snprintf(want, sizeof(want), "%.*s\n", (int)strcspn(o->help, "\n"), o->help);
			cr_expect(strstr(help, want), "%s: help of --%s", cmd->name, o->name);
			snprintf(want, sizeof(want), "-%c, --%s", o->shrt, o->name);
			cr_expect(!o->shrt || strstr(help, want), "%s: %s", cmd->name, want);

			roff_name(o->name, esc, sizeof(esc));
			snprintf(want, sizeof(want), "\\fB\\-\\-%s\\fR", esc);
			cr_expect(strstr(man, want), "%s: %s not in the man page", cmd->name, want);

			snprintf(want, sizeof(want), " --%s ", o->name);
			cr_expect(strstr(comp, want), "%s: %s not in the completion", cmd->name,
				  want);
			snprintf(want, sizeof(want), " -%c ", o->shrt);
			cr_expect(!o->shrt || strstr(comp, want), "%s: %s", cmd->name, want);
		}
		if (i > 0) {
			char sect[64], status[512];

			snprintf(sect, sizeof(sect), "\n%s) ((COMP_CWORD > 1)) && cmd=%s", cmd->name,
				 cmd->name);
			cr_expect(strstr(comp, sect + 1), "completion misses %s", cmd->name);
			/* The man page section says what `tracer NAME --help` says. */
			cr_assert(cmd->exit_status, "%s", cmd->name);
			roff_name(cmd->exit_status, status, sizeof(status));
			cr_expect(strstr(man, status), "man page misses the exit status of %s",
				  cmd->name);
		}
		free(help);
	}
	cr_expect(!strncmp(man, ".TH TRACER 1 \"\" \"tracer 9.9\" ", 29), "%.60s", man);
	cr_expect(strstr(man, ".SH \"TRACER REPORT\"") && strstr(man, ".SH \"EXIT STATUS\""));
	cr_expect(strstr(comp, "complete -F _tracer tracer\n"));
	free(man);
	free(comp);
}

static struct tracer_opts parsed;
static int parse(int argc, char **argv)
{
	return options__parse(argc, argv, &parsed);
}

Test(options, argv_vectors)
{
	const char *workload[] = { "tracer", "-w", "all",  "-o", "/tmp", "--format=pprof,timeline",
				   "-vv",    "-t", "20", NULL };
	const char *pid[] = { "tracer", "--pid", "42", "--duration", "1.5", "--unwind", "dwarf",
			      "--stack-size", "4096", "--ringbuf-size", "65536", "-q", NULL };
	/* --lib is opened while parsing: a real regular file. */
	const char *cmd[] = { "tracer", "--start-at", "f", "--as-root", "--lib", "/proc/self/exe",
			      "--summary", "s.txt", "--unwind", "kernel", "--", "ls", "-l", NULL };
	const char *bare_cmd[] = { "tracer", "-v", "ls", "-q", NULL };
	const char *kill_after[] = { "tracer", "--kill-after", "0.5", "ls", NULL };
	const char *interval[] = { "tracer", "--pid", "9", "--interval", "2.5", "--min-age", "30",
				   NULL };
	const char *pids[] = { "tracer", "--pid", "42,43,7", "--report", "all", NULL };
	const char *cgroup[] = { "tracer", "--cgroup", "/sys/fs/cgroup/x", "--no-follow", NULL };
	char *out, *errs;

	cr_assert_eq(tu_run_cli(parse, pids, &out, &errs), OPT_GO_ON, "%s", errs);
	cr_expect_eq(parsed.pid_cnt, 3);
	cr_expect_eq(parsed.pid, 42);
	cr_expect_eq(parsed.pids[1], 43);
	cr_expect_eq(parsed.pids[2], 7);
	cr_expect(parsed.report_all);
	cr_expect(!parsed.no_follow);
	free(out);
	free(errs);

	cr_assert_eq(tu_run_cli(parse, cgroup, &out, &errs), OPT_GO_ON, "%s", errs);
	cr_expect_str_eq(parsed.cgroup, "/sys/fs/cgroup/x");
	cr_expect(parsed.no_follow);
	cr_expect_eq(parsed.pid_cnt, 0);
	free(out);
	free(errs);

	cr_assert_eq(tu_run_cli(parse, workload, &out, &errs), OPT_GO_ON, "%s", errs);
	cr_expect_str_eq(parsed.workload, "all");
	cr_expect_str_eq(parsed.output, "/tmp");
	cr_expect_eq(parsed.formats, (1u << EXPORT_FMT_PPROF) | (1u << EXPORT_FMT_TIMELINE));
	cr_expect_eq(parsed.verbosity, 2);
	cr_expect_eq(parsed.top, 20);
	cr_expect_null(parsed.cmd);
	free(out);
	free(errs);

	cr_assert_eq(tu_run_cli(parse, interval, &out, &errs), OPT_GO_ON, "%s", errs);
	cr_expect_eq(parsed.interval_s, 2.5);
	cr_expect_eq(parsed.min_age_s, 30);
	free(out);
	free(errs);

	cr_assert_eq(tu_run_cli(parse, kill_after, &out, &errs), OPT_GO_ON, "%s", errs);
	cr_expect_eq(parsed.kill_after_s, 0.5);
	free(out);
	free(errs);

	cr_assert_eq(tu_run_cli(parse, pid, &out, &errs), OPT_GO_ON, "%s", errs);
	cr_expect_eq(parsed.pid, 42);
	cr_expect_eq(parsed.kill_after_s, KILL_AFTER_DEFAULT_S, "the default grace");
	cr_expect_eq(parsed.duration_s, 1.5);
	cr_expect_eq(parsed.unwind, UNWIND_DWARF);
	cr_expect_eq(parsed.stack_sz, 4096);
	cr_expect_eq(parsed.ringbuf_sz, 65536);
	cr_expect_eq(parsed.verbosity, -1);
	cr_expect_null(parsed.workload);
	cr_expect_null(parsed.summary, "default: stderr, chosen by the run");
	free(out);
	free(errs);

	cr_assert_eq(tu_run_cli(parse, cmd, &out, &errs), OPT_GO_ON, "%s", errs);
	cr_assert_not_null(parsed.cmd);
	cr_expect_str_eq(parsed.cmd[0], "ls");
	cr_expect_str_eq(parsed.cmd[1], "-l");
	cr_expect_null(parsed.cmd[2]);
	cr_expect_str_eq(parsed.start_at, "f");
	cr_expect(parsed.as_root);
	cr_expect_eq(parsed.unwind, UNWIND_KERNEL);
	cr_expect_str_eq(parsed.lib, "/proc/self/exe");
	cr_expect_str_eq(parsed.summary, "s.txt");
	free(out);
	free(errs);

	/* The first operand starts the command: its own options are not the tracer's. */
	cr_assert_eq(tu_run_cli(parse, bare_cmd, &out, &errs), OPT_GO_ON, "%s", errs);
	cr_expect_str_eq(parsed.cmd[0], "ls");
	cr_expect_str_eq(parsed.cmd[1], "-q");
	cr_expect_eq(parsed.verbosity, 1);
	free(out);
	free(errs);
}

Test(options, help_version_man_completion)
{
	const char *help[] = { "tracer", "--help", NULL };
	const char *version[] = { "tracer", "-V", NULL };
	const char *man[] = { "tracer", "--help-man", NULL };
	const char *comp[] = { "tracer", "--completion", "bash", NULL };
	char *out, *errs, *want;

	help_cmd = &tracer_cmd;
	want = render(help_of);
	cr_expect_eq(tu_run_cli(parse, help, &out, &errs), TRACER_EXIT_OK);
	cr_expect_str_eq(out, want);
	cr_expect_str_eq(errs, "");
	free(want);
	free(out);
	free(errs);
	cr_expect_eq(tu_run_cli(parse, version, &out, &errs), TRACER_EXIT_OK);
	cr_expect(!strncmp(out, "tracer ", 7), "%s", out);
	free(out);
	free(errs);
	cr_expect_eq(tu_run_cli(parse, man, &out, &errs), TRACER_EXIT_OK);
	cr_expect(!strncmp(out, ".TH TRACER 1", 12), "%.40s", out);
	free(out);
	free(errs);
	cr_expect_eq(tu_run_cli(parse, comp, &out, &errs), TRACER_EXIT_OK);
	cr_expect(strstr(out, "complete -F _tracer tracer"), "%.40s", out);
	free(out);
	free(errs);
}

struct usage_case {
	int (*fn)(int argc, char **argv);
	const char *argv[8];
	const char *says; /* in stderr */
};

/* Bad usage: exit status 2 (documented in --help), a message on stderr, nothing on stdout. */
static void expect_usage_errors(const struct usage_case *cases, size_t n)
{
	char *out, *errs;

	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(tu_run_cli(cases[i].fn, cases[i].argv, &out, &errs),
			     TRACER_EXIT_USAGE, "case %zu", i);
		cr_expect_str_eq(out, "", "case %zu", i);
		cr_expect(strstr(errs, cases[i].says), "case %zu: %s", i, errs);
		free(out);
		free(errs);
	}
}

/* --sample-bytes: a size (units.h) like --snapshot-at-rss and diff's --fail-if, 0 for exact
 * mode. */
Test(options, sample_bytes_sizes)
{
	static const struct {
		const char *arg;
		__u64 want;
	} ok[] = { { "4096", 4096 }, { "4K", 4096 }, { "64KiB", 65536 }, { "512k", 524288 },
		   { "64M", 64ull << 20 }, { "1", 1 }, { "0", 0 }, { "00", 0 }, { "1.5K", 1536 },
		   { "64KB", 65536 } };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		const char *argv[] = { "tracer", "--sample-bytes", "4K", "--sample-bytes", ok[i].arg,
				       "ls", NULL };
		char *out, *errs;

		cr_assert_eq(tu_run_cli(parse, argv, &out, &errs), OPT_GO_ON, "%s", errs);
		free(out);
		free(errs);
		cr_expect_eq(parsed.sample_bytes, ok[i].want, "--sample-bytes %s: %llu", ok[i].arg,
			     (unsigned long long)parsed.sample_bytes);
	}
}

Test(options, bad_usage)
{
	static const struct usage_case cases[] = {
		{ parse, { "tracer", "--bogus", NULL },
		  "unrecognized option '--bogus'\ntry 'tracer --help'\n" },
		{ parse, { "tracer", "-x", NULL }, "invalid option -- 'x'\ntry 'tracer --help'\n" },
		{ parse, { "tracer", "-w", NULL },
		  "option requires an argument -- 'w'\ntry 'tracer --help'\n" },
		{ parse, { "tracer", NULL },
		  "give exactly one of --workload NAME, --pid PID, --cgroup PATH or -- CMD" },
		{ parse, { "tracer", "--cgroup", "/c", "--pid", "3", NULL }, "give exactly one of" },
		{ parse, { "tracer", "--pid", "3,", NULL }, "--pid needs process ids separated" },
		/* #31: --lib /proc/self/mem passed as a file and failed at attach (exit 1). */
		{ parse, { "tracer", "--lib", "/proc/self/mem", "--", "ls", NULL },
		  "--lib /proc/self/mem: not an ELF file" },
		{ parse, { "tracer", "--lib", "/etc/passwd", "--", "ls", NULL },
		  "--lib /etc/passwd: not an ELF file" },
		/* #31: "-o -" made a file named "-" (--summary - is stdout). */
		{ parse, { "tracer", "-o", "-", "--", "ls", NULL }, "-o -: profiles are written to files" },
		{ parse, { "tracer", "--pid", "3,x", NULL }, "--pid needs process ids separated" },
		{ parse, { "tracer", "--report", "some", "ls", NULL }, "--report takes top or all" },
		{ parse, { "tracer", "-w", "all", "--pid", "3", NULL }, "give exactly one of" },
		{ parse, { "tracer", "--top", "0", "--", "ls", NULL },
		  "--top needs a positive number, not '0'" },
		{ parse, { "tracer", "--unwind", "x", "ls", NULL }, "--unwind takes fp, dwarf, kernel or auto" },
		{ parse, { "tracer", "--ringbuf-size", "5000", "ls", NULL },
		  "--ringbuf-size needs a power" },
		{ parse, { "tracer", "-f", "pprof,png", "ls", NULL }, "--format takes a list of" },
		{ parse, { "tracer", "--duration", "3", "ls", NULL }, "--duration goes with --pid" },
		{ parse, { "tracer", "--kill-after", "nan", "ls", NULL },
		  "--kill-after needs a number of seconds, not 'nan'" },
		{ parse, { "tracer", "--kill-after", "-1", "ls", NULL }, "--kill-after needs" },
		{ parse, { "tracer", "--kill-after", "1e9999", "ls", NULL }, "--kill-after needs" },
		{ parse, { "tracer", "--kill-after", "", "ls", NULL }, "--kill-after needs" },
		{ parse, { "tracer", "-w", "all", "--stop-at", "f", NULL },
		  "--start-at/--stop-at go with" },
		{ parse, { "tracer", "--completion", "zsh", NULL }, "--completion takes bash, not 'zsh'" },
		{ parse, { "tracer", "--interval", "0", "ls", NULL },
		  "--interval needs a positive number of seconds, not '0'" },
		{ parse, { "tracer", "--interval", "inf", "ls", NULL }, "--interval needs" },
		{ parse, { "tracer", "--interval", "-2", "ls", NULL }, "--interval needs" },
		{ parse, { "tracer", "--interval", "2s", "ls", NULL }, "--interval needs" },
		{ parse, { "tracer", "--interval", "1", "--min-age", "nan", "ls", NULL },
		  "--min-age needs a positive number of seconds, not 'nan'" },
		{ parse, { "tracer", "--min-age", "5", "ls", NULL }, "--min-age goes with --interval" },
		{ parse, { "tracer", "-w", "all", "--interval", "1", NULL },
		  "--interval goes with --pid, --cgroup or -- CMD" },
		{ parse, { "tracer", "-q", "--interval", "1", "ls", NULL },
		  "--interval with -q prints nowhere" },
		{ parse, { "tracer", "--sample-bytes", "65M", "ls", NULL },
		  "--sample-bytes needs a size from 1 to 64M (0: exact), not '65M': too large" },
		{ parse, { "tracer", "--sample-bytes", "-1", "ls", NULL },
		  "--sample-bytes needs a size from 1 to 64M (0: exact), not '-1': not a size" },
		{ parse, { "tracer", "--sample-bytes", "99999999999999999999", "ls", NULL },
		  "not '99999999999999999999': too large" },
		{ parse, { "tracer", "--snapshot-at-rss", "1.5X", "ls", NULL },
		  "--snapshot-at-rss needs a size such as 512M, not '1.5X': not a size" },
		{ parse, { "tracer", "--snapshot-at-rss", "0", "ls", NULL },
		  "--snapshot-at-rss needs a size such as 512M, not '0': not above 0" },
		{ parse, { "tracer", "--sample-bytes", "K", "ls", NULL }, "--sample-bytes needs" },
		{ parse, { "tracer", "--sample-bytes", "4X", "ls", NULL }, "--sample-bytes needs" },
		{ parse, { "tracer", "--sample-bytes", "", "ls", NULL }, "--sample-bytes needs" },
	};

	expect_usage_errors(cases, sizeof(cases) / sizeof(cases[0]));
}

/* The subcommands parse with the same machinery: operands anywhere, long names in full. */
Test(options, subcommand_parsing)
{
	static const struct usage_case cases[] = {
		{ cli_report, { "report", "a.json", "--bogus", NULL },
		  "tracer: report: unknown option --bogus (see tracer report --help)\n" },
		{ cli_report, { "report", "a.json", "--to", "3", NULL }, "report: unknown option --to " },
		{ cli_report, { "report", "a.json", "--json=1", NULL },
		  "report: unknown option --json=1 " },
		{ cli_report, { "report", "a.json", "--top", NULL }, "tracer: --top needs a value\n" },
		{ cli_report, { "report", "a.json", "-t", NULL }, "tracer: -t needs a value\n" },
		{ cli_diff, { "diff", "a", "b", "-s", NULL }, "tracer: -s needs a value\n" },
		{ cli_export, { "export", "a.json", "--nope", NULL }, "export: unknown option --nope" },
		{ cli_export, { "export", "a.json", "--format", "png", NULL },
		  "export: unknown format 'png'" },
	};
	const char *help[] = { "export", "a.json", "-h", NULL };
	char *out, *errs;

	expect_usage_errors(cases, sizeof(cases) / sizeof(cases[0]));
	cr_expect_eq(tu_run_cli(cli_export, help, &out, &errs), TRACER_EXIT_OK);
	cr_expect(!strncmp(out, "Usage: tracer export FILE", 25), "%s", out);
	free(out);
	free(errs);
}

/* tracer top (cli_top.c): its own options, the tracer's shared ones, and its usage errors. */
static int parse_top(int argc, char **argv)
{
	return options__parse_top(argc, argv, &parsed);
}

Test(options, top)
{
	const char *batch[] = { "top", "--batch", "-n", "3", "-d", "0.5", "-o", "t.json",
				"--bytes", "--pid", "42,43", NULL };
	const char *cmd[] = { "top", "--", "ls", "-l", NULL };
	static const struct usage_case cases[] = {
		{ parse_top, { "top", NULL }, "top: give --pid PID or -- CMD" },
		{ parse_top, { "top", "--pid", "1", "--", "ls", NULL }, "top: give --pid PID or" },
		{ parse_top, { "top", "-n", "0", "--pid", "1", NULL }, "--iterations needs a" },
		{ parse_top, { "top", "--delay", "0", "--pid", "1", NULL }, "--delay needs seconds" },
		{ parse_top, { "top", "--bogus", NULL }, "try 'tracer top --help'" },
	};
	char *out, *errs;

	cr_assert_eq(tu_run_cli(parse_top, batch, &out, &errs), OPT_GO_ON, "%s", errs);
	cr_expect(parsed.top_mode && parsed.top_batch && parsed.exact_bytes);
	cr_expect_eq(parsed.top_frames, 3);
	cr_expect(parsed.top_delay_s == 0.5);
	cr_expect_str_eq(parsed.output, "t.json");
	cr_expect_eq(parsed.pid_cnt, 2);
	free(out);
	free(errs);
	cr_assert_eq(tu_run_cli(parse_top, cmd, &out, &errs), OPT_GO_ON, "%s", errs);
	cr_expect(parsed.top_mode && !parsed.top_batch && parsed.top_delay_s == 1.0);
	cr_expect_str_eq(parsed.cmd[0], "ls");
	free(out);
	free(errs);
	expect_usage_errors(cases, sizeof(cases) / sizeof(cases[0]));
}

/* --python / --no-python (issue #32): each alone sets its mode, both together are a usage
 * error, neither is auto. */
Test(options, python_modes)
{
	const char *py[] = { "tracer", "--python", "--pid", "42", NULL };
	const char *nopy[] = { "tracer", "--no-python", "ls", NULL };
	const char *neither[] = { "tracer", "ls", NULL };
	const char *both[] = { "tracer", "--python", "--no-python", "ls", NULL };
	char *out, *errs;

	cr_assert_eq(tu_run_cli(parse, py, &out, &errs), OPT_GO_ON, "%s", errs);
	cr_expect_eq(parsed.python, TRACER_PY_REQUIRE);
	free(out);
	free(errs);
	cr_assert_eq(tu_run_cli(parse, nopy, &out, &errs), OPT_GO_ON, "%s", errs);
	cr_expect_eq(parsed.python, TRACER_PY_OFF);
	free(out);
	free(errs);
	cr_assert_eq(tu_run_cli(parse, neither, &out, &errs), OPT_GO_ON, "%s", errs);
	cr_expect_eq(parsed.python, TRACER_PY_AUTO);
	free(out);
	free(errs);
	cr_expect_eq(tu_run_cli(parse, both, &out, &errs), TRACER_EXIT_USAGE);
	cr_expect(strstr(errs, "--python and --no-python"), "%s", errs);
	free(out);
	free(errs);
}

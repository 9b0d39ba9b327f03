// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * End-to-end (root + BTF, label bpf): the tracer is honest about its output and its losses.
 *  - Under -- CMD the command's stdout, stderr and stdin are its own, byte for byte: the
 *    report and the counters go to stderr, or to --summary FILE; -q prints nothing but
 *    errors and warnings.
 *  - A stack is cut short only when it stops before the thread's entry: a stripped program
 *    (no frame named main) whose stacks reach __libc_start_call_main has none.
 *  - A profile that lost something says so in the file ("lost", which dh_view ignores), and
 *    `tracer report` warns before its report.
 * Every run is waited for to its end; nothing here sleeps.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dhat_reader.h"
#include "e2e_util.h"
#include "test_timeout.h"
#include "test_util.h"

/* dir/name, in a static buffer per slot (up to 4 at once). */
static const char *in(const char *dir, const char *name)
{
	static char bufs[4][1024];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", dir, name);
	return b;
}

/* The whole file as a string ("" if missing); the caller frees. */
static char *slurp(const char *path)
{
	char *s = tu_slurp(path, NULL);

	return s ? s : strdup("");
}

static struct dhat_profile *load_or_die(const char *path)
{
	char err[512];
	struct dhat_profile *p = dhat_profile__load(path, err, sizeof(err));

	cr_assert_not_null(p, "%s", err);
	return p;
}

/* Run cmd with `sh -c`; returns its exit status. */
static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return e2e_run(cmd, NULL);
}

/* The command's stdout and stderr reach their files as if the tracer were not there; the
 * report and the counters are on the tracer's stderr, after the command's own. */
Test(honest_e2e, command_output_is_its_own, .timeout = TEST_TIMEOUT(120))
{
	char *dir, *out, *err, *want;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("clean-out");
	cr_assert_eq(run("%s -o %s -- sh -c 'printf \"a\\nb\\n\"; echo e >&2' >%s 2>%s", TRACER_BIN,
			 in(dir, "p.json"), in(dir, "out"), in(dir, "err")),
		     0);
	out = slurp(in(dir, "out"));
	err = slurp(in(dir, "err"));
	cr_expect_str_eq(out, "a\nb\n");
	cr_expect(!strncmp(err, "e\n", 2), "the command's stderr first:\n%s", err);
	cr_expect(strstr(err, "top program points by TOTAL BYTES"), "no report on stderr:\n%s",
		  err);
	cr_expect(strstr(err, "\nevents "), "no counters on stderr:\n%s", err);
	free(out);
	free(err);

	/* The case: 100000 lines, identical to the command run alone. */
	cr_assert_eq(run("seq 100000 >%s", in(dir, "want")), 0);
	cr_assert_eq(run("%s -o %s -- seq 100000 >%s 2>/dev/null", TRACER_BIN, in(dir, "s.json"),
			 in(dir, "out")),
		     0);
	out = slurp(in(dir, "out"));
	want = slurp(in(dir, "want"));
	cr_expect(strlen(out) == strlen(want) && !strcmp(out, want),
		  "seq's output changed under the tracer (%zu bytes, want %zu)", strlen(out),
		  strlen(want));
	free(out);
	free(want);
	free(dir);
}

/* --pid: the tracer's stdout is not the target's, but it stays empty all the same: the
 * report and the counters are on stderr. */
Test(honest_e2e, pid_mode_report_on_stderr, .timeout = TEST_TIMEOUT(120))
{
	char *dir, *out, *err, echo = 0;
	int in_fd[2], out_fd[2];
	pid_t target;

	E2E_REQUIRE_ROOT();
	cr_assert_eq(pipe(in_fd), 0);
	cr_assert_eq(pipe(out_fd), 0);
	target = fork();
	cr_assert_geq(target, 0);
	if (target == 0) {
		dup2(in_fd[0], STDIN_FILENO);
		dup2(out_fd[1], STDOUT_FILENO);
		close(in_fd[1]);
		close(out_fd[0]);
		execlp("cat", "cat", (char *)NULL);
		_exit(127);
	}
	close(in_fd[0]);
	close(out_fd[1]);
	/* Attach to cat, not to this test's fork of itself on its way to the exec: cat echoes a
	 * byte once it runs. */
	cr_assert_eq(write(in_fd[1], "x", 1), 1);
	cr_assert_eq(read(out_fd[0], &echo, 1), 1, "the target never ran");
	dir = e2e_tmpdir("pid-out");
	/* --duration is the tracer's own deadline: the test waits for the tracer to end. */
	cr_expect_eq(run("%s --pid %d --duration 1 -o %s >%s 2>%s", TRACER_BIN, (int)target,
			 in(dir, "p.json"), in(dir, "out"), in(dir, "err")),
		     0);
	close(in_fd[1]); /* EOF: cat ends */
	close(out_fd[0]);
	waitpid(target, NULL, 0);
	out = slurp(in(dir, "out"));
	err = slurp(in(dir, "err"));
	cr_expect_str_eq(out, "");
	cr_expect(strstr(err, "total allocations :") && strstr(err, "\nevents "), "%s", err);
	free(out);
	free(err);
	free(dir);
}

/* -q: only the command speaks; stdin is passed through to it. */
Test(honest_e2e, quiet_prints_nothing_and_stdin_passes, .timeout = TEST_TIMEOUT(120))
{
	char *dir, *out, *err;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("quiet");
	cr_assert_eq(run("printf x | %s -q -o %s -- cat >%s 2>%s", TRACER_BIN, in(dir, "c.json"),
			 in(dir, "out"), in(dir, "err")),
		     0);
	out = slurp(in(dir, "out"));
	err = slurp(in(dir, "err"));
	cr_expect_str_eq(out, "x");
	cr_expect_str_eq(err, "", "-q printed on stderr:\n%s", err);
	free(out);
	free(err);

	cr_assert_eq(run("%s -q -o %s -- seq 1000 >%s 2>%s", TRACER_BIN, in(dir, "s.json"),
			 in(dir, "out"), in(dir, "err")),
		     0);
	err = slurp(in(dir, "err"));
	cr_expect_str_eq(err, "", "-q printed on stderr:\n%s", err);
	free(err);
	free(dir);
}

/* --summary FILE takes the report and the counters, even with -q; stdout and stderr are
 * the command's alone. */
Test(honest_e2e, summary_goes_to_its_file, .timeout = TEST_TIMEOUT(120))
{
	char *dir, *out, *err, *sum;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("summary");
	cr_assert_eq(run("%s -q --summary %s -o %s -- sh -c 'printf \"a\\nb\\n\"' >%s 2>%s",
			 TRACER_BIN, in(dir, "sum.txt"), in(dir, "p.json"), in(dir, "out"),
			 in(dir, "err")),
		     0);
	out = slurp(in(dir, "out"));
	err = slurp(in(dir, "err"));
	sum = slurp(in(dir, "sum.txt"));
	cr_expect_str_eq(out, "a\nb\n");
	cr_expect_str_eq(err, "");
	cr_expect(strstr(sum, "top program points by TOTAL BYTES"), "no report:\n%s", sum);
	cr_expect(strstr(sum, "\nevents ") && strstr(sum, "stacks cut short "), "no counters:\n%s",
		  sum);
	free(out);
	free(err);
	free(sum);
	free(dir);
}

/* A stripped program names no frame of its own, main included; its stacks reach libc's
 * start code all the same, in both unwinding modes: none is cut short, and the file records
 * no loss. */
Test(honest_e2e, stripped_program_stacks_are_not_cut_short, .timeout = TEST_TIMEOUT(180))
{
	static const char *const modes[] = { "fp", "dwarf" };
	char *dir, *err;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("stripped");
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct dhat_profile *p;
		unsigned long long cut = 99, judged = 0;
		const char *line;
		bool entry = false;

		cr_assert_eq(run("%s --unwind %s -o %s -- %s 2>%s >/dev/null", TRACER_BIN, modes[m],
				 in(dir, "s.json"), ENTRY_PROG_BIN, in(dir, "err")),
			     0, "--unwind %s", modes[m]);
		err = slurp(in(dir, "err"));
		line = strstr(err, "stacks cut short ");
		cr_assert(line && sscanf(line, "stacks cut short %llu of %llu", &cut, &judged) == 2,
			  "%s", err);
		cr_expect_eq(cut, 0, "--unwind %s:\n%s", modes[m], err);
		cr_expect_geq(judged, 3, "--unwind %s: three sites at least:\n%s", modes[m], err);
		p = load_or_die(in(dir, "s.json"));
		cr_expect(!p->has_lost, "--unwind %s: the file records a loss", modes[m]);
		for (size_t i = 0; i < p->ftbl_cnt; i++) {
			cr_expect_null(strstr(p->ftbl[i], " main ("), "stripped, yet: %s",
				       p->ftbl[i]);
			entry = entry || strstr(p->ftbl[i], "__libc_start_call_main");
		}
		cr_expect(entry, "--unwind %s: no stack reaches __libc_start_call_main", modes[m]);
		dhat_profile__free(p);
		free(err);
	}
	free(dir);
}

/* An unknown free and a stack cut short by a 64-byte stack copy: both in the counters line,
 * both in the file's "lost" object, which dh_view loads; `tracer report` warns first. */
Test(honest_e2e, lost_records_in_the_file_and_report_warns, .timeout = TEST_TIMEOUT(180))
{
	char *dir, *err, *out = NULL, cmd[2048];
	struct dhat_profile *p;
	const char *warn, *report;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("lost");
	cr_assert_eq(run("%s --unwind dwarf --stack-size 64 --start-at window_open -o %s -- %s "
			 "2>%s >/dev/null",
			 TRACER_BIN, in(dir, "l.json"), LOST_PROG_BIN, in(dir, "err")),
		     0);
	err = slurp(in(dir, "err"));
	cr_expect(strstr(err, "unknown frees 1,"), "%s", err);
	p = load_or_die(in(dir, "l.json"));
	cr_assert(p->has_lost, "no \"lost\" in the file");
	cr_expect_eq(p->lost.n[DHAT_LOST_UNKNOWN_FREES], 1);
	cr_expect_geq(p->lost.n[DHAT_LOST_CUT_SHORT], 1, "deep()'s stack is cut short");
	cr_expect_eq(p->lost.n[DHAT_LOST_DROPPED], 0);
	cr_expect_eq(p->total_blocks, 2);
	dhat_profile__free(p);
	free(err);

	snprintf(cmd, sizeof(cmd), "python3 %s %s 2>&1", DHVIEW_CHECK, in(dir, "l.json"));
	cr_expect_eq(e2e_run(cmd, &out), 0, "dh_view rejected the file:\n%s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), "%s report %s 2>&1", TRACER_BIN, in(dir, "l.json"));
	cr_assert_eq(e2e_run(cmd, &out), 0, "%s", out);
	/* An unknown free and a short stack leave the figures right: a note, not a warning. */
	warn = strstr(out, "tracer: note: ");
	report = strstr(out, "=====");
	cr_expect(warn && report && warn < report, "no note before the report:\n%s", out);
	cr_expect(warn && strstr(warn, "1 frees of blocks whose allocation was not traced"), "%s",
		  out);
	cr_expect(!strstr(out, "tracer: warning: "), "a warning for a complete profile:\n%s", out);
	free(out);
	free(dir);
}

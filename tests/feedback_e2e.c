/*
 * End-to-end: what a trace tells its user while it runs, and trace-time --skip (root + BTF).
 *  - --pid prints "attached to pid N (CMD): P probes; Ctrl-C to stop" within a second of
 *    the probes being in (seen as the int3 on malloc's first byte in the target);
 *  - the progress line is never written when stderr is a file;
 *  - on a terminal (a pty) it is, in place, and is erased before the summary;
 *  - --skip my_alloc: the summary, the --format files and `tracer report` name the callers
 *    of the wrapper; `report --no-recorded-skip` shows it again.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_timeout.h"
#include "e2e_util.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* alloc_spin for a bounded while, its rate lines in dir/spin.txt; returns once it allocates. */
static pid_t start_spin(const char *dir)
{
	char out[1024];
	pid_t pid;

	snprintf(out, sizeof(out), "%s/spin.txt", dir);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (!freopen(out, "w", stdout))
			_exit(126);
		execl(SPIN_BIN, SPIN_BIN, "300", (char *)NULL);
		_exit(127);
	}
	cr_assert(e2e_wait_for_text(out, "\n", TEST_TIMEOUT(60)), "alloc_spin never ran");
	return pid;
}

static void stop(pid_t pid, int sig)
{
	kill(pid, sig);
	waitpid(pid, NULL, 0);
}

Test(feedback_e2e, attach_line_within_a_second, .timeout = TEST_TIMEOUT(300))
{
	char *dir = e2e_tmpdir("feedback-attach"), log[1024], path[1024], pidarg[32], *text, *at;
	double t_probe = 0, t_line = 0, deadline;
	pid_t spin, tracer;
	unsigned probes = 0;
	int said_pid = 0;

	E2E_REQUIRE_ROOT();
	spin = start_spin(dir);
	cr_assert_neq(e2e_libc_first_byte(spin, "malloc"), 0xcc, "malloc is probed already");
	snprintf(log, sizeof(log), "%s/tracer.log", dir);
	snprintf(path, sizeof(path), "%s/attach.json", dir);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)spin);
	tracer = fork();
	cr_assert_geq(tracer, 0);
	if (tracer == 0) {
		if (!freopen(log, "w", stderr) || !freopen("/dev/null", "w", stdout))
			_exit(126);
		execl(TRACER_BIN, TRACER_BIN, "--pid", pidarg, "-o", path, (char *)NULL);
		_exit(127);
	}
	/* Both moments seen by polling every 2 ms: the probe's int3 in the target, the line. */
	deadline = now_s() + TEST_TIMEOUT(60);
	while ((!t_probe || !t_line) && now_s() < deadline && !e2e_exited(tracer)) {
		if (!t_probe && e2e_libc_first_byte(spin, "malloc") == 0xcc)
			t_probe = now_s();
		if (!t_line) {
			text = e2e_slurp(log);
			if (strstr(text, "attached to pid"))
				t_line = now_s();
			free(text);
		}
		usleep(2000);
	}
	text = e2e_slurp(log);
	cr_assert(t_probe && t_line, "probes in at %.3f, line at %.3f:\n%s", t_probe, t_line, text);
	cr_expect_leq(t_line - t_probe, 1.0, "the attach line came %.3f s after the probes:\n%s",
		      t_line - t_probe, text);
	at = strstr(text, "attached to pid ");
	cr_assert(at && sscanf(at, "attached to pid %d", &said_pid) == 1, "%s", text);
	cr_expect_eq(said_pid, (int)spin, "%s", text);
	at = strstr(at, "): ");
	cr_assert(at && sscanf(at, "): %u probes; Ctrl-C to stop", &probes) == 1, "%s", text);
	cr_expect_gt(probes, 0, "%s", text);
	cr_expect(strstr(text, "alloc_spin"), "the line names the command:\n%s", text);
	free(text);
	stop(tracer, SIGINT);
	stop(spin, SIGKILL);
}

/* stderr is a file: the attach line, the summary, never a progress line (nor its escapes),
 * however long the trace. */
Test(feedback_e2e, no_status_line_when_stderr_is_a_file, .timeout = TEST_TIMEOUT(300))
{
	char *dir = e2e_tmpdir("feedback-file"), cmd[2048], *out = NULL;
	pid_t spin;
	int st;

	E2E_REQUIRE_ROOT();
	spin = start_spin(dir);
	snprintf(cmd, sizeof(cmd), "%s --pid %d --duration 2.5 -o %s/file.json 2>%s/err.txt",
		 TRACER_BIN, (int)spin, dir, dir);
	st = e2e_run(cmd, NULL);
	stop(spin, SIGKILL);
	snprintf(cmd, sizeof(cmd), "%s/err.txt", dir);
	out = e2e_slurp(cmd);
	cr_expect(st == 0 || st == 4, "tracer failed (%d):\n%s", st, out);
	cr_expect(strstr(out, "attached to pid"), "%s", out);
	cr_expect_null(strchr(out, '\r'), "a carriage return in a file:\n%s", out);
	cr_expect_null(strstr(out, "\033["), "an escape in a file:\n%s", out);
	cr_expect_null(strstr(out, "events/s"), "a progress line in a file:\n%s", out);
	free(out);
}

/* stderr is a terminal (a pty): the progress line appears, rewritten in place, and the
 * summary starts on a line it was erased from. */
Test(feedback_e2e, status_line_on_a_terminal_cleared_before_the_summary,
     .timeout = TEST_TIMEOUT(300))
{
	char *dir = e2e_tmpdir("feedback-pty"), path[1024], pidarg[32], buf[4096];
	char *all = NULL, *last, *clear, *rest;
	size_t len = 0;
	pid_t spin, tracer;
	int master, st = -1;
	ssize_t n;
	FILE *f;

	E2E_REQUIRE_ROOT();
	spin = start_spin(dir);
	snprintf(path, sizeof(path), "%s/pty.json", dir);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)spin);
	tracer = forkpty(&master, NULL, NULL, NULL);
	cr_assert_geq(tracer, 0, "forkpty: %s", strerror(errno));
	if (tracer == 0) {
		execl(TRACER_BIN, TRACER_BIN, "--pid", pidarg, "--duration", "3.5", "-o", path,
		      (char *)NULL);
		_exit(127);
	}
	e2e_guard_group(tracer); /* forkpty made it a session leader: out of the test's group */
	f = open_memstream(&all, &len);
	cr_assert_not_null(f);
	/* Until the tracer closes the terminal: EIO on Linux once the slave side is gone. */
	while ((n = read(master, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			fwrite(buf, 1, (size_t)n, f);
	fclose(f);
	waitpid(tracer, &st, 0);
	close(master);
	stop(spin, SIGKILL);
	cr_expect(WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 4),
		  "tracer status %d:\n%s", st, all);
	cr_assert(strstr(all, "\r\033[Ktracer: "), "no progress line on a terminal:\n%s", all);
	cr_expect(strstr(all, " elapsed, ") && strstr(all, " events/s, live "), "%s", all);
	cr_expect(strstr(all, "attached to pid") < strstr(all, "\r\033[Ktracer: "), "%s", all);
	/* The last progress line is followed by an erase, then the summary, with no progress
	 * text left on the summary's first line. */
	for (last = strstr(all, "\r\033[Ktracer: "); strstr(last + 1, "\r\033[Ktracer: ");)
		last = strstr(last + 1, "\r\033[Ktracer: ");
	clear = strstr(last + 1, "\r\033[K");
	cr_assert_not_null(clear, "the progress line was never erased:\n%s", all);
	rest = clear + strlen("\r\033[K");
	cr_expect_null(memchr(last, '\n', (size_t)(clear - last)),
		       "a newline ended the progress line before the erase:\n%s", all);
	cr_expect(strlen(rest) > 20, "no summary after the erase:\n%s", all);
	cr_expect_null(strstr(rest, "events/s"), "progress after the summary began:\n%s", all);
	cr_expect_null(strstr(rest, "\r\033[K"), "%s", all);
	free(all);
}

/* Every allocation goes through my_alloc: --skip my_alloc names its callers everywhere the
 * trace writes, the profile records it, `report` applies it, --no-recorded-skip undoes it. */
Test(feedback_e2e, trace_time_skip_recorded_for_report, .timeout = TEST_TIMEOUT(300))
{
	char *dir = e2e_tmpdir("feedback-skip"), cmd[2048], path[1024], *out = NULL, *folded;
	struct dhat_profile *p;
	char err[512];
	int st;

	E2E_REQUIRE_ROOT();
	snprintf(path, sizeof(path), "%s/wrapped.json", dir);
	snprintf(cmd, sizeof(cmd), "%s --skip my_alloc --format folded -o %s -- %s 2>&1",
		 TRACER_BIN, path, WRAPPED_BIN);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 0, "tracer failed (%d):\n%s", st, out);
	cr_expect(strstr(out, "make_names") && strstr(out, "make_tables"), "%s", out);
	cr_expect_null(strstr(out, "my_alloc"), "the summary names the wrapper:\n%s", out);
	free(out);

	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_assert_eq(p->skip.cnt, 1);
	cr_expect_str_eq(p->skip.pat[0], "my_alloc");
	cr_expect(e2e_profile_names(path, "my_alloc"), "the frames themselves are all kept");
	dhat_profile__free(p);

	snprintf(cmd, sizeof(cmd), "%s/wrapped.folded", dir);
	folded = e2e_slurp(cmd);
	cr_expect(strstr(folded, "make_names") && !strstr(folded, "my_alloc"),
		  "the --format file names the wrapper:\n%s", folded);
	free(folded);

	snprintf(cmd, sizeof(cmd), "%s report %s 2>&1", TRACER_BIN, path);
	cr_assert_eq(e2e_run(cmd, &out), 0, "%s", out);
	cr_expect(strstr(out, "make_names") && strstr(out, "make_tables") &&
		  !strstr(out, "my_alloc"), "report does not apply the recorded --skip:\n%s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), "%s report --no-recorded-skip %s 2>&1", TRACER_BIN, path);
	cr_assert_eq(e2e_run(cmd, &out), 0, "%s", out);
	cr_expect(strstr(out, "my_alloc"), "--no-recorded-skip still hides the wrapper:\n%s", out);
	free(out);
}

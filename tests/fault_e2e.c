/*
 * End-to-end fault injection (root + BTF, label bpf). Each case states the behaviour that
 * docs/RELIABILITY.md documents:
 *  - a ring buffer too small for the event rate (--ringbuf-size 4096): drops are counted and
 *    reported, exit 4 (--pid; -- CMD when the command exited 0; a failing command's status
 *    wins), and the profile is still valid;
 *  - --ringbuf-size too small for --unwind dwarf: exit 2 before anything is loaded;
 *  - the target SIGKILLed mid-trace: the tracer ends (--pid: 0; -- CMD: 137), profile valid;
 *  - SIGTERM (and SIGINT for -- CMD) to the tracer: profile valid (--pid: 0; -- CMD: the
 *    command is stopped with SIGTERM and its status 143 comes through); SIGHUP and SIGQUIT
 *    too, and SIGUSR1 and SIGPIPE do not end it;
 *  - a command that ignores SIGTERM and SIGINT: a second signal or --kill-after SIGKILLs
 *    it, exit 137, profile valid; a SIGKILLed tracer's command dies with it (PDEATHSIG);
 *  - the pid exits before attach completes: a clear error (2; 1 if the attach itself
 *    failed) or a valid profile, never a hang or a crash;
 *  - two tracers on one process: both write valid profiles;
 *  - a target that execs another program: traced across the exec, symbolized as the new one;
 *  - the tracer SIGKILLed: none of its BPF programs, links or breakpoints (int3 on libc's
 *    malloc, read through /proc/PID/mem) survive it.
 *
 * Every wait is on something the processes say or show (the tracer's "attached to pid" at
 * -v, a breakpoint byte, a child in /proc), never on how fast this host is.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_timeout.h"
#include "e2e_util.h"

/* Run `exec CMD` in the background with stdout to out_path (or /dev/null), stderr to
 * err_path (or /dev/null). */
static pid_t start_bg(const char *cmd, const char *out_path, const char *err_path)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char sh[4096];

		setpgid(0, 0); /* keep the test's own signals away from it */
		snprintf(sh, sizeof(sh), "exec %s >%s 2>%s", cmd, out_path ? out_path : "/dev/null",
			 err_path ? err_path : "/dev/null");
		execl("/bin/sh", "sh", "-c", sh, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid); /* as the child does: a group the guard knows before it runs */
	e2e_guard_group(pid);
	return pid;
}

/* waitpid with a deadline; on timeout the process is SIGKILLed and false returned. */
static bool wait_for(pid_t pid, int secs, int *status)
{
	for (int i = 0; i < secs * 100; i++) {
		pid_t p = waitpid(pid, status, WNOHANG);

		if (p == pid)
			return true;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return false;
}

static char *slurp(const char *path)
{
	char cmd[1200], *out = NULL;

	snprintf(cmd, sizeof(cmd), "cat %s 2>/dev/null", path);
	e2e_run(cmd, &out);
	return out;
}

/* Start the embedder in the background and wait until every worker has served a request. */
static pid_t start_embedder(const char *dir, const char *extra)
{
	char cmd[2048], ready[1024];
	pid_t pid;

	snprintf(ready, sizeof(ready), "%s/ready", dir);
	/* --seconds: a failed assertion must not leave it running forever. */
	snprintf(cmd, sizeof(cmd), "%s --threads 2 --ready-file %s --seconds 120 %s", EMBEDDER_BIN,
		 ready, extra);
	pid = start_bg(cmd, NULL, NULL);
	for (int i = 0; i < 6000 && access(ready, F_OK); i++)
		usleep(10000);
	cr_assert_eq(access(ready, F_OK), 0, "embedder did not become ready");
	return pid;
}

static void stop(pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

/* Invariants, optional non-emptiness, an optional frame name, and the real dh_view. */
static void check_profile(const char *path, bool nonempty, const char *must_name)
{
	char err[512], cmd[1200], *out = NULL;
	struct dhat_profile *p = dhat_profile__load(path, err, sizeof(err));
	const char *bad;
	bool named = false;

	cr_assert_not_null(p, "%s: %s", path, err);
	bad = e2e_invariants(p);
	cr_assert_null(bad, "%s: %s", path, bad);
	if (nonempty)
		cr_expect_gt(p->total_blocks, 0, "%s: no allocations traced", path);
	for (size_t i = 0; must_name && i < p->ftbl_cnt; i++)
		if (strstr(p->ftbl[i], must_name))
			named = true;
	cr_expect(!must_name || named, "%s: no frame names %s", path, must_name);
	dhat_profile__free(p);
	snprintf(cmd, sizeof(cmd), "python3 %s %s 2>&1", DHVIEW_CHECK, path);
	cr_expect_eq(e2e_run(cmd, &out), 0, "dh_view rejected %s:\n%s", path, out);
	free(out);
}

/* First child of pid (from /proc/PID/task/PID/children), or 0. */
static pid_t first_child(pid_t pid)
{
	char path[128], *txt;
	pid_t c = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	for (int i = 0; i < 6000 && !c; i++) {
		txt = slurp(path);
		c = (pid_t)atoi(txt);
		free(txt);
		if (!c)
			usleep(10000);
	}
	return c;
}

/* Wait until the tracer (run with -v, stderr to log) says its probes are live. */
static void wait_attached(const char *log, pid_t tracer)
{
	cr_assert(e2e_wait_for_text_from(log, "attached to pid", TEST_TIMEOUT(120), tracer),
		  "the tracer never attached:\n%s", e2e_slurp(log));
}

/* Attached, and the embedder (its ready file in dir) served requests since: of three
 * requests finished after this call, one of its two workers served two, the second begun
 * after the call. A profile taken then is not empty on any host. */
static void wait_attached_and_serving(const char *log, const char *dir, pid_t tracer)
{
	char ready[1024];

	wait_attached(log, tracer);
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	cr_assert(e2e_wait_lines(ready, e2e_lines(ready) + 3, TEST_TIMEOUT(60)),
		  "the embedder served no requests");
}

/* How long a killed process may take to die on a slow, loaded host (it needs CPU time to
 * exit): a hang guard, well under the 120 s the test's commands live if nothing kills them. */
#define DEATH_BOUND_S 30
/* A SIGKILLed tracer's tracees get PTRACE_O_EXITKILL's SIGKILL only once the dead tracer's
 * inherited perf events are closed, which takes seconds (RCU grace periods per event). */
#define EXITKILL_BOUND_S 150

/* True once pid is gone (or a zombie nobody reaped yet) within secs. */
static bool gone_within(pid_t pid, int secs)
{
	char path[64], buf[512], *paren;
	bool gone = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < secs * 100 && !gone; i++) {
		f = fopen(path, "re");
		gone = !f || !fgets(buf, sizeof(buf), f) || !(paren = strrchr(buf, ')')) ||
		       paren[2] == 'Z';
		if (f)
			fclose(f);
		if (!gone)
			usleep(10000);
	}
	return gone;
}

/* A tracer run on a command: its profile, -v log and the command's output under dir, named
 * name.json/.log/.out. */
struct traced {
	pid_t tracer, child;
	char path[1024], log[1024], out[1024];
};

/* Start `tracer -v OPTS -o PATH -- WHAT` (WHAT: alloc_spin, maybe under sh) and wait until it
 * has attached to its child and the command printed a rate: it ran, traced from its exec,
 * and allocated. A profile taken then is not empty on any host. */
static void start_traced(struct traced *t, const char *dir, const char *name, const char *opts,
			 const char *what)
{
	char cmd[2048];

	snprintf(t->path, sizeof(t->path), "%s/%s.json", dir, name);
	snprintf(t->log, sizeof(t->log), "%s/%s.log", dir, name);
	snprintf(t->out, sizeof(t->out), "%s/%s.out", dir, name);
	snprintf(cmd, sizeof(cmd), "%s -v %s -o %s -- %s", TRACER_BIN, opts, t->path, what);
	t->tracer = start_bg(cmd, t->out, t->log);
	t->child = first_child(t->tracer);
	cr_assert_gt(t->child, 0, "no traced child");
	wait_attached(t->log, t->tracer);
	cr_assert(e2e_wait_lines(t->out, 1, TEST_TIMEOUT(60)), "the command printed nothing");
}

/* The tracer ended with exit want and a valid, non-empty profile. */
static void expect_ended(const struct traced *t, int want, const char *what)
{
	char *txt;
	int st;

	cr_assert(wait_for(t->tracer, 60, &st), "%s: the tracer hung", what);
	txt = slurp(t->log);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == want, "%s: status %#x, want exit %d:\n%s",
		  what, st, want, txt);
	free(txt);
	check_profile(t->path, true, NULL);
}

/* --- a ring buffer too small for the event rate ---------------------------------------------- */

Test(fault_e2e, tiny_ringbuf_pid_mode_reports_drops_exit_4, .timeout = TEST_TIMEOUT(300))
{
	char *dir, cmd[2048], path[1024], *out = NULL;
	pid_t pid;
	int rc;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("rb-pid");
	pid = start_embedder(dir, "");
	snprintf(path, sizeof(path), "%s/rb.json", dir);
	/* Drops depend on the scheduler: retry (a run without drops must exit 0) until some. */
	for (int attempt = 0; attempt < 4; attempt++) {
		snprintf(cmd, sizeof(cmd), "%s --pid %d --duration %d --ringbuf-size 4096 -o %s 2>&1",
			 TRACER_BIN, (int)pid, 2 + 2 * attempt, path);
		rc = e2e_run(cmd, &out);
		if (rc != 0 || !strstr(out, "dropped 0,"))
			break;
		free(out);
		out = NULL;
	}
	stop(pid);
	cr_expect_eq(rc, 4, "dropped records must give exit 4, got %d:\n%s", rc, out);
	cr_expect(strstr(out, "records dropped (ring buffer full)"), "no drop warning:\n%s", out);
	cr_expect(!strstr(out, "dropped 0,"), "no drops counted:\n%s", out);
	check_profile(path, true, NULL);
	free(out);
	free(dir);
}

/* Fault (#31): mapping records the ring could not take were lost silently (the BPF counter
 * was never read): 37 MB of 40,000 mmaps went missing with "dropped 0" and no "lost". Now
 * each is a dropped record: the warning, exit 4, "lost" in the file, and every mmap is
 * either in the file's mappings or among the dropped. */
Test(fault_e2e, dropped_mapping_records_are_counted, .timeout = TEST_TIMEOUT(300))
{
	char *dir, cmd[2048], path[1024], err[256], *out = NULL;
	struct dhat_profile *p;
	int rc = 0, n = 20000;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("maps-drop");
	snprintf(path, sizeof(path), "%s/m.json", dir);
	/* 64 KiB holds seven 8 KiB mapping records: drops unless the consumer keeps up with
	 * every single mmap (more of them on each retry). */
	for (int attempt = 0; attempt < 3; attempt++, n *= 2) {
		free(out);
		snprintf(cmd, sizeof(cmd),
			 "%s --unwind fp --ringbuf-size 65536 -o %s -- %s %d 2>&1", TRACER_BIN,
			 path, MANY_MAPS_BIN, n);
		rc = e2e_run(cmd, &out);
		if (rc != 0 || !strstr(out, "dropped 0,"))
			break;
	}
	cr_expect_eq(rc, 4, "exit %d:\n%s", rc, out);
	cr_expect(strstr(out, "records dropped (ring buffer full)"), "%s", out);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_expect_gt(p->lost.n[DHAT_LOST_DROPPED], 0, "no dropped records in the file");
	cr_expect_geq(p->mappings.outside_malloc + p->lost.n[DHAT_LOST_DROPPED] * 4096,
		      (uint64_t)n * 4096, "%lu bytes of mappings recorded, %lu dropped, %d mmaps",
		      (unsigned long)p->mappings.outside_malloc,
		      (unsigned long)p->lost.n[DHAT_LOST_DROPPED], n);
	dhat_profile__free(p);
	free(out);
	free(dir);
}

Test(fault_e2e, tiny_ringbuf_command_mode_rule, .timeout = TEST_TIMEOUT(600))
{
	char *dir, cmd[2048], path[1024], *out = NULL;
	bool dropped_once = false;
	int rc;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("rb-cmd");
	/* The command succeeds: with drops its 0 becomes 4, with the warning; without drops
	 * (the consumer kept up this time) it stays 0. Retry with more work until drops occur. */
	for (int attempt = 0; attempt < 4 && !dropped_once; attempt++) {
		bool warned;

		snprintf(path, sizeof(path), "%s/ok%d.json", dir, attempt);
		snprintf(cmd, sizeof(cmd),
			 "%s -q --ringbuf-size 4096 -o %s -- %s --threads 4 --requests %d 2>&1",
			 TRACER_BIN, path, EMBEDDER_BIN, 20 << attempt);
		rc = e2e_run(cmd, &out);
		warned = strstr(out, "records dropped (ring buffer full)") != NULL;
		dropped_once |= warned;
		cr_expect_eq(rc, warned ? 4 : 0, "-- CMD exiting 0 (drops: %d) gave %d:\n%s", warned,
			     rc, out);
		check_profile(path, true, NULL);
		free(out);
	}
	cr_expect(dropped_once, "a 4 KiB ring buffer never dropped a record");

	/* The command fails: its own status wins, drops or not (the warning, if any, stays). */
	snprintf(path, sizeof(path), "%s/fail.json", dir);
	snprintf(cmd, sizeof(cmd),
		 "%s -q --ringbuf-size 4096 -o %s -- %s --threads 4 --requests 40 --exit-code 5 2>&1",
		 TRACER_BIN, path, EMBEDDER_BIN);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 5, "the command's failure status must win, got %d:\n%s", rc, out);
	check_profile(path, true, NULL);
	free(out);
	free(dir);
}

/* A ring too small for dwarf stack copies is a usage error found before anything is loaded:
 * one line, exit 2, no attach failure, and the command never runs. */
Test(fault_e2e, tiny_ringbuf_with_dwarf_is_a_usage_error, .timeout = TEST_TIMEOUT(120))
{
	char *dir, cmd[2048], ran[1024], *out = NULL;
	int rc;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("rb-dwarf");
	snprintf(ran, sizeof(ran), "%s/ran", dir);
	snprintf(cmd, sizeof(cmd),
		 "%s --unwind dwarf --ringbuf-size 4096 -o %s/p.json -- touch %s 2>&1", TRACER_BIN,
		 dir, ran);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 2, "exit %d:\n%s", rc, out);
	cr_expect(strstr(out, "--ringbuf-size 4096 is too small for dwarf"), "%s", out);
	cr_expect(!strstr(out, "cannot attach"), "an attach failure reported:\n%s", out);
	cr_expect(strchr(out, '\n') == strrchr(out, '\n'), "more than one line:\n%s", out);
	cr_expect_neq(access(ran, F_OK), 0, "the command ran");
	free(out);
	free(dir);
}

/* --- the target dies ----------------------------------------------------------------------- */

Test(fault_e2e, target_sigkilled_mid_trace, .timeout = TEST_TIMEOUT(300))
{
	char *dir, cmd[2048], path[1024], log[1024], *txt;
	struct traced t;
	pid_t tracer, target;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("kill9");
	/* -- CMD: the tracer reports the command's death by SIGKILL as 128+9. */
	start_traced(&t, dir, "cmd", "", SPIN_BIN " 120");
	kill(t.child, SIGKILL);
	expect_ended(&t, 128 + SIGKILL, "its command SIGKILLed");

	/* --pid: the tracer notices the exit and writes what it saw, exit 0. */
	snprintf(path, sizeof(path), "%s/pid.json", dir);
	snprintf(log, sizeof(log), "%s/pid.log", dir);
	target = start_embedder(dir, "");
	snprintf(cmd, sizeof(cmd), "%s -v --pid %d -o %s", TRACER_BIN, (int)target, path);
	tracer = start_bg(cmd, NULL, log);
	wait_attached_and_serving(log, dir, tracer);
	stop(target);
	cr_assert(wait_for(tracer, 60, &st), "the tracer hung after its target was killed");
	txt = slurp(log);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d:\n%s", st, txt);
	free(txt);
	check_profile(path, true, NULL);
	free(dir);
}

/* --- the tracer is asked to stop ---------------------------------------------------------------- */

Test(fault_e2e, sigterm_to_the_tracer, .timeout = TEST_TIMEOUT(300))
{
	char *dir, cmd[2048], path[1024], log[1024], *txt;
	struct traced t;
	pid_t tracer, target;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("sigterm");
	/* --pid: like SIGINT, a clean stop with a valid profile and exit 0. */
	target = start_embedder(dir, "");
	snprintf(path, sizeof(path), "%s/pid.json", dir);
	snprintf(log, sizeof(log), "%s/pid.log", dir);
	snprintf(cmd, sizeof(cmd), "%s -v --pid %d -o %s", TRACER_BIN, (int)target, path);
	tracer = start_bg(cmd, NULL, log);
	wait_attached_and_serving(log, dir, tracer);
	kill(tracer, SIGTERM);
	cr_assert(wait_for(tracer, 60, &st), "the tracer hung after SIGTERM");
	stop(target);
	txt = slurp(log);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d after SIGTERM:\n%s", st, txt);
	free(txt);
	check_profile(path, true, "kaish_");

	/* -- CMD: the tracer stops its command with SIGTERM; 128+15 comes through. SIGINT too. */
	for (int i = 0; i < 2; i++) {
		int sig = i ? SIGINT : SIGTERM;

		start_traced(&t, dir, i ? "cmd-int" : "cmd-term", "", SPIN_BIN " 120");
		kill(t.tracer, sig);
		expect_ended(&t, 128 + SIGTERM, i ? "SIGINT" : "SIGTERM");
	}
	free(dir);
}

/* Every signal that can end a session ends the trace with its profile: a closed terminal
 * (SIGHUP), Ctrl-\ (SIGQUIT). SIGUSR1 and SIGPIPE do not end it at all. */
Test(fault_e2e, sighup_and_sigquit_end_the_trace, .timeout = TEST_TIMEOUT(300))
{
	static const int sigs[] = { SIGHUP, SIGQUIT };
	char *dir, name[64];
	struct traced t;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("hup");
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		snprintf(name, sizeof(name), "signal-%d", sigs[i]);
		start_traced(&t, dir, name, "", SPIN_BIN " 120");
		kill(t.tracer, sigs[i]);
		expect_ended(&t, 128 + SIGTERM, name); /* its command got SIGTERM */
	}
	/* SIGUSR1 and SIGPIPE first: the trace goes on, and SIGINT still ends it cleanly. */
	start_traced(&t, dir, "usr1", "", SPIN_BIN " 120");
	kill(t.tracer, SIGUSR1);
	kill(t.tracer, SIGPIPE);
	kill(t.tracer, SIGINT);
	expect_ended(&t, 128 + SIGTERM, "SIGUSR1, SIGPIPE, then SIGINT");
	free(dir);
}

/* A command that ignores SIGTERM and SIGINT: a second signal, or --kill-after, SIGKILLs it;
 * the profile is written and 128+9 comes through. */
#define STUBBORN "sh -c 'trap \"\" TERM INT; exec " SPIN_BIN " 120'"

Test(fault_e2e, stubborn_command_is_killed, .timeout = TEST_TIMEOUT(300))
{
	struct traced t;
	pid_t grandchild;
	char *dir;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("stubborn");
	/* A second SIGINT, once the first one's SIGTERM was sent (a grace no test waits for). */
	start_traced(&t, dir, "twice", "--kill-after 600", STUBBORN);
	kill(t.tracer, SIGINT);
	cr_assert(e2e_wait_for_text(t.log, "SIGTERM", TEST_TIMEOUT(60)), "no SIGTERM sent");
	kill(t.tracer, SIGINT);
	expect_ended(&t, 128 + SIGKILL, "second SIGINT");
	cr_expect(gone_within(t.child, DEATH_BOUND_S), "the command outlived its tracer");

	/* --kill-after 1: one SIGTERM is enough, and what the command started dies with it
	 * (a stubborn process of its own in the background). */
	start_traced(&t, dir, "grace", "--kill-after 1",
		     "sh -c 'trap \"\" TERM INT; " SPIN_BIN " 120 & exec " SPIN_BIN " 120'");
	grandchild = first_child(t.child);
	cr_assert_gt(grandchild, 0, "the command started nothing");
	kill(t.tracer, SIGTERM);
	expect_ended(&t, 128 + SIGKILL, "--kill-after 1");
	cr_expect(gone_within(t.child, DEATH_BOUND_S), "the command outlived its tracer");
	cr_expect(gone_within(grandchild, DEATH_BOUND_S),
		  "what the command started outlived its tracer");
	kill(grandchild, SIGKILL); /* a failed case leaves nothing behind */
	free(dir);
}

/* PR_SET_PDEATHSIG and PTRACE_O_EXITKILL: the tracer SIGKILLed (no profile possible) takes
 * its command along, and what the command started (a process of its own in the background). */
Test(fault_e2e, sigkilled_tracer_takes_its_command_along, .timeout = TEST_TIMEOUT(600))
{
	struct traced t;
	pid_t grandchild;
	char *dir;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("pdeath");
	start_traced(&t, dir, "p", "", "sh -c '" SPIN_BIN " 600 & exec " SPIN_BIN " 600'");
	grandchild = first_child(t.child);
	cr_assert_gt(grandchild, 0, "the command started nothing");
	kill(t.tracer, SIGKILL);
	waitpid(t.tracer, &st, 0);
	/* A bound of its own (above), still far under the 600 s the processes live unkilled. */
	cr_expect(gone_within(t.child, EXITKILL_BOUND_S), "the command %d outlived its SIGKILLed tracer",
		  (int)t.child);
	cr_expect(gone_within(grandchild, EXITKILL_BOUND_S),
		  "%d, started by the command, outlived the tracer",
		  (int)grandchild);
	kill(t.child, SIGKILL); /* a failed case leaves nothing behind */
	kill(grandchild, SIGKILL);
	free(dir);
}

/* A command that ends normally leaves what it started in the background running, no longer
 * traced (not stopped, not killed by the tracer's exit). */
Test(fault_e2e, finished_command_leaves_its_background_running, .timeout = TEST_TIMEOUT(300))
{
	char *dir, cmd[2048], pidf[1024], statf[64], *txt, *status;
	pid_t bg;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("survivor");
	snprintf(pidf, sizeof(pidf), "%s/bg.pid", dir);
	snprintf(cmd, sizeof(cmd), "%s -q -o %s/s.json -- sh -c '%s 120 >/dev/null 2>&1 & echo $! > %s' 2>&1",
		 TRACER_BIN, dir, SPIN_BIN, pidf);
	cr_assert_eq(e2e_run(cmd, &txt), 0, "%s", txt);
	free(txt);
	txt = slurp(pidf);
	bg = (pid_t)atoi(txt);
	free(txt);
	cr_assert_gt(bg, 0, "no background pid in %s", pidf);
	snprintf(statf, sizeof(statf), "/proc/%d/status", (int)bg);
	status = slurp(statf);
	cr_expect(strstr(status, "\nTracerPid:\t0\n"), "still traced:\n%s", status);
	cr_expect(strstr(status, "\nState:\tS") || strstr(status, "\nState:\tR"),
		  "not running:\n%s", status);
	free(status);
	cr_expect_not(gone_within(bg, 1), "the background process died with the tracer");
	kill(bg, SIGKILL);
	snprintf(pidf, sizeof(pidf), "%s/s.json", dir);
	check_profile(pidf, true, NULL);
	free(dir);
}

/* --- races around attaching ---------------------------------------------------------------- */

Test(fault_e2e, pid_exits_before_attach_completes, .timeout = TEST_TIMEOUT(600))
{
	char *dir, cmd[2048], path[1024], *out = NULL;
	int zeros = 0, twos = 0;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("early");
	snprintf(path, sizeof(path), "%s/early.json", dir);
	/* Rounds 0-5: the target lives 0..30 ms, gone before the loader starts (a zombie, or
	 * already reaped); rounds 6-13: 0.25..2 s, dying while the probes are being attached
	 * or just after. */
	for (int i = 0; i < 14; i++) {
		pid_t child = fork();
		int rc, st;

		cr_assert_geq(child, 0);
		if (child == 0) {
			usleep(i < 6 ? (useconds_t)(i % 4) * 10000 : (useconds_t)(i - 5) * 250000);
			_exit(0);
		}
		unlink(path);
		snprintf(cmd, sizeof(cmd), "timeout -s KILL 60 %s -q --pid %d -o %s 2>&1",
			 TRACER_BIN, (int)child, path);
		if (i % 3 == 2)
			waitpid(child, &st, 0); /* already reaped: ESRCH up front */
		rc = e2e_run(cmd, &out);
		if (i % 3 != 2)
			waitpid(child, &st, 0);
		/* 2: gone (before or during the attach). 1: the attach itself failed while the
		 * process lived (seen: uretprobe attach EINVAL under concurrent load), with the
		 * reason. Either way a clear line, no profile; never a hang (timeout: 137). */
		cr_expect(rc == 0 || rc == 1 || rc == 2, "round %d: exit %d (hang or crash):\n%s",
			  i, rc, out);
		if (rc == 1 || rc == 2) {
			twos++;
			cr_expect(strstr(out, "no such process") || strstr(out, "exited before") ||
					  (rc == 1 && strstr(out, "cannot attach to pid")),
				  "round %d: unclear error:\n%s", i, out);
			cr_expect_neq(access(path, F_OK), 0, "round %d: a profile with exit %d", i, rc);
		} else if (rc == 0) {
			zeros++;
			check_profile(path, false, NULL);
		}
		free(out);
	}
	cr_log_info("early exit: %d clean errors, %d (empty) profiles", twos, zeros);
	free(dir);
}

Test(fault_e2e, two_tracers_on_one_process, .timeout = TEST_TIMEOUT(300))
{
	char *dir, cmd[2048], path[2][1024], log[2][1024], *txt;
	pid_t tracer[2], target;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("two");
	target = start_embedder(dir, "");
	for (int i = 0; i < 2; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/t%d.json", dir, i);
		snprintf(log[i], sizeof(log[i]), "%s/t%d.log", dir, i);
		snprintf(cmd, sizeof(cmd), "%s --pid %d --duration 3 -o %s", TRACER_BIN, (int)target,
			 path[i]);
		tracer[i] = start_bg(cmd, NULL, log[i]);
	}
	for (int i = 0; i < 2; i++) {
		cr_assert(wait_for(tracer[i], 120, &st), "tracer %d hung", i);
		txt = slurp(log[i]);
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "tracer %d: status %d:\n%s", i, st,
			  txt);
		free(txt);
	}
	stop(target);
	for (int i = 0; i < 2; i++)
		check_profile(path[i], true, "kaish_kernel_new");
	free(dir);
}

/* --- exec ------------------------------------------------------------------------------------- */

/*
 * An exec closes the old image's profile and opens one for the new image: `-o exec.json`
 * holds the program's (the final image), symbolized from its own maps; sh's, with
 * --all-images, is exec.json.d/exec.<pid>.sh.json. With --no-follow the exec'd image stays
 * in the one profile.
 */
Test(fault_e2e, target_that_execs_is_traced_as_the_new_program, .timeout = TEST_TIMEOUT(300))
{
	char *dir, cmd[2048], path[1024], other[1400] = "", *out = NULL;
	const char *prog = strrchr(EMBEDDER_BIN, '/') + 1;
	size_t profiles = 0;
	struct dirent *de;
	DIR *d;
	int rc;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("exec");
	snprintf(path, sizeof(path), "%s/exec.json", dir);
	snprintf(cmd, sizeof(cmd),
		 "%s -q --all-images -o %s -- sh -c 'exec %s --threads 1 --requests 10 "
		 "--exit-code 6' 2>&1",
		 TRACER_BIN, path, EMBEDDER_BIN);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 6, "the exec'd program's status must come through, got %d:\n%s", rc, out);
	free(out);
	snprintf(other, sizeof(other), "%s/exec.json.d", dir);
	d = opendir(other);
	cr_assert_not_null(d, "no %s", other);
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (n < 5 || strcmp(de->d_name + n - 5, ".json"))
			continue;
		profiles++;
		/* exec.<pid>.sh.json */
		if (!strncmp(de->d_name, "exec.", 5) && isdigit(de->d_name[5]) &&
		    strstr(de->d_name, ".sh.json"))
			snprintf(other, sizeof(other), "%s/exec.json.d/%s", dir, de->d_name);
	}
	closedir(d);
	cr_expect_eq(profiles, 1, "sh's profile beside the program's: %zu files", profiles);
	cr_assert(strstr(other, ".sh.json"), "no exec.<pid>.sh.json in %s/exec.json.d", dir);
	(void)prog;
	check_profile(other, false, NULL);
	cr_expect(!e2e_profile_names(other, "kaish_kernel_new"), "sh's profile holds the program's");
	check_profile(path, true, "kaish_kernel_new");

	/* --no-follow: one profile, the exec'd program's allocations in it. */
	snprintf(path, sizeof(path), "%s/nofollow.json", dir);
	snprintf(cmd, sizeof(cmd),
		 "%s -q --no-follow -o %s -- sh -c 'exec %s --threads 1 --requests 10 --exit-code 6' "
		 "2>&1",
		 TRACER_BIN, path, EMBEDDER_BIN);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 6, "--no-follow: status %d:\n%s", rc, out);
	check_profile(path, true, "kaish_kernel_new");
	free(out);
	free(dir);
}

/* --- the tracer SIGKILLed: nothing left behind ------------------------------------------------- */

/* BPF prog and link ids held by pid's descriptors (fdinfo prog_id / link_id). */
static size_t bpf_ids(pid_t pid, const char *key, unsigned *ids, size_t max)
{
	char dpath[64], fpath[320], line[256];
	size_t n = 0, kl = strlen(key);
	struct dirent *de;
	DIR *d;

	snprintf(dpath, sizeof(dpath), "/proc/%d/fdinfo", (int)pid);
	d = opendir(dpath);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		FILE *f;

		snprintf(fpath, sizeof(fpath), "%s/%s", dpath, de->d_name);
		f = fopen(fpath, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f) && n < max) {
			unsigned id;

			if (!strncmp(line, key, kl) && line[kl] == ':' &&
			    sscanf(line + kl + 1, "%u", &id) == 1) {
				bool dup = false;

				for (size_t i = 0; i < n; i++)
					dup |= ids[i] == id;
				if (!dup)
					ids[n++] = id;
			}
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

/* Median of the last k rates alloc_spin printed. */
static double spin_rate(const char *out_path, int k)
{
	char *txt = slurp(out_path), *save = NULL, *tok;
	double v[4096];
	int n = 0;

	for (tok = strtok_r(txt, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
		if (n == 4096)
			memmove(v, v + 1, sizeof(v[0]) * --n);
		v[n++] = atof(tok);
	}
	free(txt);
	if (n == 0)
		return 0;
	if (k > n)
		k = n;
	double w[4096];

	memcpy(w, v + n - k, sizeof(w[0]) * (size_t)k);
	for (int i = 0; i < k; i++)
		for (int j = i + 1; j < k; j++)
			if (w[j] < w[i]) {
				double t = w[i];
				w[i] = w[j];
				w[j] = t;
			}
	return w[k / 2];
}

static bool bpftool_has(const char *what, unsigned id)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "bpftool %s show id %u >/dev/null 2>&1", what, id);
	return e2e_run(cmd, NULL) == 0;
}

Test(fault_e2e, sigkilled_tracer_leaves_no_probes_behind, .timeout = TEST_TIMEOUT(300))
{
	char *dir, cmd[2048], spin_out[1024], path[1024];
	unsigned progs[256], links[256];
	size_t nprogs = 0, nlinks = 0;
	int orig, traced = -1, after = -1;
	pid_t spin, tracer;
	int st;

	E2E_REQUIRE_ROOT();
	cr_assert_eq(e2e_run("bpftool version >/dev/null 2>&1", NULL), 0, "bpftool is missing");
	dir = e2e_tmpdir("nokeep");
	snprintf(spin_out, sizeof(spin_out), "%s/spin.txt", dir);
	snprintf(path, sizeof(path), "%s/p.json", dir);
	/* A bounded lifetime: a failed assertion below must not leave it spinning. */
	spin = start_bg(SPIN_BIN " 120", spin_out, NULL);
	cr_assert(e2e_wait_for_text(spin_out, "\n", 60), "alloc_spin reports nothing");
	orig = e2e_libc_first_byte(spin, "malloc");
	cr_assert(orig >= 0 && orig != 0xcc, "libc's malloc in alloc_spin: first byte %d", orig);

	snprintf(cmd, sizeof(cmd), "%s -q --pid %d -o %s", TRACER_BIN, (int)spin, path);
	tracer = start_bg(cmd, NULL, NULL);
	/* Attached once its descriptors hold programs and links, and malloc's first instruction
	 * is the uprobe's breakpoint. */
	for (int i = 0; i < 3000 && (!nprogs || !nlinks || traced != 0xcc) && !e2e_exited(tracer);
	     i++) {
		usleep(20000);
		nprogs = bpf_ids(tracer, "prog_id", progs, 256);
		nlinks = bpf_ids(tracer, "link_id", links, 256);
		traced = e2e_libc_first_byte(spin, "malloc");
	}
	cr_assert_gt(nprogs, 0, "the tracer never loaded its programs");
	cr_assert_eq(traced, 0xcc, "no uprobe on malloc while traced (first byte %d)", traced);
	nprogs = bpf_ids(tracer, "prog_id", progs, 256);
	nlinks = bpf_ids(tracer, "link_id", links, 256);
	for (size_t i = 0; i < nprogs; i++)
		cr_assert(bpftool_has("prog", progs[i]), "prog %u not visible to bpftool", progs[i]);

	kill(tracer, SIGKILL);
	waitpid(tracer, &st, 0);
	/* The kernel frees programs and links, and so removes the breakpoints, once their last
	 * reference (fd, link) is gone; allow it a moment (RCU). */
	for (int i = 0; i < 600; i++) {
		bool any = false;

		for (size_t j = 0; j < nprogs; j++)
			any |= bpftool_has("prog", progs[j]);
		for (size_t j = 0; j < nlinks; j++)
			any |= bpftool_has("link", links[j]);
		after = e2e_libc_first_byte(spin, "malloc");
		if (!any && after == orig)
			break;
		usleep(50000);
	}
	for (size_t j = 0; j < nprogs; j++)
		cr_expect(!bpftool_has("prog", progs[j]), "prog id %u survived the tracer", progs[j]);
	for (size_t j = 0; j < nlinks; j++)
		cr_expect(!bpftool_has("link", links[j]), "link id %u survived the tracer", links[j]);
	cr_expect_eq(after, orig, "malloc's first byte is %#x after the tracer died, was %#x: "
		     "a uprobe survived", after, orig);
	/* The target kept running throughout: it still reports. */
	cr_expect_gt(spin_rate(spin_out, 3), 0, "alloc_spin stopped reporting");
	stop(spin);
	cr_log_info("%zu progs, %zu links; malloc's first byte %#x, %#x traced, %#x after", nprogs,
		    nlinks, orig, traced, after);
	free(dir);
}

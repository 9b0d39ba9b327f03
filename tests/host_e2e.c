/*
 * End-to-end: the tracer on any host (root + BTF). A host may have tracefs mounted or not,
 * and a kernel may lack session uprobes or uprobe-multi; each condition is forced here
 * (TRACER_REFUSE, a private mount namespace) so that every attach path runs on this host:
 *  - --pid counts exactly what the target and its forked child allocated, whether tracefs
 *    is reached mounted, as a detached mount or in a private namespace, and the host's
 *    mount table is the same before, during and after;
 *  - with no tracefs at all --pid fails in seconds saying why, --check says so, and
 *    --no-follow still traces;
 *  - kernel features refused one by one count the same;
 *  - a tracer killed with SIGKILL leaves no uprobe events in a mounted tracefs;
 *  - tracer --check, text and JSON.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#include "e2e_util.h"
#include "test_timeout.h"

/* What go_allocs allocates (tests/data/host/go_allocs.c). */
#define PARENT_BLOCKS 150u
#define PARENT_BYTES  (100u * 1000u + 50u * 24u)
#define CHILD_BLOCKS  40u
#define CHILD_BYTES   (40u * 777u)

/* A target waiting for its go file, and the tracer on it. */
struct traced {
	char dir[512], go[600], tlog[600], out[600], profiles[600];
	pid_t target, tracer;
};

/* Start go_allocs in dir; return once it waits for its go file. */
static void start_target(struct traced *t, const char *tag)
{
	char *dir = e2e_tmpdir(tag);

	snprintf(t->dir, sizeof(t->dir), "%s", dir);
	free(dir);
	snprintf(t->go, sizeof(t->go), "%s/go", t->dir);
	snprintf(t->out, sizeof(t->out), "%s/target.out", t->dir);
	snprintf(t->tlog, sizeof(t->tlog), "%s/tracer.log", t->dir);
	snprintf(t->profiles, sizeof(t->profiles), "%s/p-%%p.json", t->dir);
	t->target = fork();
	cr_assert_geq(t->target, 0);
	if (t->target == 0) {
		if (!freopen(t->out, "w", stdout))
			_exit(126);
		execl(GO_ALLOCS_BIN, GO_ALLOCS_BIN, t->go, (char *)NULL);
		_exit(127);
	}
	cr_assert(e2e_wait_for_text_from(t->out, "waiting", 30, t->target),
		  "the target did not start");
}

/* `env ENV tracer -v ARGS -o DIR/p-%p.json`, stderr to the log. */
static pid_t start_tracer(struct traced *t, const char *env, const char *args)
{
	char cmd[2048];
	pid_t pid;

	snprintf(cmd, sizeof(cmd), "exec env %s %s -v %s -o %s >/dev/null 2>%s", env, TRACER_BIN,
		 args, t->profiles, t->tlog);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* waitpid with a bound; false (and the process SIGKILLed) when it did not end in secs. */
static bool wait_bounded(pid_t pid, int secs, int *st)
{
	for (int i = 0; i < secs * 100; i++) {
		if (waitpid(pid, st, WNOHANG) == pid)
			return true;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, st, 0);
	return false;
}

static void touch(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	close(fd);
}

/* Bytes and blocks of the PPs one of whose frames names fn, over every profile. */
struct fn_total {
	const char *fn;
	uint64_t bytes, blocks;
};

static bool add_fn_totals(const char *path, struct dhat_profile *p, void *ctx)
{
	struct fn_total *want = ctx;

	(void)path;
	for (struct fn_total *w = want; w->fn; w++)
		for (size_t i = 0; i < p->pp_cnt; i++)
			for (size_t j = 0; j < p->pps[i].fs_cnt; j++)
				if (strstr(dhat_profile__pp_frame(p, &p->pps[i], j), w->fn)) {
					w->bytes += p->pps[i].tb;
					w->blocks += p->pps[i].tbk;
					break;
				}
	return false;
}

/* The profiles of dir hold exactly what go_allocs allocated (with_child: its child too). */
static void expect_exact(const char *dir, bool with_child, const char *log)
{
	struct fn_total t[] = { { "host_alloc_parent", 0, 0 }, { "host_alloc_child", 0, 0 },
				{ NULL, 0, 0 } };

	e2e_each_profile(dir, add_fn_totals, t, NULL);
	cr_expect_eq(t[0].blocks, PARENT_BLOCKS, "parent blocks %lu:\n%s",
		     (unsigned long)t[0].blocks, log);
	cr_expect_eq(t[0].bytes, PARENT_BYTES, "parent bytes %lu", (unsigned long)t[0].bytes);
	cr_expect_eq(t[1].blocks, with_child ? CHILD_BLOCKS : 0, "child blocks %lu:\n%s",
		     (unsigned long)t[1].blocks, log);
	cr_expect_eq(t[1].bytes, with_child ? CHILD_BYTES : 0, "child bytes %lu",
		     (unsigned long)t[1].bytes);
}

/* --pid with env on a fresh target, released once attached; the tracer ends with it.
 * Returns the tracer's log (malloc'd); the profiles are in t->dir. */
static char *trace_pid(struct traced *t, const char *tag, const char *env, const char *args)
{
	char targs[256], *log;
	int st;

	start_target(t, tag);
	snprintf(targs, sizeof(targs), "--pid %d %s", (int)t->target, args);
	t->tracer = start_tracer(t, env, targs);
	cr_assert(e2e_wait_for_text_from(t->tlog, "attached to pid", TEST_TIMEOUT(60), t->tracer),
		  "%s: the tracer did not attach:\n%s", env, e2e_slurp(t->tlog));
	touch(t->go);
	cr_assert(wait_bounded(t->target, TEST_TIMEOUT(60), &st), "the target hung");
	cr_assert(wait_bounded(t->tracer, TEST_TIMEOUT(60), &st), "the tracer hung");
	log = e2e_slurp(t->tlog);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s tracer --pid: status %#x:\n%s", env,
		  st, log);
	return log;
}

static bool tracefs_mounted_here(void)
{
	struct statfs s;

	return !statfs("/sys/kernel/tracing", &s) && s.f_type == TRACEFS_MAGIC;
}

/* Every path to tracefs: each counts the same, and none changes the mount table. */
Test(host_e2e, pid_counts_exactly_on_every_tracefs_path, .timeout = TEST_TIMEOUT(300))
{
	static const struct {
		const char *env, *says;
	} paths[] = {
		{ "TRACER_REFUSE=", NULL }, /* the host as it is */
		{ "TRACER_REFUSE=tracefs", "tracefs as a detached mount of the tracer's own" },
		{ "TRACER_REFUSE=tracefs,fsmount", "tracefs mounted in a private mount namespace" },
	};

	E2E_REQUIRE_ROOT();
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		char *before = e2e_slurp("/proc/self/mountinfo"), *during, *after, *log;
		struct traced t;
		int st;

		start_target(&t, "host-paths");
		{
			char targs[64];

			snprintf(targs, sizeof(targs), "--pid %d", (int)t.target);
			t.tracer = start_tracer(&t, paths[i].env, targs);
		}
		cr_assert(e2e_wait_for_text_from(t.tlog, "attached to pid", TEST_TIMEOUT(60),
						 t.tracer),
			  "%s: no attach:\n%s", paths[i].env, e2e_slurp(t.tlog));
		during = e2e_slurp("/proc/self/mountinfo");
		touch(t.go);
		cr_assert(wait_bounded(t.target, TEST_TIMEOUT(60), &st), "the target hung");
		cr_assert(wait_bounded(t.tracer, TEST_TIMEOUT(60), &st), "the tracer hung");
		log = e2e_slurp(t.tlog);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %#x:\n%s",
			  paths[i].env, st, log);
		after = e2e_slurp("/proc/self/mountinfo");
		if (paths[i].says)
			cr_expect(strstr(log, paths[i].says), "%s took another path:\n%s",
				  paths[i].env, log);
		else
			cr_expect(strstr(log, tracefs_mounted_here() ? "tracefs mounted at" :
								       "tracefs as a detached"),
				  "the host's own path not taken:\n%s", log);
		cr_expect_str_eq(during, before, "%s: the mount table changed while tracing",
				 paths[i].env);
		cr_expect_str_eq(after, before, "%s: the mount table changed", paths[i].env);
		expect_exact(t.dir, true, log);
		free(before);
		free(during);
		free(after);
		free(log);
	}
}

/* No tracefs at all: --pid fails in seconds saying why, --check agrees, --no-follow works. */
Test(host_e2e, no_tracefs_fails_fast_and_check_says_why, .timeout = TEST_TIMEOUT(300))
{
	const char *env = "TRACER_REFUSE=tracefs,fsmount,privatens";
	char cmd[2048], *out = NULL, *log;
	struct traced t;
	time_t t0;
	int st;

	E2E_REQUIRE_ROOT();
	start_target(&t, "host-none");
	t0 = time(NULL);
	snprintf(cmd, sizeof(cmd), "env %s %s --pid %d -o %s/x.json 2>&1", env, TRACER_BIN,
		 (int)t.target, t.dir);
	st = e2e_run(cmd, &out);
	cr_expect_neq(st, 0, "tracer --pid without tracefs succeeded:\n%s", out);
	cr_expect(strstr(out, "no tracefs"), "no reason given:\n%s", out);
	cr_expect_leq(time(NULL) - t0, 15, "the failed attach took %ld s", (long)(time(NULL) - t0));
	free(out);
	snprintf(cmd, sizeof(cmd), "env %s %s --check --pid %d 2>&1", env, TRACER_BIN,
		 (int)t.target);
	st = e2e_run(cmd, &out);
	cr_expect_eq(st, 1, "--check exit %d:\n%s", st, out);
	cr_expect(strstr(out, "tracefs ") && strstr(out, "limited: no inherited probes"), "%s",
		  out);
	cr_expect(strstr(out, "missing: inherited probes need tracefs"), "%s", out);
	free(out);
	kill(t.target, SIGKILL);
	waitpid(t.target, NULL, 0);

	/* --no-follow needs no tracefs: the target is counted, its child is not followed. */
	log = trace_pid(&t, "host-none-nofollow", env, "--no-follow");
	expect_exact(t.dir, false, log);
	free(log);
}

/* Each kernel feature refused, as an older kernel refuses it: the same counts. */
Test(host_e2e, refused_features_count_the_same, .timeout = TEST_TIMEOUT(300))
{
	static const struct {
		const char *env, *args, *says;
		bool child;
	} cases[] = {
		{ "TRACER_REFUSE=session", "", "as inherited perf events", true },
		{ "TRACER_REFUSE=session", "--no-follow", "as uprobe-multi links (entry and return",
		  false },
		{ "TRACER_REFUSE=multi", "--no-follow", "as one link each", false },
		{ "TRACER_REFUSE=multi", "", "as inherited perf events", true },
	};

	E2E_REQUIRE_ROOT();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct traced t;
		char *log = trace_pid(&t, "host-refused", cases[i].env, cases[i].args);

		cr_expect(strstr(log, cases[i].says), "%s %s: not %s:\n%s", cases[i].env,
			  cases[i].args, cases[i].says, log);
		expect_exact(t.dir, cases[i].child, log);
		free(log);
	}
}

/* The uprobe events of tracer pid in tracefs's uprobe_events. */
static int events_of(pid_t tracer)
{
	char *all = e2e_slurp("/sys/kernel/tracing/uprobe_events"), needle[64];
	int n = 0;

	snprintf(needle, sizeof(needle), ":tracer_%d_", (int)tracer); /* tracer_<pid>_<tag>/eN */
	for (char *p = all; (p = strstr(p, needle)); p++)
		n++;
	free(all);
	return n;
}

/* Processes still running the tracer on pid (the tracer and its carrier). */
static int tracers_on(pid_t target)
{
	char cmd[256], *out = NULL;
	int n;

	snprintf(cmd, sizeof(cmd), "pgrep -c -f -- '^%s -v --pid %d'", TRACER_BIN, (int)target);
	e2e_run(cmd, &out);
	n = atoi(out);
	free(out);
	return n;
}

/* tracefs mounted (in this test's own namespace): a SIGKILLed tracer's events go too. */
Test(host_e2e, sigkilled_tracer_leaves_no_uprobe_events, .timeout = TEST_TIMEOUT(300))
{
	char targs[64];
	struct traced t;
	int st, left = -1, procs = -1;

	E2E_REQUIRE_ROOT();
	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare: %s", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	if (!tracefs_mounted_here())
		cr_assert_eq(mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL), 0,
			     "mount tracefs: %s", strerror(errno));
	start_target(&t, "host-kill");
	snprintf(targs, sizeof(targs), "--pid %d", (int)t.target);
	t.tracer = start_tracer(&t, "TRACER_REFUSE=", targs);
	cr_assert(e2e_wait_for_text_from(t.tlog, "attached to pid", TEST_TIMEOUT(60), t.tracer),
		  "no attach:\n%s", e2e_slurp(t.tlog));
	cr_expect(strstr(e2e_slurp(t.tlog), "tracefs mounted at /sys/kernel/tracing"), "%s",
		  e2e_slurp(t.tlog));
	cr_assert_gt(events_of(t.tracer), 0, "no uprobe events of the tracer while it runs");
	kill(t.tracer, SIGKILL);
	waitpid(t.tracer, &st, 0);
	for (int i = 0; i < 100 && (left = events_of(t.tracer)); i++)
		usleep(100000);
	cr_expect_eq(left, 0, "%d uprobe events of the killed tracer left after 10 s", left);
	for (int i = 0; i < 100 && (procs = tracers_on(t.target)); i++)
		usleep(100000);
	cr_expect_eq(procs, 0, "the tracer's carrier outlived its clean-up");
	touch(t.go);
	cr_assert(wait_bounded(t.target, TEST_TIMEOUT(60), &st), "the target hung");
}

/* tracer --check: every line ends ok or says what is missing; JSON for scripts. */
Test(host_e2e, check_says_what_this_host_has, .timeout = TEST_TIMEOUT(120))
{
	char cmd[512], *out = NULL, *save = NULL;
	cJSON *j, *checks, *c;
	int st, lines = 0;
	bool tracefs_seen = false;

	E2E_REQUIRE_ROOT();
	snprintf(cmd, sizeof(cmd), "%s --check", TRACER_BIN);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 0, "--check exit %d:\n%s", st, out);
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, "  ", 2))
			continue;
		lines++;
		cr_expect(strstr(l, ": ok") == l + strlen(l) - 4 || strstr(l, ": limited: ") ||
				  strstr(l, ": missing: "),
			  "a line with no verdict: %s", l);
	}
	cr_expect_geq(lines, 12, "%d lines", lines);
	free(out);

	snprintf(cmd, sizeof(cmd), "TRACER_REFUSE=multi %s --check --json", TRACER_BIN);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 0, "--check --json exit %d", st);
	j = cJSON_Parse(out);
	cr_assert_not_null(j, "not JSON:\n%s", out);
	cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(j, "canTrace")));
	checks = cJSON_GetObjectItem(j, "checks");
	cr_assert(cJSON_IsArray(checks));
	cJSON_ArrayForEach(c, checks)
	{
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(c, "name"));
		const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(c, "status"));
		const char *found = cJSON_GetStringValue(cJSON_GetObjectItem(c, "found"));

		cr_assert(name && status && found);
		if (!strcmp(name, "uprobe-multi"))
			cr_expect_str_eq(status, "limited", "TRACER_REFUSE=multi: %s", status);
		if (!strcmp(name, "tracefs")) {
			tracefs_seen = true;
			cr_expect_str_eq(status, "ok");
			cr_expect_eq(strstr(found, "mounted at") != NULL, tracefs_mounted_here(),
				     "tracefs: %s", found);
		}
	}
	cr_expect(tracefs_seen);
	cJSON_Delete(j);
	free(out);

	snprintf(cmd, sizeof(cmd), "%s --check --pid 2147483600 2>&1", TRACER_BIN);
	cr_expect_eq(e2e_run(cmd, &out), 1, "no such process: %s", out);
	cr_expect(strstr(out, "missing: no such process"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s --json 2>&1", TRACER_BIN);
	cr_expect_eq(e2e_run(cmd, &out), 2, "--json alone: %s", out);
	free(out);
}

/* Fault (#31): where the mmap probes could not attach, only -v said so, and the file had
 * neither "mappings" nor anything in "lost". TRACER_REFUSE=syscall_tp: as a kernel that
 * refuses the raw syscall tracepoints. */
Test(host_e2e, mmap_tracking_off_is_said_and_recorded, .timeout = TEST_TIMEOUT(120))
{
	char cmd[2048], path[700], err[256], *out = NULL, *dir;
	struct dhat_profile *p;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("host-nomaps");
	for (int off = 0; off < 2; off++) {
		snprintf(path, sizeof(path), "%s/p%d.json", dir, off);
		snprintf(cmd, sizeof(cmd), "touch %s/go && env TRACER_REFUSE=%s %s -o %s -- %s %s/go "
			 "2>&1 >/dev/null", dir, off ? "syscall_tp" : "", TRACER_BIN, path,
			 GO_ALLOCS_BIN, dir);
		cr_assert_eq(e2e_run(cmd, &out), 0, "%s", out);
		cr_expect_eq(strstr(out, "warning: not recording memory mapped outside malloc") != NULL,
			     off, "%s", out);
		p = dhat_profile__load(path, err, sizeof(err));
		cr_assert_not_null(p, "%s", err);
		cr_expect_eq(p->lost.n[DHAT_LOST_NO_MAPPINGS], (uint64_t)off);
		cr_expect_eq(p->has_mappings, !off, "mappings object %d", p->has_mappings);
		dhat_profile__free(p);
		free(out);
	}
	free(dir);
}

/*
 * End-to-end: profiling a long-running service (root + BTF), issue #17's leak hunting.
 *  - --interval on a --pid target that leaks at one site: at least two tables of the
 *    outstanding allocations, naming the leaking function with its stack; the site whose
 *    blocks are freed young is there too;
 *  - --min-age hides that young site and keeps the leak;
 *  - SIGUSR1 to the tracer writes NAME-snapshot-1.json (then -2), which loads, and the trace
 *    goes on to the final profile, which holds more than the snapshot.
 * The target is tests/data/leaks/service.c.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e_util.h"
#include "test_timeout.h"

#define TABLE_HEADER " outstanding in " /* in every --interval table's header line */

/* Start the service and wait until it has made its first allocations. */
static pid_t start_service(const char *dir)
{
	char ready[1024];
	pid_t pid;

	snprintf(ready, sizeof(ready), "%s/ready", dir);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execl(SERVICE_BIN, SERVICE_BIN, ready, "600", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < TEST_TIMEOUT(60) * 100 && access(ready, F_OK); i++)
		usleep(10000);
	cr_assert_eq(access(ready, F_OK), 0, "the service did not start");
	return pid;
}

/* Wait until the service has run two more turns than it had now (a line per turn in its
 * ready file): the second one's allocations came after this call. */
static void wait_turns(const char *ready)
{
	cr_assert(e2e_wait_lines(ready, e2e_lines(ready) + 2, TEST_TIMEOUT(60)),
		  "the service stopped its turns");
}

/* The tracer on pid with extra options (NULL-terminated), its stderr into log: returns once
 * it says it attached. */
static pid_t start_tracer(const char *log, pid_t pid, const char *const extra[])
{
	char pidarg[32];
	const char *argv[24];
	int n = 0;
	pid_t t;

	snprintf(pidarg, sizeof(pidarg), "%d", (int)pid);
	argv[n++] = TRACER_BIN;
	argv[n++] = "-v";
	argv[n++] = "--pid";
	argv[n++] = pidarg;
	for (int i = 0; extra[i] && n < 23; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	t = fork();
	cr_assert_geq(t, 0);
	if (t == 0) {
		if (!freopen(log, "w", stderr) || !freopen("/dev/null", "w", stdout))
			_exit(126);
		execv(TRACER_BIN, (char *const *)argv);
		_exit(127);
	}
	cr_assert(e2e_wait_for_text_from(log, "attached to pid", TEST_TIMEOUT(120), t),
		  "the tracer never attached:\n%s", e2e_slurp(log));
	return t;
}

/* The whole file (malloc'd, "" if unreadable). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t sz = 0;

	if (f) {
		FILE *m = open_memstream(&buf, &sz);
		char chunk[4096];
		size_t n;

		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			fwrite(chunk, 1, n, m);
		fclose(m);
		fclose(f);
	}
	return buf ? buf : strdup("");
}

static int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Wait until the tracer's log holds n tables (what it prints, not a guessed sleep). */
static bool wait_tables(const char *log, int n, int secs)
{
	for (int i = 0; i < secs * 20; i++) {
		char *text = slurp(log);
		int c = count(text, TABLE_HEADER);

		free(text);
		if (c >= n)
			return true;
		usleep(50000);
	}
	return false;
}

/* SIGINT the tracer, then end the service; the tracer must exit 0. */
static void stop_both(pid_t tracer, pid_t service, const char *log)
{
	int st;

	kill(tracer, SIGINT);
	cr_assert_eq(waitpid(tracer, &st, 0), tracer);
	kill(service, SIGKILL);
	waitpid(service, NULL, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		char *text = slurp(log);

		cr_assert_fail("tracer status %d:\n%s", st, text);
	}
}

/* The --interval tables in the log, nothing else (malloc'd): each header line and the
 * indented or empty lines after it (the final report starts with an unindented rule). */
static char *tables_of(const char *text)
{
	char *tables = calloc(1, strlen(text) + 1), *w = tables;
	bool in_table = false;

	cr_assert_not_null(tables);
	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		const char *next = line + len + (line[len] == '\n');

		if (line[0] == '[' && memmem(line, len, TABLE_HEADER, strlen(TABLE_HEADER)))
			in_table = true;
		else if (len && line[0] != ' ')
			in_table = false;
		if (in_table) {
			memcpy(w, line, (size_t)(next - line));
			w += next - line;
		}
		line = next;
	}
	return tables;
}

/* Trace the service with --interval 0.5 (and --min-age min_age unless NULL) until the log
 * holds n tables printed after the service's first traced allocations, then stop. *text: the whole log, the tables alone returned (both
 * malloc'd); path: the final profile. */
static char *trace_tables(const char *tag, const char *min_age, int n, char **text, char *path,
			  size_t sz)
{
	char *dir = e2e_tmpdir(tag), log[1024], ready[1100], *tables, *text_now;
	const char *const opts[] = { "--interval", "0.5", "-o", path,
				     min_age ? "--min-age" : NULL, min_age, NULL };
	pid_t service, tracer;

	snprintf(log, sizeof(log), "%s/tracer.log", dir);
	snprintf(path, sz, "%s/svc.json", dir);
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	service = start_service(dir);
	tracer = start_tracer(log, service, opts);
	/* n tables from a moment the service had allocated since the attach (not n from
	 * the attach: a starved service may not have run by the first ones). */
	wait_turns(ready);
	text_now = slurp(log);
	n += count(text_now, TABLE_HEADER);
	free(text_now);
	cr_assert(wait_tables(log, n, TEST_TIMEOUT(120)), "fewer than %d tables", n);
	stop_both(tracer, service, log);
	*text = slurp(log);
	tables = tables_of(*text);
	cr_expect_geq(count(tables, TABLE_HEADER), n, "%s", *text);
	free(dir);
	return tables;
}

Test(leaks_e2e, interval_tables_name_the_leaking_function, .timeout = TEST_TIMEOUT(300))
{
	char path[1024], *text, *tables;

	E2E_REQUIRE_ROOT();
	tables = trace_tables("leaks-interval", NULL, 3, &text, path, sizeof(path));
	/* A row per program point with its stack down to main, in the report's units. */
	cr_expect(strstr(tables, "allocs  oldest ") != NULL, "%s", text);
	cr_expect_geq(count(tables, "leak_slowly (service.c:"), 2, "%s", text);
	cr_expect(strstr(tables, "        main (service.c:") != NULL, "%s", text);
	cr_expect(strstr(tables, " KiB ") != NULL, "%s", text);
	/* Without --min-age the blocks churn_young frees young are outstanding too. */
	cr_expect(strstr(tables, "churn_young (service.c:") != NULL, "%s", text);
	/* The service's malloc is glibc's: each table says what its arenas hold (issue #34). */
	cr_expect_geq(count(tables, "malloc_trim(0) would return "), 2, "%s", text);
	cr_expect(strstr(tables, " in live blocks;\n") != NULL, "%s", text);
	cr_expect(e2e_profile_names(path, "leak_slowly"), "the final profile");
	free(tables);
	free(text);
}

Test(leaks_e2e, min_age_hides_blocks_freed_young, .timeout = TEST_TIMEOUT(300))
{
	char path[1024], *text, *tables;

	E2E_REQUIRE_ROOT();
	/* Tables are >= 0.5 s apart: the 4th after the first traced leak is >= 1.5 s after it,
	 * so that leak is over 1 s old there. */
	tables = trace_tables("leaks-min-age", "1", 4, &text, path, sizeof(path));
	cr_expect(strstr(tables, "; older than 1 s: ") != NULL, "%s", text);
	cr_expect(strstr(tables, "leak_slowly (service.c:") != NULL, "%s", text);
	/* Its blocks live ~40 ms: none is ever 1 s old. */
	cr_expect_null(strstr(tables, "churn_young"), "%s", text);
	free(tables);
	free(text);
}

Test(leaks_e2e, sigusr1_writes_a_snapshot_and_tracing_goes_on, .timeout = TEST_TIMEOUT(300))
{
	char *dir, log[1024], path[1024], snap[1100], snap2[1100], ready[1100], err[512], cmd[2300],
		*text,
		*out = NULL;
	const char *const opts[] = { "-o", path, NULL };
	struct dhat_profile *s, *p;
	pid_t service, tracer;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("leaks-usr1");
	snprintf(log, sizeof(log), "%s/tracer.log", dir);
	snprintf(path, sizeof(path), "%s/svc.json", dir);
	snprintf(snap, sizeof(snap), "%s/svc-snapshot-1.json", dir);
	snprintf(snap2, sizeof(snap2), "%s/svc-snapshot-2.json", dir);
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	service = start_service(dir);
	tracer = start_tracer(log, service, opts);
	/* Each snapshot only once the service allocated since what came before (the attach,
	 * the first snapshot): a starved service would leave them alike. */
	wait_turns(ready);
	kill(tracer, SIGUSR1);
	cr_assert(e2e_wait_for_text(log, "SIGUSR1: snapshot 1 of pid", TEST_TIMEOUT(60)),
		  "no snapshot written");
	wait_turns(ready);
	kill(tracer, SIGUSR1);
	cr_assert(e2e_wait_for_text(log, "SIGUSR1: snapshot 2 of pid", TEST_TIMEOUT(60)),
		  "no second snapshot written");
	stop_both(tracer, service, log);
	text = slurp(log);
	cr_expect(strstr(text, snap) != NULL, "the log does not name %s:\n%s", snap, text);
	free(text);
	s = dhat_profile__load(snap, err, sizeof(err));
	cr_assert_not_null(s, "%s", err);
	cr_expect_null(e2e_invariants(s), "%s", e2e_invariants(s));
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_expect_null(e2e_invariants(p), "%s", e2e_invariants(p));
	/* The trace went on: the final profile saw more than the first snapshot. */
	cr_expect_gt(p->total_blocks, s->total_blocks, "final %llu, snapshot %llu",
		     (unsigned long long)p->total_blocks, (unsigned long long)s->total_blocks);
	cr_expect_not(s->has_death, "the snapshot was taken alive");
	dhat_profile__free(s);
	dhat_profile__free(p);
	cr_expect(e2e_profile_names(snap2, "leak_slowly"), "%s", snap2);
	cr_expect(e2e_profile_names(path, "leak_slowly"), "%s", path);
	snprintf(cmd, sizeof(cmd), "python3 %s %s 2>&1", DHVIEW_CHECK, snap);
	cr_expect_eq(e2e_run(cmd, &out), 0, "dh_view rejected %s:\n%s", snap, out);
	free(out);
	free(dir);
}

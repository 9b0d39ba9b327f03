/*
 * End-to-end: glibc arena forensics (issue #34; root + BTF). data/arenas/arenas_prog.c
 * fragments the main arena and a thread's arena, pins each top with a 64-byte block, and
 * writes glibc's own figures at a known point (mallinfo2, malloc_info) and the RSS each
 * arena's mapping drops across malloc_trim(0) (in a forked child). The profile's "arenas",
 * taken at that point, must agree:
 *  - main arena: systemBytes within 2% and freeBytes within 5% of malloc_info's heap 0
 *    (fast + rest), its fastBytes within 5% of "fast" and not zero (the program leaves
 *    chunks in a fastbin), topFreeBytes within 5% of keepcost;
 *  - the thread's arena: systemBytes, freeBytes and fastBytes within 10% of its heap's;
 *  - Σ systemBytes within 2% of mallinfo2's arena;
 *  - trimmableBytes within 15% of the measured RSS drop of each arena's mapping;
 *  - the main arena checked against libc's debug info (libc6-dbg), agreeing;
 *  - pinPp at pin_here and pin_thread; the report's "heap vs RSS" section names them;
 *    dh_view still loads the file.
 * Under -- CMD the profile is the end of the run (the arenas measured at the exit stop);
 * under --pid it is written at SIGINT while the program waits.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dhat_reader.h"
#include "e2e_util.h"
#include "test_timeout.h"

/* glibc's answer, from the program's STATS file. */
struct glibc_fig {
	unsigned long long arena, keepcost;
	unsigned long long sys[2], fast[2], rest[2]; /* heap nr 0 (main), 1 (the thread's) */
	unsigned long long main_drop, thread_drop;
	char thread_heap[32];
};

static void read_stats(const char *path, struct glibc_fig *g)
{
	char *text = e2e_slurp(path), *l;
	int heap = -1;

	cr_assert_not_null(text, "no %s", path);
	memset(g, 0, sizeof(*g));
	for (l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long long v;
		int nr;

		if (sscanf(l, "mallinfo2 arena=%llu fordblks=%*u keepcost=%llu", &g->arena,
			   &g->keepcost) == 2)
			continue;
		if (sscanf(l, "main_heap=%*s thread_heap=%31s", g->thread_heap) == 1)
			continue;
		if (sscanf(l, "<heap nr=\"%d\">", &nr) == 1)
			heap = nr < 2 ? nr : -1;
		else if (!strncmp(l, "</heap>", 7))
			heap = -1;
		else if (heap >= 0 && sscanf(l, "<total type=\"fast\" count=\"%*u\" size=\"%llu\"", &v) == 1)
			g->fast[heap] = v;
		else if (heap >= 0 && sscanf(l, "<total type=\"rest\" count=\"%*u\" size=\"%llu\"", &v) == 1)
			g->rest[heap] = v;
		else if (heap >= 0 && sscanf(l, "<system type=\"current\" size=\"%llu\"", &v) == 1)
			g->sys[heap] = v;
		else
			sscanf(l, "trim main_drop=%llu thread_drop=%llu", &g->main_drop, &g->thread_drop);
	}
	free(text);
	cr_assert(g->arena && g->sys[0] && g->sys[1] && g->main_drop && g->thread_drop &&
		  *g->thread_heap, "incomplete stats in %s", path);
}

static void within(const char *what, unsigned long long got, unsigned long long want, double tol)
{
	double d = (double)got - (double)want;

	cr_expect(d <= tol * (double)want && -d <= tol * (double)want,
		  "%s: tracer %llu, glibc %llu (%.2f%%, allowed %.0f%%)", what, got, want,
		  want ? 100.0 * d / (double)want : 0.0, tol * 100);
	cr_log_info("%s: tracer %llu, glibc %llu (%+.2f%%)", what, got, want,
		    want ? 100.0 * d / (double)want : 0.0);
}

static const struct dhat_arena *arena_named(const struct dhat_profile *p, const char *name)
{
	for (size_t i = 0; i < p->arenas.cnt; i++)
		if (!strcmp(p->arenas.v[i].name, name))
			return &p->arenas.v[i];
	return NULL;
}

/* Whether program point pp has a frame naming fn. */
static bool pp_names(const struct dhat_profile *p, int64_t pp, const char *fn)
{
	char *callers;
	bool yes;

	if (pp < 0 || (uint64_t)pp >= p->pp_cnt)
		return false;
	callers = e2e_callers(p, &p->pps[pp]);
	yes = callers && strstr(callers, fn);
	free(callers);
	return yes;
}

static void check_profile(const char *path, const char *stats)
{
	struct glibc_fig g;
	struct dhat_profile *p;
	const struct dhat_arena *m, *t;
	unsigned long long sys = 0;
	char err[512], cmd[2048], *out = NULL;

	read_stats(stats, &g);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_assert(p->has_arenas && p->arenas.cnt >= 2, "%zu arenas in %s", p->arenas.cnt, path);
	m = arena_named(p, "main");
	t = arena_named(p, g.thread_heap);
	cr_assert_not_null(m, "no main arena");
	cr_assert_not_null(t, "no arena %s", g.thread_heap);
	within("main systemBytes", m->system, g.sys[0], 0.02);
	within("main freeBytes", m->free, g.fast[0] + g.rest[0], 0.05);
	within("main fastBytes", m->fast, g.fast[0], 0.05);
	cr_expect(g.fast[0] && m->fast && !m->fast_cut, "main fast: glibc %llu, tracer %llu",
		  g.fast[0], (unsigned long long)m->fast);
	/* the main thread's tcache: at least the 7 48-byte chunks fill_fastbin left there, at
	 * most 7 of each of its 64 sizes (docs/ACCURACY.md) */
	cr_expect(m->has_tcache && m->tcache >= 7 * 48 && m->tcache <= 240128,
		  "main tcacheBytes %llu (found: %d)", (unsigned long long)m->tcache,
		  m->has_tcache);
	cr_log_info("main tcacheBytes: %llu", (unsigned long long)m->tcache);
	within("main topFreeBytes", m->top_free, g.keepcost, 0.05);
	within("main trimmableBytes", m->trimmable, g.main_drop, 0.15);
	within("thread systemBytes", t->system, g.sys[1], 0.10);
	within("thread freeBytes", t->free, g.fast[1] + g.rest[1], 0.10);
	within("thread fastBytes", t->fast, g.fast[1], 0.10);
	cr_expect(g.fast[1] && t->fast && !t->fast_cut, "thread fast: glibc %llu, tracer %llu",
		  g.fast[1], (unsigned long long)t->fast);
	within("thread trimmableBytes", t->trimmable, g.thread_drop, 0.15);
	for (size_t i = 0; i < p->arenas.cnt; i++)
		sys += p->arenas.v[i].system;
	within("sum of systemBytes", sys, g.arena, 0.02);
	cr_expect(pp_names(p, m->pin_pp, "pin_here"), "main pinPp %lld", (long long)m->pin_pp);
	cr_expect(pp_names(p, t->pin_pp, "pin_thread"), "thread pinPp %lld",
		  (long long)t->pin_pp);
	cr_expect_eq(m->pin_bytes, 64);
	/* libc6-dbg is installed here and in CI (deps/debian-packages.txt): the ring's main
	 * arena is checked against main_arena's symbol, and they agree */
	cr_expect_str_eq(p->arenas.main_checked, "debuginfo", "mainArenaChecked");
	dhat_profile__free(p);
	/* dh_view still loads it (where node is installed, as dhat_viewer_unit needs) */
	snprintf(cmd, sizeof(cmd), "command -v node >/dev/null || exit 0; node %s %s 2>&1",
		 DH_VIEW_CHECK, path);
	cr_expect_eq(e2e_run(cmd, &out), 0, "dh_view: %s", out);
	free(out);
	out = NULL;
	snprintf(cmd, sizeof(cmd), "%s report %s 2>&1", TRACER_BIN, path);
	cr_assert_eq(e2e_run(cmd, &out), 0, "%s", out);
	cr_expect(strstr(out, "heap vs RSS at ") != NULL, "%s", out);
	cr_expect(strstr(out, "the main arena's top is pinned by 64 B from pin_here") != NULL,
		  "%s", out);
	cr_expect(strstr(out, "keep_main") != NULL, "no fragmenter named:\n%s", out);
	cr_expect(strstr(out, "free in glibc arenas (measured)") != NULL, "%s", out);
	cr_expect(strstr(out, "free chunks, other anonymous") == NULL, "%s", out);
	free(out);
}

Test(arenas_e2e, cmd_end_of_run_agrees_with_glibc, .timeout = TEST_TIMEOUT(120))
{
	char *dir, cmd[2048], path[1024], stats[1024], *out = NULL;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("arenas-cmd");
	snprintf(path, sizeof(path), "%s/arenas.json", dir);
	snprintf(stats, sizeof(stats), "%s/stats.txt", dir);
	snprintf(cmd, sizeof(cmd), "%s -o %s -- %s %s 2>&1", TRACER_BIN, path, ARENAS_PROG_BIN,
		 stats);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 0, "tracer exited %d:\n%s", st, out);
	cr_expect(strstr(out, "heap vs RSS at exit") != NULL, "%s", out);
	free(out);
	check_profile(path, stats);
	free(dir);
}

Test(arenas_e2e, pid_at_sigint_agrees_with_glibc, .timeout = TEST_TIMEOUT(120))
{
	char *dir, cmd[2048], path[1024], stats[1024], log[1024], tlog[1024], go[1024];
	char hold[1024];
	pid_t prog, tracer;
	int st;
	FILE *f;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("arenas-pid");
	snprintf(path, sizeof(path), "%s/arenas.json", dir);
	snprintf(stats, sizeof(stats), "%s/stats.txt", dir);
	snprintf(log, sizeof(log), "%s/prog.log", dir);
	snprintf(tlog, sizeof(tlog), "%s/tracer.log", dir);
	snprintf(go, sizeof(go), "%s/go", dir);
	snprintf(hold, sizeof(hold), "%s/hold", dir);
	prog = fork();
	cr_assert_geq(prog, 0);
	if (prog == 0) {
		snprintf(cmd, sizeof(cmd), "exec %s %s --wait %s --hold %s > %s 2>&1",
			 ARENAS_PROG_BIN, stats, go, hold, log);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	cr_assert(e2e_wait_for_text(log, "waiting", 30), "the program did not start");
	tracer = fork();
	cr_assert_geq(tracer, 0);
	if (tracer == 0) {
		snprintf(cmd, sizeof(cmd), "exec %s -v --pid %d -o %s > %s 2>&1", TRACER_BIN,
			 (int)prog, path, tlog);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	cr_assert(e2e_wait_for_text_from(tlog, "attached to pid", 60, tracer),
		  "the tracer did not attach:\n%s", e2e_slurp(tlog));
	f = fopen(go, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert(e2e_wait_for_text(stats, "done", 60), "the program did not finish");
	/* the program now waits: the profile is written at SIGINT, the arenas read then */
	kill(tracer, SIGINT);
	cr_assert_eq(waitpid(tracer, &st, 0), tracer);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "tracer --pid: status %#x\n%s", st,
		  e2e_slurp(tlog));
	f = fopen(hold, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_eq(waitpid(prog, &st, 0), prog);
	check_profile(path, stats);
	free(dir);
}

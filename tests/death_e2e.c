/*
 * End-to-end: the heap at the moment of death (issue #19; root + BTF + a memory cgroup).
 *  - a program in a memory cgroup limited to 64 MiB leaks at one site until the OOM killer
 *    ends it: `tracer -- CMD` exits 137, the summary leads with the OOM kill and the
 *    cgroup's limit, the leaking function holds >= 80% of the bytes live at death, the file
 *    records the cause and loads in dh_view;
 *  - the same with --pid, attached before the program starts leaking, and with --cgroup,
 *    the program joining the cgroup after the tracer attached to it;
 *  - a program that dies of SIGSEGV: the signal and the faulting address in the file and
 *    the summary;
 *  - --snapshot-at-rss: exactly one snapshot, when RSS first crossed the size, and the trace
 *    goes on to the death;
 *  - 100 MiB mapped with mmap outside malloc: its own section (human units, exact with
 *    --bytes) and line of the RSS split, attributed to the mapping site, while the DHAT
 *    totals equal Valgrind's;
 *  - memory malloc maps itself (brk growth, a 1 MiB block by mmap): each mapping site's
 *    stack goes past malloc, whose return the allocation probes hijack, to its caller and
 *    main (bpf/mappings.bpf.c puts the hijacked return addresses back in the stack copy).
 * The OOM cases also check the RSS split at death (the kernel's figures at the kill).
 * The cgroup is cgroup v1's memory controller (memory.limit_in_bytes) or v2's (memory.max),
 * whichever this machine has; it is removed at the end.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e_util.h"
#include "test_timeout.h"

/* Every image gets a file, the small ones too: these tests count them (tracee.h). */
#define TRACER_CMD TRACER_BIN " --all-images"

#define LIMIT_BYTES (64ull << 20)
#define LEAK_SITE   "leak_chunk"
#define SEGV_ADDR   "0x1234" /* BAD_ADDR of data/death/segv.c */

/* A memory cgroup with a limit: its directory and the file its processes are written to. */
struct memcg {
	char dir[256];
	char procs[300];
};

static bool write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok;
}

/* Create a child memory cgroup limited to LIMIT_BYTES: v1 where its memory controller is
 * mounted, else v2 (the unified hierarchy at /sys/fs/cgroup with the memory controller). */
static void memcg_create(struct memcg *m, const char *tag)
{
	static const char V1[] = "/sys/fs/cgroup/memory";
	char path[400], limit[32];
	bool v1 = access("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK) == 0;

	snprintf(limit, sizeof(limit), "%llu", LIMIT_BYTES);
	snprintf(m->dir, sizeof(m->dir), "%s/tracer-death-%s-%d", v1 ? V1 : "/sys/fs/cgroup", tag,
		 (int)getpid());
	snprintf(m->procs, sizeof(m->procs), "%s/cgroup.procs", m->dir);
	rmdir(m->dir); /* left by an interrupted run */
	cr_assert(mkdir(m->dir, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", m->dir,
		  strerror(errno));
	e2e_guard_rmdir(m->dir); /* also when the test fails */
	snprintf(path, sizeof(path), "%s/%s", m->dir, v1 ? "memory.limit_in_bytes" : "memory.max");
	cr_assert(write_file(path, limit), "cannot set %s: %s (no memory cgroup controller?)", path,
		  strerror(errno));
	/* No swap to escape to: the limit is reached, not spilled over. */
	snprintf(path, sizeof(path), "%s/%s", m->dir, v1 ? "memory.swappiness" : "memory.swap.max");
	write_file(path, v1 ? "0" : "0");
}

/* Remove the cgroup once its processes are gone (the OOM killer reaps asynchronously). */
static void memcg_remove(const struct memcg *m)
{
	for (int i = 0; i < 500 && rmdir(m->dir) && errno == EBUSY; i++)
		usleep(10000);
}

/* The part of text from the line starting with "==" onwards: the report. */
static void check_oom_summary(const char *out)
{
	const char *lead = strstr(out, "killed by the OOM killer (memory cgroup limit 64.00 MiB): "
				       "live heap ");
	const char *table = lead ? strstr(lead, "top program points by BYTES LIVE AT DEATH") : NULL;
	const char *totals = strstr(out, "total allocations");

	cr_assert_not_null(lead, "the summary does not lead with the OOM kill:\n%s", out);
	cr_expect(strstr(lead, " at death\n") != NULL, "%s", out);
	/* It leads: before the usual tables, with the sites live at death next. */
	cr_assert_not_null(table, "%s", out);
	cr_expect(totals && lead < totals && table < totals, "%s", out);
	cr_expect(strstr(table, LEAK_SITE) != NULL, "%s", out);
	cr_expect(strstr(lead, "  RSS at death: ") != NULL, "no RSS split:\n%s", out);
}

/* The file: cause recorded, te the death, the leak >= 80% of what was live, dh_view loads. */
static void check_oom_file(const char *path)
{
	char err[512], cmd[1024], *out = NULL;
	struct dhat_profile *p = dhat_profile__load(path, err, sizeof(err));
	struct site_total *sites = NULL;
	const struct site_total *leak = NULL;
	size_t n;
	const char *bad;

	cr_assert_not_null(p, "%s", err);
	bad = e2e_invariants(p);
	cr_expect_null(bad, "%s: %s", path, bad);
	cr_assert(p->has_death, "%s: no \"death\" object", path);
	cr_expect_eq(p->death.cause, DHAT_DEATH_OOM);
	cr_expect_eq(p->death.scope, DHAT_OOM_MEMCG);
	cr_expect_eq(p->death.limit, LIMIT_BYTES);
	cr_expect(strstr(p->death.cgroup, "tracer-death-") != NULL, "cgroup \"%s\"",
		  p->death.cgroup);
	/* RSS at the kill: the heap is anonymous memory, and the cgroup holds all of it. */
	cr_expect(p->death.has_rss, "%s: no RSS at death", path);
	cr_expect_geq(p->death.rss.anon, p->end_bytes * 9 / 10, "anon %llu, heap %llu",
		      (unsigned long long)p->death.rss.anon, (unsigned long long)p->end_bytes);
	cr_expect_leq(p->death.rss.anon, LIMIT_BYTES);
	n = e2e_sites(p, &sites);
	for (size_t i = 0; i < n; i++)
		if (strstr(sites[i].site, LEAK_SITE) &&
		    (!leak || sites[i].end_bytes > leak->end_bytes))
			leak = &sites[i];
	cr_assert_not_null(leak, "%s: no site %s", path, LEAK_SITE);
	cr_expect_geq((double)leak->end_bytes, 0.8 * (double)p->end_bytes,
		      "%s holds %llu of %llu bytes live at death", LEAK_SITE,
		      (unsigned long long)leak->end_bytes, (unsigned long long)p->end_bytes);
	/* A 64 MiB limit: the heap at death is most of it. */
	cr_expect_gt(p->end_bytes, LIMIT_BYTES / 2, "live at death: %llu",
		     (unsigned long long)p->end_bytes);
	e2e_sites_free(sites, n);
	dhat_profile__free(p);
	snprintf(cmd, sizeof(cmd), "python3 %s %s 2>&1", DHVIEW_CHECK, path);
	cr_expect_eq(e2e_run(cmd, &out), 0, "dh_view rejected %s:\n%s", path, out);
	free(out);
	/* `tracer report` on the file leads the same way. */
	snprintf(cmd, sizeof(cmd), "%s report %s 2>&1", TRACER_BIN, path);
	cr_expect_eq(e2e_run(cmd, &out), 0, "%s", out);
	check_oom_summary(out);
	free(out);
}

/* `tracer OPTS -o DIR/leak.json -- CMD` with the leak in a fresh memory cgroup (removed
 * after): the shell joins the cgroup, then becomes the program (same pid, traced from exec).
 * The shell's image is leak.json, the program's leak.<pid>.death_oom_leak.json (one profile
 * per image); "@PROFILE@" in prog_opts stands for that profile's path without ".json".
 * Returns the tracer's status; its output in *out, the program's profile in path. */
static int trace_leak_in_memcg(const char *tag, const char *opts, const char *prog_opts, char *path,
			       size_t sz, char **out)
{
	char *dir = e2e_tmpdir(tag), cmd[2048], popts[1024];
	const char *at = strstr(prog_opts, "@PROFILE@");
	struct memcg m;
	int st;

	memcg_create(&m, tag);
	snprintf(path, sz, "%s/leak.json", dir);
	if (at) /* the program, exec'd by the shell, is the final image: -o itself */
		snprintf(popts, sizeof(popts), "%.*s%s/leak%s", (int)(at - prog_opts), prog_opts,
			 dir, at + strlen("@PROFILE@"));
	else
		snprintf(popts, sizeof(popts), "%s", prog_opts);
	snprintf(cmd, sizeof(cmd), "%s %s -o %s -- sh -c 'echo $$ > %s && exec %s %s' 2>&1",
		 TRACER_BIN, opts, path, m.procs, OOM_LEAK_BIN, popts);
	st = e2e_run(cmd, out);
	memcg_remove(&m);
	/* The shell exec'd the program: its final image, in -o (leak.json) itself. */
	free(dir);
	return st;
}

Test(death_e2e, oom_kill_in_a_memory_cgroup_under_cmd, .timeout = TEST_TIMEOUT(120))
{
	char path[1024], *out = NULL;
	int st;

	E2E_REQUIRE_ROOT();
	st = trace_leak_in_memcg("cmd", "", "", path, sizeof(path), &out);
	cr_assert_eq(st, 137, "tracer -- CMD exited %d, not 137 (SIGKILL):\n%s", st, out);
	check_oom_summary(out);
	free(out);
	check_oom_file(path);
}

/* Fault (#31): behind a wrapper that made more calls than the program it exec'd, the
 * closing report showed the wrapper (--report top: most allocations) and never said the
 * program was killed by the OOM killer. Now the report shows the command's final image,
 * and a death of any image is always reported. The shell here makes ~15,000 allocations,
 * the leak ~1,000. */
Test(death_e2e, oom_kill_behind_a_busy_wrapper_is_reported, .timeout = TEST_TIMEOUT(120))
{
	char *dir, cmd[2048], path[1024], *out = NULL;
	struct memcg m;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("death-wrapper");
	memcg_create(&m, "wrapper");
	snprintf(path, sizeof(path), "%s/w.json", dir);
	snprintf(cmd, sizeof(cmd),
		 "%s -o %s -- sh -c 'echo $$ > %s && i=0 && while [ $i -lt 3000 ]; do "
		 "i=$((i+1)); v=\"$v x\"; done && exec %s' 2>&1",
		 TRACER_BIN, path, m.procs, OOM_LEAK_BIN);
	st = e2e_run(cmd, &out);
	memcg_remove(&m);
	cr_assert_eq(st, 137, "tracer -- sh -c ...; exec leak: exit %d:\n%s", st, out);
	check_oom_summary(out);
	free(out);
	free(dir);
}

/* `sh -c 'echo $$ > PROCS && { CMD; } > LOG 2>&1'` in the background. */
static pid_t spawn_in_cgroup(const struct memcg *m, const char *cmd, const char *log)
{
	char line[2048];
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		snprintf(line, sizeof(line), "echo $$ > %s && { %s; } > %s 2>&1", m->procs, cmd, log);
		execl("/bin/sh", "sh", "-c", line, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* `tracer -v TARGET -o path` in the background, its output to tlog; returns once it
 * says it attached. */
static pid_t spawn_tracer(const char *target, const char *path, const char *tlog)
{
	char cmd[2048];
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		snprintf(cmd, sizeof(cmd), "exec %s -v %s -o %s > %s 2>&1", TRACER_BIN, target,
			 path, tlog);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	cr_assert(e2e_wait_for_text_from(tlog, "attached to pid", 60, pid),
		  "the tracer did not attach:\n%s", e2e_slurp(tlog));
	return pid;
}

Test(death_e2e, oom_kill_in_a_memory_cgroup_under_pid, .timeout = TEST_TIMEOUT(120))
{
	char *dir, cmd[2048], path[1024], log[1024], tlog[1024], go[1024], *out = NULL;
	struct memcg m;
	pid_t prog, tracer;
	int st;
	FILE *f;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("death-pid");
	memcg_create(&m, "pid");
	snprintf(path, sizeof(path), "%s/oom.json", dir);
	snprintf(log, sizeof(log), "%s/prog.log", dir);
	snprintf(tlog, sizeof(tlog), "%s/tracer.log", dir);
	snprintf(go, sizeof(go), "%s/go", dir);
	snprintf(cmd, sizeof(cmd), "exec %s --wait %s", OOM_LEAK_BIN, go);
	prog = spawn_in_cgroup(&m, cmd, log);
	cr_assert(e2e_wait_for_text(log, "waiting", 30), "the program did not start");
	snprintf(cmd, sizeof(cmd), "--pid %d", (int)prog);
	tracer = spawn_tracer(cmd, path, tlog);
	f = fopen(go, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_eq(waitpid(prog, &st, 0), prog);
	cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the program was not killed: %#x",
		  st);
	cr_assert_eq(waitpid(tracer, &st, 0), tracer);
	memcg_remove(&m);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "tracer --pid: status %#x", st);
	out = NULL;
	snprintf(cmd, sizeof(cmd), "cat %s", tlog);
	e2e_run(cmd, &out);
	check_oom_summary(out);
	/* no exit stop under --pid: the arenas are gone by the death, and the report says so
	 * rather than printing older figures (docs/OOM.md) */
	cr_expect(strstr(out, "heap vs RSS at death: not measured: the process was gone") != NULL,
		  "%s", out);
	free(out);
	check_oom_file(path);
	out = NULL;
	snprintf(cmd, sizeof(cmd), "grep -c '\"notMeasured\":\"gone\"' %s", path);
	cr_expect_eq(e2e_run(cmd, &out), 0, "no notMeasured in %s: %s", path, out);
	free(out);
	free(dir);
}

/*
 * --cgroup: the tracer attaches to a cgroup holding one idle process; the leak then joins
 * the cgroup (found by the tracer's scan of cgroup.procs) and is OOM-killed. Its profile
 * records the OOM kill like under --pid, the summary leads with it, and the tracer ends
 * (status 0) once the idle process leaves too.
 */
Test(death_e2e, oom_kill_of_a_process_joining_a_cgroup, .timeout = TEST_TIMEOUT(120))
{
	char *dir, cmd[2048], path[1024], tlog[1024], llog[1024], hlog[1024], go[1024];
	char fifo[1024], leak[1024], *out = NULL;
	struct memcg m;
	pid_t holder, prog, tracer;
	glob_t g;
	int st, fd;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("death-cgroup");
	memcg_create(&m, "cgroup");
	snprintf(path, sizeof(path), "%s/cg.json", dir);
	snprintf(tlog, sizeof(tlog), "%s/tracer.log", dir);
	snprintf(llog, sizeof(llog), "%s/leak.log", dir);
	snprintf(hlog, sizeof(hlog), "%s/holder.log", dir);
	snprintf(go, sizeof(go), "%s/go", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo: %s", strerror(errno));
	/* The idle process: a shell blocked reading the fifo (no fork, no allocation). */
	snprintf(cmd, sizeof(cmd), "echo idle; read x < %s", fifo);
	holder = spawn_in_cgroup(&m, cmd, hlog);
	cr_assert(e2e_wait_for_text(hlog, "idle", 30), "the idle process did not start");
	snprintf(cmd, sizeof(cmd), "--cgroup %s", m.dir);
	tracer = spawn_tracer(cmd, path, tlog);
	snprintf(cmd, sizeof(cmd), "exec %s --wait %s", OOM_LEAK_BIN, go);
	prog = spawn_in_cgroup(&m, cmd, llog);
	cr_assert(e2e_wait_for_text(llog, "waiting", 30), "the leak did not start");
	cr_assert(e2e_wait_for_text_from(tlog, "joined the cgroup: tracing it", 30, tracer),
		  "the tracer did not take the new process:\n%s", e2e_slurp(tlog));
	fd = open(go, O_CREAT | O_WRONLY, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(waitpid(prog, &st, 0), prog);
	cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the leak was not killed: %#x", st);
	fd = open(fifo, O_WRONLY); /* the idle process reads a line and exits */
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "\n", 1), 1);
	close(fd);
	cr_assert_eq(waitpid(holder, &st, 0), holder);
	cr_assert_eq(waitpid(tracer, &st, 0), tracer);
	memcg_remove(&m);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "tracer --cgroup: status %#x", st);
	snprintf(cmd, sizeof(cmd), "cat %s", tlog);
	e2e_run(cmd, &out);
	check_oom_summary(out);
	free(out);
	/* The leak's image: in cg.json if it is the first process the tracer opened (the idle
	 * shell, which never allocates, may not be), else in cg.json.d/ (tracee.h). */
	snprintf(cmd, sizeof(cmd), "%s/cg*.json %s/cg.json.d/cg.*.death_oom_leak.json", dir,
		 dir);
	snprintf(leak, sizeof(leak), "%s/cg.json.d/cg.*.death_oom_leak.json", dir);
	if (!glob(leak, 0, NULL, &g) && g.gl_pathc == 1) {
		snprintf(leak, sizeof(leak), "%s", g.gl_pathv[0]);
	} else {
		snprintf(leak, sizeof(leak), "%s/cg.json", dir);
		if (!e2e_profile_names(leak, "death_oom_leak") &&
		    !strstr(e2e_slurp(leak) ?: "", "death_oom_leak")) {
			char ls[1100];

			snprintf(ls, sizeof(ls), "ls -R %s", dir);
			e2e_run(ls, &out);
			cr_assert_fail("the leak's profile is neither in %s; there are:\n%s", cmd,
				       out);
		}
	}
	globfree(&g);
	check_oom_file(leak);
	free(dir);
}

/* The profile of data/death/segv.c: killed by SIGSEGV at SEGV_ADDR, fill()'s pages live. */
static void check_segv_file(const char *path)
{
	char err[512];
	struct dhat_profile *p = dhat_profile__load(path, err, sizeof(err));

	cr_assert_not_null(p, "%s", err);
	cr_assert(p->has_death, "%s: no \"death\" object", path);
	cr_expect_eq(p->death.cause, DHAT_DEATH_SIGNAL);
	cr_expect_eq(p->death.signo, SIGSEGV);
	cr_expect(p->death.has_addr && p->death.addr == strtoull(SEGV_ADDR, NULL, 16),
		  "fault address %#llx", (unsigned long long)p->death.addr);
	/* The 16 pages of fill() are live at death. */
	cr_expect_geq(p->end_bytes, 16 * 4096);
	dhat_profile__free(p);
}

Test(death_e2e, sigsegv_cause_and_faulting_address, .timeout = TEST_TIMEOUT(60))
{
	char *dir, cmd[2048], path[1024], *out = NULL;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("death-segv");
	snprintf(path, sizeof(path), "%s/segv.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -o %s -- %s 2>&1", TRACER_BIN, path, SEGV_BIN);
	st = e2e_run(cmd, &out);
	cr_expect_eq(st, 128 + SIGSEGV, "tracer -- CMD exited %d:\n%s", st, out);
	cr_expect(strstr(out, "killed by SIGSEGV at address " SEGV_ADDR ": live heap ") != NULL,
		  "%s", out);
	free(out);
	check_segv_file(path);
	snprintf(cmd, sizeof(cmd), "grep -c '\"faultAddr\":\"" SEGV_ADDR "\"' %s", path);
	cr_expect_eq(e2e_run(cmd, NULL), 0, "the file does not record the address");
	snprintf(cmd, sizeof(cmd), "python3 %s %s 2>&1", DHVIEW_CHECK, path);
	cr_expect_eq(e2e_run(cmd, &out), 0, "dh_view rejected %s:\n%s", path, out);
	free(out);
	free(dir);
}

/* A process tree: sh forks the program, which dies of SIGSEGV, then exits 3 itself. Each
 * image's profile records its own end: the child's the signal and its address (its exit
 * record comes before its death record and must not close the profile without the cause),
 * sh's its exit status. */
Test(death_e2e, forked_child_death_in_its_own_profile, .timeout = TEST_TIMEOUT(60))
{
	char *dir, cmd[2048], path[1024], err[512], *out = NULL;
	struct dhat_profile *p;
	glob_t g;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("death-tree");
	snprintf(path, sizeof(path), "%s/sh.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -v -o %s -- sh -c '%s; exit 3' 2>&1", TRACER_CMD, path,
		 SEGV_BIN);
	st = e2e_run(cmd, &out);
	cr_expect_eq(st, 3, "tracer -- CMD exited %d:\n%s", st, out);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_expect(p->has_death && p->death.cause == DHAT_DEATH_EXIT && p->death.status == 3,
		  "sh: its exit (status 3) is not recorded: has_death %d cause %d status %d\n%s",
		  p->has_death, (int)p->death.cause, p->death.status, out);
	dhat_profile__free(p);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s/sh.json.d/sh.*.death_segv.json", dir);
	cr_assert(!glob(cmd, 0, NULL, &g) && g.gl_pathc == 1, "no single %s", cmd);
	check_segv_file(g.gl_pathv[0]);
	globfree(&g);
	free(dir);
}

/* The snapshot files in dir ("-snapshot-" in the name): how many, the first one's path. */
static int count_snapshots(const char *dir, char *first, size_t sz)
{
	char cmd[1024], *out = NULL, *nl;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls %s | grep -- -snapshot-", dir);
	e2e_run(cmd, &out);
	for (char *l = out; l && *l; l = nl ? nl + 1 : l + strlen(l)) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (!n++)
			snprintf(first, sz, "%s/%s", dir, l);
	}
	free(out);
	return n;
}

/* --snapshot-at-rss 16M on the leak: one snapshot, written when RSS first reached 16 MiB,
 * smaller than the heap at death; tracing went on to the OOM kill. */
Test(death_e2e, snapshot_at_rss_writes_exactly_one, .timeout = TEST_TIMEOUT(120))
{
	char path[1024], dir[1024], snap[1024], err[512], cmd[1024], *out = NULL;
	struct dhat_profile *p, *s;
	int st;

	E2E_REQUIRE_ROOT();
	/* The leak holds at 24 MiB until the snapshot exists: the threshold is seen on the way
	 * up however slow the host or starved the tracer (a pace of 1 ms per 64 KiB chunk,
	 * --slow, was a guess at how often the tracer samples the RSS). */
	st = trace_leak_in_memcg("snap", "--snapshot-at-rss 16M",
				 "--hold-at 24 @PROFILE@-snapshot-1.json", path, sizeof(path), &out);
	cr_assert_eq(st, 137, "tracer exited %d:\n%s", st, out);
	cr_expect(strstr(out, "reached --snapshot-at-rss") != NULL, "%s", out);
	free(out);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0'; /* the profile's directory */
	cr_assert_eq(count_snapshots(dir, snap, sizeof(snap)), 1, "not exactly one snapshot in %s",
		     dir);
	cr_expect(strstr(snap, "/leak-snapshot-1.json") != NULL, "%s", snap);
	s = dhat_profile__load(snap, err, sizeof(err));
	cr_assert_not_null(s, "%s", err);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_expect_null(e2e_invariants(s), "%s", e2e_invariants(s));
	cr_expect_not(s->has_death, "the snapshot was taken alive");
	cr_expect(p->has_death && p->death.cause == DHAT_DEATH_OOM);
	cr_assert(s->has_rss, "the snapshot has no RSS series");
	cr_expect_geq(s->rss_end.anon + s->rss_end.file + s->rss_end.shmem, 16ull << 20);
	cr_expect_lt(s->end_bytes, p->end_bytes, "the snapshot is not earlier than the death");
	cr_expect_gt(s->end_bytes, 8ull << 20, "the snapshot holds %llu live bytes",
		     (unsigned long long)s->end_bytes);
	dhat_profile__free(s);
	dhat_profile__free(p);
	snprintf(cmd, sizeof(cmd), "python3 %s %s 2>&1", DHVIEW_CHECK, snap);
	cr_expect_eq(e2e_run(cmd, &out), 0, "dh_view rejected %s:\n%s", snap, out);
	free(out);
}

/* 100 MiB mapped with mmap outside malloc: the report's section and the RSS split name
 * map_pool, the file keeps it apart from the heap, whose totals equal Valgrind's DHAT. */
Test(death_e2e, mmap_outside_malloc_is_its_own_section, .timeout = TEST_TIMEOUT(180))
{
	char *dir, cmd[2048], path[1024], vg[1024], err[512], *out = NULL, *split;
	const struct dhat_mapping_site *pool = NULL;
	struct dhat_profile *p, *v;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("death-mmap");
	snprintf(path, sizeof(path), "%s/mm.json", dir);
	snprintf(vg, sizeof(vg), "%s/vg.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -o %s -- %s 2>&1", TRACER_BIN, path, MMAP_PROG_BIN);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 0, "tracer exited %d:\n%s", st, out);
	/* Resident, all of it: "100.00 MiB", or a little less as the kernel's per-CPU RSS counters
	 * lag by a batch of pages ("99.80 MiB"). */
	split = strstr(out, "    mapped outside malloc (if resident): ");
	cr_assert_not_null(split, "%s", out);
	cr_expect_geq(strtod(split + strlen("    mapped outside malloc (if resident): "), NULL),
		      99.5, "%s", out);
	cr_expect(strstr(split, " MiB\n") != NULL, "%s", out);
	cr_expect(strstr(out, "memory mapped outside malloc at exit") != NULL, "%s", out);
	/* In human units as the report's other rows; exact with --bytes. */
	cr_expect(strstr(out, "    100.00 MiB          1 maps    map_pool (") != NULL, "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s report --bytes %s 2>&1", TRACER_BIN, path);
	cr_assert_eq(e2e_run(cmd, &out), 0, "%s", out);
	cr_expect(strstr(out, "104857600 B          1 maps    map_pool (") != NULL, "%s", out);
	free(out);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_assert(p->has_mappings, "no \"mappings\" object");
	for (size_t i = 0; i < p->mappings.cnt; i++)
		if (p->mappings.sites[i].site && strstr(p->mappings.sites[i].site, "map_pool"))
			pool = &p->mappings.sites[i];
	cr_assert_not_null(pool, "no site map_pool");
	cr_expect_eq(pool->bytes, 100ull << 20);
	cr_expect_not(pool->in_malloc);
	cr_expect_geq(p->mappings.outside_malloc, 100ull << 20);
	/* The heap's own figures know nothing of the pool: Valgrind's totals. */
	snprintf(cmd, sizeof(cmd), "valgrind --tool=dhat --dhat-out-file=%s %s >/dev/null 2>&1", vg,
		 MMAP_PROG_BIN);
	cr_assert_eq(e2e_run(cmd, NULL), 0, "valgrind failed");
	v = dhat_profile__load(vg, err, sizeof(err));
	cr_assert_not_null(v, "%s", err);
	cr_expect_eq(p->total_bytes, v->total_bytes, "ours %llu, Valgrind's %llu",
		     (unsigned long long)p->total_bytes, (unsigned long long)v->total_bytes);
	cr_expect_eq(p->total_blocks, v->total_blocks);
	dhat_profile__free(v);
	dhat_profile__free(p);
	snprintf(cmd, sizeof(cmd), "python3 %s %s 2>&1", DHVIEW_CHECK, path);
	cr_expect_eq(e2e_run(cmd, &out), 0, "dh_view rejected %s:\n%s", path, out);
	free(out);
	free(dir);
}

/* The frames of the mapping site of json (a profile's text) whose frames name fn with a
 * frame of __libc_malloc before it: the JSON array's text, owned; NULL if none. */
static char *malloc_site_frames(const char *json, const char *fn)
{
	const char *at = strstr(json, "\"mappings\":{");
	char needle[128];

	snprintf(needle, sizeof(needle), ": %s (", fn);
	while (at && (at = strstr(at, "\"frames\":[")) != NULL) {
		const char *end = strchr(at, ']');
		char *frames = end ? strndup(at, (size_t)(end - at + 1)) : NULL;
		const char *m = frames ? strstr(frames, ": __libc_malloc (") : NULL;

		if (m && strstr(m, needle))
			return frames;
		free(frames);
		at = end;
	}
	return NULL;
}

/* Memory malloc maps for the program (brk and mmap inside malloc, whose return the
 * allocation probes hijack with the uprobe trampoline): the mapping sites' stacks go on
 * past malloc to the function that called it and to main, never ending in the trampoline's
 * page ("0x7FFFFFFFDFFF: ???" before the fix). */
Test(death_e2e, mappings_inside_malloc_reach_its_callers, .timeout = TEST_TIMEOUT(60))
{
	static const char *const CALLERS[] = {"grow_here", "grow_brk_here"};
	char *dir, cmd[2048], path[1024], *out = NULL, *json;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("death-grows");
	snprintf(path, sizeof(path), "%s/grows.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -o %s -- %s 2>&1", TRACER_BIN, path, MALLOC_GROWS_BIN);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 0, "tracer exited %d:\n%s", st, out);
	free(out);
	json = e2e_slurp(path);
	cr_assert_not_null(json, "cannot read %s", path);
	for (size_t i = 0; i < sizeof(CALLERS) / sizeof(*CALLERS); i++) {
		char *frames = malloc_site_frames(json, CALLERS[i]);

		cr_expect_not_null(frames, "no mapping site through malloc reaches %s:\n%s",
				   CALLERS[i], strstr(json, "\"mappings\":") ?: json);
		if (frames)
			cr_expect(strstr(frames, ": main (malloc_grows.c:") != NULL,
				  "%s's mapping site does not reach main: %s", CALLERS[i], frames);
		free(frames);
	}
	/* Every mapping through malloc, glibc's first brk (tcache_init, at main's first malloc)
	 * too: none may stop at malloc. */
	for (const char *at = strstr(json, "\"mappings\":{");
	     at && (at = strstr(at, "\"frames\":[")); at++) {
		const char *end = strchr(at, ']');
		char *frames = end ? strndup(at, (size_t)(end - at + 1)) : NULL;

		cr_assert_not_null(frames);
		if (strstr(frames, ": __libc_malloc ("))
			cr_expect(strstr(frames, ": main (malloc_grows.c:") != NULL,
				  "a mapping site through malloc does not reach main: %s", frames);
		free(frames);
	}
	free(json);
	free(dir);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Process trees end to end (root + BTF: label bpf): every process image of a traced tree
 * gets its own profile, with the counts the program makes alone. The programs are
 * tests/data/tree/tree_node.c: N allocations per step, no stdio.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
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

/* One profile file of a run. */
struct image {
	char path[1200];
	char cmd[1024];
	long pid;
	uint64_t blocks, bytes;
};

#define IMAGES_MAX 32

/* e2e_each_profile: one image more, its DHAT invariants checked; full: stop. */
struct images {
	struct image *img;
	size_t n;
};

static bool add_image(const char *path, struct dhat_profile *p, void *ctx)
{
	struct images *ims = ctx;
	struct image *im = &ims->img[ims->n++];
	const char *bad = e2e_invariants(p);

	cr_expect_null(bad, "%s: %s", path, bad);
	snprintf(im->path, sizeof(im->path), "%s", path);
	snprintf(im->cmd, sizeof(im->cmd), "%s", p->cmd ? p->cmd : "");
	im->pid = (long)p->pid;
	im->blocks = p->total_blocks;
	im->bytes = p->total_bytes;
	return ims->n == IMAGES_MAX;
}

/* Load every *.json of dir (IMAGES_MAX at most), checking the DHAT invariants of each.
 * Returns the count. */
static size_t load_images(const char *dir, struct image *img)
{
	struct images ims = { .img = img };

	e2e_each_profile(dir, add_image, &ims, NULL);
	return ims.n;
}

/* The images whose command line is cmd. */
static size_t count_cmd(const struct image *img, size_t n, const char *cmd,
			const struct image **found)
{
	size_t hits = 0;

	for (size_t i = 0; i < n; i++) {
		if (!strcmp(img[i].cmd, cmd)) {
			hits++;
			*found = &img[i];
		}
	}
	return hits;
}

/* Expect exactly one image running `cmd` with `blocks` allocations. */
static void expect_image(const struct image *img, size_t n, const char *tail, uint64_t blocks)
{
	const struct image *f = NULL;

	cr_assert_eq(count_cmd(img, n, tail, &f), 1, "one image running '%s'", tail);
	cr_expect_eq(f->blocks, blocks, "%s (%s): %llu blocks, the program makes %llu", f->path,
		     f->cmd, (unsigned long long)f->blocks, (unsigned long long)blocks);
}

/* `prog 4` traced alone (--no-follow): its blocks and bytes. */
static void alone(const char *dir, const char *prog, uint64_t *blocks, uint64_t *bytes)
{
	char cmd[2048], path[1200], err[512], *out = NULL;
	struct dhat_profile *p;
	int rc;

	snprintf(path, sizeof(path), "%s/alone.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -q --no-follow -o %s -- %s 4 2>&1", TRACER_BIN, path, prog);
	rc = e2e_run(cmd, &out);
	cr_assert_eq(rc, 0, "alone: %d\n%s", rc, out);
	free(out);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	*blocks = p->total_blocks;
	*bytes = p->total_bytes;
	dhat_profile__free(p);
	unlink(path);
}

/* Exactly one image runs cmd, with the blocks and bytes the program makes alone. */
static const struct image *expect_as_alone(const struct image *img, size_t n, const char *cmd,
					   uint64_t blocks, uint64_t bytes)
{
	const struct image *f = NULL;

	cr_assert_eq(count_cmd(img, n, cmd, &f), 1, "one image running %s", cmd);
	cr_expect_eq(f->blocks, blocks, "%s: %llu blocks, alone %llu", cmd,
		     (unsigned long long)f->blocks, (unsigned long long)blocks);
	cr_expect_eq(f->bytes, bytes, "%s: %llu bytes, alone %llu", cmd,
		     (unsigned long long)f->bytes, (unsigned long long)bytes);
	return f;
}

Test(tree_e2e, shell_running_two_programs, .timeout = TEST_TIMEOUT(300))
{
	char *dir, *out = NULL, cmd[4096], path[1200], tail[1200];
	struct image img[IMAGES_MAX];
	const struct image *f = NULL;
	uint64_t blocks, bytes;
	size_t n;
	int rc;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("tree-sh");
	alone(dir, TREE_NODE_BIN, &blocks, &bytes);
	cr_expect_eq(blocks, 4, "tree_node 4 alone: %llu blocks", (unsigned long long)blocks);
	snprintf(path, sizeof(path), "%s/sh.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -q -o %s -- sh -c '%s 4; %s 9' 2>&1", TRACER_CMD, path,
		 TREE_NODE_BIN, TREE_NODE_BIN);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 0, "tracer: %d\n%s", rc, out);
	free(out);
	n = load_images(dir, img);
	/* sh, and per program: the forked sh and the program it exec'd. */
	cr_expect_eq(n, 5, "%zu profiles", n);
	cr_expect_eq(access(path, F_OK), 0, "the first image (sh) goes to -o");
	snprintf(tail, sizeof(tail), "%s 4", TREE_NODE_BIN);
	f = expect_as_alone(img, n, tail, blocks, bytes);
	cr_expect(e2e_profile_names(f->path, "tree_node_allocs"), "%s: symbolized", f->path);
	snprintf(tail, sizeof(tail), "%s 9", TREE_NODE_BIN);
	expect_image(img, n, tail, 9);
	free(dir);
}

Test(tree_e2e, three_levels_with_an_exec_in_the_middle, .timeout = TEST_TIMEOUT(300))
{
	char *dir, *out = NULL, cmd[4096], path[1200], tail[2048];
	struct image img[IMAGES_MAX];
	const struct image *f = NULL;
	const char *t = TREE_NODE_BIN;
	uint64_t sum = 0;
	size_t n;
	int rc;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("tree-3");
	/* level 1: 3 blocks, forks level 2, which makes 5, execs a program that makes 7 and
	 * forks level 3, which execs one that makes 11. -o with %p: named by pid. */
	snprintf(path, sizeof(path), "%s/t-%%p.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -q -o %s -- %s 3 fork %s 5 exec %s 7 fork %s 11 2>&1",
		 TRACER_CMD, path, t, t, t, t);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 0, "tracer: %d\n%s", rc, out);
	free(out);
	n = load_images(dir, img);
	/* 4 programs, 2 forked images (between fork and exec: no allocation). */
	cr_expect_eq(n, 6, "%zu profiles", n);
	snprintf(tail, sizeof(tail), "%s 3 fork %s 5 exec %s 7 fork %s 11", t, t, t, t);
	cr_expect_eq(count_cmd(img, n, tail, &f), 2, "level 1 and its forked child");
	snprintf(tail, sizeof(tail), "%s 5 exec %s 7 fork %s 11", t, t, t);
	expect_image(img, n, tail, 5);
	snprintf(tail, sizeof(tail), "%s 7 fork %s 11", t, t);
	cr_expect_eq(count_cmd(img, n, tail, &f), 2, "level 2 after its exec, and its child");
	snprintf(tail, sizeof(tail), "%s 11", t);
	expect_image(img, n, tail, 11);
	for (size_t i = 0; i < n; i++) {
		sum += img[i].blocks;
		if (strstr(img[i].path, "/t-") != strrchr(img[i].path, '/'))
			cr_expect_fail("%s: not named after -o", img[i].path);
	}
	/* The level-1 image (3) and level 2 after exec (7) share their command lines with
	 * their forked children (0 each). */
	cr_expect_eq(sum, 3 + 5 + 7 + 11, "%llu blocks in all", (unsigned long long)sum);
	free(dir);
}

/* A child whose allocator is not its parent's: a static executable run by sh is probed in
 * its own file at its exec, and counts what it counts alone. */
Test(tree_e2e, static_child_probed_in_its_own_executable, .timeout = TEST_TIMEOUT(300))
{
	char *dir, *out = NULL, cmd[4096], path[1200], tail[1200];
	struct image img[IMAGES_MAX];
	uint64_t blocks, bytes;
	size_t n;
	int rc;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("tree-static");
	alone(dir, TREE_NODE_STATIC_BIN, &blocks, &bytes);
	/* Static glibc allocates for itself at startup too: at least the program's 4. */
	cr_expect_geq(blocks, 4, "alone: %llu blocks", (unsigned long long)blocks);
	snprintf(path, sizeof(path), "%s/st.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -o %s -- sh -c '%s 4' 2>&1 >/dev/null", TRACER_CMD, path,
		 TREE_NODE_STATIC_BIN);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 0, "tracer: %d\n%s", rc, out);
	cr_expect(strstr(out, "probing its allocator in"), "%s", out);
	free(out);
	n = load_images(dir, img);
	snprintf(tail, sizeof(tail), "%s 4", TREE_NODE_STATIC_BIN);
	expect_as_alone(img, n, tail, blocks, bytes);
	free(dir);
}

Test(tree_e2e, no_follow_traces_the_first_process_only, .timeout = TEST_TIMEOUT(300))
{
	char *dir, *out = NULL, cmd[4096], path[1200];
	struct image img[IMAGES_MAX];
	size_t n;
	int rc;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("tree-nofollow");
	snprintf(path, sizeof(path), "%s/sh.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -q --no-follow -o %s -- sh -c '%s 40; %s 90' 2>&1",
		 TRACER_CMD, path, TREE_NODE_BIN, TREE_NODE_BIN);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 0, "tracer: %d\n%s", rc, out);
	free(out);
	n = load_images(dir, img);
	cr_expect_eq(n, 1, "%zu profiles", n);
	cr_expect(!e2e_profile_names(path, "tree_node_allocs"), "the programs sh ran are in %s",
		  path);
	free(dir);
}

/* The images of one run of the three-level tree in dir, the tracer's -v log in *log. */
static size_t three_levels(const char *dir, const char *env, struct image *img, char **log)
{
	const char *t = TREE_NODE_BIN;
	char cmd[4096];
	int rc;

	snprintf(cmd, sizeof(cmd), "%s %s -v -o %s/t-%%p.json -- %s 3 fork %s 5 exec %s 7 fork %s 11 2>&1",
		 env, TRACER_CMD, dir, t, t, t, t);
	rc = e2e_run(cmd, log);
	cr_assert_eq(rc, 0, "tracer: %d\n%s", rc, *log);
	return load_images(dir, img);
}

/* A spawned tree gets session links per process (each made at the process's birth stop);
 * without session uprobes it falls back to inherited probes. Both see the same images with
 * the same counts. */
Test(tree_e2e, per_process_session_links_match_inherited_probes, .timeout = TEST_TIMEOUT(300))
{
	struct image a[IMAGES_MAX], b[IMAGES_MAX];
	/* The inherited probes asked for, and reached by a refused session (as an older kernel
	 * refuses it: the fallback path itself). */
	const char *env[2] = { "TRACER_NO_SESSION=1", "TRACER_NO_SESSION=refused" };
	char *dir_a, *log_a = NULL;
	size_t na;

	E2E_REQUIRE_ROOT();
	dir_a = e2e_tmpdir("tree-session");
	na = three_levels(dir_a, "TRACER_NO_SESSION=0", a, &log_a);
	cr_expect(strstr(log_a, "as session uprobe-multi links"), "default: session links\n%s",
		  log_a);
	cr_expect_eq(na, 6, "session links: %zu profiles", na);
	for (int k = 0; k < 2; k++) {
		char *dir_b = e2e_tmpdir("tree-inherit"), *log_b = NULL;
		size_t nb = three_levels(dir_b, env[k], b, &log_b);

		cr_expect(strstr(log_b, "as inherited perf events"), "%s: inherited\n%s", env[k],
			  log_b);
		cr_expect(k == 0 || strstr(log_b, "no session uprobe-multi links"),
			  "%s: the refusal is said\n%s", env[k], log_b);
		cr_expect_eq(nb, na, "%s: %zu profiles, session links: %zu", env[k], nb, na);
		for (size_t i = 0; i < na; i++) {
			size_t same = 0;

			for (size_t j = 0; j < nb; j++)
				same += !strcmp(a[i].cmd, b[j].cmd) && a[i].blocks == b[j].blocks &&
					a[i].bytes == b[j].bytes;
			cr_expect_geq(same, 1, "%s: %s (%llu blocks, %llu bytes): no image alike",
				      env[k], a[i].cmd, (unsigned long long)a[i].blocks,
				      (unsigned long long)a[i].bytes);
		}
		free(log_b);
		free(dir_b);
	}
	free(log_a);
	free(dir_a);
}

/* e2e_each_profile: count the profiles running the command with the blocks asked. */
struct count_ctx {
	const char *cmd;
	uint64_t blocks;
	size_t hits;
};

static bool count_runs(const char *path, struct dhat_profile *p, void *ctx)
{
	struct count_ctx *c = ctx;

	(void)path;
	c->hits += p->cmd && !strcmp(p->cmd, c->cmd) && p->total_blocks == c->blocks;
	return false;
}

/* Short-lived children one after another: each is probed from its birth (its links made
 * while it is held, closed once it is reaped), none is missed. */
Test(tree_e2e, forty_children_in_a_row, .timeout = TEST_TIMEOUT(300))
{
	char *dir, *out = NULL, cmd[4096], node[1200];
	size_t hits, all;
	int rc;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("tree-row");
	snprintf(cmd, sizeof(cmd),
		 "%s -q -o %s/row-%%p.json -- sh -c 'i=0; while [ $i -lt 40 ]; do %s 2; "
		 "i=$((i+1)); done' 2>&1",
		 TRACER_CMD, dir, TREE_NODE_BIN);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 0, "tracer: %d\n%s", rc, out);
	free(out);
	snprintf(node, sizeof(node), "%s 2", TREE_NODE_BIN);
	struct count_ctx c = { .cmd = node, .blocks = 2 };

	all = e2e_each_profile(dir, count_runs, &c, NULL);
	hits = c.hits;
	cr_expect_eq(hits, 40, "%zu of 40 children seen with their 2 blocks (%zu profiles)", hits,
		     all);
	free(dir);
}

/* A process started by the test that says "ready", then waits for GO to fork workers. */
static pid_t start_workers(const char *dir, const char *tag, int k, int m, char *go, size_t gosz)
{
	char ready[1200];
	pid_t pid;

	snprintf(ready, sizeof(ready), "%s/%s.ready", dir, tag);
	snprintf(go, gosz, "%s/%s.go", dir, tag);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char ks[16], ms[16];

		snprintf(ks, sizeof(ks), "%d", k);
		snprintf(ms, sizeof(ms), "%d", m);
		execl(TREE_NODE_BIN, TREE_NODE_BIN, "2", "workers", ks, ms, ready, go, (char *)NULL);
		_exit(127);
	}
	cr_assert(e2e_wait_for_text(ready, "ready", 60), "%s never got ready", tag);
	return pid;
}

/* Start the tracer with extra arguments, -v on stderr into log; wait until it attached. */
static pid_t start_tracer(const char *args, const char *log)
{
	char cmd[2048];
	pid_t pid;

	snprintf(cmd, sizeof(cmd), "exec %s -v %s >/dev/null 2>%s", TRACER_CMD, args, log);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	cr_assert(e2e_wait_for_text_from(log, "attached to pid", 60, pid),
		  "the tracer did not attach:\n%s", e2e_slurp(log));
	return pid;
}

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	close(fd);
}

/* Workers' images: those with `m` blocks. */
static size_t with_blocks(const struct image *img, size_t n, uint64_t m)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += img[i].blocks == m;
	return c;
}

Test(tree_e2e, pid_target_forking_workers_after_attach, .timeout = TEST_TIMEOUT(300))
{
	char *dir, args[2048], log[1200], go[1200];
	struct image img[IMAGES_MAX];
	pid_t target, tracer;
	int st;
	size_t n;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("tree-pid");
	target = start_workers(dir, "w", 3, 6, go, sizeof(go));
	snprintf(log, sizeof(log), "%s/tracer.log", dir);
	snprintf(args, sizeof(args), "--pid %d -o %s/p.json", (int)target, dir);
	tracer = start_tracer(args, log);
	touch(go);
	waitpid(target, &st, 0);
	cr_expect(WIFEXITED(st) && !WEXITSTATUS(st), "target status %d", st);
	waitpid(tracer, &st, 0);
	cr_expect(WIFEXITED(st) && !WEXITSTATUS(st), "tracer status %d", st);
	n = load_images(dir, img);
	/* The target (its 2 blocks came before the attach) and its three workers. */
	cr_expect_eq(n, 4, "%zu profiles", n);
	cr_expect_eq(with_blocks(img, n, 6), 3, "three workers of 6 blocks each");
	free(dir);
}

/* A fresh cgroup (v2 if mounted, else v1's memory controller); NULL if neither is. */
static char *make_cgroup(void)
{
	static const char *const roots[] = { "/sys/fs/cgroup/unified", "/sys/fs/cgroup",
					     "/sys/fs/cgroup/memory" };
	char *path = NULL, procs[1200];

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", roots[i]);
		if (access(procs, W_OK))
			continue;
		if (asprintf(&path, "%s/tracer-test-%d", roots[i], (int)getpid()) < 0)
			return NULL;
		if (!mkdir(path, 0755)) {
			e2e_guard_rmdir(path); /* also when the test fails */
			return path;
		}
		free(path);
		path = NULL;
	}
	return NULL;
}

static void move_to_cgroup(const char *cg, pid_t pid)
{
	char procs[1200];
	FILE *f;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	f = fopen(procs, "w");
	cr_assert_not_null(f, "%s: %s", procs, strerror(errno));
	cr_assert_gt(fprintf(f, "%d\n", (int)pid), 0);
	cr_assert_eq(fclose(f), 0, "moving %d into %s: %s", (int)pid, cg, strerror(errno));
}

Test(tree_e2e, cgroup_with_two_processes, .timeout = TEST_TIMEOUT(300))
{
	char *dir, *cg, args[2048], log[1200], go1[1200], go2[1200];
	struct image img[IMAGES_MAX];
	pid_t a, b, tracer;
	int st;
	size_t n;

	E2E_REQUIRE_ROOT();
	cg = make_cgroup();
	cr_assert_not_null(cg, "no writable cgroup hierarchy");
	dir = e2e_tmpdir("tree-cgroup");
	a = start_workers(dir, "a", 1, 7, go1, sizeof(go1));
	b = start_workers(dir, "b", 2, 8, go2, sizeof(go2));
	move_to_cgroup(cg, a);
	move_to_cgroup(cg, b);
	snprintf(log, sizeof(log), "%s/tracer.log", dir);
	snprintf(args, sizeof(args), "--cgroup %s -o %s/cg.json", cg, dir);
	tracer = start_tracer(args, log);
	touch(go1);
	touch(go2);
	waitpid(a, &st, 0);
	waitpid(b, &st, 0);
	/* The cgroup is empty once both are reaped: the tracer ends. */
	waitpid(tracer, &st, 0);
	cr_expect(WIFEXITED(st) && !WEXITSTATUS(st), "tracer status %d", st);
	cr_expect_eq(rmdir(cg), 0, "rmdir %s: %s", cg, strerror(errno));
	n = load_images(dir, img);
	/* Two targets and their three workers. */
	cr_expect_eq(n, 5, "%zu profiles", n);
	cr_expect_eq(with_blocks(img, n, 7), 1, "a's worker: 7 blocks");
	cr_expect_eq(with_blocks(img, n, 8), 2, "b's two workers: 8 blocks each");
	free(cg);
	free(dir);
}

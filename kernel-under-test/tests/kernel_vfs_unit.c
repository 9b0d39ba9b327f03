/* SPDX-License-Identifier: MIT */
/*
 * kernel_vfs_unit.c - the sandbox: paths outside the root live in the in-memory `/` (host files
 * invisible, writes kept in memory); planted symlinks that point out are refused ("path
 * escapes root", exit 2) for reads, writes, listing, cd, mkdir, touch and redirects; rm of
 * a symlink never touches its target; trash; the output limit.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel_harness.h"


static char *outside; /* a directory next to the sandbox, holding "secret" */
static char *root;    /* the sandbox: link -> outside/secret, dlink -> outside, in -> sub */
static kaish_kernel *kern;

static void setup(void)
{
	char path[4096];
	outside = kh_mkfixture(false);
	root = kh_mkfixture(false);
	cr_assert(outside && root);
	cr_assert_eq(kh_write(outside, "secret", "top secret\n"), 0);
	cr_assert_eq(kh_write(root, "f", "inside\n"), 0);
	snprintf(path, sizeof(path), "%s/sub", root);
	mkdir(path, 0755);
	cr_assert_eq(kh_write(root, "sub/g", "deeper\n"), 0);
	char target[4096];
	snprintf(target, sizeof(target), "%s/secret", outside);
	snprintf(path, sizeof(path), "%s/link", root);
	cr_assert_eq(symlink(target, path), 0);
	snprintf(path, sizeof(path), "%s/dlink", root);
	cr_assert_eq(symlink(outside, path), 0);
	snprintf(path, sizeof(path), "%s/in", root);
	cr_assert_eq(symlink("sub", path), 0);
	kern = kh_kernel(root);
	cr_assert_not_null(kern);
}

static void teardown(void)
{
	kaish_kernel_free(kern);
	kh_rmtree(root);
	kh_rmtree(outside);
	free(root);
	free(outside);
}

static void expect_run(const char *script, int code, const char *out, const char *err_sub)
{
	kaish_result r;
	cr_assert_eq(kh_exec(kern, script, &r), KAISH_OK, "%s: %s", script, r.err);
	cr_expect_eq(r.code, code, "%s: code %d (err=%s)", script, r.code, r.err);
	if (out)
		cr_expect_str_eq(r.out, out, "%s: out [%s]", script, r.out);
	if (err_sub)
		cr_expect(strstr(r.err, err_sub) != NULL, "%s: err [%s]", script, r.err);
	kaish_result_free(&r);
}

static void expect_secret_intact(void)
{
	char path[4096], buf[64] = { 0 };
	snprintf(path, sizeof(path), "%s/secret", outside);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "the target outside the sandbox must survive");
	cr_expect_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	cr_expect_str_eq(buf, "top secret\n");
}

TestSuite(sandbox, .init = setup, .fini = teardown);

/* One step of a sandbox script table: run in the suite's kernel, in order. */
struct vcase {
	const char *script;
	int code;
	const char *out;     /* exact, or NULL */
	const char *err_sub; /* substring of err, or NULL */
};

static void run_vcases(const struct vcase *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		expect_run(c[i].script, c[i].code, c[i].out, c[i].err_sub);
}

/* A host path next to the root must not exist. */
static void expect_absent_next_to_root(const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/../%s", root, name);
	cr_expect_neq(access(path, F_OK), 0, "%s was created on the host", path);
}

/*
 * §4.2: paths outside the sandbox land in the in-memory filesystem mounted at `/`. Host
 * files there are invisible, writes can be read back and persist across execute() calls
 * on one kernel, and nothing reaches the host.
 */
static const struct vcase outside_cases[] = {
	{ "cat /etc/passwd", 1, "", "No such file" },
	{ "grep root /etc/passwd", 2, "", "No such file" },
	{ "cat ../../../../../../etc/passwd", 1, "", "No such file" },
	{ "head ../../etc/passwd; ls /etc", 1, "", "No such file" },
	{ "echo hi > /probe.txt && cat /probe.txt", 0, "hi\n", NULL },
	{ "cat /probe.txt; wc -c < /probe.txt", 0, "hi\n3\n", NULL },
	{ "echo a > ../escaped; echo b >> ../escaped; cat ../escaped", 0, "a\nb\n", NULL },
	{ "cat sub/../../escaped", 0, "a\nb\n", NULL },
	{ "sed -i s/a/A/ ../escaped; grep -c A ../escaped", 0, "1\n", NULL },
	{ "echo x > /tmp/kaish-escape-test; cat /tmp/kaish-escape-test", 0, "x\n", NULL },
	{ "mkdir -p /m/n && touch /m/n/o && ls /m/n && test -d /m && echo dir", 0, "o\ndir\n", NULL },
	{ "echo found > /m/n/p; grep -rn found /m", 0, "/m/n/p:1:found\n", NULL },
	{ "echo /m/n/*", 0, "/m/n/o /m/n/p\n", NULL },
	{ "rm /m/n; echo $?; rm -r /m; ls /m", 1, "1\n", "No such file" },
	{ "mkdir /nope/deeper", 1, "", "No such file" },
	{ "rm /tmp", 1, "", "not permitted" },
	{ "ls /", 0, "probe.txt\ntmp\n", NULL },
	{ "rm /probe.txt; cat /probe.txt", 1, "", "No such file" },
	{ "echo ok > /dev/null; cat /dev/null", 0, "", NULL },
	{ "cat /dev/zero", 1, "", "No such file" },
	/* Absolute paths inside the root are the sandbox's files. */
	{ "cat \"$(pwd)/f\"", 0, "inside\n", NULL },
	/* cd into memory and back: the cwd persists across execute(). */
	{ "cd /tmp; pwd; echo t > f; cat /tmp/f", 0, "/tmp\nt\n", NULL },
	{ "cat f; cd ..; pwd", 0, "t\n/\n", NULL },
};

Test(sandbox, outside_paths_are_memory)
{
	run_vcases(outside_cases, sizeof(outside_cases) / sizeof(outside_cases[0]));
	cr_expect_neq(access("/tmp/kaish-escape-test", F_OK), 0, "/tmp is memory, not the host");
	cr_expect_neq(access("/probe.txt", F_OK), 0);
	expect_absent_next_to_root("escaped");
}

/* §4.2: the root's parent directories exist in memory, and `..` from the root is there. */
Test(sandbox, above_the_root)
{
	char script[4200];
	const char *base = strrchr(root, '/') + 1;
	char want[256];
	expect_run("touch ../side; ls ..", 0, NULL, NULL);
	snprintf(want, sizeof(want), "%s\nside\n", base);
	expect_run("ls ..", 0, want, NULL);
	expect_run("cd ..; pwd; cd ..; pwd", 0, "/tmp\n/\n", NULL);
	snprintf(script, sizeof(script), "cd %s; cat f", root);
	expect_run(script, 0, "inside\n", NULL);
	expect_absent_next_to_root("side");
}

/* §4.2 budget: memory writes are bounded by the kernel's vfs budget (StorageFull). */
Test(sandbox, memory_budget)
{
	kaish_config *cfg = kaish_config_agent_with_root(root);
	kaish_config_set_vfs_budget(cfg, 9); /* "1234\n" + "123\n" fit, one byte more does not */
	kaish_kernel *k = kaish_kernel_new(cfg, NULL);
	kaish_config_free(cfg);
	kaish_result r;
	cr_assert_eq(kh_exec(k, "echo 1234 > /a; echo 123 > /b; echo 1 > /c; cat /a /b", &r), KAISH_OK);
	cr_expect_eq(r.code, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "1234\n123\n");
	cr_expect(strstr(r.err, "/c: No space left") != NULL, "%s", r.err);
	kaish_result_free(&r);
	cr_assert_eq(kh_exec(k, "rm /a; echo 1 > /c; cat /c", &r), KAISH_OK);
	cr_expect_str_eq(r.out, "1\n");
	kaish_result_free(&r);
	kaish_kernel_free(k);
}

Test(sandbox, planted_symlinks)
{
	expect_run("cat link", 2, "", "path escapes root");
	expect_run("echo overwritten > link", 2, "", "path escapes root");
	expect_run("echo overwritten >> link", 2, "", "path escapes root");
	expect_run("cat dlink/secret", 2, "", "path escapes root");
	expect_run("ls dlink", 2, "", "path escapes root");
	expect_run("cd dlink", 2, "", "path escapes root");
	expect_run("touch dlink/new", 2, "", "path escapes root");
	expect_run("sed -i s/top/no/ link", 2, "", "path escapes root");
	expect_run("cat < link", 2, "", "path escapes root");
	expect_run("echo dlink/*", 1, "", "no matches");
	/* Walks never follow symlinks. */
	expect_run("grep -r secret .", 1, "", NULL);
	/* A symlink that stays inside is fine. */
	expect_run("cat in/g", 0, "deeper\n", NULL);
	expect_secret_intact();
	char path[4096];
	snprintf(path, sizeof(path), "%s/new", outside);
	cr_expect_neq(access(path, F_OK), 0);
}

Test(sandbox, rm_symlink_never_touches_target)
{
	expect_run("rm link; ls", 0, "dlink\nf\nin\nsub\n", NULL);
	expect_run("rm -r dlink; ls", 0, "f\nin\nsub\n", NULL);
	expect_secret_intact();
	char path[4096];
	snprintf(path, sizeof(path), "%s", outside);
	cr_expect_eq(access(path, F_OK), 0);
	/* The inside link goes; its target stays. */
	expect_run("rm in; ls sub", 0, "g\n", NULL);
	expect_run("rm -rf .", 1, "", NULL);
	expect_run("cat f", 0, "inside\n", NULL);
}

Test(sandbox, trash)
{
	expect_run("set -o trash; echo a > t1; rm t1; ls; ls -a .Trash/files", 0,
		   "dlink\nf\nin\nlink\nsub\nt1\n", NULL);
	expect_run("set -o trash; echo b > t1; rm t1; ls .Trash/files; ls .Trash/info", 0,
		   "t1\nt1.1\nt1.1.trashinfo\nt1.trashinfo\n", NULL);
	expect_run("set -o trash; cat .Trash/files/t1.1; grep -c Path= .Trash/info/t1.trashinfo", 0,
		   "b\n1\n", NULL);
	expect_run("set -o trash; mkdir -p d/e; rm -r d; ls .Trash/files | grep -c '^d$'", 0, "1\n", NULL);
	/* Symlinks are unlinked, never trashed (and never followed). */
	expect_run("set -o trash; rm link; ls .Trash/files | grep -c link", 1, "0\n", NULL);
	expect_secret_intact();
	/* The trash is hidden: walks skip it. */
	expect_run("grep -r b .", 1, "", NULL);
}

Test(sandbox, trash_from_config)
{
	kaish_config *cfg = kaish_config_agent_with_root(root);
	kaish_config_set_trash(cfg, true);
	kaish_kernel *k = kaish_kernel_new(cfg, NULL);
	kaish_config_free(cfg);
	kaish_result r;
	cr_assert_eq(kh_exec(k, "touch z; rm z; ls .Trash/files", &r), KAISH_OK);
	cr_expect_str_eq(r.out, "z\n");
	kaish_result_free(&r);
	kaish_kernel_free(k);
}

Test(sandbox, output_limit)
{
	kaish_result r;
	cr_assert_eq(kh_exec(kern, "seq 1 3000", &r), KAISH_OK);
	cr_expect_eq(r.code, 3);
	cr_expect_eq(r.original_code, 0);
	cr_expect(r.did_spill);
	cr_expect_leq(r.out_len, 1024 + 512 + 100);
	cr_expect(!strncmp(r.out, "1\n2\n3\n", 6));
	cr_expect(r.out_len > 5 && !strcmp(r.out + r.out_len - 5, "3000\n"), "%s", r.out);
	cr_expect(strstr(r.out, "truncated") != NULL);
	kaish_result_free(&r);
	cr_assert_eq(kh_exec(kern, "seq 1 3000 | wc -l", &r), KAISH_OK);
	cr_expect_eq(r.code, 0);
	cr_expect_not(r.did_spill);
	kaish_result_free(&r);

	kaish_config *cfg = kaish_config_agent_with_root(root);
	kaish_config_set_output_limit(cfg, 0);
	kaish_kernel *k = kaish_kernel_new(cfg, NULL);
	kaish_config_free(cfg);
	cr_assert_eq(kh_exec(k, "seq 1 3000", &r), KAISH_OK);
	cr_expect_eq(r.code, 0);
	cr_expect_eq(r.out_len, 13893);
	kaish_result_free(&r);
	kaish_kernel_free(k);
}

Test(sandbox, scatter_worker_limit)
{
	kaish_result r;
	cr_assert_eq(kh_exec(kern, "echo a | scatter | seq 1 3000 | tr , , | gather", &r), KAISH_OK);
	cr_expect_eq(r.code, 123, "a truncated worker is a failed worker (%s)", r.err);
	cr_expect(strstr(r.out, "\"code\":3") != NULL);
	kaish_result_free(&r);
}

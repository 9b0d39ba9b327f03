// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Root safety of the tracer binary against a hostile target (root + BTF, label bpf); see
 * docs/RELIABILITY.md, "Root safety". The unit suite (security_unit.c) proves each rule on
 * the modules; this one proves the binary goes through them, from options to exit status.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e_util.h"
#include "sec_util.h"
#include "test_timeout.h"
#include "test_util.h"

/* Fault: symbol names went raw into the end-of-trace report and `tracer report`. */
Test(security_e2e, escape_sequences_in_symbol_names_are_shown_not_obeyed,
     .timeout = TEST_TIMEOUT(120))
{
	char dir[256], cmd[1024], *out = NULL;
	int rc;

	E2E_REQUIRE_ROOT();
	cr_assert_eq(sec_tmpdir(dir, sizeof(dir), "e2e-esc", 0755), 0);
	snprintf(cmd, sizeof(cmd),
		 "env -u SUDO_UID -u SUDO_GID %s -o %s/p.json -- %s/named_alloc 2>&1", TRACER_BIN,
		 dir, SEC_DIR);
	rc = e2e_run(cmd, &out);
	cr_assert_eq(rc, 0, "%s", out);
	cr_expect(strstr(out, "evil\\x1b]0;pwned\\x07\\x1b[2J"), "name not shown escaped:\n%s",
		  out);
	cr_expect(!sec_has_byte(out, strlen(out), 0x1b), "raw ESC in the end-of-trace report");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s report %s/p.json 2>&1", TRACER_BIN, dir);
	rc = e2e_run(cmd, &out);
	cr_assert_eq(rc, 0, "%s", out);
	cr_expect(strstr(out, "evil\\x1b]0;pwned\\x07\\x1b[2J"), "%s", out);
	cr_expect(!sec_has_byte(out, strlen(out), 0x1b), "raw ESC in tracer report");
	free(out);
	sec_rmtree(dir);
}

/* Fault (#31): the executable's name reached root's terminal raw in the "wrote" lines, the
 * process-image table and the no-allocator warning (a program named "x\e]0;PWNED\a\e[2J"
 * retitled and cleared it; "nl\nfake line" forged an output line), and root made profile
 * files with ESC and newline in their names. A forking target: its child's profile is
 * named after the image. */
Test(security_e2e, target_names_reach_the_terminal_escaped, .timeout = TEST_TIMEOUT(120))
{
	static const char *const names[] = { "x\033]0;PWNED\a\033[2J", "nl\nfake line",
					     "-rf", ".hidden" };
	char dir[256], prog[600], go[300], cmd[2048], *out = NULL, *ls = NULL;
	int rc;

	E2E_REQUIRE_ROOT();
	cr_assert_eq(sec_tmpdir(dir, sizeof(dir), "e2e-names", 0755), 0);
	snprintf(go, sizeof(go), "%s/go", dir);
	cr_assert_eq(sec_copy(GO_ALLOCS_BIN, go, 0644), 0); /* exists: no wait */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(prog, sizeof(prog), "%s/%s", dir, names[i]);
		cr_assert_eq(sec_copy(GO_ALLOCS_BIN, prog, 0755), 0);
		snprintf(cmd, sizeof(cmd), "%s -v -o %s/p-%%p.json -- '%s' %s 2>&1 >/dev/null",
			 TRACER_BIN, dir, prog, go);
		rc = e2e_run(cmd, &out);
		cr_assert_eq(rc, 0, "%s", out);
		cr_expect(!sec_has_byte(out, strlen(out), 0x1b), "raw ESC on the terminal:\n%s",
			  out);
		cr_expect(!sec_has_byte(out, strlen(out), 0x07), "raw BEL on the terminal");
		cr_expect(!strstr(out, "\nfake line"), "a forged line:\n%s", out);
		cr_expect(strstr(out, "wrote "), "%s", out);
		free(out);
	}
	/* The children's profiles: named after their images, with safe characters only. */
	snprintf(cmd, sizeof(cmd), "ls %s | grep '^p-'", dir);
	e2e_run(cmd, &ls);
	cr_expect(!sec_has_byte(ls, strlen(ls), 0x1b), "ESC in a file name:\n%s", ls);
	cr_expect(strstr(ls, ".x__0_PWNED___2J.json"), "%s", ls);
	cr_expect(strstr(ls, ".nl_fake_line.json"), "%s", ls);
	cr_expect(strstr(ls, "._rf.json") && strstr(ls, "._hidden.json"), "%s", ls);
	free(ls);
	sec_rmtree(dir);
}

static bool sum_blocks(const char *path, struct dhat_profile *p, void *ctx)
{
	(void)path;
	*(uint64_t *)ctx += p->total_blocks;
	return false;
}

/* Fault (#31): an executable with corrupt section headers runs (the kernel and ld.so read
 * program headers only), but the tracer found no allocator in its scope without --lib.
 * Its DT_NEEDED are now read through PT_DYNAMIC. e_shoff past the end, e_shnum 37. */
Test(security_e2e, corrupt_section_headers_still_traced, .timeout = TEST_TIMEOUT(120))
{
	char dir[256], prog[300], go[300], cmd[1024], *out = NULL;
	uint64_t shoff = 0xdeadbeef, blocks;
	uint16_t shnum = 37;
	int fd, rc;

	E2E_REQUIRE_ROOT();
	cr_assert_eq(sec_tmpdir(dir, sizeof(dir), "e2e-shdr", 0755), 0);
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(go, sizeof(go), "%s/go", dir);
	cr_assert_eq(sec_copy(GO_ALLOCS_BIN, prog, 0755), 0);
	cr_assert_eq(sec_copy(GO_ALLOCS_BIN, go, 0644), 0); /* exists: no wait */
	fd = open(prog, O_WRONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, &shoff, sizeof(shoff), 0x28), (ssize_t)sizeof(shoff));
	cr_assert_eq(pwrite(fd, &shnum, sizeof(shnum), 0x3c), (ssize_t)sizeof(shnum));
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s %s >/dev/null 2>&1", prog, go);
	cr_assert_eq(e2e_run(cmd, NULL), 0, "control: the corrupted executable does not run");
	snprintf(cmd, sizeof(cmd), "%s -o %s/p-%%p.json -- %s %s 2>&1 >/dev/null", TRACER_BIN,
		 dir, prog, go);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 0, "%s", out);
	cr_expect(!strstr(out, "no object of its scope"), "%s", out);
	free(out);
	/* Its 150 blocks and its child's 40 (named as addresses: no symbols without
	 * section headers). */
	blocks = 0;
	e2e_each_profile(dir, sum_blocks, &blocks, NULL);
	cr_expect_geq(blocks, 190, "%llu blocks traced", (unsigned long long)blocks);
	sec_rmtree(dir);
}

/* Found in round three (#31): --pid on a process whose executable was removed since it
 * started (an upgrade under a running service) failed: "its executable /x (deleted) is not
 * among its mapped files". Deleted objects are now read through /proc/PID/map_files. */
Test(security_e2e, deleted_executable_is_traced_by_pid, .timeout = TEST_TIMEOUT(120))
{
	char dir[256], prog[300], go[300], out_path[300], log[300], pidarg[32];
	pid_t target, tracer;
	char *log_text;
	int st;

	E2E_REQUIRE_ROOT();
	cr_assert_eq(sec_tmpdir(dir, sizeof(dir), "e2e-deleted", 0755), 0);
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(go, sizeof(go), "%s/go", dir);
	snprintf(out_path, sizeof(out_path), "%s/target.out", dir);
	snprintf(log, sizeof(log), "%s/tracer.log", dir);
	cr_assert_eq(sec_copy(GO_ALLOCS_BIN, prog, 0755), 0);
	target = fork();
	cr_assert_geq(target, 0);
	if (target == 0) {
		if (!freopen(out_path, "w", stdout))
			_exit(126);
		execl(prog, prog, go, (char *)NULL);
		_exit(127);
	}
	cr_assert(e2e_wait_for_text_from(out_path, "waiting", 30, target));
	cr_assert_eq(unlink(prog), 0);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)target);
	tracer = fork();
	cr_assert_geq(tracer, 0);
	if (tracer == 0) {
		if (!freopen(log, "w", stderr) || !freopen("/dev/null", "w", stdout))
			_exit(126);
		execl(TRACER_BIN, TRACER_BIN, "-v", "--pid", pidarg, "-o", out_path, (char *)NULL);
		_exit(127);
	}
	cr_assert(e2e_wait_for_text_from(log, "attached to pid", 60, tracer),
		  "no attach:\n%s", e2e_slurp(log));
	cr_assert_eq(sec_copy(GO_ALLOCS_BIN, go, 0644), 0); /* the go file */
	cr_assert_eq(waitpid(target, &st, 0), target);
	cr_assert_eq(waitpid(tracer, &st, 0), tracer);
	log_text = e2e_slurp(log);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "tracer: %#x\n%s", st, log_text);
	cr_expect(strstr(log_text, "host_alloc_parent (go_allocs.c:"), "%s", log_text);
	free(log_text);
	sec_rmtree(dir);
}

/* Fault: a stripped target whose .gnu_debuglink names a FIFO hung the tracer after the
 * target exited; only SIGINT ended it. The guard here is the test's own timeout. */
Test(security_e2e, fifo_debuglink_does_not_hang_the_trace, .timeout = TEST_TIMEOUT(120))
{
	char dir[256], prog[300], fifo[300], cmd[1024], path[300], *out = NULL;
	struct stat st;
	int rc;

	E2E_REQUIRE_ROOT();
	cr_assert_eq(sec_tmpdir(dir, sizeof(dir), "e2e-fifo", 0755), 0);
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	cr_assert_eq(sec_copy(SEC_DIR "/named_alloc_linked", prog, 0755), 0);
	snprintf(fifo, sizeof(fifo), "%s/named_alloc.debug", dir);
	cr_assert_eq(mkfifo(fifo, 0644), 0);
	snprintf(path, sizeof(path), "%s/p.json", dir);
	snprintf(cmd, sizeof(cmd), "env -u SUDO_UID -u SUDO_GID %s -q -o %s -- %s 2>&1", TRACER_BIN,
		 path, prog);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 0, "%s", out);
	cr_expect_eq(stat(path, &st), 0, "no profile: %s", out);
	free(out);
	sec_rmtree(dir);
}

/* Fault: `-- ./fifo` blocked forever (the tracer read the "executable" before exec). */
Test(security_e2e, fifo_command_is_refused, .timeout = TEST_TIMEOUT(60))
{
	char dir[256], fifo[300], cmd[1024], *out = NULL;
	int rc;

	E2E_REQUIRE_ROOT();
	cr_assert_eq(sec_tmpdir(dir, sizeof(dir), "e2e-fifocmd", 0755), 0);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0755), 0);
	snprintf(cmd, sizeof(cmd), "%s -q -o %s/p.json -- %s 2>&1", TRACER_BIN, dir, fifo);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 2, "%s", out);
	cr_expect(strstr(out, "not a regular file"), "%s", out);
	free(out);
	sec_rmtree(dir);
}

/* Faults: under sudo, -o naming a root-owned file replaced it and handed it to the user;
 * a symlinked directory in -o was followed. Both are now refused before the target runs. */
Test(security_e2e, output_paths_are_checked_before_tracing, .timeout = TEST_TIMEOUT(120))
{
	char dir[256], victim[300], vault[300], link[300], cmd[2048], *out = NULL, *text;
	struct stat st;
	int rc;

	E2E_REQUIRE_ROOT();
	cr_assert_eq(sec_tmpdir(dir, sizeof(dir), "e2e-out", 01777), 0);
	snprintf(victim, sizeof(victim), "%s/passwd", dir);
	cr_assert_eq(tu_spit(victim, "root:x:0:0\n", 11), 0);
	/* The command would leave a mark if it ran: it must not. */
	snprintf(cmd, sizeof(cmd), "SUDO_UID=65534 SUDO_GID=65534 %s -q -o %s -- touch %s/ran 2>&1",
		 TRACER_BIN, victim, dir);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 2, "%s", out);
	cr_expect(strstr(out, "cannot write"), "%s", out);
	free(out);
	cr_assert_eq(stat(victim, &st), 0);
	cr_expect_eq(st.st_uid, 0, "the root-owned file was handed to the sudo user");
	text = tu_slurp(victim, NULL);
	cr_expect_str_eq(text, "root:x:0:0\n");
	free(text);
	snprintf(link, sizeof(link), "%s/ran", dir);
	cr_expect_neq(access(link, F_OK), 0, "the command ran before the output was checked");

	snprintf(vault, sizeof(vault), "%s/vault", dir);
	cr_assert_eq(mkdir(vault, 0700), 0);
	snprintf(link, sizeof(link), "%s/link", dir);
	cr_assert_eq(symlink(vault, link), 0);
	cr_assert_eq(lchown(link, 65534, 65534), 0);
	snprintf(cmd, sizeof(cmd), "env -u SUDO_UID -u SUDO_GID %s -q -o %s/p.json -- true 2>&1",
		 TRACER_BIN, link);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 2, "%s", out);
	cr_expect(strstr(out, "symbolic link"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s/p.json", vault);
	cr_expect_neq(access(cmd, F_OK), 0, "a file was created through the planted link");
	sec_rmtree(dir);
}

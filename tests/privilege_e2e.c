/*
 * End-to-end privilege safety of the tracer binary (root + BTF, label bpf):
 *  - under sudo (SUDO_UID/SUDO_GID set) `-- CMD` runs as the invoking user, `--as-root`
 *    keeps root, and the profile is owned by the invoking user;
 *  - `-o` pointing at a symlink planted in a world-writable sticky directory: the tracer
 *    refuses before tracing (exit 2, "cannot write"), the symlink's target is untouched.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_timeout.h"
#include "e2e_util.h"
#include "test_util.h"

/* Is there a line of out that is exactly want? */
static bool has_line(const char *out, const char *want)
{
	size_t n = strlen(want);

	for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, want, n) && (p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

Test(privilege_e2e, sudo_drops_the_command_to_the_invoking_user, .timeout = TEST_TIMEOUT(120))
{
	char *dir, cmd[2048], path[1024], *out = NULL;
	struct stat st;
	int rc;

	E2E_REQUIRE_ROOT();
	dir = tu_user_tmpdir("sudo", 65534, 65534); /* the user writes there */
	chmod(dir, 0755);
	/* The profile is created as the invoking user: in a directory they may write. */
	cr_assert_eq(chown(dir, 65534, 65534), 0);
	snprintf(path, sizeof(path), "%s/id.json", dir);
	snprintf(cmd, sizeof(cmd), "SUDO_UID=65534 SUDO_GID=65534 %s -q -o %s -- id -u 2>&1",
		 TRACER_BIN, path);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 0, "%s", out);
	cr_expect(has_line(out, "65534"), "the command did not run as 65534:\n%s", out);
	cr_expect(!has_line(out, "0"), "the command ran as root:\n%s", out);
	cr_assert_eq(stat(path, &st), 0, "no profile: %s", out);
	cr_expect_eq(st.st_uid, 65534, "the profile is not the invoking user's");
	free(out);

	/* Supplementary groups are dropped too. */
	snprintf(cmd, sizeof(cmd), "SUDO_UID=65534 SUDO_GID=65534 %s -q -o %s -- id -G 2>&1",
		 TRACER_BIN, path);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 0, "%s", out);
	cr_expect(has_line(out, "65534"), "groups not dropped:\n%s", out);
	free(out);

	snprintf(cmd, sizeof(cmd),
		 "SUDO_UID=65534 SUDO_GID=65534 %s -q --as-root -o %s -- id -u 2>&1", TRACER_BIN,
		 path);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 0, "%s", out);
	cr_expect(has_line(out, "0"), "--as-root did not keep root:\n%s", out);
	free(out);

	/* Without sudo variables nothing is dropped; and root does not replace the (former)
	 * invoking user's file then: it is someone else's now (exit 2 before tracing, file
	 * intact). */
	snprintf(cmd, sizeof(cmd), "env -u SUDO_UID -u SUDO_GID %s -q -o %s -- id -u 2>&1",
		 TRACER_BIN, path);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 2, "%s", out);
	cr_expect(strstr(out, "cannot write"), "%s", out);
	cr_expect_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_uid, 65534);
	free(out);
	free(dir);
}

/* Fault (#31): root is the ptracer, so the kernel honoured a setuid program in the dropped
 * tree, and the invoking user got a euid-0 process's profile. Now the tree runs with
 * PR_SET_NO_NEW_PRIVS: the setuid copy of id runs as the user, and says so. */
Test(privilege_e2e, setuid_program_gains_nothing_under_sudo, .timeout = TEST_TIMEOUT(120))
{
	char *dir, cmd[2048], prog[1024], path[1024], *out = NULL;
	int rc;

	E2E_REQUIRE_ROOT();
	dir = tu_user_tmpdir("setuid", 65534, 65534); /* the user runs from there */
	chmod(dir, 0755);
	cr_assert_eq(chown(dir, 65534, 65534), 0);
	snprintf(prog, sizeof(prog), "%s/id-setuid", dir);
	snprintf(cmd, sizeof(cmd), "cp /usr/bin/id %s && chown 0:0 %s && chmod 4755 %s", prog, prog,
		 prog);
	cr_assert_eq(e2e_run(cmd, NULL), 0);
	/* Control: run by the user directly (no tracer, no ptrace), setuid works here. */
	snprintf(cmd, sizeof(cmd), "setpriv --reuid 65534 --regid 65534 --clear-groups %s -u", prog);
	rc = e2e_run(cmd, &out);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(has_line(out, "0"), "control: the setuid bit does not work here:\n%s", out);
	free(out);
	snprintf(path, sizeof(path), "%s/id.json", dir);
	snprintf(cmd, sizeof(cmd), "SUDO_UID=65534 SUDO_GID=65534 %s -q -o %s -- %s -u 2>&1",
		 TRACER_BIN, path, prog);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 0, "%s", out);
	cr_expect(has_line(out, "65534"), "the setuid program gained root under the tracer:\n%s",
		  out);
	free(out);
	free(dir);
}

Test(privilege_e2e, planted_symlink_in_a_sticky_dir_is_refused, .timeout = TEST_TIMEOUT(120))
{
	char *dir, cmd[2048], path[1024], victim[1024], *out = NULL, *text = NULL;
	struct stat st;
	FILE *f;
	int rc;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("sticky");
	cr_assert_eq(chmod(dir, 01777), 0);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(path, sizeof(path), "%s/dhat-heap.json", dir);
	f = fopen(victim, "w");
	cr_assert_not_null(f);
	fputs("precious\n", f);
	fclose(f);
	cr_assert_eq(symlink(victim, path), 0);
	snprintf(cmd, sizeof(cmd), "%s -q -o %s -- true 2>&1", TRACER_BIN, path);
	rc = e2e_run(cmd, &out);
	cr_expect_eq(rc, 2, "writing through a planted symlink must fail up front (2), got %d:\n%s",
		     rc, out);
	cr_expect(strstr(out, "cannot write"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "cat %s", victim);
	e2e_run(cmd, &text);
	cr_expect_str_eq(text, "precious\n", "the symlink's target was written");
	free(text);
	cr_expect_eq(lstat(path, &st), 0);
	cr_expect(S_ISLNK(st.st_mode));
	free(dir);
}

/*
 * Privilege safety of the DHAT writer (unit; the ownership cases need root and say so when
 * skipped): a tracer running as root, pointed at a world-writable sticky directory, must
 * never write through a symlink, never write into or replace a file it did not create
 * (someone else's), never leave temporary files behind, and under sudo must hand the profile
 * to the invoking user.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dhat_fixture.h"
#include "dhat_reader.h"
#include "dhat_writer.h"
#include "export.h"
#include "output.h"
#include "safe_open.h"
#include "test_util.h"

static const struct dhat_meta META = { .cmd = "prog", .pid = 1 };

/* A fresh world-writable sticky directory, like /tmp. */
static void sticky_dir(char *out, size_t sz, const char *name)
{
	tu_scratch(out, sz, name);
	cr_assert_eq(chmod(out, 01777), 0);
}

/* Entries of dir whose name starts with '.' (the writer's temporary files). */
static int hidden_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	cr_assert_not_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] == '.' && strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void expect_content(const char *path, const char *text)
{
	size_t len = 0;
	char *a = tu_slurp(path, &len);

	cr_expect(a && len == strlen(text) && !memcmp(a, text, len), "%s was modified", path);
	free(a);
}

Test(privilege, dest_check_rules)
{
	char dir[512], p[700];
	uid_t me = geteuid(), other = me == 0 ? 12345 : me + 1;

	tu_scratch(dir, sizeof(dir), "destcheck");
	snprintf(p, sizeof(p), "%s/missing.json", dir);
	cr_expect_eq(output__dest_check(p, me, (uid_t)-1), 0, "a missing destination is fine");
	snprintf(p, sizeof(p), "%s/mine.json", dir);
	tu_spit(p, "x", 1);
	cr_expect_eq(output__dest_check(p, me, (uid_t)-1), 0, "our own regular file");
	snprintf(p, sizeof(p), "%s/link.json", dir);
	unlink(p);
	cr_assert_eq(symlink("/etc/passwd", p), 0);
	cr_expect_eq(output__dest_check(p, me, (uid_t)-1), -ELOOP);
	snprintf(p, sizeof(p), "%s/dir.json", dir);
	mkdir(p, 0755);
	cr_expect_eq(output__dest_check(p, me, (uid_t)-1), -EISDIR);
	snprintf(p, sizeof(p), "%s/fifo.json", dir);
	unlink(p);
	cr_assert_eq(mkfifo(p, 0644), 0);
	cr_expect_eq(output__dest_check(p, me, (uid_t)-1), -EPERM);
	cr_expect_eq(output__dest_check("/dev/null", me, (uid_t)-1), -EPERM, "a device");

	/* Someone else's file: refused, unless it is the invoking user's (sudo) or root's. */
	snprintf(p, sizeof(p), "%s/theirs.json", dir);
	tu_spit(p, "x", 1);
	if (me == 0) {
		cr_assert_eq(chown(p, other, other), 0);
		cr_expect_eq(output__dest_check(p, 0, (uid_t)-1), -EPERM);
		cr_expect_eq(output__dest_check(p, 0, other), 0, "the sudo user's own file");
		cr_expect_eq(output__dest_check(p, 0, other + 1), -EPERM);
	} else {
		/* Not root: the file is ours (uid me); seen from another euid it is someone else's. */
		cr_expect_eq(output__dest_check(p, other, (uid_t)-1), -EPERM);
		cr_expect_eq(output__dest_check(p, other, me), 0);
	}
}

Test(privilege, root_in_a_sticky_dir_never_writes_through_symlinks_or_into_others_files)
{
	struct collector *c = fixture_prog_c();
	char dir[512], dest[700], victim[700], theirs[700];
	struct stat st;

	sticky_dir(dir, sizeof(dir), "sticky");
	snprintf(dest, sizeof(dest), "%s/dhat-heap.json", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(theirs, sizeof(theirs), "%s/theirs.json", dir);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");

	/* A planted symlink (to a file the attacker wants overwritten): refused, untouched. */
	tu_spit(victim, "keep", 4);
	unlink(dest);
	cr_assert_eq(symlink(victim, dest), 0);
	cr_expect_eq(dhat__write_path(dest, c, fixture_frames, NULL, &META), -ELOOP);
	expect_content(victim, "keep");
	cr_expect_eq(lstat(dest, &st), 0);
	cr_expect(S_ISLNK(st.st_mode), "the planted link itself stays as it was");
	/* A dangling symlink (the attacker wants a new file created somewhere): refused too. */
	unlink(dest);
	snprintf(victim, sizeof(victim), "%s/created-through-link", dir);
	cr_assert_eq(symlink(victim, dest), 0);
	cr_expect_eq(dhat__write_path(dest, c, fixture_frames, NULL, &META), -ELOOP);
	cr_expect_neq(access(victim, F_OK), 0, "a file was created through a dangling symlink");
	unlink(dest);

	/* Someone else's file at the destination (root only: needs chown): refused, intact. */
	if (geteuid() == 0) {
		tu_spit(theirs, "their data", 10);
		cr_assert_eq(chown(theirs, 65534, 65534), 0);
		cr_expect_eq(dhat__write_path(theirs, c, fixture_frames, NULL, &META), -EPERM);
		expect_content(theirs, "their data");
		cr_expect_eq(stat(theirs, &st), 0);
		cr_expect_eq(st.st_uid, 65534);
	} else {
		cr_log_warn("not root: the someone-else's-file case runs in dest_check_rules only");
	}

	/* A fresh destination: created, complete, 0644, no temporary file left. */
	umask(022);
	cr_expect_eq(dhat__write_path(dest, c, fixture_frames, NULL, &META), 0);
	cr_expect_eq(lstat(dest, &st), 0);
	cr_expect(S_ISREG(st.st_mode));
	cr_expect_eq(st.st_mode & 0777, 0644);
	cr_expect_eq(st.st_uid, geteuid());
	/* Our own file: replaced in place by a rename (a new inode), never written into. */
	{
		ino_t before = st.st_ino;

		cr_expect_eq(dhat__write_path(dest, c, fixture_frames, NULL, &META), 0);
		cr_expect_eq(lstat(dest, &st), 0);
		cr_expect_neq(st.st_ino, before, "the destination was written in place");
	}
	cr_expect_eq(hidden_entries(dir), 0, "temporary files left behind");
	collector__free(c);
}

Test(privilege, under_sudo_the_profile_belongs_to_the_invoking_user)
{
	struct collector *c = fixture_prog_c();
	char dir[512], dest[700];
	struct stat st;

	if (geteuid() != 0)
		cr_skip_test("needs root: the writer hands files over with fchown only as root");
	{ /* the invoking user writes there: a directory they can reach */
		char *d = tu_user_tmpdir("sudo", 65534, 65534);

		snprintf(dir, sizeof(dir), "%s", d);
		free(d);
		cr_assert_eq(chmod(dir, 01777), 0);
	}
	snprintf(dest, sizeof(dest), "%s/p.json.gz", dir);
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	cr_expect_eq(dhat__write_path(dest, c, fixture_frames, NULL, &META), 0);
	cr_expect_eq(stat(dest, &st), 0);
	cr_expect_eq(st.st_uid, 65534);
	cr_expect_eq(st.st_gid, 65534);
	/* The invoking user's own earlier profile may be replaced. */
	cr_expect_eq(dhat__write_path(dest, c, fixture_frames, NULL, &META), 0);
	/* Malformed ids are ignored: the file stays root's. */
	setenv("SUDO_UID", "65534x", 1);
	snprintf(dest, sizeof(dest), "%s/q.json", dir);
	cr_expect_eq(dhat__write_path(dest, c, fixture_frames, NULL, &META), 0);
	cr_expect_eq(stat(dest, &st), 0);
	cr_expect_eq(st.st_uid, 0);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	cr_expect_eq(hidden_entries(dir), 0, "temporary files left behind");
	collector__free(c);
}

/* The tracer's own private files (the unwind table cache) stay root's under sudo: written
 * with OUTPUT_PRIVATE (0600) into a root-only directory the sudo user cannot enter, read
 * back with safe_open__read_private; the plain calls, acting as the user, are refused. */
Test(privilege, under_sudo_private_files_stay_roots)
{
	char dir[512], dest[700];
	struct output o;
	struct stat st;
	int fd;

	if (geteuid() != 0)
		cr_skip_test("needs root: under sudo only root acts as the invoking user");
	tu_scratch(dir, sizeof(dir), "private");
	cr_assert_eq(chmod(dir, 0700), 0);
	snprintf(dest, sizeof(dest), "%s/t.unw", dir);
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	cr_expect_neq(output__open(&o, dest, 0), 0, "the sudo user wrote into root's 0700 dir");
	cr_assert_eq(output__open(&o, dest, OUTPUT_PRIVATE), 0);
	fputs("rows", o.f);
	cr_assert_eq(output__close(&o, 0), 0);
	cr_assert_eq(stat(dest, &st), 0);
	cr_expect_eq(st.st_uid, 0);
	cr_expect_eq(st.st_mode & 0777, 0600, "mode %o", st.st_mode & 0777);
	cr_expect_eq(safe_open__read(AT_FDCWD, dest, 0, SAFE_OPEN_ANY_SZ), -EACCES);
	fd = safe_open__read_private(AT_FDCWD, dest, SAFE_OPEN_ANY_SZ);
	cr_expect_geq(fd, 0, "private read: %s", strerror(-fd));
	if (fd >= 0)
		close(fd);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	cr_expect_eq(hidden_entries(dir), 0, "temporary files left behind");
}

/* Exports (pprof, folded, svg) go through the same safe creation as profiles. */
Test(privilege, exports_never_write_through_symlinks)
{
	static const enum export_format fmts[] = { EXPORT_FMT_PPROF, EXPORT_FMT_FOLDED,
						   EXPORT_FMT_SVG };
	char dir[512], dest[700], victim[700], err[256];
	struct dhat_profile *p = dhat_profile__load(TESTS_SRC_DIR "/data/writer_prog_c.golden.json",
						    err, sizeof(err));
	struct stat st;

	cr_assert_not_null(p, "%s", err);
	sticky_dir(dir, sizeof(dir), "exports");
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(dest, sizeof(dest), "%s/out", dir);
	tu_spit(victim, "keep", 4);
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct export_opts opts = { .weight = EXPORT_WEIGHT_BYTES };

		unlink(dest);
		cr_assert_eq(symlink(victim, dest), 0);
		cr_expect_eq(export__to_path(p, fmts[i], dest, &opts), -ELOOP, "format %d", fmts[i]);
		expect_content(victim, "keep");
		unlink(dest);
		cr_expect_eq(export__to_path(p, fmts[i], dest, &opts), 0, "format %d", fmts[i]);
		cr_expect_eq(lstat(dest, &st), 0);
		cr_expect(S_ISREG(st.st_mode) && st.st_size > 0);
	}
	cr_expect_eq(hidden_entries(dir), 0, "temporary files left behind");
	dhat_profile__free(p);
}

/* #31: the -o check passed destinations nothing can be written to, so the command ran and
 * its whole trace was lost at the end: a sysfs directory (root "may write" it, by its
 * bits), an immutable directory (reported as "an existing file that is not yours"), an
 * append-only file. As root: chattr needs it, and root is who the bits do not stop. */
Test(privilege, check_path_refuses_what_cannot_be_written)
{
	char dir[512], p[700], cmd[1600];

	if (geteuid() != 0)
		cr_skip_test("needs root (chattr; the bits do not stop root)");
	cr_expect_eq(output__check_path("/sys/kernel/notes.json"), -EACCES, "a sysfs directory");
	tu_scratch(dir, sizeof(dir), "attrcheck");
	snprintf(p, sizeof(p), "%s/imm", dir);
	mkdir(p, 0755);
	snprintf(cmd, sizeof(cmd), "chattr +i %s 2>/dev/null", p);
	if (system(cmd) != 0)
		cr_skip_test("this filesystem has no chattr attributes");
	snprintf(p, sizeof(p), "%s/imm/x.json", dir);
	cr_expect_eq(output__check_path(p), -ETXTBSY, "an immutable directory");
	snprintf(cmd, sizeof(cmd), "chattr -i %s/imm", dir);
	cr_assert_eq(system(cmd), 0);
	cr_expect_eq(output__check_path(p), 0, "control: the same directory, writable");
	snprintf(p, sizeof(p), "%s/app.json", dir);
	tu_spit(p, "x", 1);
	snprintf(cmd, sizeof(cmd), "chattr +a %s", p);
	cr_assert_eq(system(cmd), 0);
	cr_expect_eq(output__check_path(p), -ETXTBSY, "an append-only file");
	snprintf(cmd, sizeof(cmd), "chattr -a %s", p);
	cr_assert_eq(system(cmd), 0);
	cr_expect_eq(output__check_path(p), 0, "control: the same file, replaceable");
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* output.c: the one safe way to create or replace a file. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "test_util.h"

static char dir[512];

static void setup(void)
{
	tu_scratch(dir, sizeof(dir), "output");
}

TestSuite(output, .init = setup);

/* Entries of dir other than . and ..: a failed or finished output leaves no temporary. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static int write_text(const char *path, unsigned flags, const char *text, int fail)
{
	struct output o;
	int err = output__open(&o, path, flags);

	if (err)
		return err;
	fputs(text, o.f);
	return output__close(&o, fail);
}

Test(output, creates_then_replaces_atomically)
{
	char path[600], *got;

	snprintf(path, sizeof(path), "%s/a.txt", dir);
	cr_assert_eq(write_text(path, 0, "one\n", 0), 0);
	cr_assert_eq(write_text(path, 0, "two\n", 0), 0);
	got = tu_slurp(path, NULL);
	cr_expect_str_eq(got, "two\n");
	free(got);
	cr_expect_eq(entries(), 1, "no temporary file left");
}

Test(output, failure_keeps_the_old_file)
{
	char path[600], *got;

	snprintf(path, sizeof(path), "%s/b.txt", dir);
	cr_assert_eq(write_text(path, 0, "old\n", 0), 0);
	cr_expect_eq(write_text(path, 0, "half", -EIO), -EIO);
	got = tu_slurp(path, NULL);
	cr_expect_str_eq(got, "old\n");
	free(got);
	cr_expect_eq(entries(), 1);
}

Test(output, gzip_by_flag_or_suffix)
{
	char plain[600], gz[600], forced[600];
	unsigned char magic[2];
	FILE *f;

	snprintf(plain, sizeof(plain), "%s/c.txt", dir);
	snprintf(gz, sizeof(gz), "%s/c.txt.gz", dir);
	snprintf(forced, sizeof(forced), "%s/c.pb", dir);
	cr_assert_eq(write_text(plain, OUTPUT_GZIP_SUFFIX, "x\n", 0), 0);
	cr_assert_eq(write_text(gz, OUTPUT_GZIP_SUFFIX, "x\n", 0), 0);
	cr_assert_eq(write_text(forced, OUTPUT_GZIP, "x\n", 0), 0);
	f = fopen(plain, "rb");
	cr_assert(f && fread(magic, 1, 2, f) == 2);
	fclose(f);
	cr_expect_eq(magic[0], 'x', "no .gz suffix: plain text");
	for (int i = 0; i < 2; i++) {
		char *got;

		f = fopen(i ? forced : gz, "rb");
		cr_assert(f && fread(magic, 1, 2, f) == 2);
		fclose(f);
		cr_expect(magic[0] == 0x1f && magic[1] == 0x8b, "gzip magic");
		got = tu_slurp(i ? forced : gz, NULL);
		cr_expect_str_eq(got, "x\n");
		free(got);
	}
}

Test(output, refuses_symlinks_directories_and_devices)
{
	char link[600], target[600];

	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	cr_assert_eq(symlink(target, link), 0);
	cr_expect_eq(write_text(link, 0, "x", 0), -ELOOP);
	cr_expect_neq(access(target, F_OK), 0, "nothing written through the link");
	cr_expect_eq(write_text(dir, 0, "x", 0), -EISDIR);
	cr_expect_eq(write_text("/dev/null", 0, "x", 0), -EPERM);
	cr_expect_eq(write_text("/nonexistent-dir/x", 0, "x", 0), -ENOENT);
}

Test(output, dash_is_stdout_only_when_asked)
{
	struct output o;
	char cwd[600], path[600];

	cr_assert_eq(output__open(&o, "-", OUTPUT_STDOUT_DASH), 0);
	cr_expect_eq(o.f, stdout);
	cr_expect_eq(output__close(&o, 0), 0);
	/* Without the flag "-" is a file name like any other. */
	cr_assert(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(dir), 0);
	cr_expect_eq(write_text("-", 0, "dash\n", 0), 0);
	cr_assert_eq(chdir(cwd), 0);
	snprintf(path, sizeof(path), "%s/-", dir);
	cr_expect_eq(access(path, F_OK), 0);
}

Test(output, check_path_before_any_work)
{
	char p[600];

	cr_expect_eq(output__check_path(""), -EINVAL);
	cr_expect_eq(output__check_path(NULL), -EINVAL);
	snprintf(p, sizeof(p), "%s/new.json", dir);
	cr_expect_eq(output__check_path(p), 0, "a new file in an existing directory");
	cr_expect_eq(output__check_path("relative-new.json"), 0, "the current directory");
	cr_expect_eq(output__check_path("/x.json"), 0, "the root directory");
	cr_expect_eq(output__check_path(dir), -EISDIR);
	snprintf(p, sizeof(p), "%s/", dir);
	cr_expect_eq(output__check_path(p), -EISDIR);
	cr_expect_eq(output__check_path("/nonexistent-dir/x.json"), -ENOENT);
	snprintf(p, sizeof(p), "%s/file", dir);
	cr_assert_eq(tu_spit(p, "x", 1), 0);
	cr_expect_eq(output__check_path(p), 0, "an existing file");
	snprintf(p, sizeof(p), "%s/file/x.json", dir);
	cr_expect_eq(output__check_path(p), -ENOTDIR);
	snprintf(p, sizeof(p), "%s/dangling", dir);
	cr_assert_eq(symlink("/nonexistent-dir/target", p), 0);
	cr_expect_eq(output__check_path(p), -ELOOP);
}

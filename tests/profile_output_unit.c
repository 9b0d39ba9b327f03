// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* profile_output__check_dir: -o is checked before tracing; --workload all makes its DIR. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile_output.h"
#include "test_util.h"

static char dir[512];

static void setup(void)
{
	tu_scratch(dir, sizeof(dir), "profile-output");
}

TestSuite(profile_output, .init = setup);

static int check_all(const char *out)
{
	struct profile_output_opts o = { .output = out, .workloads = true,
					 .all_workloads = true };

	return profile_output__check_dir(&o);
}

Test(profile_output, all_creates_a_missing_directory)
{
	char out[600];
	struct stat st;

	snprintf(out, sizeof(out), "%s/profiles", dir);
	cr_assert_eq(check_all(out), 0);
	cr_assert_eq(stat(out, &st), 0, "the directory exists afterwards");
	cr_expect(S_ISDIR(st.st_mode));
	cr_expect_eq(st.st_mode & 0022, 0, "not group- or world-writable");
	cr_expect_eq(check_all(out), 0, "an existing directory is fine");
}

Test(profile_output, all_creates_one_level_only)
{
	char out[600], parent[600];

	snprintf(parent, sizeof(parent), "%s/missing", dir);
	snprintf(out, sizeof(out), "%s/profiles", parent);
	cr_expect_eq(check_all(out), -ENOENT);
	cr_expect_neq(access(parent, F_OK), 0, "no parent was made");
}

Test(profile_output, all_creates_nothing_through_a_symlink)
{
	char link[600], target[600];

	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	cr_assert_eq(symlink(target, link), 0);
	cr_expect_eq(check_all(link), -ENOENT, "a dangling symlink is refused");
	cr_expect_neq(access(target, F_OK), 0, "nothing made where it points");
}

Test(profile_output, all_refuses_a_file)
{
	char out[600];

	snprintf(out, sizeof(out), "%s/file", dir);
	cr_assert_eq(tu_spit(out, "x", 1), 0);
	cr_expect_eq(check_all(out), -ENOTDIR);
}

Test(profile_output, a_file_output_makes_no_directory)
{
	char out[600], parent[600];
	struct profile_output_opts o = { .workloads = true };

	snprintf(parent, sizeof(parent), "%s/missing", dir);
	snprintf(out, sizeof(out), "%s/x.json", parent);
	o.output = out;
	cr_expect_eq(profile_output__check_dir(&o), -ENOENT);
	cr_expect_neq(access(parent, F_OK), 0, "a single profile's directory is not made");
}

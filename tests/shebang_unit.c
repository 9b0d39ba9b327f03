// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* shebang: the "#!" line as binfmt_script reads it, and scripts followed to the program the
 * kernel runs (env's NAME searched in $PATH, the depth bounded, unreadable files left). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e_util.h"
#include "shebang.h"

static int parse(const char *line, char *interp, char *arg)
{
	return shebang__parse(line, strlen(line), interp, 64, arg, 64);
}

Test(shebang, parses_the_interpreter_and_its_one_argument)
{
	char interp[64], arg[64];

	cr_assert_eq(parse("#!/bin/sh\necho hi\n", interp, arg), 1);
	cr_expect_str_eq(interp, "/bin/sh");
	cr_expect_str_eq(arg, "");
	/* blanks around both trimmed; the rest of the line is ONE argument, as the kernel
	 * passes it */
	cr_assert_eq(parse("#! \t/usr/bin/env  python3 -u \t\r\nx", interp, arg), 1);
	cr_expect_str_eq(interp, "/usr/bin/env");
	cr_expect_str_eq(arg, "python3 -u");
	/* a first line without its newline (the file ends there) */
	cr_assert_eq(parse("#!/usr/bin/awk -f", interp, arg), 1);
	cr_expect_str_eq(interp, "/usr/bin/awk");
	cr_expect_str_eq(arg, "-f");
}

Test(shebang, refuses_what_is_not_a_script)
{
	char interp[64], arg[64];

	cr_expect_eq(parse("\x7f" "ELF\x02\x01", interp, arg), 0);
	cr_expect_eq(parse("#!\n/bin/sh\n", interp, arg), 0, "\"#!\" naming nothing");
	cr_expect_eq(parse("#! \t \n", interp, arg), 0);
	cr_expect_eq(parse("# !/bin/sh\n", interp, arg), 0);
	cr_expect_eq(parse("#", interp, arg), 0);
	cr_expect_eq(shebang__parse("", 0, interp, 64, arg, 64), 0);
}

Test(shebang, a_part_longer_than_its_buffer_is_refused)
{
	char interp[8], arg[64];

	cr_expect_eq(shebang__parse("#!/usr/local/bin/x\n", 19, interp, sizeof(interp), arg,
				    sizeof(arg)),
		     -ENAMETOOLONG);
}

Test(shebang, reads_no_further_than_the_kernel)
{
	char line[SHEBANG_LINE_MAX + 64], interp[SHEBANG_LINE_MAX], arg[SHEBANG_LINE_MAX];

	/* the interpreter's name runs past the 256 bytes the kernel reads: cut there */
	memset(line, 'a', sizeof(line));
	memcpy(line, "#!/", 3);
	cr_assert_eq(shebang__parse(line, sizeof(line), interp, sizeof(interp), arg, sizeof(arg)),
		     1);
	cr_expect_eq(strlen(interp), SHEBANG_LINE_MAX - 2);
}

Test(shebang, follows_scripts_to_the_program_and_env_through_path)
{
	char *d = e2e_tmpdir("shebang"), path[512], text[600], *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;

	/* outer -> (env) inner, found in $PATH -> /bin/sh */
	e2e_write_file(d, "inner", "#!/bin/sh\nexit 0\n", 0755);
	e2e_write_file(d, "outer", "#!/usr/bin/env inner\n", 0755);
	snprintf(text, sizeof(text), "%s:/usr/bin:/bin", d);
	setenv("PATH", text, 1);
	snprintf(path, sizeof(path), "%s/outer", d);
	cr_expect_eq(shebang__resolve(path, sizeof(path)), 2);
	cr_expect_str_eq(path, "/bin/sh");

	/* env with its own options: left to env, whose code is what runs first */
	e2e_write_file(d, "split", "#!/usr/bin/env -S sh -e\n", 0755);
	snprintf(path, sizeof(path), "%s/split", d);
	cr_expect_eq(shebang__resolve(path, sizeof(path)), 1);
	cr_expect_str_eq(path, "/usr/bin/env");

	/* not a script, and no file at all: left as they are */
	snprintf(path, sizeof(path), "/bin/sh");
	cr_expect_eq(shebang__resolve(path, sizeof(path)), 0);
	cr_expect_str_eq(path, "/bin/sh");
	snprintf(path, sizeof(path), "%s/missing", d);
	cr_expect_eq(shebang__resolve(path, sizeof(path)), 0);
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	free(d);
}

Test(shebang, a_loop_of_scripts_ends_at_the_depth)
{
	char *d = e2e_tmpdir("shebang"), path[512], text[600];

	snprintf(text, sizeof(text), "#!%s/loop\n", d);
	e2e_write_file(d, "loop", text, 0755);
	snprintf(path, sizeof(path), "%s/loop", d);
	cr_expect_eq(shebang__resolve(path, sizeof(path)), -ELOOP);
	free(d);
}

Test(shebang, path_search_is_execvps)
{
	char path[512];

	cr_expect_eq(shebang__search_path("sh", "/nonexistent::/bin", path, sizeof(path)), 0);
	cr_expect_str_eq(path, "/bin/sh");
	cr_expect_eq(shebang__search_path("no-such-program-x", "/bin", path, sizeof(path)),
		     -ENOENT);
	cr_expect_str_eq(path, "no-such-program-x");
	cr_expect_eq(shebang__search_path("./rel/x", "/bin", path, sizeof(path)), 0);
	cr_expect_str_eq(path, "./rel/x");
}

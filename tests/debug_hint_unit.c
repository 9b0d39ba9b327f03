/*
 * debug_hint: unnamed frames counted by module, the Debian debug package of a module (from
 * dpkg's .list files, here a fake info directory) and the closing line.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debug_hint.h"

static char *const frames[] = {
	"[root]",
	"0x1151: ??? (in /usr/bin/git+0x1151)",
	"0x1179: ??? (in /usr/bin/git+0x1179)",
	"0x2000: ??? (in /usr/lib/x86_64-linux-gnu/libfoo.so.1)",
	"0x3000: main (app.c:3)",
	"0x4000: ??? (in [vdso])",
};

Test(debug_hint, counts_unnamed_frames_by_module)
{
	struct debug_hint h = { 0 };

	debug_hint__scan(&h, frames, sizeof(frames) / sizeof(frames[0]));
	cr_assert_eq(h.cnt, 2);
	cr_expect_str_eq(h.mod[0].path, "/usr/bin/git");
	cr_expect_eq(h.mod[0].frames, 2);
	cr_expect_str_eq(h.mod[1].path, "/usr/lib/x86_64-linux-gnu/libfoo.so.1");
	cr_expect_eq(h.mod[1].frames, 1);
}

Test(debug_hint, debian_debug_package_names)
{
	char out[64];

	debug_hint__dbg_package("git", out, sizeof(out));
	cr_expect_str_eq(out, "git-dbgsym");
	debug_hint__dbg_package("libc6", out, sizeof(out));
	cr_expect_str_eq(out, "libc6-dbg");
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

Test(debug_hint, package_from_dpkg_lists)
{
	char dir[] = "/tmp/debug_hint_unit-XXXXXX", path[128], pkg[64];

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/git.list", dir);
	write_file(path, "/.\n/usr\n/usr/bin\n/usr/bin/git\n");
	snprintf(path, sizeof(path), "%s/libc6:amd64.list", dir);
	write_file(path, "/lib/x86_64-linux-gnu/libc.so.6\n");
	cr_expect_eq(debug_hint__package_of(dir, "/usr/bin/git", pkg, sizeof(pkg)), 0);
	cr_expect_str_eq(pkg, "git");
	/* mapped at /usr/lib after usrmerge, listed at /lib; the ":arch" left out */
	cr_expect_eq(debug_hint__package_of(dir, "/usr/lib/x86_64-linux-gnu/libc.so.6", pkg,
					    sizeof(pkg)), 0);
	cr_expect_str_eq(pkg, "libc6");
	cr_expect_eq(debug_hint__package_of(dir, "/opt/app/bin/app", pkg, sizeof(pkg)), -ENOENT);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	cr_expect_eq(system(path), 0);
}

Test(debug_hint, one_line_or_none)
{
	struct debug_hint h = { 0 };
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	unsetenv("DEBUGINFOD_URLS");
	debug_hint__print(f, &h); /* nothing unnamed: nothing */
	h.cnt = 1;
	snprintf(h.mod[0].path, sizeof(h.mod[0].path), "/opt/none/app");
	h.mod[0].frames = 3;
	debug_hint__print(f, &h);
	fclose(f);
	cr_expect_str_eq(buf, "tracer: 3 frames without debug info (in /opt/none/app): set "
			      "DEBUGINFOD_URLS (or give --debug-dir)\n");
	free(buf);
}

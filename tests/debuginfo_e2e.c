/*
 * End-to-end: debug info found the way gdb and perf find it (issue #35 item 3; root + BTF).
 * The traced program is stripped of every symbol (tests/debuginfo.cmake): its frames can
 * only be named through its separate debug file, which is found
 *  - nowhere by default: the frames are "??? (in .../debuginfo_prog)", and the report ends
 *    with the line naming what to install or set;
 *  - in a flat --debug-dir (by the debuglink's name, checked by CRC and build-id);
 *  - in a --debug-dir .build-id/xx/rest.debug tree;
 *  - on a real debuginfod server on 127.0.0.1 serving the debug file's directory
 *    (DEBUGINFOD_URLS), through libdebuginfod with a cache of the test's own.
 */
#include <criterion/criterion.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e_util.h"
#include "test_timeout.h"

#define LEAF "debuginfo_leaf_alloc"
#define LINE_OF "debuginfo_prog.c:" /* a file:line of the program's own source */

/* Trace the stripped program with env (a prefix: "DEBUGINFOD_URLS=... ") and opts; the
 * profile's text into *json, the report and counters into *out. */
static void trace(const char *dir, const char *env, const char *opts, char **json, char **out)
{
	char cmd[4096], path[1200];
	int rc;

	snprintf(path, sizeof(path), "%s/p.json", dir);
	unlink(path);
	snprintf(cmd, sizeof(cmd),
		 "env -u DEBUGINFOD_URLS %s %s --unwind fp %s -o %s -- %s 32 2>&1", env,
		 TRACER_BIN, opts, path, STRIPPED_BIN);
	rc = e2e_run(cmd, out);
	cr_assert_eq(rc, 0, "%s: %d\n%s", cmd, rc, *out);
	*json = e2e_slurp(path);
	cr_assert_not_null(*json, "no profile at %s", path);
}

/* The frames are named from the debug file: the function and its file:line. */
static void expect_named(const char *json, const char *out, const char *how)
{
	cr_expect(strstr(json, LEAF) != NULL, "%s: %s not named\n%s", how, LEAF, out);
	cr_expect(strstr(json, LINE_OF) != NULL, "%s: no %s line\n%s", how, LINE_OF, out);
}

/* The build-id of the stripped program, as hex. */
static void build_id_hex(char *hex, size_t sz)
{
	const unsigned char *id = NULL;
	ssize_t n;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(STRIPPED_BIN, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	n = dwelf_elf_gnu_build_id(elf, (const void **)&id);
	cr_assert_gt(n, 1, "the program has no build-id");
	cr_assert_lt((size_t)(2 * n), sz);
	for (ssize_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	elf_end(elf);
	close(fd);
}

Test(debuginfo_e2e, stripped_without_debug_info_names_the_module_and_the_fix,
     .timeout = TEST_TIMEOUT(300))
{
	char *dir, *json, *out, want[1200];

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("dbgi-none");
	trace(dir, "", "", &json, &out);
	cr_expect(strstr(json, LEAF) == NULL, "named without its debug file?");
	snprintf(want, sizeof(want), "??? (in %s+0x", STRIPPED_BIN);
	cr_expect(strstr(json, want) != NULL, "no '%s' frame", want);
	/* The closing line: the program is no package's, so only debuginfod can help. */
	cr_expect(strstr(out, "set DEBUGINFOD_URLS") != NULL, "no hint at the end:\n%s", out);
	free(json);
	free(out);
	free(dir);
}

Test(debuginfo_e2e, flat_debug_dir, .timeout = TEST_TIMEOUT(300))
{
	char *dir, *json, *out, opts[1200];

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("dbgi-flat");
	snprintf(opts, sizeof(opts), "--debug-dir %s", DEBUG_SRV_DIR);
	trace(dir, "", opts, &json, &out);
	expect_named(json, out, "flat --debug-dir");
	cr_expect(strstr(out, "set DEBUGINFOD_URLS") == NULL, "a hint though named:\n%s", out);
	free(json);
	free(out);
	free(dir);
}

Test(debuginfo_e2e, build_id_tree_debug_dir, .timeout = TEST_TIMEOUT(300))
{
	char *dir, *json, *out, opts[1200], hex[160], cmd[4096];

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("dbgi-tree");
	build_id_hex(hex, sizeof(hex));
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/tree/.build-id/%.2s && cp %s %s/tree/.build-id/%.2s/%s.debug", dir,
		 hex, DEBUG_FILE, dir, hex, hex + 2);
	cr_assert_eq(e2e_run(cmd, NULL), 0, "%s", cmd);
	snprintf(opts, sizeof(opts), "--debug-dir %s/tree", dir);
	trace(dir, "", opts, &json, &out);
	expect_named(json, out, ".build-id --debug-dir");
	free(json);
	free(out);
	free(dir);
}

Test(debuginfo_e2e, debuginfod_server, .timeout = TEST_TIMEOUT(300))
{
	char *dir, *json, *out, hex[160], env[1200], cmd[2048], db[1200], port_s[16];
	int port, i;
	pid_t srv;

	E2E_REQUIRE_ROOT();
	if (access("/usr/bin/debuginfod", X_OK)) {
		if (e2e_in_ci())
			cr_assert_fail("debuginfod is not installed (deps/debian-packages.txt)");
		cr_skip_test("debuginfod is not installed");
	}
	dir = e2e_tmpdir("dbgi-srv");
	build_id_hex(hex, sizeof(hex));
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	port = 20000 + rand() % 20000;
	snprintf(port_s, sizeof(port_s), "%d", port);
	snprintf(db, sizeof(db), "%s/db.sqlite", dir);
	srv = fork();
	cr_assert_geq(srv, 0);
	if (srv == 0) {
		setpgid(0, 0);
		freopen("/dev/null", "w", stdout);
		execl("/usr/bin/debuginfod", "debuginfod", "-F", "-d", db, "-p", port_s, "-t",
		      "1", "--disable-source-scan", DEBUG_SRV_DIR, (char *)NULL);
		_exit(127);
	}
	setpgid(srv, srv);
	e2e_guard_group(srv);
	/* Ready once it serves the file (the scan runs after it starts listening). */
	snprintf(cmd, sizeof(cmd),
		 "curl -sf -o /dev/null http://127.0.0.1:%d/buildid/%s/debuginfo", port, hex);
	for (i = 0; i < TEST_TIMEOUT(60) * 4 && e2e_run(cmd, NULL); i++)
		usleep(250000);
	cr_assert_lt(i, TEST_TIMEOUT(60) * 4, "debuginfod did not serve %s", hex);
	snprintf(env, sizeof(env),
		 "DEBUGINFOD_URLS=http://127.0.0.1:%d DEBUGINFOD_CACHE_PATH=%s/cache", port, dir);
	trace(dir, env, "-v", &json, &out);
	expect_named(json, out, "debuginfod");
	cr_expect(strstr(out, "debuginfod: build-id") != NULL, "-v does not say:\n%s", out);
	kill(-srv, SIGTERM);
	waitpid(srv, NULL, 0);
	free(json);
	free(out);
	free(dir);
}

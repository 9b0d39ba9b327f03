// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Root safety without tracing (docs/RELIABILITY.md, "Root safety"): what the tracer opens,
 * writes and prints because a traced program chose it. Each test names the fault it proves
 * fixed; each failed on the code before issue #16 (a hang shows as the Criterion timeout).
 * Cases that need root (chown, a simulated sudo) skip without it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cli.h"
#include "options.h"
#include "output.h"
#include "safe_open.h"
#include "safe_text.h"
#include "sec_util.h"
#include "symbolizer.h"
#include "test_timeout.h"
#include "test_util.h"
#include "tracer_exit.h"

#define LINKED	   SEC_DIR "/named_alloc_linked"
#define DEBUG_FILE SEC_DIR "/named_alloc.debug"

static void need_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root (chown, setfsuid)");
}

static void clear_sudo(void)
{
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
}

/* Symbolize the function of exe (a copy of named_alloc_linked) in a running process: does
 * its frame carry a source line, i.e. was a debug file used? */
static bool frame_has_line(const char *exe)
{
	struct sec_target t = {0};
	struct strvec frames = {0};
	struct symbolizer *s;
	bool line = false;

	cr_assert_eq(sec_target__start(&t, exe), 0, "cannot run %s", exe);
	s = symbolizer__new(t.pid);
	cr_assert_not_null(s);
	cr_assert_gt(symbolizer__frames(s, t.addr, false, &frames), 0);
	for (size_t i = 0; i < frames.cnt; i++)
		line |= strstr(frames.items[i], "named_alloc.c:") != NULL;
	strvec__release(&frames);
	symbolizer__free(s);
	sec_target__stop(&t);
	return line;
}

/* dir/prog: the stripped fixture, its debuglink "named_alloc.debug". */
static void setup_linked(char *dir, size_t sz, const char *tag, char *prog, size_t psz)
{
	cr_assert_eq(sec_tmpdir(dir, sz, tag, 0755), 0);
	snprintf(prog, psz, "%s/prog", dir);
	cr_assert_eq(sec_copy(LINKED, prog, 0755), 0);
}

/* Control: the fixture's debug file next to it is found and used (else the tests below,
 * which assert it is not used, would prove nothing). */
Test(security, control_a_matching_debuglink_is_used, .timeout = TEST_TIMEOUT(30))
{
	char dir[256], prog[300], dbg[300];

	setup_linked(dir, sizeof(dir), "ctl", prog, sizeof(prog));
	cr_expect(!frame_has_line(prog), "no debug file yet, yet a source line");
	snprintf(dbg, sizeof(dbg), "%s/named_alloc.debug", dir);
	cr_assert_eq(sec_copy(DEBUG_FILE, dbg, 0644), 0);
	cr_expect(frame_has_line(prog), "the matching debug file next to the module was not used");
	sec_rmtree(dir);
}

/* Fault: a debuglink naming a FIFO hung the tracer in open() forever. */
Test(security, debuglink_to_a_fifo_does_not_hang, .timeout = TEST_TIMEOUT(30))
{
	char dir[256], prog[300], dbg[300];

	setup_linked(dir, sizeof(dir), "fifo", prog, sizeof(prog));
	snprintf(dbg, sizeof(dbg), "%s/named_alloc.debug", dir);
	cr_assert_eq(mkfifo(dbg, 0644), 0);
	cr_expect(!frame_has_line(prog));
	sec_rmtree(dir);
}

/* Write the .gnu_debuglink section body: name, NUL, padding to 4, CRC32 (little endian). */
static void forge_debuglink(const char *prog_in, const char *prog_out, const char *link,
			    const char *crc_of, const char *scratch)
{
	char sect[300], cmd[2048], *data;
	size_t len, n = strlen(link) + 1;
	unsigned char body[512] = {0};
	uLong crc;

	data = tu_slurp(crc_of, &len);
	cr_assert_not_null(data);
	crc = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)data, (uInt)len);
	free(data);
	memcpy(body, link, n - 1);
	n = (n + 3) & ~(size_t)3;
	for (int i = 0; i < 4; i++)
		body[n + (size_t)i] = (unsigned char)(crc >> (8 * i));
	snprintf(sect, sizeof(sect), "%s/debuglink.bin", scratch);
	cr_assert_eq(tu_spit(sect, (const char *)body, n + 4), 0);
	snprintf(cmd, sizeof(cmd),
		 "'%s' --remove-section=.gnu_debuglink --add-section .gnu_debuglink='%s' "
		 "'%s' '%s'",
		 OBJCOPY, sect, prog_in, prog_out);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	chmod(prog_out, 0755);
}

/* Fault: a debuglink "../secret/x.debug" made root read a file outside the module's
 * directories (in root's 0700 home, say). Debuglinks are plain names now. */
Test(security, debuglink_climbing_out_with_dotdot_is_not_followed, .timeout = TEST_TIMEOUT(30))
{
	char dir[256], bin[300], secret[300], dbg[400], prog[400];

	cr_assert_eq(sec_tmpdir(dir, sizeof(dir), "dotdot", 0755), 0);
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	cr_assert_eq(mkdir(bin, 0755), 0);
	cr_assert_eq(mkdir(secret, 0700), 0);
	snprintf(dbg, sizeof(dbg), "%s/named_alloc.debug", secret);
	cr_assert_eq(sec_copy(DEBUG_FILE, dbg, 0600), 0);
	snprintf(prog, sizeof(prog), "%s/prog", bin);
	/* Right CRC, right build-id: only the name is wrong. */
	forge_debuglink(LINKED, prog, "../secret/named_alloc.debug", DEBUG_FILE, dir);
	cr_expect(!frame_has_line(prog), "the debug file behind ../ was used");
	sec_rmtree(dir);
}

/* Fault: a debug file was used without proof that it belongs to the module (no build-id:
 * "unknown counts as yes"; the CRC was never checked). */
Test(security, debug_file_must_match_build_id_or_crc, .timeout = TEST_TIMEOUT(30))
{
	char dir[256], prog[300], dbg[300], cmd[1024];

	setup_linked(dir, sizeof(dir), "crc", prog, sizeof(prog));
	snprintf(dbg, sizeof(dbg), "%s/named_alloc.debug", dir);
	/* Same DWARF, no build-id note: only the CRC could tie it, and it differs. */
	snprintf(cmd, sizeof(cmd), "'%s' --remove-section=.note.gnu.build-id '%s' '%s'", OBJCOPY,
		 DEBUG_FILE, dbg);
	cr_assert_eq(system(cmd), 0);
	cr_expect(!frame_has_line(prog), "a debug file with the wrong CRC was used");
	sec_rmtree(dir);
}

/* Fault: under sudo, root read debug files the invoking user could not read and put their
 * names and lines into a profile owned by that user. */
Test(security, under_sudo_an_unreadable_debug_file_is_not_used, .timeout = TEST_TIMEOUT(30))
{
	char dir[256], prog[300], dbg[300];

	need_root();
	setup_linked(dir, sizeof(dir), "sudo-dbg", prog, sizeof(prog));
	snprintf(dbg, sizeof(dbg), "%s/named_alloc.debug", dir);
	cr_assert_eq(sec_copy(DEBUG_FILE, dbg, 0600), 0);
	cr_assert_eq(chown(dbg, 0, 0), 0);
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	cr_expect(!frame_has_line(prog), "root's 0600 debug file was used for the sudo user");
	clear_sudo();
	cr_expect(frame_has_line(prog), "control: without sudo the debug file is used");
	sec_rmtree(dir);
}

/* The opener itself: never blocks, only regular files, bounded size. */
Test(security, safe_open_refuses_fifos_devices_directories_and_oversize,
     .timeout = TEST_TIMEOUT(10))
{
	char dir[256], p[300];
	int fd;

	clear_sudo();
	cr_assert_eq(sec_tmpdir(dir, sizeof(dir), "open", 0755), 0);
	snprintf(p, sizeof(p), "%s/fifo", dir);
	cr_assert_eq(mkfifo(p, 0644), 0);
	cr_expect_eq(safe_open__read(AT_FDCWD, p, 0, SAFE_OPEN_ANY_SZ), -EINVAL);
	cr_expect_eq(safe_open__read(AT_FDCWD, "/dev/zero", 0, SAFE_OPEN_ANY_SZ), -EINVAL);
	cr_expect_eq(safe_open__read(AT_FDCWD, dir, 0, SAFE_OPEN_ANY_SZ), -EINVAL);
	snprintf(p, sizeof(p), "%s/file", dir);
	cr_assert_eq(tu_spit(p, "12345678", 8), 0);
	cr_expect_eq(safe_open__read(AT_FDCWD, p, 0, 4), -EFBIG);
	fd = safe_open__read(AT_FDCWD, p, 0, 8);
	cr_expect_geq(fd, 0);
	cr_expect_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0, "O_NONBLOCK left set");
	close(fd);
	sec_rmtree(dir);
}

/* Fault: a symlink in the directory part of -o, planted by another user in a world-writable
 * directory, led root into a root-only directory where it replaced a root-owned file. */
Test(security, output_never_follows_a_planted_symlinked_directory, .timeout = TEST_TIMEOUT(10))
{
	char dir[256], vault[300], link[300], victim[400], via[400], *text;
	struct output o;

	need_root();
	clear_sudo();
	cr_assert_eq(sec_tmpdir(dir, sizeof(dir), "symdir", 01777), 0);
	snprintf(vault, sizeof(vault), "%s/vault", dir);
	cr_assert_eq(mkdir(vault, 0700), 0);
	snprintf(victim, sizeof(victim), "%s/victim", vault);
	cr_assert_eq(tu_spit(victim, "precious", 8), 0);
	snprintf(link, sizeof(link), "%s/link", dir);
	cr_assert_eq(symlink(vault, link), 0);
	cr_assert_eq(lchown(link, 65534, 65534), 0, "the attacker owns the link");
	snprintf(via, sizeof(via), "%s/victim", link);
	cr_expect_eq(output__check_path(via), -ELOOP);
	cr_expect_eq(output__open(&o, via, 0), -ELOOP);
	text = tu_slurp(victim, NULL);
	cr_expect_str_eq(text, "precious");
	free(text);
	/* A link root made in a directory only root can write is still followed. */
	cr_assert_eq(lchown(link, 0, 0), 0);
	cr_assert_eq(chmod(dir, 0755), 0);
	cr_expect_eq(output__check_path(via), 0);
	sec_rmtree(dir);
}

/* Fault: under sudo, -o naming a root-owned file replaced it and chowned it to the user. */
Test(security, under_sudo_a_root_owned_output_is_not_replaced, .timeout = TEST_TIMEOUT(10))
{
	char dir[256], p[300], mine[300], *text;
	struct output o;
	struct stat st;

	need_root();
	cr_assert_eq(sec_tmpdir(dir, sizeof(dir), "sudo-out", 01777), 0);
	snprintf(p, sizeof(p), "%s/passwd", dir);
	cr_assert_eq(tu_spit(p, "root:x:0:0", 10), 0);
	chmod(p, 0644);
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	cr_expect_eq(output__check_path(p), -EPERM);
	cr_expect_eq(output__open(&o, p, 0), -EPERM);
	cr_assert_eq(stat(p, &st), 0);
	cr_expect_eq(st.st_uid, 0, "the root-owned file was handed to the sudo user");
	text = tu_slurp(p, NULL);
	cr_expect_str_eq(text, "root:x:0:0");
	free(text);
	/* A directory the user cannot write: refused up front, not after the trace. */
	snprintf(mine, sizeof(mine), "%s/rootdir", dir);
	cr_assert_eq(mkdir(mine, 0755), 0);
	strcat(mine, "/p.json");
	cr_expect_eq(output__check_path(mine), -EACCES);
	/* A new file is created as the user, from the start. */
	snprintf(mine, sizeof(mine), "%s/mine.json", dir);
	cr_assert_eq(output__open(&o, mine, 0), 0);
	fputs("{}", o.f);
	cr_assert_eq(output__close(&o, 0), 0);
	cr_assert_eq(stat(mine, &st), 0);
	cr_expect_eq(st.st_uid, 65534);
	cr_expect_eq(st.st_gid, 65534);
	clear_sudo();
	sec_rmtree(dir);
}

static struct tracer_opts parsed;
static int parse(int argc, char **argv)
{
	return options__parse(argc, argv, &parsed);
}

/* fn(argv) fails as bad usage: exit 2, one line on stderr holding says, nothing on stdout. */
static void expect_usage(int (*fn)(int, char **), const char *const *argv, const char *says)
{
	char *out, *errs;

	cr_expect_eq(tu_run_cli(fn, argv, &out, &errs), TRACER_EXIT_USAGE, "%s %s: %s", argv[1],
		     argv[2], errs);
	cr_expect_str_eq(out, "");
	cr_expect(strstr(errs, says), "%s %s: %s", argv[1], argv[2], errs);
	cr_expect_eq(strchr(errs, '\n'), errs + strlen(errs) - 1, "not one line: %s", errs);
	free(out);
	free(errs);
}

/* Fault: --duration nan ran forever; inf, 1e9999, 99999999999999 stopped at once. */
Test(security, numeric_options_are_finite_and_in_range, .timeout = TEST_TIMEOUT(10))
{
	static const char *const bad[] = {"nan",  "inf", "1e9999", "99999999999999", "-1", " 2",
					  "0x10", "",	 "1e-9"};
	static const char *const bad_counts[] = {"0", "-1", "99999999999999999999", "1x", " 3"};
	const char *ok[] = {"tracer", "--pid", "1", "--duration", "0.5", NULL};
	char *out, *errs;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *argv[] = {"tracer", "--duration", bad[i], "--pid", "1", NULL};

		expect_usage(parse, argv, "--duration needs");
	}
	for (size_t i = 0; i < sizeof(bad_counts) / sizeof(bad_counts[0]); i++) {
		const char *t[] = {"tracer", "--top", bad_counts[i], "--", "true", NULL};
		const char *r[] = {"report", "--top", bad_counts[i], "x.json", NULL};
		const char *d[] = {"diff", "--top", bad_counts[i], "a", "b", NULL};
		const char *s[] = {"tracer", "--stack-size", bad_counts[i], "--", "true", NULL};

		expect_usage(parse, t, "--top needs");
		expect_usage(cli_report, r, "--top needs");
		expect_usage(cli_diff, d, "--top needs");
		expect_usage(parse, s, "--stack-size needs");
	}
	cr_expect_eq(tu_run_cli(parse, ok, &out, &errs), OPT_GO_ON, "%s", errs);
	cr_expect_eq(parsed.duration_s, 0.5);
	free(out);
	free(errs);
}

/* Fault: report FIFO, --lib FIFO and -- ./fifo blocked forever. */
Test(security, fifo_inputs_are_refused_without_blocking, .timeout = TEST_TIMEOUT(10))
{
	char dir[256], fifo[300];
	const char *r[] = {"report", fifo, NULL};
	const char *l[] = {"tracer", "--lib", fifo, "--", "true", NULL};
	const char *c[] = {"tracer", "--", fifo, NULL};

	clear_sudo();
	cr_assert_eq(sec_tmpdir(dir, sizeof(dir), "fifo-in", 0755), 0);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0755), 0);
	expect_usage(cli_report, r, "not a regular file");
	expect_usage(parse, l, "not a regular file");
	expect_usage(parse, c, "not a regular file");
	sec_rmtree(dir);
}

/* A profile as a hostile program (or a corrupt file) leaves it: a frame with an OSC/CSI
 * escape (JSON-escaped, so it decodes to a raw ESC) and one with bytes that are not UTF-8. */
static void hostile_profile(const char *path)
{
	size_t len;
	char *g = tu_slurp(TESTS_SRC_DIR "/data/writer_prog_c.golden.json", &len), *a, *b;
	FILE *f;

	cr_assert_not_null(g);
	a = strstr(g, "make_table");
	b = strstr(g, "grow_buffer");
	cr_assert(a && b && a < b);
	f = fopen(path, "wb");
	cr_assert_not_null(f);
	fwrite(g, 1, (size_t)(a - g), f);
	fputs("\\u001b]0;pwned\\u0007\\u001b[2Jmake_table", f);
	fwrite(a + 10, 1, (size_t)(b - a - 10), f);
	fputs("\xff\xfe\xc0\xafgrow_buffer", f);
	fputs(b + 11, f);
	fclose(f);
	free(g);
}

/* Fault: report printed symbol names raw, so a traced program could drive root's terminal. */
Test(security, report_escapes_control_characters, .timeout = TEST_TIMEOUT(10))
{
	char dir[256], p[300], *out, *errs;
	const char *argv[] = {"report", p, NULL};

	cr_assert_eq(sec_tmpdir(dir, sizeof(dir), "esc", 0755), 0);
	snprintf(p, sizeof(p), "%s/hostile.json", dir);
	hostile_profile(p);
	cr_assert_eq(tu_run_cli(cli_report, argv, &out, &errs), 0, "%s", errs);
	cr_expect(!sec_has_byte(out, strlen(out), 0x1b), "raw ESC in the report:\n%s", out);
	cr_expect(!sec_has_byte(out, strlen(out), 0x07), "raw BEL in the report");
	cr_expect(strstr(out, "\\x1b]0;pwned\\x07\\x1b[2Jmake_table"), "%s", out);
	cr_expect(strstr(out, "\\xff\\xfe\\xc0\\xafgrow_buffer"), "%s", out);
	free(out);
	free(errs);
	sec_rmtree(dir);
}

/* Fault: invalid UTF-8 in an input passed into report --json and diff --json. */
Test(security, json_output_is_valid_utf8, .timeout = TEST_TIMEOUT(10))
{
	char dir[256], p[300], *out, *errs;
	const char *r[] = {"report", "--json", p, NULL};
	const char *d[] = {"diff", "--json", p, TESTS_SRC_DIR "/data/writer_prog_c.golden.json",
			   NULL};

	cr_assert_eq(sec_tmpdir(dir, sizeof(dir), "utf8", 0755), 0);
	snprintf(p, sizeof(p), "%s/hostile.json", dir);
	hostile_profile(p);
	cr_assert_eq(tu_run_cli(cli_report, r, &out, &errs), 0, "%s", errs);
	cr_expect(sec_valid_utf8(out, strlen(out)), "report --json is not UTF-8");
	/* Each bad byte once, as dhat_writer.c writes them. */
	cr_expect(strstr(out, "\\ufffd\\ufffd\\ufffd\\ufffdgrow_buffer"), "%s", out);
	free(out);
	free(errs);
	cr_assert_eq(tu_run_cli(cli_diff, d, &out, &errs), 0, "%s", errs);
	cr_expect(sec_valid_utf8(out, strlen(out)), "diff --json is not UTF-8");
	cr_expect(strstr(out, "\\ufffd"), "%s", out);
	free(out);
	free(errs);
	sec_rmtree(dir);
}

/* #31: profile names made from an image's name, the target's choice. */
Test(security, image_names_make_safe_file_names)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "sort", "sort" },
		{ "x\033]0;PWNED\a\033[2J", "x__0_PWNED___2J" },
		{ "nl\nfake line", "nl_fake_line" },
		{ "a/../b", "a_.._b" },
		{ "-rf", "_rf" },
		{ ".hidden", "_hidden" },
		{ "..", "_." },
		{ "", "_" },
		{ "caf\xc3\xa9", "caf__" },
		{ "g++-12", "g++-12" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		safe_text__file_name(buf, sizeof(buf), cases[i].in);
		cr_expect_str_eq(buf, cases[i].out, "case %zu", i);
	}
	safe_text__file_name(buf, 4, "abcdef");
	cr_expect_str_eq(buf, "abc");
}

/* Log arguments: each call its own buffer, SAFE_TEXT_TERM_SLOTS alive at once. */
Test(security, term_text_for_log_arguments)
{
	const char *a = safe_text__term("a\033b"), *b = safe_text__term("nl\nx");

	cr_expect_str_eq(a, "a\\x1bb");
	cr_expect_str_eq(b, "nl\\x0ax");
	cr_expect_str_eq(safe_text__term(NULL), "(null)");
}

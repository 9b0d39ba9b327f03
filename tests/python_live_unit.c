/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * python_live_unit: user/python/ on live interpreters. tests/data/python/chain.py enters
 * <module> -> f -> g -> h and blocks in h; from outside, py_runtime__open finds the
 * interpreter, py_stack__walk (the walk BPF does) reads the blocked thread's frames and
 * py_runtime__frame_name names them: exactly h, g, f, <module> at the lines chain.py tags
 * "# at:NAME", with the entry flags of the version. For Debian's python3 (always) and each
 * pyenv 3.8-3.13 present; 3.13 also checks its _Py_DebugOffsets against the generated table.
 * Unsupported versions (pyenv 3.7, 2.7 when present) give the one line and NULL; a process
 * that is not Python gives NULL and no line. Needs no root: the interpreters are our children.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procmaps.h"
#include "py_layout_source.h"
#include "py_runtime.h"
#include "py_stack.h"
#include "python_util.h"
#include "test_timeout.h"

#define CHAIN_SCRIPT TESTS_SRC_DIR "/data/python/chain.py"

/* A python running chain.py: blocked in h until its stdin closes. */
struct chain {
	pid_t pid;
	int to_child, from_child;
	unsigned long long ident; /* the blocked thread's pthread_t */
	char version[32];	  /* platform.python_version() */
};

/* Does one of pid's threads sit in read(0, ...)? */
static bool reading_stdin(pid_t pid)
{
	char path[64], sys_path[128], buf[128];
	struct dirent *d;
	bool in_read = false;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	while (dir && !in_read && (d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(sys_path, sizeof(sys_path), "%s/%s/syscall", path, d->d_name);
		f = fopen(sys_path, "r");
		in_read = f && fgets(buf, sizeof(buf), f) && !strncmp(buf, "0 0x0 ", 6);
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return in_read;
}

/* Wait until a thread of pid sits in read(0, ...): "ready" is written just before the read,
 * and a stack taken in between would show h at the write's line. */
static void wait_blocked(pid_t pid)
{
	for (int i = 0; i < 5000; i++) {
		if (reading_stdin(pid))
			return;
		usleep(1000);
	}
	cr_assert_fail("pid %d never blocked reading stdin", pid);
}

static void chain_start(struct chain *c, const char *python, const char *arg)
{
	int in[2], out[2];
	char line[256];
	ssize_t n, got = 0;

	cr_assert_eq(pipe(in), 0);
	cr_assert_eq(pipe(out), 0);
	c->pid = fork();
	cr_assert_geq(c->pid, 0);
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(python, python, CHAIN_SCRIPT, arg, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->to_child = in[1];
	c->from_child = out[0];
	while (got < (ssize_t)sizeof(line) - 1 &&
	       (n = read(c->from_child, line + got, sizeof(line) - 1 - (size_t)got)) > 0) {
		got += n;
		if (memchr(line, '\n', (size_t)got))
			break;
	}
	line[got > 0 ? got : 0] = 0;
	cr_assert_eq(sscanf(line, "ready %llu %31s", &c->ident, c->version), 2,
		     "%s did not start chain.py: '%s'", python, line);
	wait_blocked(c->pid);
}

static void chain_stop(struct chain *c)
{
	int status;

	close(c->to_child);
	close(c->from_child);
	cr_assert_eq(waitpid(c->pid, &status, 0), c->pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "chain.py did not exit 0");
}

/* The line chain.py tags "# at:NAME". */
static int tagged_line(const char *name)
{
	char tag[64], buf[512];
	FILE *f = fopen(CHAIN_SCRIPT, "r");
	int line = 0, found = 0;

	cr_assert(f);
	snprintf(tag, sizeof(tag), "# at:%s\n", name);
	while (!found && fgets(buf, sizeof(buf), f)) {
		line++;
		found = strstr(buf, tag) != NULL;
	}
	fclose(f);
	cr_assert(found, "no %s in chain.py", tag);
	return line;
}

/* Name frames[i] of the chain and expect the function tagged tag: "py: NAME (chain.py:LINE)",
 * NAME the qualified name from 3.11 (co_qualname), the bare one before. */
static void expect_frame(struct py_runtime *rt, const struct py_frame *f, const char *tag,
			 const char *qualname, const char *python)
{
	char got[512], want[512];
	bool qualified = py_runtime__layout(rt)->version >= 0x030b;

	cr_assert(py_runtime__frame_name(rt, f, got, sizeof(got)), "%s: %s not named", python, tag);
	snprintf(want, sizeof(want), "py: %s (%s:%d)", qualified ? qualname : tag, CHAIN_SCRIPT,
		 tagged_line(tag));
	cr_expect_str_eq(got, want, "%s: %s, want %s", python, got, want);
}

/* chain.py's blocked thread read and named: h, C.g, f, then <module> (main thread) or the
 * threading module's frames (threaded). */
static void check_frames(struct py_runtime *rt, const struct chain *c, const char *python,
			 bool threaded)
{
	static const char *const tags[] = {"h", "g", "f", "<module>"};
	static const char *const qualnames[] = {"h", "C.g", "f", "<module>"};
	const struct py_layout *l = py_runtime__layout(rt);
	struct py_frame frames[PY_FRAMES_MAX];
	bool cut;
	int n;

	n = py_stack__walk(c->pid, l, c->ident, frames, PY_FRAMES_MAX, &cut);
	cr_expect(!cut);
	if (threaded)
		cr_assert_gt(n, 3, "%s: %d frames in the thread, want h, g, f, threading's", python,
			     n);
	else
		cr_assert_eq(n, 4, "%s: %d frames, want h, g, f, <module>", python, n);
	for (int i = 0; i < (threaded ? 3 : 4); i++) {
		expect_frame(rt, &frames[i], tags[i], qualnames[i], python);
		/* Before 3.11 each frame is its own evaluation-loop call; from 3.11 a Python
		 * call stays in its caller's loop: h and g never enter one, <module> does. */
		if (i < 2 || !threaded)
			cr_expect_eq(!!(frames[i].flags & PY_FRAME_F_ENTRY),
				     l->version < 0x030b || i == 3, "%s: %s flags %u", python,
				     tags[i], frames[i].flags);
	}
}

/* The whole check on one interpreter; image_suffix: how the interpreter's file ends. */
static void check_chain(const char *python, const char *image_suffix)
{
	const struct py_layout *l;
	struct py_frame frames[PY_FRAMES_MAX];
	struct py_runtime *rt;
	struct chain c;
	const char *why = "unset", *image;

	chain_start(&c, python, NULL);
	rt = py_runtime__open(c.pid, &why);
	cr_assert(rt, "%s: py_runtime__open: %s", python, why ? why : "(not Python)");
	cr_expect_str_eq(py_runtime__version(rt), c.version);
	image = py_runtime__image(rt);
	cr_expect(strlen(image) > strlen(image_suffix) &&
		      !strcmp(image + strlen(image) - strlen(image_suffix), image_suffix),
		  "%s: image %s, want ...%s", python, image, image_suffix);
	l = py_runtime__layout(rt);
	cr_assert_neq(l->runtime_addr, 0);
	check_frames(rt, &c, python, false);
	/* Named again: from the cache, the same. */
	check_frames(rt, &c, python, false);
	/* A thread id that is no thread: no frames, not someone else's. */
	cr_expect_eq(py_stack__walk(c.pid, l, c.ident ^ 0x5a5a000, frames, PY_FRAMES_MAX, NULL),
		     -ENOENT);
	/* Not a code object (the runtime itself): refused, not named. */
	{
		struct py_frame bogus = {.code = l->runtime_addr};
		char got[64];

		cr_expect(!py_runtime__frame_name(rt, &bogus, got, sizeof(got)));
	}
	if (l->version >= 0x030d) {
		/* The interpreter's own offsets against the table from its headers. */
		struct py_version_layout from_debug = *py_layouts__find(l->version);
		unsigned char buf[1024];
		unsigned int found;

		cr_assert_leq(py_debug_offsets__size(), sizeof(buf));
		cr_assert_eq(
		    procmaps__read_vm(c.pid, l->runtime_addr, buf, py_debug_offsets__size()), 0);
		cr_assert_eq(
		    py_debug_offsets__apply(buf, py_debug_offsets__size(), &from_debug, &found), 0);
		cr_expect_eq(memcmp(&from_debug, py_layouts__find(l->version), sizeof(from_debug)),
			     0, "3.13 _Py_DebugOffsets differ from the generated table");
		/* What the target could make up is refused: another cookie, another version,
		 * a free-threaded build, an offset past its own struct size. Offsets 8, 16 and
		 * 40: version, free_threaded, runtime_state.interpreters_head. */
		{
			static const struct {
				size_t at;
				__u64 value;
				int err;
			} bad[] = {{0, 0x7970677562656479ull, -EPROTO}, /* "ydebugpy" */
				   {8, 0x030e00f0, -ENOTSUP},
				   {16, 1, -ENOTSUP},
				   {40, 0x10000, -ERANGE}};

			for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
				unsigned char copy[1024];
				struct py_version_layout l2 = *py_layouts__find(l->version);

				memcpy(copy, buf, py_debug_offsets__size());
				memcpy(copy + bad[k].at, &bad[k].value, 8);
				cr_expect_eq(py_debug_offsets__apply(copy, py_debug_offsets__size(),
								     &l2, &found),
					     bad[k].err, "case %zu", k);
			}
		}
	}
	py_runtime__free(rt);
	chain_stop(&c);

	/* Under 100 more calls: PY_FRAMES_MAX frames kept, innermost first, the cut said. */
	chain_start(&c, python, "deep");
	rt = py_runtime__open(c.pid, &why);
	cr_assert(rt, "%s: py_runtime__open: %s", python, why ? why : "(not Python)");
	{
		bool cut = false;
		int n = py_stack__walk(c.pid, py_runtime__layout(rt), c.ident, frames,
				       PY_FRAMES_MAX, &cut);

		cr_expect_eq(n, PY_FRAMES_MAX, "%s: %d frames of a deep stack", python, n);
		cr_expect(cut, "%s: a deep stack not said to be cut", python);
		expect_frame(rt, &frames[0], "h", "h", python);
		expect_frame(rt, &frames[3], "deep", "deep", python);
		expect_frame(rt, &frames[PY_FRAMES_MAX - 1], "deep", "deep", python);
	}
	py_runtime__free(rt);
	chain_stop(&c);

	/* The chain in a second thread: found by its pthread_t among two thread states. */
	chain_start(&c, python, "thread");
	rt = py_runtime__open(c.pid, &why);
	cr_assert(rt, "%s: py_runtime__open: %s", python, why ? why : "(not Python)");
	check_frames(rt, &c, python, true);
	py_runtime__free(rt);
	chain_stop(&c);
}

static void check_pyenv(const char *m)
{
	char path[512], suffix[64];

	pyenv_python(m, path, sizeof(path));
	snprintf(suffix, sizeof(suffix), "/libpython%s.so.1.0", m);
	check_chain(path, suffix);
}

TestSuite(python_live_unit, .timeout = TEST_TIMEOUT(30));

Test(python_live_unit, debian_python3)
{
	char exe[512];
	ssize_t n = readlink("/usr/bin/python3", exe, sizeof(exe) - 1);

	/* /usr/bin/python3 -> python3.11: the executable holds the interpreter. */
	cr_assert_gt(n, 0, "/usr/bin/python3 is not a symlink to python3.N");
	exe[n] = 0;
	check_chain("/usr/bin/python3", exe);
}

ParameterizedTestParameters(python_live_unit, pyenv)
{
	return cr_make_param_array(struct pyenv_minor, pyenv_minors, PYENV_MINORS_CNT);
}

ParameterizedTest(struct pyenv_minor *m, python_live_unit, pyenv)
{
	check_pyenv(m->m);
}

/* An unsupported version: NULL and the one line naming it. */
static void check_unsupported(const char *m)
{
	char path[512], want[64];
	struct chain c;
	const char *why = NULL;
	struct py_runtime *rt;

	pyenv_python(m, path, sizeof(path));
	chain_start(&c, path, NULL);
	rt = py_runtime__open(c.pid, &why);
	cr_expect_null(rt);
	py_runtime__free(rt);
	cr_assert(why, "python%s: no reason given", m);
	snprintf(want, sizeof(want), "python %s: unsupported version", c.version);
	cr_expect(!strncmp(why, want, strlen(want)), "why: '%s', want '%s...'", why, want);
	cr_expect(!strchr(why, '\n'), "why is one line");
	chain_stop(&c);
}

Test(python_live_unit, unsupported_pyenv_3_7)
{
	check_unsupported("3.7");
}
Test(python_live_unit, unsupported_pyenv_3_6)
{
	check_unsupported("3.6");
}
Test(python_live_unit, unsupported_pyenv_2_7)
{
	check_unsupported("2.7");
}

/* Not Python at all: NULL, nothing to say. */
Test(python_live_unit, not_python)
{
	const char *why = "unset";

	cr_expect_null(py_runtime__open(getpid(), &why));
	cr_expect_null(why);
}

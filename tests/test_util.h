/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Small helpers shared by the collector/writer/report tests (header-only). */
#ifndef TESTS_TEST_UTIL_H
#define TESTS_TEST_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

/* Whole file (gzip inflated) as a NUL-terminated string, or NULL. */
static inline char *tu_slurp(const char *path, size_t *len)
{
	gzFile gz = gzopen(path, "rb");
	size_t n = 0, cap = 4096;
	char *buf;
	int r;

	if (!gz)
		return NULL;
	buf = malloc(cap + 1);
	while (buf && (r = gzread(gz, buf + n, (unsigned)(cap - n))) > 0) {
		n += (size_t)r;
		if (n == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	gzclose(gz);
	if (!buf)
		return NULL;
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Call fn on every file of dir (names starting with '.' skipped) with its whole content as
 * tu_slurp reads it (NULL if it cannot be read): a fuzzing corpus replayed. The number of
 * files, or -1 when dir cannot be opened. */
static inline int tu_each_file(const char *dir,
			       void (*fn)(const char *path, const char *data, size_t len, void *ctx),
			       void *ctx)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int files = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[4096];
		size_t len = 0;
		char *data;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		data = tu_slurp(path, &len);
		fn(path, data, len, ctx);
		free(data);
		files++;
	}
	closedir(d);
	return files;
}

static inline int tu_spit(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	fwrite(text, 1, len, f);
	return fclose(f);
}

/* A scratch directory under the build tree for one test process: NAME inside a directory
 * made fresh (mkdtemp) once per process, so calls with one name share it within a test,
 * and a test never meets what an earlier run left (a name from the pid alone once met the
 * directory of an earlier run's process of that pid). Aborts if it cannot be made. */
static inline void tu_scratch(char *out, size_t sz, const char *name)
{
	static char parent[512];
	static pid_t parent_pid;

	if (parent_pid != getpid()) {
		snprintf(parent, sizeof(parent), "%s/scratch-%d-XXXXXX", TESTS_BIN_DIR,
			 (int)getpid());
		if (!mkdtemp(parent) || chmod(parent, 0755)) {
			fprintf(stderr, "tu_scratch: %s: cannot make it\n", parent);
			abort();
		}
		parent_pid = getpid();
	}
	snprintf(out, sz, "%s/%s", parent, name);
	if (mkdir(out, 0755) && errno != EEXIST) {
		fprintf(stderr, "tu_scratch: %s: cannot make it\n", out);
		abort();
	}
}

/* Can uid (with gid, no supplementary groups) reach dir: search every directory on the way?
 * Asked as that user, in a child. */
static inline bool tu_reachable_by(const char *dir, uid_t uid, gid_t gid)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(setgroups(0, NULL) || setgid(gid) || setuid(uid) ? 2 : access(dir, X_OK) ? 1 : 0);
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st);
}

/* A fresh directory (malloc'd path) the user uid:gid can reach, for the tests that run as
 * the invoking user of a sudo: under the build tree when its directories let them through,
 * else under /tmp (a clone inside a 0700 directory, as `mktemp -d` makes, is closed to
 * them). Mode 0755. Aborts if it cannot be made. */
static inline char *tu_user_tmpdir(const char *tag, uid_t uid, gid_t gid)
{
	char *path;

	if (asprintf(&path, "%s/%s-XXXXXX",
		     tu_reachable_by(TESTS_BIN_DIR, uid, gid) ? TESTS_BIN_DIR : "/tmp", tag) < 0 ||
	    !mkdtemp(path) || chmod(path, 0755)) {
		fprintf(stderr, "tu_user_tmpdir: %s: cannot make it\n", tag);
		abort();
	}
	return path;
}

/* Compare text with a golden file; UPDATE_GOLDEN=1 rewrites the golden file instead. */
static inline int tu_golden(const char *golden_path, const char *text, size_t len)
{
	const char *upd = getenv("UPDATE_GOLDEN");
	size_t glen;
	char *g;
	int same;

	if (upd && *upd == '1')
		return tu_spit(golden_path, text, len);
	g = tu_slurp(golden_path, &glen);
	if (!g)
		return -2;
	same = glen == len && !memcmp(g, text, len);
	free(g);
	return same ? 0 : -1;
}

/* Run a cli_* entry point (needs <criterion/criterion.h>) with argv (NULL-terminated), capturing stdout and stderr. */
static inline int tu_run_cli(int (*fn)(int, char **), const char *const *argv, char **out, char **errs)
{
	char dir[512], po[700], pe[700];
	int argc = 0, so, se, fo, fe, ret;

	while (argv[argc])
		argc++;
	tu_scratch(dir, sizeof(dir), "cli");
	snprintf(po, sizeof(po), "%s/stdout", dir);
	snprintf(pe, sizeof(pe), "%s/stderr", dir);
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	fo = open(po, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fe = open(pe, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert(so >= 0 && se >= 0 && fo >= 0 && fe >= 0);
	dup2(fo, 1);
	dup2(fe, 2);
	ret = fn(argc, (char **)argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	close(fo);
	close(fe);
	*out = tu_slurp(po, NULL);
	*errs = tu_slurp(pe, NULL);
	cr_assert(*out && *errs);
	return ret;
}

#endif

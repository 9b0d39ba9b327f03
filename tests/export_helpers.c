// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Helpers of the exporter tests: see export_helpers.h. */
#include "export_helpers.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct dhat_profile *ex_load(const char *name)
{
	char path[4096], err[512] = "";
	struct dhat_profile *p;

	snprintf(path, sizeof(path), "%s/%s", EX_DATA, name);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert(p, "cannot load fixture %s: %s", path, err);
	return p;
}

char *ex_capture(const struct dhat_profile *p, ex_write_fn fn, const void *arg, int *rc,
		 size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	cr_assert(f, "open_memstream: %s", strerror(errno));
	*rc = fn(p, f, arg);
	cr_assert_eq(fclose(f), 0);
	if (len)
		*len = n;
	return buf;
}

char *ex_run(const char *cmd, int *status)
{
	FILE *f = popen(cmd, "r");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;
	int st;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			cr_assert(buf);
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	buf[n] = '\0';
	st = pclose(f);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return buf;
}

bool ex_have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v '%s' >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

bool ex_ci(void)
{
	const char *ci = getenv("CI");

	return ci && !strcmp(ci, "true");
}

const char *ex_artifacts(void)
{
	static const char dir[] = TESTS_BIN_DIR "/artifacts";

	mkdir(dir, 0755);
	return dir;
}

void ex_write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert(f, "cannot create %s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(text, 1, len, f), len);
	cr_assert_eq(fclose(f), 0, "write %s: %s", path, strerror(errno));
}

char *ex_chromium(const char *path, const char *query, const char *png, int w, int h)
{
	char profile[] = "/tmp/export-test-chromium-XXXXXX", cmd[8192];
	char *out;
	int st;

	cr_assert(mkdtemp(profile), "mkdtemp: %s", strerror(errno));
	/* A fresh profile directory each run: no state, no lock shared with another run. */
	snprintf(cmd, sizeof(cmd),
		 "timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run "
		 "--user-data-dir='%s' --window-size=%d,%d %s%s%s 'file://%s%s' 2>/dev/null",
		 profile, w, h, png ? "--screenshot='" : "--dump-dom", png ? png : "",
		 png ? "'" : "", path, query ? query : "");
	out = ex_run(cmd, &st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", profile);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", profile);
	if (st != 0) {
		cr_log_error("chromium exited %d: %s", st, cmd);
		free(out);
		return NULL;
	}
	return out;
}

unsigned long long ex_folded_sum(const char *text, size_t *lines)
{
	unsigned long long sum = 0;
	size_t n = 0;

	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		const char *sp;

		cr_assert(nl, "folded output does not end with a newline");
		sp = l;
		for (const char *c = l; c < nl; c++)
			if (*c == ' ')
				sp = c;
		cr_assert(sp > l, "folded line without a count: %.*s", (int)(nl - l), l);
		sum += strtoull(sp + 1, NULL, 10);
		n++;
		l = nl + 1;
	}
	if (lines)
		*lines = n;
	return sum;
}

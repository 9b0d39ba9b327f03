// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* How to get unnamed frames named: see debug_hint.h. */
#include "debug_hint.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "debug_fetch.h"
#include "safe_text.h"

#define UNNAMED ": ??? (in "

void debug_hint__scan(struct debug_hint *h, char *const *ftbl, size_t cnt)
{
	for (size_t i = 0; i < cnt; i++) {
		const char *s = ftbl[i] ? strstr(ftbl[i], UNNAMED) : NULL, *end, *plus;
		size_t len, j;

		if (!s)
			continue;
		s += strlen(UNNAMED);
		end = strrchr(s, ')');
		if (!end || *s != '/') /* [vdso], anonymous code: no package has them */
			continue;
		plus = strstr(s, "+0x");
		if (plus && plus < end)
			end = plus;
		len = (size_t)(end - s);
		if (len >= sizeof(h->mod[0].path))
			continue;
		for (j = 0; j < h->cnt; j++)
			if (strlen(h->mod[j].path) == len && !memcmp(h->mod[j].path, s, len))
				break;
		if (j == h->cnt) {
			if (h->cnt == DEBUG_HINT_MODULES)
				continue;
			memcpy(h->mod[j].path, s, len);
			h->mod[j].path[len] = '\0';
			h->mod[j].frames = 0;
			h->cnt++;
		}
		h->mod[j].frames++;
	}
}

void debug_hint__dbg_package(const char *pkg, char *out, size_t sz)
{
	/* glibc's debug info is its own -dbg package; everything else is built as -dbgsym. */
	static const char *const own_dbg[] = { "libc6", "libc6-i386", "libc6-x32" };

	for (size_t i = 0; i < sizeof(own_dbg) / sizeof(own_dbg[0]); i++)
		if (!strcmp(pkg, own_dbg[i])) {
			snprintf(out, sz, "%s-dbg", pkg);
			return;
		}
	snprintf(out, sz, "%s-dbgsym", pkg);
}

/* Does the .list file at path hold the line want (or alt)? */
static bool list_has(const char *path, const char *want, const char *alt)
{
	char line[4096];
	bool hit = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	while (!hit && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		hit = !strcmp(line, want) || (alt && !strcmp(line, alt));
	}
	fclose(f);
	return hit;
}

int debug_hint__package_of(const char *info_dir, const char *path, char *pkg, size_t sz)
{
	/* Debian 12 lists libraries at /lib/..., mapped at /usr/lib/... after usrmerge. */
	const char *alt = !strncmp(path, "/usr/", 5) ? path + 4 : NULL;
	char file[4096];
	struct dirent *e;
	int err = -ENOENT;
	DIR *d = opendir(info_dir);

	if (!d)
		return -errno;
	while (err && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n < 6 || strcmp(e->d_name + n - 5, ".list"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", info_dir, e->d_name);
		if (!list_has(file, path, alt))
			continue;
		n -= 5;
		if (memchr(e->d_name, ':', n))
			n = (size_t)((const char *)memchr(e->d_name, ':', n) - e->d_name);
		snprintf(pkg, sz, "%.*s", (int)n, e->d_name);
		err = 0;
	}
	closedir(d);
	return err;
}

static int by_frames(const void *a, const void *b)
{
	const size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

void debug_hint__print(FILE *f, const struct debug_hint *h)
{
	struct { size_t frames; size_t i; } order[DEBUG_HINT_MODULES];
	char pkgs[DEBUG_HINT_TOP][128], dbg[160];
	size_t total = 0, npkg = 0, n;

	if (!f || !h->cnt)
		return;
	for (size_t i = 0; i < h->cnt; i++) {
		order[i].frames = h->mod[i].frames;
		order[i].i = i;
		total += h->mod[i].frames;
	}
	qsort(order, h->cnt, sizeof(order[0]), by_frames);
	n = h->cnt < DEBUG_HINT_TOP ? h->cnt : DEBUG_HINT_TOP;
	fprintf(f, "tracer: %zu frame%s without debug info (in", total, total == 1 ? "" : "s");
	for (size_t k = 0; k < n; k++) {
		const char *path = h->mod[order[k].i].path;
		bool seen = false;

		fprintf(f, "%s %s", k ? "," : "", safe_text__term(path));
		if (debug_hint__package_of("/var/lib/dpkg/info", path, pkgs[npkg],
					   sizeof(pkgs[npkg])))
			continue;
		for (size_t j = 0; j < npkg && !seen; j++)
			seen = !strcmp(pkgs[j], pkgs[npkg]);
		npkg += !seen;
	}
	fprintf(f, "%s): ", h->cnt > n ? ", ..." : "");
	if (npkg) {
		fprintf(f, "install ");
		for (size_t j = 0; j < npkg; j++) {
			debug_hint__dbg_package(pkgs[j], dbg, sizeof(dbg));
			fprintf(f, "%s%s", j ? ", " : "", safe_text__term(dbg));
		}
		fprintf(f, ", or ");
	}
	if (debug_fetch__debuginfod_on())
		fprintf(f, "give --debug-dir (the DEBUGINFOD_URLS servers had none)\n");
	else
		fprintf(f, "set DEBUGINFOD_URLS (or give --debug-dir)\n");
}

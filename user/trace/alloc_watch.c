// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "alloc_watch.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc_scope.h"
#include "strvec.h"

#include "log.h"

struct alloc_watch {
	pid_t pid;
	struct alloc_symbols syms;
	struct strvec seen; /* mapped paths already looked at, as in the maps */
};

static bool seen(const struct alloc_watch *w, const char *path)
{
	for (size_t i = 0; i < w->seen.cnt; i++)
		if (!strcmp(w->seen.items[i], path))
			return true;
	return false;
}

/* The same file (device and inode): paths differ across /usr merges and mount namespaces. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Probed, or in pid's lookup scope now (a DT_NEEDED library mapped after the last look). */
static bool expected(const struct alloc_watch *w, const char *path)
{
	struct alloc_scope scope;
	bool found = false;

	for (__u32 i = 0; i < w->syms.obj_cnt; i++)
		if (same_file(w->syms.objs[i], path))
			return true;
	if (alloc_scope__for_process(w->pid, &scope))
		return true; /* gone: nothing to say */
	for (size_t i = 0; i < scope.paths.cnt && !found; i++)
		found = same_file(scope.paths.items[i], path);
	alloc_scope__release(&scope);
	return found;
}

/* Look at every new mapped file. */
static int scan(struct alloc_watch *w)
{
	char maps[64], line[PATH_MAX + 256], path[PATH_MAX];
	int found = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)w->pid);
	f = fopen(maps, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		if (seen(w, p) || strvec__push(&w->seen, p))
			continue;
		alloc_scope__open_path(w->pid, p, path, sizeof(path));
		if (!alloc_symbols__defines_malloc(path) || expected(w, path))
			continue;
		elog("warning: pid %d loaded %s, which defines its own malloc: calls to malloc still reach "
		     "%s, and what is allocated through %s directly (dlsym, RTLD_DEEPBIND) is "
		     "not traced. Preload it (LD_PRELOAD) or probe it with --lib to trace it\n",
		     (int)w->pid, p, w->syms.path, p);
		found++;
	}
	fclose(f);
	return found;
}

struct alloc_watch *alloc_watch__new(pid_t pid, const struct alloc_symbols *syms)
{
	struct alloc_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->pid = pid;
	w->syms = *syms;
	/* Already now: a program may dlopen before the first refresh. */
	scan(w);
	return w;
}

int alloc_watch__refresh(struct alloc_watch *w)
{
	return w ? scan(w) : 0;
}

void alloc_watch__free(struct alloc_watch *w)
{
	if (!w)
		return;
	strvec__release(&w->seen);
	free(w);
}

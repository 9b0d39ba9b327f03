// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The workload driver: see workloads.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "workloads.h"

/* Where the driver is, relative to the tracer's own directory: next to it, installed
 * (libexec, TRACER_LIBEXEC_FROM_BIN from CMake's install dirs), or in the build tree. Never
 * $PATH, the cwd or a compiled-in absolute path: the tracer runs the driver as root, and
 * such a path could name a file anyone may plant on another machine. */
static const char *const driver_dirs[] = {
	".",
#ifdef TRACER_LIBEXEC_FROM_BIN
	TRACER_LIBEXEC_FROM_BIN,
#endif
	"../workloads",
};

/* Path of kaish-workloads, found from /proc/self/exe (see driver_dirs). */
static int find_driver(char *path, size_t sz)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return -ENOENT;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	for (size_t i = 0; i < sizeof(driver_dirs) / sizeof(driver_dirs[0]); i++) {
		char found[PATH_MAX];

		snprintf(path, sz, "%s/%s/kaish-workloads", self, driver_dirs[i]);
		/* Canonical, so the profile's "cmd" names the driver without "bin/../". */
		if (!access(path, X_OK) && realpath(path, found)) {
			snprintf(path, sz, "%s", found);
			return 0;
		}
	}
	*path = '\0'; /* none: workloads__load's caller tells a missing driver by it */
	return -ENOENT;
}

/* Read the driver's workload table (`--describe`: name TAB iterations TAB unit). */
static int read_table(struct workloads *ws)
{
	char cmd[PATH_MAX + 32], line[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' --describe", ws->driver);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	while (fgets(line, sizeof(line), p) && ws->cnt < WORKLOADS_MAX) {
		struct workload_info *w = &ws->list[ws->cnt];
		char *name = strtok(line, "\t"), *iters = strtok(NULL, "\t"),
		     *unit = strtok(NULL, "\n");

		if (!name || !iters || !unit)
			continue;
		snprintf(w->name, sizeof(w->name), "%s", name);
		w->iterations = strtoul(iters, NULL, 10);
		snprintf(w->unit, sizeof(w->unit), "%s", unit);
		ws->cnt++;
	}
	if (pclose(p) != 0 || !ws->cnt)
		return -EIO;
	return 0;
}

int workloads__load(struct workloads *ws)
{
	int err;

	ws->cnt = 0;
	err = find_driver(ws->driver, sizeof(ws->driver));
	if (err) {
		/* One line, exit 3 (main.c): the profiler is installed without the workloads. */
		elog("no workload driver kaish-workloads next to the tracer, in its ../libexec "
		     "or its build tree: install the kaish component (cmake --install BUILD "
		     "--component kaish)\n");
		return err;
	}
	err = read_table(ws);
	if (err)
		elog("cannot read the workload list from %s\n", ws->driver);
	return err;
}

const struct workload_info *workloads__find(const struct workloads *ws, const char *name)
{
	for (size_t i = 0; i < ws->cnt; i++)
		if (!strcmp(ws->list[i].name, name))
			return &ws->list[i];
	return NULL;
}

void workloads__print(const struct workloads *ws, FILE *f)
{
	for (size_t i = 0; i < ws->cnt; i++)
		fprintf(f, "%-20s %4lu x %s\n", ws->list[i].name, ws->list[i].iterations,
			ws->list[i].unit);
}

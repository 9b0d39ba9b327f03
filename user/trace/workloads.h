/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * workloads - the workload driver kaish-workloads: where it is, and its table of workloads
 * (`--describe`), whose names are the windows it marks.
 */
#ifndef TRACER_WORKLOADS_H
#define TRACER_WORKLOADS_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "events.h"

#define WORKLOADS_MAX 16

struct workload_info {
	char name[WINDOW_NAME_LEN + 1];
	unsigned long iterations; /* per window */
	char unit[128];		  /* what one iteration is */
};

struct workloads {
	char driver[PATH_MAX]; /* the driver's path */
	struct workload_info list[WORKLOADS_MAX];
	size_t cnt;
};

/* Find the driver (next to the tracer, in its ../libexec, or in the build tree) and read its
 * table. Returns 0, -ENOENT (no driver) or -EIO (no table); logs which. */
int workloads__load(struct workloads *ws);

/* The workload called name, or NULL. */
const struct workload_info *workloads__find(const struct workloads *ws, const char *name);

/* `--workload list`: one line per workload. */
void workloads__print(const struct workloads *ws, FILE *f);

#endif

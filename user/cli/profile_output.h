/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * profile_output - where a traced profile goes and what is written next to it: the DHAT
 * file, then the conversions asked for with --format.
 */
#ifndef TRACER_PROFILE_OUTPUT_H
#define TRACER_PROFILE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "collector.h"
#include "dhat_writer.h"
#include "frames.h"

struct profile_output_opts {
	const char *output; /* -o: the file, or with all_workloads the directory; NULL: default */
	bool workloads;	    /* profiles are named after their workload, not the pid */
	bool all_workloads; /* --workload all: output is a directory */
	unsigned formats;   /* extra outputs: bits (1 << enum export_format) */
};

/* Fail before tracing, not after, when profiles could not be written where asked: logs and
 * returns -ENOENT, -ENOTDIR or mkdir's -errno. With --workload all -o DIR, a missing DIR
 * (one level) is created first. */
int profile_output__check_dir(const struct profile_output_opts *o);

/*
 * Write the finished collector c as a DHAT file (stacks described through fc) at the
 * profile path of workload name (or of meta->pid), then the --format conversions titled
 * title. The path is left in path. Logs what it wrote and what failed. Returns 0 or the
 * first -errno; *written tells whether the DHAT file itself exists.
 */
int profile_output__write(const struct profile_output_opts *o, const struct collector *c,
			  const char *name, struct frames_ctx *fc, const struct dhat_meta *meta,
			  const char *title, char *path, size_t sz, bool *written);

#endif

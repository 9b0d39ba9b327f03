// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Writing a traced profile and its conversions: see profile_output.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "dhat_reader.h"
#include "export.h"
#include "log.h"
#include "procmaps.h"
#include "profile_output.h"
#include "timeline.h"

int profile_output__check_dir(const struct profile_output_opts *o)
{
	const char *env = getenv("KAISH_PROFILE_OUT");
	char dir[PATH_MAX];
	struct stat st;

	if (o->output && !o->all_workloads) {
		const char *slash = strrchr(o->output, '/');

		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - o->output) : 1,
			 slash ? o->output : ".");
		if (!dir[0])
			snprintf(dir, sizeof(dir), "/");
	} else {
		snprintf(dir, sizeof(dir), "%s", o->output ? o->output : env && *env ? env : ".");
	}
	if (stat(dir, &st)) {
		elog("output directory %s: %s\n", dir, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode)) {
		elog("output directory %s: not a directory\n", dir);
		return -ENOTDIR;
	}
	return 0;
}

static void profile_path(const struct profile_output_opts *o, const char *name, int pid,
			 char *path, size_t sz)
{
	const char *dir = getenv("KAISH_PROFILE_OUT");

	if (o->output && !o->all_workloads) {
		snprintf(path, sz, "%s", o->output);
		return;
	}
	if (o->output && o->all_workloads)
		dir = o->output;
	if (!dir || !*dir)
		dir = ".";
	if (name)
		snprintf(path, sz, "%s/dhat-heap-%s.json", dir, name);
	else
		snprintf(path, sz, "%s/dhat-heap-%d.json", dir, pid);
}

/* Write the heap-over-time chart of c next to the profile: PATH.timeline.svg. */
static int write_timeline(const char *json_path, const struct collector *c, const char *title)
{
	const struct timeline *tl = collector__timeline(c);
	const struct collector_totals *t = collector__totals(c);
	uint64_t t_us[TIMELINE_MAX_POINTS], bytes[TIMELINE_MAX_POINTS];
	struct heap_timeline ht = { .t_us = t_us, .live_bytes = bytes, .cnt = tl->cnt,
				    .tg_us = t->tg_ns / 1000, .te_us = t->te_ns / 1000,
				    .peak_bytes = t->max_bytes };
	char *path = cli_export_path(json_path, ".timeline.svg");
	char *tmp = NULL;
	FILE *f;
	int err, fd;

	if (!path)
		return -ENOMEM;
	for (size_t i = 0; i < tl->cnt; i++) {
		t_us[i] = tl->t_ns[i] / 1000;
		bytes[i] = tl->bytes[i];
	}
	fd = dhat__safe_open(path, &tmp); /* never through a symlink, see dhat_writer.c */
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		err = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		err = dhat__safe_finish(path, tmp, err);
		goto cleanup;
	}
	err = export__timeline_svg(&ht, f, title);
	if (fclose(f) && !err)
		err = -EIO;
	err = dhat__safe_finish(path, tmp, err);
	if (!err)
		ilog("wrote %s\n", path);
cleanup:
	if (err)
		elog("cannot write %s: %s\n", path, strerror(-err));
	free(path);
	return err;
}

/* The conversions asked for with --format, from the DHAT file just written. */
static int write_exports(const struct profile_output_opts *o, const char *json_path,
			 const struct collector *c, const char *title)
{
	struct dhat_profile *p = NULL;
	char err[512];
	int ret = 0;

	if (o->formats & OUTPUT_FORMAT_TIMELINE)
		ret = write_timeline(json_path, c, title);
	for (int fmt = EXPORT_FMT_PPROF; fmt <= EXPORT_FMT_SVG; fmt++) {
		struct export_opts opts = { .weight = EXPORT_WEIGHT_BYTES };
		char *path;
		int e;

		if (!(o->formats & (1u << fmt)))
			continue;
		if (!p && !(p = dhat_profile__load(json_path, err, sizeof(err)))) {
			elog("%s\n", err);
			return -EINVAL;
		}
		path = cli_export_path(json_path, cli_export_suffix(fmt));
		e = path ? export__to_path(p, fmt, path, &opts) : -ENOMEM;
		if (e)
			elog("cannot write %s: %s\n", path ? path : json_path, strerror(-e));
		else
			ilog("wrote %s\n", path);
		ret = ret ?: e;
		free(path);
	}
	dhat_profile__free(p);
	return ret;
}

/* -1 if it cannot be stat'ed (only used in a -v line). */
static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

int profile_output__write(const struct profile_output_opts *o, const struct collector *c,
			  const char *name, struct frames_ctx *fc, const struct dhat_meta *meta,
			  const char *title, char *path, size_t sz, bool *written)
{
	double write_ms;
	__u64 t0;
	size_t npps;
	int ret;

	*written = false;
	profile_path(o, o->workloads ? name : NULL, meta->pid, path, sz);
	t0 = mono_now_ns();
	ret = dhat__write_path(path, c, frames__describe, fc, meta);
	write_ms = (double)(mono_now_ns() - t0) / 1e6;
	if (ret) {
		elog("cannot write %s: %s\n", path, strerror(-ret));
		return ret;
	}
	/* Symbolization runs inside the writer (frames__describe per program point): the
	 * JSON's own cost is the rest. One line for the benchmark (workloads/bench/run.sh). */
	collector__pps(c, &npps);
	vlog("timing: %s: %zu program points, %llu frames: stacks+symbols %.1f ms, "
	     "JSON %.1f ms, %lld bytes\n",
	     path, npps, (unsigned long long)fc->frames, (double)fc->describe_ns / 1e6,
	     write_ms - (double)fc->describe_ns / 1e6, file_size(path));
	/* Under sudo the writer has already handed the file to the invoking user. */
	*written = true;
	ilog("wrote %s\n", path);
	return o->formats ? write_exports(o, path, c, title) : 0;
}

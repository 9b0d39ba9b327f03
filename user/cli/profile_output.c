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
#include "clock.h"
#include "dhat_reader.h"
#include "export.h"
#include "log.h"
#include "output.h"
#include "profile_output.h"
#include "safe_text.h"

/* The checks the writer itself makes (output.h), now rather than after the trace: the path
 * walked as outputs walk it (no untrusted symlink), not a directory, not a symlink. */
static int check_output_path(const struct profile_output_opts *o, const char *dir)
{
	char probe[PATH_MAX + 2];
	const char *base, *what = o->output;
	int fd, err;

	if (o->output && !o->all_workloads) {
		err = output__check_path(o->output);
	} else {
		/* A directory of profiles: walk it as the writer will, "dir/" naming no file. */
		snprintf(probe, sizeof(probe), "%s/", dir);
		what = dir;
		fd = output__open_dir(probe, &base);
		err = fd < 0 ? fd : 0;
		if (fd >= 0)
			close(fd);
	}
	if (!err)
		return 0;
	elog("cannot write %s: %s\n", what[0] ? what : "''",
	     err == -ELOOP  ? "a symbolic link that is not followed (only links that root or you own, in a directory\n"
				"  nobody else can write, are)" :
	     err == -EINVAL ? "empty path" :
	     err == -EISDIR ? "is a directory" :
	     err == -EPERM  ? "an existing file that is not yours to replace" :
	     err == -ETXTBSY ? "immutable or append-only (chattr): nothing can be written there" :
			      strerror(-err));
	return err;
}

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
	/* --workload all -o DIR: DIR is made if missing, one level only (its parent must
	 * exist), 0755 less the umask. mkdir creates nothing through a symlink: an existing
	 * name, link or not, gives EEXIST and is checked below as before. Under sudo DIR stays
	 * root's; the profiles in it are the invoking user's (output.h). */
	if (o->output && o->all_workloads && mkdir(dir, 0755) && errno != EEXIST) {
		int err = -errno;

		elog("cannot create output directory %s: %s\n", dir, strerror(-err));
		return err;
	}
	if (stat(dir, &st)) {
		elog("output directory %s: %s\n", dir, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode)) {
		elog("output directory %s: not a directory\n", dir);
		return -ENOTDIR;
	}
	return check_output_path(o, dir);
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

/* path's snapshot sibling: "-snapshot-N" before a ".json" or ".json.gz" suffix (else at the
 * end), so a.json -> a-snapshot-1.json. */
static void snapshot_path(char *path, size_t sz, unsigned n)
{
	size_t len = strlen(path);
	const char *base = strrchr(path, '/');
	char *dot = strstr(base ? base : path, ".json");
	char tail[64];

	if (!dot || (strcmp(dot, ".json") && strcmp(dot, ".json.gz")))
		dot = path + len;
	snprintf(tail, sizeof(tail), "%s", dot);
	snprintf(dot, sz - (size_t)(dot - path), "-snapshot-%u%s", n, tail);
}

/* The conversions asked for with --format, next to the DHAT file just written, all made
 * from the file itself (the timeline from its live-heap series), as `tracer export` does. */
static int write_exports(const struct profile_output_opts *o, const char *json_path,
			 const char *title)
{
	struct export_src src = { 0 };
	char err[512];
	int ret = 0;

	/* The timeline first: its "wrote" line has always come before the others. */
	static const enum export_format order[] = { EXPORT_FMT_TIMELINE, EXPORT_FMT_PPROF,
						    EXPORT_FMT_FOLDED, EXPORT_FMT_SVG };
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		enum export_format fmt = order[i];
		struct export_opts opts = { .weight = EXPORT_WEIGHT_BYTES,
					    .title = fmt == EXPORT_FMT_TIMELINE ? title : NULL,
					    .workload = title };
		char *path;
		int e;

		if (!(o->formats & (1u << fmt)))
			continue;
		if (!src.profile &&
		    !(src.profile = dhat_profile__load(json_path, err, sizeof(err)))) {
			elog("%s\n", err);
			return -EINVAL;
		}
		path = cli_export_path(json_path, export_format__suffix(fmt));
		e = path ? export__write(fmt, &src, path, &opts) : -ENOMEM;
		if (e)
			elog("cannot write %s: %s\n", safe_text__term(path ? path : json_path),
			     strerror(-e));
		else
			ilog("wrote %s\n", safe_text__term(path));
		ret = ret ?: e;
		free(path);
	}
	dhat_profile__free((struct dhat_profile *)src.profile);
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
	if (o->snapshot)
		snapshot_path(path, sz, o->snapshot);
	t0 = clock__mono_ns();
	ret = dhat__write_path(path, c, frames__describe, fc, meta);
	write_ms = (double)(clock__mono_ns() - t0) / 1e6;
	if (ret) {
		elog("cannot write %s: %s\n", safe_text__term(path), strerror(-ret));
		return ret;
	}
	/* Symbolization runs inside the writer (frames__describe per program point): the
	 * JSON's own cost is the rest. One line for the benchmark (workloads/bench/run.sh). */
	collector__pps(c, &npps);
	vlog("timing: %s: %zu program points, %llu frames: stacks+symbols %.1f ms, "
	     "JSON %.1f ms, %lld bytes\n",
	     safe_text__term(path), npps, (unsigned long long)fc->frames, (double)fc->describe_ns / 1e6,
	     write_ms - (double)fc->describe_ns / 1e6, file_size(path));
	/* Under sudo the writer has already handed the file to the invoking user. */
	*written = true;
	ilog("wrote %s\n", safe_text__term(path));
	return o->formats ? write_exports(o, path, title) : 0;
}

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dhat_writer - writes one collector's profile as DHAT JSON (dhatFileVersion 2), the format
 * dh_view.html loads. Layout follows Valgrind's dh_main.c (comma-first). An annotated
 * sample of the output lives at the top of dhat_writer.c.
 *
 *  - "mode":"ebpf-heap", "verb":"Allocated", bklt true, bkacc false,
 *    "tu":"µs", "Mtu":"s", "tuth":10; te/tg/tl in µs since the window start;
 *  - ftbl[0] = "[root]"; frame strings de-duplicated, indices in first-seen order;
 *  - program points whose final frame lists are identical are merged into one
 *    (tb/tbk/tl/gb/gbk/eb/ebk add exactly; mb/mbk take the largest of the members' mb and
 *    the merged gb and eb: a lower bound of the true merged peak that keeps gb,eb <= mb);
 *  - frames NULL: each PP is named by its allocator and stack id ("malloc", "[stack 7]");
 *    an empty frame list is written as the single frame "[no stack]".
 */
#ifndef TRACER_DHAT_WRITER_H
#define TRACER_DHAT_WRITER_H

#include <stdio.h>
#include <sys/types.h>

#include "collector.h"
#include "strvec.h"

/* Fill out with pp's frames, innermost first, as DHAT frame strings
 * ("0xADDR: fn (file:line)"). Returns 0 or -errno. */
typedef int (*pp_frames_fn)(void *ctx, const struct pp_stats *pp, struct strvec *out);

struct dhat_meta {
	const char *mode; /* NULL: "ebpf-heap" */
	const char *cmd;  /* the traced command line */
	int pid;	  /* the traced process */
};

/* Write c (finished) to f. Returns 0 or -errno. */
int dhat__write(FILE *f, const struct collector *c, pp_frames_fn frames, void *ctx,
		const struct dhat_meta *meta);

/*
 * Write to path, safely even as root in a world-writable directory: into a fresh temporary
 * file (mkostemp, mode 0644 less the umask) in the same directory, renamed over path once
 * complete. An existing path is replaced only when dhat__dest_check() allows it. Under sudo
 * (euid 0, SUDO_UID/SUDO_GID set) the file is owned by the invoking user. A ".gz" suffix
 * writes gzip. On failure nothing is left behind and an existing profile stays intact.
 * Returns 0 or -errno: -ELOOP (path is a symlink), -EISDIR, -EPERM (not a regular file, or
 * owned by someone else), or the error of the failed step.
 */
/*
 * May the writer replace path? 0 if it does not exist or is a regular file owned by euid,
 * by root or by sudo_uid ((uid_t)-1: none); else -ELOOP (a symlink), -EISDIR, -EPERM.
 */
int dhat__dest_check(const char *path, uid_t euid, uid_t sudo_uid);

/*
 * Safe creation of any output file (profiles, exports, charts): checks path with
 * dhat__dest_check, then returns a descriptor open for writing on a fresh temporary file next
 * to path (its name in *tmp, malloc'd), mode 0644 less the umask, owned by the invoking user
 * under sudo. Returns the fd or -errno. Always finish with dhat__safe_finish().
 */
int dhat__safe_open(const char *path, char **tmp);
/* err == 0: rename tmp over path; otherwise (or if the rename fails) remove tmp. Frees tmp
 * (NULL allowed). Returns err, or the rename's -errno. The caller has closed the fd. */
int dhat__safe_finish(const char *path, char *tmp, int err);

int dhat__write_path(const char *path, const struct collector *c, pp_frames_fn frames, void *ctx,
		     const struct dhat_meta *meta);

#endif

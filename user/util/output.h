/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * output - the one way the tracer creates or replaces a file (profiles, exports, charts),
 * safe even as root in a world-writable directory such as /tmp:
 *  - data goes to a fresh temporary file in the destination's directory, created by
 *    mkostemp (O_CREAT|O_EXCL: never an existing file, never through a symlink), fsync'ed,
 *    then renamed over the destination. rename() replaces a directory entry; it never
 *    follows a symlink and never writes into a file someone else created. Readers see the
 *    old complete file or the new complete one, never a truncated one;
 *  - an existing destination is replaced only if output__dest_check() allows it;
 *  - under sudo (euid 0 with SUDO_UID/SUDO_GID set) the file is handed to the invoking user
 *    with fchown() on the open descriptor before the rename, so users can read and delete
 *    their files; a path-based chown could be redirected by a symlink swap.
 * Residual race, harmless by construction: a file planted at the destination between the
 * check and the rename is replaced (its name is unlinked), never written into.
 *
 * Typical use:
 *
 *	struct output o;
 *	int err = output__open(&o, path, OUTPUT_GZIP_SUFFIX);
 *	if (err)
 *		return err;
 *	err = write_everything(o.f);
 *	return output__close(&o, err);	// renames on success, removes the temporary on error
 */
#ifndef TRACER_OUTPUT_H
#define TRACER_OUTPUT_H

#include <stdio.h>
#include <sys/types.h>

/* output__open flags. */
#define OUTPUT_STDOUT_DASH 0x1u /* path "-" writes to stdout (flushed, never closed) */
#define OUTPUT_GZIP	   0x2u /* always gzip-compress */
#define OUTPUT_GZIP_SUFFIX 0x4u /* gzip-compress when path ends in ".gz" */

/* One output file being written. Only f is for the caller. */
struct output {
	FILE *f; /* write here; owned by the output */
	const char *path; /* borrowed from the caller until output__close */
	char *tmp;	  /* the temporary file (owned); NULL for stdout */
	int fd;		  /* the temporary file's own descriptor, for fsync; -1 for stdout */
};

/* Open o for writing to path (see flags). Returns 0 or -errno: -ELOOP (path is a symlink),
 * -EISDIR, -EPERM (not a regular file, or owned by someone else), or the error of the
 * failed step; on error nothing is left behind and o needs no output__close. */
int output__open(struct output *o, const char *path, unsigned flags);

/* Finish o: with err == 0, flush, fsync and rename the temporary file over the path; with
 * err != 0 (or if finishing fails), remove the temporary file, so an older file stays
 * intact. Returns err, or the -errno of the failed finishing step (-EIO if unknown). */
int output__close(struct output *o, int err);

/*
 * The descriptor-level form of output__open, for writers that do their own I/O: checks
 * path with output__dest_check, then returns a descriptor open for writing on a fresh
 * temporary file next to path (its name in *tmp, malloc'd), mode 0644 less the umask, owned
 * by the invoking user under sudo. Returns the fd or -errno. Always finish with
 * output__finish_fd(), after closing the fd.
 */
int output__open_fd(const char *path, char **tmp);

/* err == 0: rename tmp over path; otherwise (or if the rename fails) remove tmp. Frees tmp
 * (NULL allowed). Returns err, or the rename's -errno. */
int output__finish_fd(const char *path, char *tmp, int err);

/*
 * May an output replace path? 0 if it does not exist or is a regular file owned by euid,
 * by root or by sudo_uid ((uid_t)-1: none); else -ELOOP (a symlink), -EISDIR, -EPERM.
 */
int output__dest_check(const char *path, uid_t euid, uid_t sudo_uid);

/*
 * Can an output be written at path at all? For checking an -o value before any work is
 * done: 0 if path is not empty, its directory exists and is a directory, and path is not
 * a directory nor a dangling symlink; else -EINVAL (empty), -ENOENT or -ENOTDIR (the
 * directory part), -EISDIR, -ELOOP (a dangling symlink). Ownership is output__dest_check's.
 */
int output__check_path(const char *path);

#endif

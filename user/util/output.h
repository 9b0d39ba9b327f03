/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * output - the one way the tracer creates or replaces a file (profiles, exports, charts),
 * safe even as root in a world-writable directory such as /tmp:
 *  - the destination's directory is opened component by component (output__open_dir): a
 *    symlink on the way is followed only if root or the acting user planted it in a
 *    directory nobody else can write, so a link planted in /tmp by another user never
 *    leads root into a directory of its choosing. Everything after that is relative to the
 *    directory's descriptor (openat, fstatat, renameat): the path is not resolved again;
 *  - data goes to a fresh temporary file in that directory, created O_CREAT|O_EXCL|O_NOFOLLOW
 *    (never an existing file, never through a symlink), fsync'ed, then renamed over the
 *    destination. rename() replaces a directory entry; it never follows a symlink and never
 *    writes into a file someone else created. Readers see the old complete file or the new
 *    complete one, never a truncated one;
 *  - an existing destination is replaced only if output__dest_check() allows it;
 *  - under sudo (euid 0 with SUDO_UID/SUDO_GID set) every step runs with the invoking user's
 *    filesystem identity (sudo_user.h): the file is created as theirs, only where they may
 *    create files, and never replaces a file they could not write.
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

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* output__open flags. */
#define OUTPUT_STDOUT_DASH 0x1u /* path "-" writes to stdout (flushed, never closed) */
#define OUTPUT_GZIP	   0x2u /* always gzip-compress */
#define OUTPUT_GZIP_SUFFIX 0x4u /* gzip-compress when path ends in ".gz" */
/* The tracer's own private file (the unwind table cache, root's under sudo): every step as
 * the process itself, never as the sudo user; created 0600. */
#define OUTPUT_PRIVATE 0x8u

/* One output file being written. Only f is for the caller. */
struct output {
	FILE *f; /* write here; owned by the output */
	const char *path; /* borrowed from the caller until output__close */
	char *tmp;	  /* the temporary file's name in dir_fd (owned); NULL for stdout */
	int fd;		  /* the temporary file's own descriptor, for fsync; -1 for stdout */
	int dir_fd;	  /* the destination's directory (O_PATH), -1 for stdout */
	const char *base; /* the destination's name in dir_fd (points into path) */
	bool as_self;	  /* OUTPUT_PRIVATE: no sudo user's identity */
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
 * Open the directory part of path (O_PATH, close-on-exec) the way outputs do: component by
 * component, a symlink followed only when root or the acting user (the sudo user under sudo)
 * owns it and its directory and nobody else can write that directory; as the sudo user
 * under sudo. *base points at the last component (in path). The fd or -errno: -ELOOP for an
 * untrusted symlink, -ENOENT, -ENOTDIR, -EACCES, ...
 */
int output__open_dir(const char *path, const char **base);

/*
 * May an output replace path? 0 if it does not exist or is a regular file owned by euid or
 * by root, or under sudo (sudo_uid not (uid_t)-1) owned by sudo_uid and writable by its
 * owner; else -ELOOP (a symlink), -EISDIR, -EPERM.
 */
int output__dest_check(const char *path, uid_t euid, uid_t sudo_uid);

/*
 * Can an output be written at path at all? For checking an -o value before any work is
 * done: 0 if path is not empty, its directory opens as output__open_dir opens it, and path
 * may be created or replaced as output__open would (output__dest_check's rules; under sudo
 * also writable by the invoking user) in a directory they can write, where a file was
 * created and removed to be sure (root may "write" a sysfs directory); else -EINVAL
 * (empty), output__open_dir's errors (the directory part), -EISDIR, -ELOOP (a symlink),
 * -EPERM (not ours to replace), -ETXTBSY (the file or its directory is immutable or
 * append-only), -EACCES or -EROFS (the directory), or the probe's creation error.
 */
int output__check_path(const char *path);

#endif

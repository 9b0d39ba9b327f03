/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * safe_open - the one way the tracer opens a file for reading because of its target (the
 * target's modules, their debug files, --lib, profiles given to report/diff/export).
 *
 * The target chooses those names, and the tracer is root. So the open:
 *  - never blocks: O_NONBLOCK (a FIFO opens at once instead of waiting for a writer), cleared
 *    again once the file is known to be regular;
 *  - yields only a regular file (fstat + S_ISREG: no FIFO, device, socket or directory), of
 *    at most max_sz bytes;
 *  - under sudo, runs with the invoking user's filesystem identity (sudo_user.h), so a file
 *    that user could not open (mode bits, ACLs, a 0700 directory on the way) is never used;
 *  - with resolve flags, goes through openat2(2), e.g. RESOLVE_IN_ROOT to read a path as a
 *    target in another root sees it (absolute symlinks stay inside that root).
 */
#ifndef TRACER_SAFE_OPEN_H
#define TRACER_SAFE_OPEN_H

#include <linux/types.h>

/* Size bounds: an ELF module or debug file, and anything (profiles are streamed). */
#define SAFE_OPEN_ELF_MAX (16ULL << 30)
#define SAFE_OPEN_ANY_SZ  (~0ULL)

/*
 * Open path (absolute, or relative to dirfd; AT_FDCWD allowed) read-only and close-on-exec.
 * resolve: 0 for openat(2), else RESOLVE_* flags for openat2(2). Returns the fd (blocking
 * mode, owned by the caller) or -errno: -EINVAL if it is not a regular file, -EFBIG if it is
 * larger than max_sz, -EACCES if the sudo user may not open it, or the open's own error.
 */
int safe_open__read(int dirfd, const char *path, __u64 resolve, __u64 max_sz);

/*
 * safe_open__read of one of the tracer's own private files (the unwind table cache, root's
 * under sudo): as the process itself, never as the sudo user, and through no symlink
 * (RESOLVE_NO_SYMLINKS).
 */
int safe_open__read_private(int dirfd, const char *path, __u64 max_sz);

/* A message for an error of safe_open__read ("not a regular file" for -EINVAL, ...). */
const char *safe_open__strerror(int err);

#endif

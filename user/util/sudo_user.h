/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * sudo_user - the user who ran the tracer through sudo, and a way to act on files as them.
 *
 * Under sudo the tracer is root, but whatever it reads because of the target, and every file
 * it writes, must be something the invoking user could read or write themselves. Rather than
 * re-implementing the kernel's permission rules (mode bits, ACLs, every directory on the way,
 * sticky directories), the tracer borrows the user's filesystem identity for the one call:
 * fsuid, fsgid and the user's supplementary groups, set on the calling thread only (raw
 * setfsuid/setfsgid/setgroups system calls are per-thread; glibc's setgroups() would change
 * every thread). The kernel then checks open, openat and renameat exactly as for the user,
 * while the tracer keeps its other capabilities (CAP_SYS_PTRACE for /proc/PID/root,
 * CAP_SYS_ADMIN for /proc/PID/map_files).
 */
#ifndef TRACER_SUDO_USER_H
#define TRACER_SUDO_USER_H

#include <stdbool.h>
#include <sys/types.h>

#define SUDO_USER_MAX_GROUPS 64

/* The invoking user, or none. */
struct sudo_user {
	bool active;			    /* euid 0 and SUDO_UID/SUDO_GID well-formed */
	uid_t uid;			    /* SUDO_UID */
	gid_t gid;			    /* SUDO_GID */
	int group_cnt;			    /* entries in groups */
	gid_t groups[SUDO_USER_MAX_GROUPS]; /* the user's supplementary groups (getgrouplist) */
};

/* A thread's filesystem identity, saved by sudo_user__enter. */
struct sudo_saved {
	bool switched;			    /* enter switched: leave must restore */
	uid_t fsuid;			    /* previous fsuid */
	gid_t fsgid;			    /* previous fsgid */
	int group_cnt;			    /* entries in groups */
	gid_t groups[SUDO_USER_MAX_GROUPS]; /* previous supplementary groups */
};

/* An id from the environment (SUDO_UID, SUDO_GID), or (id_t)-1 when unset or malformed. */
id_t sudo_user__env_id(const char *name);

/* The invoking user, from SUDO_UID/SUDO_GID (read on every call) and the group database
 * (asked again only when those change). Not active when euid is not 0, the ids are unset or
 * malformed, or SUDO_UID is 0. The pointer stays valid until the next call. One cache for
 * the process: call from one thread at a time. */
const struct sudo_user *sudo_user__get(void);

/*
 * Make this thread act on files as the invoking user until sudo_user__leave(saved): a no-op
 * (saved->switched false) when no sudo user is active. 0 or -errno (nothing changed then).
 */
int sudo_user__enter(struct sudo_saved *saved);

/* Restore the identity saved by sudo_user__enter. Keeps errno. */
void sudo_user__leave(const struct sudo_saved *saved);

#endif

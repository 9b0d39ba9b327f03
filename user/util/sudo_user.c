// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "sudo_user.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The last user read: the group database is asked again only when the ids change. */
static struct sudo_user cached;
static bool cached_valid;
static id_t cached_env_uid, cached_env_gid;

id_t sudo_user__env_id(const char *name)
{
	const char *v = getenv(name);
	char *end;
	unsigned long n;

	if (!v || *v < '0' || *v > '9')
		return (id_t)-1;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n >= (id_t)-1)
		return (id_t)-1;
	return (id_t)n;
}

const struct sudo_user *sudo_user__get(void)
{
	struct sudo_user u = {0};
	id_t uid, gid;
	struct passwd *pw;

	uid = sudo_user__env_id("SUDO_UID");
	gid = sudo_user__env_id("SUDO_GID");
	if (cached_valid && uid == cached_env_uid && gid == cached_env_gid &&
	    cached.active == (geteuid() == 0 && uid != (id_t)-1 && gid != (id_t)-1 && uid != 0))
		return &cached;
	if (geteuid() == 0 && uid != (id_t)-1 && gid != (id_t)-1 && uid != 0) {
		u.active = true;
		u.uid = (uid_t)uid;
		u.gid = (gid_t)gid;
		u.groups[0] = u.gid;
		u.group_cnt = 1;
		/* Unknown user or too many groups: the primary group alone, never more. */
		pw = getpwuid(u.uid);
		if (pw) {
			int n = SUDO_USER_MAX_GROUPS;

			if (getgrouplist(pw->pw_name, u.gid, u.groups, &n) >= 0)
				u.group_cnt = n;
			else
				u.group_cnt = 1, u.groups[0] = u.gid;
		}
	}
	cached = u;
	cached_valid = true;
	cached_env_uid = uid;
	cached_env_gid = gid;
	return &cached;
}

int sudo_user__enter(struct sudo_saved *saved)
{
	const struct sudo_user *u = sudo_user__get();
	int n, err;

	saved->switched = false;
	if (!u->active)
		return 0;
	n = getgroups(SUDO_USER_MAX_GROUPS, saved->groups);
	if (n < 0)
		return -errno;
	saved->group_cnt = n;
	saved->fsuid = (uid_t)setfsuid((uid_t)-1);
	saved->fsgid = (gid_t)setfsgid((gid_t)-1);
	/* Raw system calls: per-thread, unlike glibc's setgroups(). */
	if (syscall(SYS_setgroups, (size_t)u->group_cnt, u->groups))
		return -errno;
	setfsgid(u->gid);
	setfsuid(u->uid);
	/* setfsuid reports the old value, never an error: check it took. */
	if ((uid_t)setfsuid((uid_t)-1) != u->uid || (gid_t)setfsgid((gid_t)-1) != u->gid) {
		err = -EPERM;
		saved->switched = true;
		sudo_user__leave(saved);
		saved->switched = false;
		return err;
	}
	saved->switched = true;
	return 0;
}

void sudo_user__leave(const struct sudo_saved *saved)
{
	int e = errno;

	if (!saved->switched)
		return;
	/* fsuid first: back to 0 restores the filesystem capabilities needed below. */
	setfsuid(saved->fsuid);
	setfsgid(saved->fsgid);
	syscall(SYS_setgroups, (size_t)saved->group_cnt, saved->groups);
	errno = e;
}

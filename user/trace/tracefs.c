// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tracefs: see tracefs.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "environment.h"
#include "tracefs.h"

#define LOG_TAG "tracefs: "
#include "log.h"

static const char *const mount_points[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int root_fd = -1;
static enum tracefs_via root_via = TRACEFS_NONE;
static const char *mounted_at; /* TRACEFS_MOUNTED: which of mount_points */

/* path, if tracefs is mounted there: its directory's descriptor, else -errno. O_PATH alone
 * (no O_DIRECTORY, no open intent) triggers no automount: /sys/kernel/debug/tracing is
 * debugfs's automount point of tracefs, and looking at it must not mount it on the host. */
static int open_mounted(const char *path)
{
	struct statfs sf;
	struct stat st;
	int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sf) || sf.f_type != TRACEFS_MAGIC || fstat(fd, &st) ||
	    !S_ISDIR(st.st_mode)) {
		close(fd);
		return -ENOENT; /* an empty mount point (sysfs's directory), an automount point */
	}
	return fd;
}

/* A tracefs mount attached to no mount table (fsopen, fsconfig, fsmount). */
static int open_detached(void)
{
	int fs, mnt, err;

	if (env_refuses("fsmount"))
		return -ENOSYS;
	fs = (int)syscall(SYS_fsopen, "tracefs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		err = -errno;
		close(fs);
		return err;
	}
	mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
			   MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	err = mnt < 0 ? -errno : mnt;
	close(fs);
	return err;
}

/* The private namespace's thread: unshare, make every mount private (nothing propagates
 * back to the host), mount tracefs on its usual directory, open it. The result (fd or
 * -errno) in *arg. */
static void *mount_privately(void *arg)
{
	int *res = arg;

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		*res = -errno;
		return NULL;
	}
	/* Whatever is mounted there (tracefs itself, when TRACER_REFUSE=tracefs) goes, in
	 * this namespace only. */
	while (!umount2(mount_points[0], MNT_DETACH))
		;
	if (mount("tracefs", mount_points[0], "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		*res = -errno;
		return NULL;
	}
	*res = open(mount_points[0], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*res < 0)
		*res = -errno;
	return NULL;
}

/* In a thread of its own: the namespace is the thread's alone, and dies with it (the
 * mount lives on, detached, for as long as the descriptor). */
static int open_private(void)
{
	int res = -ENOSYS, err;
	pthread_t t;

	if (env_refuses("privatens"))
		return -EPERM;
	err = pthread_create(&t, NULL, mount_privately, &res);
	if (err)
		return -err;
	pthread_join(t, NULL);
	return res;
}

/* Each way in turn; the first that works, its descriptor in *fd. *why: the last failure. */
static enum tracefs_via reach(int *fd, const char **at, int *why)
{
	int r = -ENOENT;

	for (size_t i = 0; i < sizeof(mount_points) / sizeof(mount_points[0]); i++) {
		if (env_refuses("tracefs"))
			break;
		r = open_mounted(mount_points[i]);
		if (r >= 0) {
			*fd = r;
			*at = mount_points[i];
			return TRACEFS_MOUNTED;
		}
	}
	dlog("not mounted at %s: %s\n", mount_points[0], strerror(-r));
	r = open_detached();
	if (r >= 0) {
		*fd = r;
		return TRACEFS_DETACHED;
	}
	dlog("no detached mount (fsopen/fsmount): %s\n", strerror(-r));
	r = open_private();
	if (r >= 0) {
		*fd = r;
		return TRACEFS_PRIVATE;
	}
	dlog("no mount in a private namespace: %s\n", strerror(-r));
	*why = -r;
	return TRACEFS_NONE;
}

int tracefs__root(void)
{
	int why = 0, fd = -1;

	pthread_mutex_lock(&lock);
	if (root_fd < 0) {
		root_via = reach(&fd, &mounted_at, &why);
		if (root_via != TRACEFS_NONE) {
			root_fd = fd;
			vlog("tracefs %s\n", tracefs__via_name(root_via));
		}
	}
	fd = root_fd >= 0 ? root_fd : -why;
	pthread_mutex_unlock(&lock);
	return fd;
}

enum tracefs_via tracefs__via(void)
{
	return root_via;
}

const char *tracefs__via_name(enum tracefs_via via)
{
	static char buf[64];

	switch (via) {
	case TRACEFS_MOUNTED:
		snprintf(buf, sizeof(buf), "mounted at %s", mounted_at ? mounted_at : "?");
		return buf;
	case TRACEFS_DETACHED:
		return "as a detached mount of the tracer's own";
	case TRACEFS_PRIVATE:
		return "mounted in a private mount namespace";
	default:
		return "unreachable";
	}
}

enum tracefs_via tracefs__probe(int *why)
{
	const char *at = NULL;
	int fd = -1, err = 0;
	enum tracefs_via via = reach(&fd, &at, &err);

	if (via != TRACEFS_NONE) {
		close(fd);
		if (via == TRACEFS_MOUNTED)
			mounted_at = at;
	}
	if (why)
		*why = err;
	return via;
}

int tracefs__append(int root, const char *rel, const char *text)
{
	int fd = openat(root, rel, O_WRONLY | O_APPEND | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		err = -errno;
	close(fd);
	return err;
}

long tracefs__read(int root, const char *rel, char *buf, size_t sz)
{
	int fd = openat(root, rel, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t r = 0;

	if (fd < 0)
		return -errno;
	while (n + 1 < sz && (r = read(fd, buf + n, sz - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	if (r < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	close(fd);
	return (long)n;
}

int tracefs__read_int(int root, const char *rel, int *out)
{
	char buf[32], *end;
	long r = tracefs__read(root, rel, buf, sizeof(buf)), v;

	if (r < 0)
		return (int)r;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || v < 0 || v > 0x7fffffff)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

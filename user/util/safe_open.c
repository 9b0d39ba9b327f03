// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "safe_open.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sudo_user.h"

/* openat or openat2, as the sudo user when there is one (unless as_self). fd or -errno. */
static int open_as_user(int dirfd, const char *path, int flags, __u64 resolve, bool as_self)
{
	struct open_how how = {.flags = (__u64)flags, .resolve = resolve};
	struct sudo_saved saved = {.switched = false};
	int fd, err;

	err = as_self ? 0 : sudo_user__enter(&saved);
	if (err)
		return err;
	if (resolve)
		fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	else
		fd = openat(dirfd, path, flags);
	err = fd < 0 ? -errno : 0;
	sudo_user__leave(&saved);
	return fd < 0 ? err : fd;
}

/* safe_open__read, as the process itself when as_self. */
static int open_read(int dirfd, const char *path, __u64 resolve, __u64 max_sz, bool as_self)
{
	struct stat st;
	int fd, fl, err;

	if (!path || !*path)
		return -ENOENT;
	fd = open_as_user(dirfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, resolve,
			  as_self);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st)) {
		err = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		goto fail;
	}
	if ((__u64)st.st_size > max_sz) {
		err = -EFBIG;
		goto fail;
	}
	/* Regular files never block on read; clear the flag so later users see a plain fd. */
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) {
		err = -errno;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return err;
}

int safe_open__read(int dirfd, const char *path, __u64 resolve, __u64 max_sz)
{
	return open_read(dirfd, path, resolve, max_sz, false);
}

int safe_open__read_private(int dirfd, const char *path, __u64 max_sz)
{
	return open_read(dirfd, path, RESOLVE_NO_SYMLINKS, max_sz, true);
}

const char *safe_open__strerror(int err)
{
	if (err == -EINVAL)
		return "not a regular file";
	if (err == -EFBIG)
		return "file too large";
	return strerror(err < 0 ? -err : err);
}

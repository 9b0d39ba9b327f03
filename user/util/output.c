// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "sudo_user.h"

/* The replace rule of output__dest_check on an lstat result. */
static int dest_rule(const struct stat *st, uid_t euid, uid_t sudo_uid)
{
	if (S_ISLNK(st->st_mode))
		return -ELOOP; /* never through, nor over, a symlink someone else may have planted */
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (!S_ISREG(st->st_mode))
		return -EPERM; /* devices, fifos, sockets */
	/* Under sudo only the invoking user's own writable file; a root-owned one (the
	 * password file...) would be handed to them. */
	if (sudo_uid != (uid_t)-1)
		return st->st_uid == sudo_uid && (st->st_mode & S_IWUSR) ? 0 : -EPERM;
	if (st->st_uid != euid && st->st_uid != 0)
		return -EPERM; /* someone else's file: not ours to replace */
	return 0;
}

int output__dest_check(const char *path, uid_t euid, uid_t sudo_uid)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	return dest_rule(&st, euid, sudo_uid);
}

/* Act as the sudo user for a step of an output (not for an OUTPUT_PRIVATE one, which stays
 * the process's own). sudo_user__enter's result. */
static int enter_user(bool as_self, struct sudo_saved *saved)
{
	if (as_self) {
		saved->switched = false;
		return 0;
	}
	return sudo_user__enter(saved);
}

/* The sudo user an output acts for: none for OUTPUT_PRIVATE. */
static const struct sudo_user *acting_user(bool as_self)
{
	static const struct sudo_user none;

	return as_self ? &none : sudo_user__get();
}

/* May the entry base of dir_fd be created or replaced? dest_rule on what is there; under
 * sudo (called as the sudo user) the kernel must also agree that they can write it. */
static int dest_ok(int dir_fd, const char *base, bool as_self)
{
	const struct sudo_user *u = acting_user(as_self);
	struct stat st;
	int err;

	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return -EISDIR;
	if (fstatat(dir_fd, base, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	err = dest_rule(&st, geteuid(), u->active ? u->uid : (uid_t)-1);
	if (!err && u->active && faccessat(dir_fd, base, W_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW))
		err = -EPERM;
	return err;
}

/* Does the inode at dir_fd/base (NULL: dir_fd itself) carry the immutable or append-only
 * attribute (chattr +i, +a)? Then no output can replace it, or be created in it. */
static bool fixed_attr(int dir_fd, const char *base)
{
	struct stat st;
	int fd, flags = 0;
	bool fixed;

	/* Opened only when a regular file or a directory: opening a device has effects of
	 * its own (a watchdog armed, a tape rewound), a FIFO releases a blocked writer. */
	if (fstatat(dir_fd, base ? base : ".", &st, AT_SYMLINK_NOFOLLOW) ||
	    !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
		return false;
	fd = openat(dir_fd, base ? base : ".",
		    O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return false;
	fixed = !ioctl(fd, FS_IOC_GETFLAGS, &flags) &&
		(flags & (FS_IMMUTABLE_FL | FS_APPEND_FL));
	close(fd);
	return fixed;
}

static int create_tmp(int dir_fd, const char *base, char **tmp_out, mode_t mode);

/* Create and remove the writer's temporary file for base in dir_fd, as the writer will:
 * permission bits say nothing for root on a pseudo filesystem (sysfs refuses, procfs has
 * no such file). 0 or the creation's -errno. */
static int probe_create(int dir_fd, const char *base)
{
	char *tmp = NULL;
	int fd = create_tmp(dir_fd, base, &tmp, 0644);

	if (fd < 0)
		return fd;
	close(fd);
	unlinkat(dir_fd, tmp, 0);
	free(tmp);
	return 0;
}

int output__check_path(const char *path)
{
	struct sudo_saved saved;
	const char *base;
	struct stat st;
	int dir_fd, err;

	if (!path || !*path)
		return -EINVAL;
	dir_fd = output__open_dir(path, &base);
	if (dir_fd < 0)
		return dir_fd;
	/* A symlink to a directory reads better as -EISDIR; any other symlink is -ELOOP. */
	if (*base && !fstatat(dir_fd, base, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode) &&
	    !fstatat(dir_fd, base, &st, 0) && S_ISDIR(st.st_mode)) {
		close(dir_fd);
		return -EISDIR;
	}
	err = sudo_user__enter(&saved);
	if (!err) {
		/* Attributes first: an immutable directory answers EPERM to access(2), which
		 * reads as a file not ours to replace. */
		if (fixed_attr(dir_fd, NULL) || (*base && fixed_attr(dir_fd, base)))
			err = -ETXTBSY;
		if (!err)
			err = dest_ok(dir_fd, base, false);
		/* The temporary file is created there: a directory we (under sudo: the user)
		 * cannot write, or a read-only one, would lose the whole trace at the end. */
		if (!err && faccessat(dir_fd, ".", W_OK | X_OK, AT_EACCESS))
			err = -errno;
		if (!err)
			err = probe_create(dir_fd, base);
		sudo_user__leave(&saved);
	}
	close(dir_fd);
	return err;
}

/* May a symlink (st) in directory dir_fd be followed on the way to an output? Only when
 * nobody but root or the acting user could have planted it: the link and its directory
 * belong to one of them, and the directory is not writable by group or others. */
static bool trusted_link(int dir_fd, const struct stat *st, uid_t acting)
{
	struct stat dst;

	if (st->st_uid != 0 && st->st_uid != acting)
		return false;
	if (fstat(dir_fd, &dst))
		return false;
	return (dst.st_uid == 0 || dst.st_uid == acting) && !(dst.st_mode & (S_IWGRP | S_IWOTH));
}

/* output__open_dir, as the process itself when as_self. */
static int open_dir(const char *path, const char **base, bool as_self)
{
	const struct sudo_user *u = acting_user(as_self);
	uid_t acting = u->active ? u->uid : geteuid();
	const char *p = path, *slash = strrchr(path, '/');
	struct sudo_saved saved;
	int fd, next, err;

	*base = slash ? slash + 1 : path;
	err = enter_user(as_self, &saved);
	if (err)
		return err;
	fd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	/* Component by component: a symlink is followed only when trusted_link() says so. */
	while (slash && p < slash) {
		size_t len = strcspn(p, "/");
		char comp[NAME_MAX + 1];
		struct stat st;

		if (p + len > slash)
			len = (size_t)(slash - p);
		if (len > NAME_MAX) {
			err = -ENAMETOOLONG;
			goto out;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		p += len + 1;
		if (!len || !strcmp(comp, "."))
			continue;
		if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW)) {
			err = -errno;
			goto out;
		}
		if (S_ISLNK(st.st_mode) && !trusted_link(fd, &st, acting)) {
			err = -ELOOP;
			goto out;
		}
		next = openat(fd, comp,
			      O_PATH | O_DIRECTORY | O_CLOEXEC | (S_ISLNK(st.st_mode) ? 0 : O_NOFOLLOW));
		if (next < 0) {
			err = -errno;
			goto out;
		}
		close(fd);
		fd = next;
	}
out:
	sudo_user__leave(&saved);
	if (err && fd >= 0)
		close(fd);
	return err ? err : fd;
}

int output__open_dir(const char *path, const char **base)
{
	return open_dir(path, base, false);
}

/* A fresh .BASE.XXXXXX in dir_fd, created exclusively (never through a symlink), with mode
 * (less the umask). */
static int create_tmp(int dir_fd, const char *base, char **tmp_out, mode_t mode)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[6];
	char *tmp;
	int fd = -EEXIST, i, j;

	if (asprintf(&tmp, ".%.200s.XXXXXX", base) < 0)
		return -ENOMEM;
	for (i = 0; i < 100 && fd == -EEXIST; i++) {
		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
			fd = -errno;
			break;
		}
		for (j = 0; j < 6; j++)
			tmp[strlen(tmp) - 6 + (size_t)j] = chars[rnd[j] % (sizeof(chars) - 1)];
		fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0)
		free(tmp);
	else
		*tmp_out = tmp;
	return fd;
}

/*
 * Check the destination and create the temporary file next to it, as the sudo user when
 * there is one (then the file is theirs from the start, and the kernel checks every step
 * as for them). Fills o->dir_fd, o->base, o->tmp. The fd or -errno.
 */
static int output__open_fd(struct output *o)
{
	struct sudo_saved saved;
	int fd, err;

	o->dir_fd = open_dir(o->path, &o->base, o->as_self);
	if (o->dir_fd < 0)
		return o->dir_fd;
	err = enter_user(o->as_self, &saved);
	if (err)
		return err;
	err = dest_ok(o->dir_fd, o->base, o->as_self);
	/* 0644 less the umask, as any new file; a private one 0600. */
	fd = err ? err : create_tmp(o->dir_fd, o->base, &o->tmp, o->as_self ? 0600 : 0644);
	sudo_user__leave(&saved);
	return fd;
}

/* err == 0: rename the temporary file over the destination; otherwise (or if the rename
 * fails) remove it. Releases what output__open_fd filled. Returns err or the rename's. */
static int output__finish_fd(struct output *o, int err)
{
	struct sudo_saved saved;

	if (o->tmp) {
		/* As the user: the sticky-directory and directory-write rules are theirs. */
		if (!enter_user(o->as_self, &saved)) {
			if (!err && renameat(o->dir_fd, o->tmp, o->dir_fd, o->base))
				err = -errno;
			if (err)
				unlinkat(o->dir_fd, o->tmp, 0); /* an older file stays intact */
			sudo_user__leave(&saved);
		} else {
			err = err ?: -EPERM;
			unlinkat(o->dir_fd, o->tmp, 0);
		}
	}
	free(o->tmp);
	o->tmp = NULL;
	if (o->dir_fd >= 0)
		close(o->dir_fd);
	o->dir_fd = -1;
	return err;
}

/* fopencookie() glue: a FILE * that deflates into a gzFile. */
static ssize_t gz_cookie_write(void *cookie, const char *buf, size_t size)
{
	int n;

	if (!size)
		return 0;
	n = gzwrite((gzFile)cookie, buf, (unsigned)size);
	return n > 0 ? n : -1;
}

static int gz_cookie_close(void *cookie)
{
	return gzclose((gzFile)cookie) == Z_OK ? 0 : -1;
}

static bool has_gz_suffix(const char *path)
{
	size_t n = strlen(path);

	return n > 3 && !strcmp(path + n - 3, ".gz");
}

/* A FILE * on a copy of fd (fd itself stays open for fsync), deflating if gzip. */
static FILE *stream_on(int fd, bool gzip)
{
	cookie_io_functions_t io = { .write = gz_cookie_write, .close = gz_cookie_close };
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	gzFile gz;
	FILE *f;

	if (copy < 0)
		return NULL;
	if (!gzip) {
		f = fdopen(copy, "w");
		if (!f)
			close(copy);
		return f;
	}
	gz = gzdopen(copy, "wb");
	if (!gz) {
		close(copy);
		if (!errno)
			errno = ENOMEM; /* zlib leaves errno 0 when out of memory */
		return NULL;
	}
	f = fopencookie(gz, "w", io);
	if (!f)
		gzclose(gz);
	return f;
}

int output__open(struct output *o, const char *path, unsigned flags)
{
	bool gzip = (flags & OUTPUT_GZIP) || ((flags & OUTPUT_GZIP_SUFFIX) && has_gz_suffix(path));
	int fd, err;

	*o = (struct output){ .path = path, .fd = -1, .dir_fd = -1,
			      .as_self = (flags & OUTPUT_PRIVATE) != 0 };
	if ((flags & OUTPUT_STDOUT_DASH) && !strcmp(path, "-")) {
		o->f = gzip ? stream_on(STDOUT_FILENO, true) : stdout;
		return o->f ? 0 : -errno;
	}
	fd = output__open_fd(o);
	if (fd < 0)
		return output__finish_fd(o, fd);
	errno = 0;
	o->f = stream_on(fd, gzip);
	if (!o->f) {
		err = errno ? -errno : -ENOMEM;
		close(fd);
		return output__finish_fd(o, err);
	}
	o->fd = fd;
	return 0;
}

int output__close(struct output *o, int err)
{
	if (!o->f)
		return err;
	if (o->f == stdout) {
		errno = 0;
		if (fflush(stdout) && !err)
			err = errno > 0 ? -errno : -EIO;
		o->f = NULL;
		return err;
	}
	errno = 0;
	if (fclose(o->f) && !err)
		err = errno > 0 ? -errno : -EIO;
	o->f = NULL;
	/* The data must be on disk before the rename makes it visible. */
	if (o->fd >= 0 && !err && fsync(o->fd))
		err = -errno;
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	return output__finish_fd(o, err);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* An id from the environment (SUDO_UID, SUDO_GID), or (id_t)-1 when unset or malformed. */
static id_t env_id(const char *name)
{
	const char *v = getenv(name);
	char *end;
	unsigned long n;

	if (!v || !*v)
		return (id_t)-1;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n >= (id_t)-1)
		return (id_t)-1;
	return (id_t)n;
}

int output__dest_check(const char *path, uid_t euid, uid_t sudo_uid)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP; /* never through, nor over, a symlink someone else may have planted */
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EPERM; /* devices, fifos, sockets */
	if (st.st_uid != euid && st.st_uid != 0 && (sudo_uid == (uid_t)-1 || st.st_uid != sudo_uid))
		return -EPERM; /* someone else's file: not ours to replace */
	return 0;
}

int output__check_path(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	struct stat st;
	char *dir;
	int err = 0;

	if (!path || !*path)
		return -EINVAL;
	if (slash && !slash[1])
		return -EISDIR; /* "dir/": names a directory, not a file */
	if (slash)
		dir = slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
	else
		dir = strdup(".");
	if (!dir)
		return -ENOMEM;
	if (stat(dir, &st))
		err = -errno;
	else if (!S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	free(dir);
	if (err)
		return err;
	if (!lstat(path, &st) && S_ISLNK(st.st_mode) && stat(path, &st))
		return -ELOOP; /* a dangling symlink: what it would create is not ours to say */
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return -EISDIR;
	return 0;
}

int output__open_fd(const char *path, char **tmp_out)
{
	uid_t euid = geteuid();
	id_t sudo_uid = euid == 0 ? env_id("SUDO_UID") : (id_t)-1;
	id_t sudo_gid = euid == 0 ? env_id("SUDO_GID") : (id_t)-1;
	const char *slash = strrchr(path, '/');
	char *tmp = NULL;
	mode_t um;
	int fd, err;

	*tmp_out = NULL;
	err = output__dest_check(path, euid, (uid_t)sudo_uid);
	if (err)
		return err;
	/* DIR/.BASE.XXXXXX next to the destination, so the rename stays on one filesystem. */
	if (asprintf(&tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
		     slash ? slash + 1 : path) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	/* mkostemp creates 0600: give the file the usual 0644 (less the umask). */
	um = umask(0);
	umask(um);
	if (fchmod(fd, 0644 & ~um) ||
	    (sudo_uid != (id_t)-1 && sudo_gid != (id_t)-1 &&
	     fchown(fd, (uid_t)sudo_uid, (gid_t)sudo_gid))) {
		err = -errno;
		close(fd);
		unlink(tmp);
		free(tmp);
		return err;
	}
	*tmp_out = tmp;
	return fd;
}

int output__finish_fd(const char *path, char *tmp, int err)
{
	if (!tmp)
		return err;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp); /* never leave a truncated file behind; an older one stays intact */
	free(tmp);
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

	*o = (struct output){ .path = path, .fd = -1 };
	if ((flags & OUTPUT_STDOUT_DASH) && !strcmp(path, "-")) {
		o->f = gzip ? stream_on(STDOUT_FILENO, true) : stdout;
		return o->f ? 0 : -errno;
	}
	fd = output__open_fd(path, &o->tmp);
	if (fd < 0)
		return fd;
	errno = 0;
	o->f = stream_on(fd, gzip);
	if (!o->f) {
		err = errno ? -errno : -ENOMEM;
		close(fd);
		output__finish_fd(path, o->tmp, err);
		o->tmp = NULL;
		return err;
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
	err = output__finish_fd(o->path, o->tmp, err);
	o->tmp = NULL;
	return err;
}

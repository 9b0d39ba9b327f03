// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* cfi_cache - unwind tables on disk by build-id (see cfi_cache.h). */
#include "cfi_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "output.h"
#include "safe_open.h"

int cfi_cache__path(const char *dir, const uint8_t *id, uint32_t len, char *out, size_t sz)
{
	char hex[2 * 20 + 1];
	int n;

	if (!len || len > 20)
		return -EINVAL;
	for (uint32_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	n = snprintf(out, sz, "%s/%s.unw", dir, hex);
	return n > 0 && (size_t)n < sz ? 0 : -ENAMETOOLONG;
}

/* May a directory (st) on the way to the cache be trusted? Root's or ours, and nobody
 * else may change its entries: not writable by others, or sticky (as /tmp), where others
 * can add entries but not move ours. The cache directory itself: ours and 0700-ish. */
static int trusted_dir(const struct stat *st, bool last)
{
	uid_t me = geteuid();

	if (!S_ISDIR(st->st_mode))
		return -ENOTDIR;
	if (last)
		return st->st_uid == me && !(st->st_mode & 077) ? 0 : -EPERM;
	if (st->st_uid != 0 && st->st_uid != me)
		return -EPERM;
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return -EPERM;
	return 0;
}

/* Check (and with create, make: 0700 each missing level) the directory chain of dir. An
 * O_PATH fd on dir, re-checked through the fd, or -errno (-EPERM, -ELOOP: not trusted). */
static int open_dir(const char *dir, bool create)
{
	char path[PATH_MAX];
	size_t len = strlen(dir);
	bool parent_open = false; /* the level above may be written by others (sticky) */
	struct stat st;
	int fd, err;

	if (dir[0] != '/' || len >= sizeof(path))
		return -EINVAL;
	memcpy(path, dir, len + 1);
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	/* Each prefix ending before a '/' (and the whole path last). */
	for (size_t i = 1; i <= len; i++) {
		if (i < len && path[i] != '/')
			continue;
		char save = path[i];

		path[i] = '\0';
		err = 0;
		/* A missing level is made 0700; a mkdir racing ours (EEXIST) is checked below. */
		if (lstat(path, &st) && (errno != ENOENT || !create ||
					 (mkdir(path, 0700) && errno != EEXIST) || lstat(path, &st)))
			err = -errno;
		/* A symlink only as output.h trusts one: root's or ours, in a directory that
		 * nobody else may write (not even a sticky one), so nobody else planted it. */
		if (!err && S_ISLNK(st.st_mode))
			err = (st.st_uid != 0 && st.st_uid != geteuid()) || parent_open ? -ELOOP
			      : stat(path, &st)					   ? -errno
										   : 0;
		if (!err)
			err = trusted_dir(&st, i == len);
		parent_open = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
		path[i] = save;
		if (err)
			return err;
	}
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) ? -errno : trusted_dir(&st, true);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* FNV-1a over the rows' bytes a word at a time (the byte loop was most of a warm load),
 * the last partial word zero-padded. */
static uint64_t rows_sum(const struct unwind_row *rows, uint32_t n)
{
	const unsigned char *p = (const unsigned char *)rows;
	size_t len = (size_t)n * sizeof(*rows), i;
	uint64_t h = HASH_FNV64_BASIS, w;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = hash__fnv1a64_word(h, w);
	}
	if (i < len) {
		w = 0;
		memcpy(&w, p + i, len - i);
		h = hash__fnv1a64_word(h, w);
	}
	return h;
}

/* Read exactly n bytes. 0 or -errno (-EBADMSG when the file is shorter). */
static int read_all(int fd, void *buf, size_t n)
{
	char *p = buf;

	while (n) {
		ssize_t got = read(fd, p, n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EBADMSG;
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

int cfi_cache__src_of(int fd, struct cfi_cache_src *src)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	*src = (struct cfi_cache_src){.dev = st.st_dev,
				      .ino = st.st_ino,
				      .size = (uint64_t)st.st_size,
				      .ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 +
						  st.st_ctim.tv_nsec};
	return 0;
}

int cfi_cache__load(const char *dir, const uint8_t *id, uint32_t len,
		    const struct cfi_cache_src *src, struct unwind_row **rows, uint32_t *n)
{
	char path[PATH_MAX];
	const char *base;
	struct cfi_cache_hdr h;
	struct unwind_row *r = NULL;
	struct stat st;
	int dfd, fd = -1, err;

	err = cfi_cache__path(dir, id, len, path, sizeof(path));
	if (err)
		return err;
	base = strrchr(path, '/') + 1;
	dfd = open_dir(dir, false);
	if (dfd < 0)
		return dfd;
	fd = safe_open__read_private(dfd, base, sizeof(h) + (uint64_t)CFI_CACHE_MAX_ROWS *
						       sizeof(struct unwind_row));
	close(dfd);
	if (fd < 0)
		return fd == -EFBIG ? -EBADMSG : fd;
	err = fstat(fd, &st) ? -errno : 0;
	if (!err && st.st_uid != geteuid())
		err = -EPERM;
	if (!err)
		err = read_all(fd, &h, sizeof(h));
	if (err)
		goto out;
	err = -EBADMSG;
	if (memcmp(h.magic, CFI_CACHE_MAGIC, sizeof(h.magic)) || h.version != CFI_CACHE_VERSION ||
	    h.row_sz != sizeof(struct unwind_row) || h.build_id_len != len ||
	    memcmp(h.build_id, id, len) || memcmp(&h.src, src, sizeof(*src)) || !h.n_rows ||
	    h.n_rows > CFI_CACHE_MAX_ROWS ||
	    (uint64_t)st.st_size != sizeof(h) + (uint64_t)h.n_rows * sizeof(*r))
		goto out;
	r = malloc((size_t)h.n_rows * sizeof(*r));
	if (!r) {
		err = -ENOMEM;
		goto out;
	}
	err = read_all(fd, r, (size_t)h.n_rows * sizeof(*r));
	if (!err && rows_sum(r, h.n_rows) != h.checksum)
		err = -EBADMSG;
	/* Sorted, or BPF's binary search would be wrong: the checksum is no proof of that. */
	for (uint32_t i = 1; !err && i < h.n_rows; i++)
		if (r[i].pc <= r[i - 1].pc)
			err = -EBADMSG;
out:
	close(fd);
	if (err) {
		free(r);
		return err;
	}
	*rows = r;
	*n = h.n_rows;
	return 0;
}

int cfi_cache__store(const char *dir, const uint8_t *id, uint32_t len,
		     const struct cfi_cache_src *src, const struct unwind_row *rows, uint32_t n)
{
	struct cfi_cache_hdr h = {.magic = CFI_CACHE_MAGIC};
	char path[PATH_MAX];
	struct output o;
	int dfd, err;

	err = cfi_cache__path(dir, id, len, path, sizeof(path));
	if (err)
		return err;
	dfd = open_dir(dir, true);
	if (dfd < 0)
		return dfd;
	close(dfd);
	h.version = CFI_CACHE_VERSION;
	h.row_sz = sizeof(*rows);
	memcpy(h.build_id, id, len);
	h.build_id_len = len;
	h.n_rows = n;
	h.checksum = rows_sum(rows, n);
	h.src = *src;
	err = output__open(&o, path, OUTPUT_PRIVATE);
	if (err)
		return err;
	if (fwrite(&h, sizeof(h), 1, o.f) != 1 || fwrite(rows, sizeof(*rows), n, o.f) != n)
		err = -EIO;
	return output__close(&o, err);
}

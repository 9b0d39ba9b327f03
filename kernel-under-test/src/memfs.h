/* SPDX-License-Identifier: MIT */
/*
 * memfs.h - the in-memory filesystem kaish mounts at `/` (MemoryFs, §4.2): every path
 * outside the sandbox root lands here, so host files stay invisible and writes stay in
 * memory. Shared by a kernel and all its forks (scatter workers use it from their threads),
 * kept across execute() calls, bounded by the kernel's vfs budget.
 *
 * Paths are absolute and lexically normal (no ".", "..", "//"; vfs.c normalizes them).
 * `/`, `/tmp` and the directories above the sandbox root (its mount point) always exist as
 * directories, and a listing of the root's parent shows the root. Errors are -errno:
 * ENOENT, ENOTDIR, EISDIR, EEXIST, EPERM (removing `/` or `/tmp`), ENOSPC (over the
 * budget), ENOMEM.
 */
#ifndef KAISH_MEMFS_H
#define KAISH_MEMFS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

struct strv;

struct mem_node {
	char *path;	       /* absolute, normal */
	bool dir;
	char *data;	       /* file bytes (malloc'd), NULL when empty */
	size_t len;	       /* file size in bytes */
	struct timespec mtime; /* last write (CLOCK_REALTIME) */
};

struct memfs {
	pthread_mutex_t lock;  /* forks on other threads share the filesystem */
	struct mem_node *v;    /* nodes in creation order; allocated on first write */
	int n, cap;
	size_t bytes;	       /* file bytes held */
	size_t budget;	       /* cap on bytes, 0 = none (kaish's ByteBudget) */
	const char *mount;     /* the sandbox root mounted over it (borrowed), or NULL */
};

/* Set up an empty filesystem (no allocation) / release everything it holds. */
void memfs_init(struct memfs *m, size_t budget);
void memfs_destroy(struct memfs *m);

/* Whole-file read into *buf (malloc'd, NUL-terminated; *len bytes). */
int memfs_read(struct memfs *m, const char *path, char **buf, size_t *len);
/* Create or truncate (append: extend) a file; its parent must be a directory. */
int memfs_write(struct memfs *m, const char *path, const char *buf, size_t len, bool append);
/* Mode (S_IFDIR 0755 / S_IFREG 0644), size and mtime. */
int memfs_stat(struct memfs *m, const char *path, struct stat *st);
/* Sorted names of a directory's entries. */
int memfs_list(struct memfs *m, const char *path, struct strv *names);
int memfs_mkdir(struct memfs *m, const char *path);
/* Remove a file, or a directory (recursive: with everything below it; else -EISDIR). */
int memfs_remove(struct memfs *m, const char *path, bool recursive);
/* Create an empty file if missing, else update its mtime. */
int memfs_touch(struct memfs *m, const char *path);

#endif /* KAISH_MEMFS_H */

/* SPDX-License-Identifier: MIT */
/*
 * vfs.h - every file access of the kernel, confined to the sandbox root (the path model
 * is described atop vfs.c). Errors are negative: -errno or -VFS_EESCAPE.
 */
#ifndef KAISH_VFS_H
#define KAISH_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "kaish.h"

struct strv;

#define VFS_EESCAPE 10000 /* -VFS_EESCAPE: "path escapes root" */

/* Confined host path for a VFS path (relative to k->cwd), or for a path in the memory
 * filesystem its lexical absolute form. follow=false canonicalizes only the parent, so the
 * last component may be a symlink that is not followed. */
int vfs_resolve(kaish_kernel *k, const char *path, bool follow, char **host);
const char *vfs_strerror(int err);
/* Exit code for a vfs error: 2 for a sandbox refusal, 1 otherwise. */
int vfs_exit_code(int err);
int vfs_read_all(kaish_kernel *k, const char *path, char **buf, size_t *len);
int vfs_write_all(kaish_kernel *k, const char *path, const char *buf, size_t len, bool append);
int vfs_stat(kaish_kernel *k, const char *path, struct stat *st, bool follow);
/* Sorted entry names of a directory (no . and ..). */
int vfs_list(kaish_kernel *k, const char *path, struct strv *names);
int vfs_mkdir(kaish_kernel *k, const char *path, bool parents);
/* Remove (or move to the trash when trash is on). */
int vfs_remove(kaish_kernel *k, const char *path, bool recursive, bool trash);
int vfs_touch(kaish_kernel *k, const char *path);
int vfs_chdir(kaish_kernel *k, const char *path);

/* Walk files under path in name order, skipping hidden entries and .gitignore'd paths.
 * cb gets the display path (path + "/" + relative) and returns 0 to continue. */
typedef int (*vfs_walk_fn)(void *ctx, const char *display, const char *vpath);
int vfs_walk(kaish_kernel *k, const char *path, vfs_walk_fn cb, void *ctx);

#endif /* KAISH_VFS_H */

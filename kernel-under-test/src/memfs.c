/* SPDX-License-Identifier: MIT */
/*
 * memfs.c - the in-memory `/` (see memfs.h). A flat vector of nodes searched linearly:
 * scripts keep a handful of scratch files there, and a flat vector keeps the lock scope
 * and the ownership simple. Every public call takes the lock for its whole duration.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "memfs.h"
#include "util.h"

void memfs_init(struct memfs *m, size_t budget)
{
	memset(m, 0, sizeof(*m));
	pthread_mutex_init(&m->lock, NULL);
	m->budget = budget;
}

void memfs_destroy(struct memfs *m)
{
	for (int i = 0; i < m->n; i++) {
		free(m->v[i].path);
		free(m->v[i].data);
	}
	free(m->v);
	pthread_mutex_destroy(&m->lock);
}

/* `/` and `/tmp` are mount points in kaish, and so is the sandbox root: they and the
 * directories leading to them are always there and never removed. */
static bool implicit_dir(const struct memfs *m, const char *path)
{
	size_t n = strlen(path);
	if (!strcmp(path, "/") || !strcmp(path, "/tmp"))
		return true;
	return m->mount && !strncmp(m->mount, path, n) && m->mount[n] == '/';
}

/* The mount point's component right below dir (dir an implicit ancestor), or NULL. */
static char *mount_child(const struct memfs *m, const char *dir)
{
	size_t n = strcmp(dir, "/") ? strlen(dir) : 0;
	if (!m->mount || strncmp(m->mount, dir, n) || m->mount[n] != '/')
		return NULL;
	const char *c = m->mount + n + 1;
	return kstrndup(c, strcspn(c, "/"));
}

static struct mem_node *find(struct memfs *m, const char *path)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].path, path))
			return &m->v[i];
	return NULL;
}

/* 1 if path is a directory, 0 if a file, -ENOENT if missing. */
static int kind(struct memfs *m, const char *path)
{
	if (implicit_dir(m, path))
		return 1;
	struct mem_node *x = find(m, path);
	return x ? x->dir : -ENOENT;
}

/* The parent of path must be a directory. */
static int parent_ok(struct memfs *m, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (slash == path)
		return 0; /* the parent is `/` */
	char *parent = kstrndup(path, (size_t)(slash - path));
	if (!parent)
		return -ENOMEM;
	int k = kind(m, parent);
	free(parent);
	return k < 0 ? k : k ? 0 : -ENOTDIR;
}

static struct mem_node *add(struct memfs *m, const char *path, bool dir)
{
	if (m->n == m->cap) {
		int cap = m->cap ? m->cap * 2 : 8;
		struct mem_node *v = realloc(m->v, (size_t)cap * sizeof(*v));
		if (!v)
			return NULL;
		m->v = v;
		m->cap = cap;
	}
	struct mem_node *x = &m->v[m->n];
	memset(x, 0, sizeof(*x));
	if (!(x->path = strdup(path)))
		return NULL;
	x->dir = dir;
	clock_gettime(CLOCK_REALTIME, &x->mtime);
	m->n++;
	return x;
}

/* Drop node i (order is not kept: listings sort). */
static void drop(struct memfs *m, int i)
{
	m->bytes -= m->v[i].len;
	free(m->v[i].path);
	free(m->v[i].data);
	m->v[i] = m->v[--m->n];
}

int memfs_read(struct memfs *m, const char *path, char **buf, size_t *len)
{
	int e = 0;
	pthread_mutex_lock(&m->lock);
	struct mem_node *x = find(m, path);
	if (!x || x->dir) {
		e = x || implicit_dir(m, path) ? -EISDIR : -ENOENT;
	} else if (!(*buf = malloc(x->len + 1))) {
		e = -ENOMEM;
	} else {
		if (x->len)
			memcpy(*buf, x->data, x->len);
		(*buf)[x->len] = '\0';
		*len = x->len;
	}
	pthread_mutex_unlock(&m->lock);
	return e;
}

int memfs_write(struct memfs *m, const char *path, const char *buf, size_t len, bool append)
{
	int e = 0;
	pthread_mutex_lock(&m->lock);
	struct mem_node *x = find(m, path);
	if ((x && x->dir) || implicit_dir(m, path)) {
		e = -EISDIR;
		goto out;
	}
	if (!x && ((e = parent_ok(m, path)) < 0 || !(x = add(m, path, false)))) {
		e = e < 0 ? e : -ENOMEM;
		goto out;
	}
	size_t keep = append ? x->len : 0;
	if (m->budget && m->bytes - x->len + keep + len > m->budget) {
		e = -ENOSPC; /* kaish's StorageFull: the file is left as it was */
		goto out;
	}
	char *d = keep + len ? realloc(x->data, keep + len) : NULL;
	if (keep + len && !d) {
		e = -ENOMEM;
		goto out;
	}
	if (len)
		memcpy(d + keep, buf, len);
	if (!d)
		free(x->data);
	m->bytes = m->bytes - x->len + keep + len;
	x->data = d;
	x->len = keep + len;
	clock_gettime(CLOCK_REALTIME, &x->mtime);
out:
	pthread_mutex_unlock(&m->lock);
	return e;
}

int memfs_stat(struct memfs *m, const char *path, struct stat *st)
{
	int e = 0;
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&m->lock);
	struct mem_node *x = find(m, path);
	if (x) {
		st->st_mode = x->dir ? S_IFDIR | 0755 : S_IFREG | 0644;
		st->st_size = (off_t)x->len;
		st->st_mtim = x->mtime;
	} else if (implicit_dir(m, path)) {
		st->st_mode = S_IFDIR | 0755;
	} else {
		e = -ENOENT;
	}
	st->st_nlink = 1;
	pthread_mutex_unlock(&m->lock);
	return e;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int memfs_list(struct memfs *m, const char *path, struct strv *names)
{
	pthread_mutex_lock(&m->lock);
	int e = kind(m, path);
	e = e < 0 ? e : e ? 0 : -ENOTDIR;
	size_t pl = strcmp(path, "/") ? strlen(path) : 0; /* children start at path + "/" */
	for (int i = 0; !e && i < m->n; i++) {
		const char *p = m->v[i].path;
		if (!strncmp(p, path, pl) && p[pl] == '/' && !strchr(p + pl + 1, '/'))
			e = strv_pushdup(names, p + pl + 1) < 0 ? -ENOMEM : 0;
	}
	char *mc = e ? NULL : mount_child(m, path);
	if (!e && !pl && (!mc || strcmp(mc, "tmp")) && strv_pushdup(names, "tmp") < 0)
		e = -ENOMEM;
	if (mc && strv_push(names, mc) < 0)
		e = -ENOMEM;
	pthread_mutex_unlock(&m->lock);
	if (!e && names->n)
		qsort(names->v, (size_t)names->n, sizeof(char *), cmp_str);
	return e;
}

int memfs_mkdir(struct memfs *m, const char *path)
{
	int e;
	pthread_mutex_lock(&m->lock);
	if (kind(m, path) >= 0)
		e = -EEXIST;
	else if ((e = parent_ok(m, path)) == 0 && !add(m, path, true))
		e = -ENOMEM;
	pthread_mutex_unlock(&m->lock);
	return e;
}

int memfs_remove(struct memfs *m, const char *path, bool recursive)
{
	int e = 0;
	pthread_mutex_lock(&m->lock);
	struct mem_node *x = find(m, path);
	size_t pl = strlen(path);
	if (implicit_dir(m, path)) {
		e = -EPERM;
	} else if (!x) {
		e = -ENOENT;
	} else if (x->dir && !recursive) {
		e = -EISDIR;
	} else {
		for (int i = m->n - 1; i >= 0; i--) {
			const char *p = m->v[i].path;
			if (!strncmp(p, path, pl) && (p[pl] == '\0' || p[pl] == '/'))
				drop(m, i);
		}
	}
	pthread_mutex_unlock(&m->lock);
	return e;
}

int memfs_touch(struct memfs *m, const char *path)
{
	int e = 0;
	pthread_mutex_lock(&m->lock);
	struct mem_node *x = find(m, path);
	if (x)
		clock_gettime(CLOCK_REALTIME, &x->mtime);
	else if (!implicit_dir(m, path) && (e = parent_ok(m, path)) == 0 && !add(m, path, false))
		e = -ENOMEM;
	pthread_mutex_unlock(&m->lock);
	return e;
}

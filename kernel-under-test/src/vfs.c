/* SPDX-License-Identifier: MIT */
/*
 * vfs.c - every file access of the kernel, confined to the sandbox root.
 *
 * Path model (a simplification of kaish's VfsRouter for Sandboxed{root}):
 *  - the sandbox is mounted at its real (canonical) path, so the VFS path of a file in the
 *    sandbox is its host path, and `pwd` shows the real root;
 *  - a path is joined to the VFS cwd, then canonicalized with realpath(3) (resolving `..`
 *    and symlinks); a path that does not exist yet has its parent canonicalized;
 *  - a path is routed by its lexical form, as kaish's router picks the longest mount
 *    prefix: below the root it is a sandbox path, anywhere else it lands in the in-memory
 *    filesystem mounted at `/` (memfs.c), so host files outside the root are never seen
 *    and writes there stay in memory. `/dev/null` is the one synthetic device (empty read,
 *    discarded write); other `/dev` paths do not exist;
 *  - a sandbox path, once canonicalized, must be the root or below it, else "path escapes
 *    root" (exit 2): a symlink inside the root that points out is refused;
 *  - lstat/unlink/rm canonicalize only the parent, so `rm link` removes the link and never
 *    reaches its target;
 *  - the isolated preset has no sandbox: every path is in the memory filesystem.
 *
 * Check, then use without re-resolving: the canonical host path is only used through
 * open_beneath()/parent_beneath(), which resolve it again relative to an O_PATH descriptor of
 * the root with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS). A
 * canonical path has no symlinks, so a symlink met there was planted after the check (a race):
 * the kernel refuses it ("path escapes root") instead of following it, and no resolution can
 * climb above the root. Kernels without openat2 (before 5.6) fall back to the check followed
 * by open(O_NOFOLLOW), which only protects the last component.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vfs.h"
#include "kernel.h"
#include "memfs.h"
#include "scope.h"
#include "util.h"

#define TRASH_DIR ".Trash"
#define TRASH_MAX_SIZE (10 * 1024 * 1024) /* larger files are deleted, as kaish's default */
#define WALK_MAX_DEPTH 64

const char *vfs_strerror(int err)
{
	if (err == -VFS_EESCAPE)
		return "path escapes root";
	return strerror(-err);
}

int vfs_exit_code(int err)
{
	return err == -VFS_EESCAPE ? KAISH_EXIT_USAGE : KAISH_EXIT_FAILURE;
}

static bool under_root(const char *root, const char *p)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return true;
	return !strncmp(p, root, n) && (p[n] == '\0' || p[n] == '/');
}

/* The part of a checked host path below the root ("." for the root itself). */
static const char *below_root(const char *root, const char *host)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return host[1] ? host + 1 : ".";
	return host[n] ? host + n + 1 : ".";
}

/*
 * Open host, a path vfs_resolve() returned (canonical, under the root), so that no symlink
 * is followed on any component and resolution cannot leave the root, whatever changed since
 * the check. Returns an fd or -errno; EXDEV and ELOOP (a component was swapped for a
 * symlink, or leads out) become -VFS_EESCAPE.
 */
static int open_beneath(kaish_kernel *k, const char *host, int flags, mode_t mode)
{
	const char *root = k->sh->root;
	if (!strcmp(host, "/dev/null") || !under_root(root, host)) {
		int fd = open(host, flags | O_CLOEXEC, mode);
		return fd < 0 ? -errno : fd;
	}
	int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -errno;
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd;
	do
		fd = (int)syscall(SYS_openat2, rfd, below_root(root, host), &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN); /* a concurrent rename: retry, as the man page says */
	int e = fd < 0 ? errno : 0;
	close(rfd);
	if (fd >= 0)
		return fd;
	if (e == ENOSYS || e == EPERM /* seccomp */) {
		/* No openat2: the check already happened; protect at least the last component. */
		fd = open(host, flags | O_CLOEXEC | O_NOFOLLOW, mode);
		return fd < 0 ? (errno == ELOOP ? -VFS_EESCAPE : -errno) : fd;
	}
	return (e == EXDEV || e == ELOOP) ? -VFS_EESCAPE : -e;
}

/*
 * The parent directory of host opened beneath the root (O_PATH), and host's last component
 * in *base (pointing into host), for the *at() calls that must not follow the last
 * component (lstat, mkdir, unlink). Returns an fd or -errno.
 */
static int parent_beneath(kaish_kernel *k, const char *host, const char **base)
{
	char *dir = strdup(host);
	if (!dir)
		return -ENOMEM;
	char *slash = strrchr(dir, '/');
	*base = strrchr(host, '/') + 1;
	if (slash == dir)
		slash[1] = '\0'; /* parent is "/" */
	else
		*slash = '\0';
	int fd = open_beneath(k, dir, O_PATH | O_DIRECTORY, 0);
	free(dir);
	return fd;
}

static char *join(const char *a, const char *b)
{
	struct sbuf s;
	sb_init(&s);
	sb_adds(&s, a);
	if (s.len && s.s[s.len - 1] != '/')
		sb_addc(&s, '/');
	sb_adds(&s, b);
	return s.oom ? (sb_free(&s), NULL) : sb_detach(&s);
}

/* Canonical parent + last component, without following the last component. */
static int resolve_parent(const char *full, char **out)
{
	char *dup = strdup(full);
	if (!dup)
		return -ENOMEM;
	size_t n = strlen(dup);
	while (n > 1 && dup[n - 1] == '/')
		dup[--n] = '\0';
	char *slash = strrchr(dup, '/');
	const char *base = slash + 1;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		free(dup);
		return 1; /* caller falls back to full resolution */
	}
	*slash = '\0';
	char *parent = realpath(*dup ? dup : "/", NULL);
	if (!parent) {
		int e = -errno;
		free(dup);
		return e;
	}
	*out = join(parent, base);
	free(parent);
	free(dup);
	return *out ? 0 : -ENOMEM;
}

/* Lexical normalization (. and .. only, no filesystem access). */
static char *lexical(const char *full)
{
	struct sbuf b;
	sb_init(&b);
	const char *p = full;
	while (*p) {
		while (*p == '/')
			p++;
		const char *e = strchrnul(p, '/');
		size_t n = (size_t)(e - p);
		if (n == 2 && !strncmp(p, "..", 2)) {
			while (b.len && b.s[b.len - 1] != '/')
				b.len--;
			if (b.len)
				b.len--;
			if (b.s)
				b.s[b.len] = '\0';
		} else if (n && !(n == 1 && *p == '.')) {
			sb_addc(&b, '/');
			sb_add(&b, p, n);
		}
		p = e;
	}
	if (!b.len)
		sb_addc(&b, '/');
	return b.oom ? (sb_free(&b), NULL) : sb_detach(&b);
}

/* True if p (absolute) has no ".", ".." or empty component: it is its own lexical form. */
static bool is_normal(const char *p)
{
	for (const char *c = p; *c; c++) {
		if (*c != '/')
			continue;
		if (c[1] == '/' || (c[1] == '\0' && c != p))
			return false;
		bool dot = c[1] == '.' && (c[2] == '/' || !c[2]);
		bool dotdot = c[1] == '.' && c[2] == '.' && (c[3] == '/' || !c[3]);
		if (dot || dotdot)
			return false;
	}
	return true;
}

/*
 * Resolve a VFS path (relative to k->cwd). A sandbox path: *host is its checked canonical
 * host path (follow=false canonicalizes only the parent). A memory path: *mem is set and
 * *host is its lexical absolute form.
 */
static int resolve(kaish_kernel *k, const char *path, bool follow, char **host, bool *mem)
{
	const char *root = k->sh->root;
	*host = NULL;
	*mem = false;
	if (!strcmp(path, "/dev/null")) {
		*host = strdup("/dev/null");
		return *host ? 0 : -ENOMEM;
	}
	if (!*path)
		return -ENOENT;
	char *full = path[0] == '/' ? strdup(path) : join(k->cwd, path);
	if (!full)
		return -ENOMEM;
	if (!is_normal(full)) { /* most paths are normal already: no copy for them */
		char *lex = lexical(full);
		if (!lex) {
			free(full);
			return -ENOMEM;
		}
		if (!root || !under_root(root, lex)) {
			free(full);
			full = lex;
		} else {
			free(lex); /* a sandbox path resolves from full (symlinks before ..) */
		}
	}
	if (!root || !under_root(root, full)) {
		if (!strncmp(full, "/dev", 4) && (full[4] == '/' || !full[4])) {
			free(full);
			return -ENOENT; /* kaish's DevFs; only null is provided here */
		}
		*host = full;
		*mem = true;
		return 0;
	}
	int e = 1;
	char *res = NULL;
	if (!follow)
		e = resolve_parent(full, &res);
	if (e == 1) {
		res = realpath(full, NULL);
		e = 0;
		if (!res) {
			e = -errno;
			if (e == -ENOENT)
				e = resolve_parent(full, &res);
			if (e == 1)
				e = -ENOENT;
		}
	}
	free(full);
	if (e < 0)
		return e;
	if (!under_root(root, res)) {
		free(res);
		return -VFS_EESCAPE;
	}
	*host = res;
	return 0;
}

int vfs_resolve(kaish_kernel *k, const char *path, bool follow, char **host)
{
	bool mem;
	return resolve(k, path, follow, host, &mem);
}

int vfs_read_all(kaish_kernel *k, const char *path, char **buf, size_t *len)
{
	char *host;
	bool mem;
	*buf = NULL;
	*len = 0;
	int e = resolve(k, path, true, &host, &mem);
	if (e < 0)
		return e;
	if (mem) {
		e = memfs_read(&k->sh->mem, host, buf, len);
		free(host);
		return e;
	}
	int fd = open_beneath(k, host, O_RDONLY, 0);
	free(host);
	if (fd < 0)
		return fd;
	struct stat st;
	if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		e = S_ISDIR(st.st_mode) ? -EISDIR : -errno;
		close(fd);
		return e;
	}
	struct sbuf b;
	sb_init(&b);
	char chunk[8192];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = -errno;
			close(fd);
			sb_free(&b);
			return e;
		}
		if (n == 0)
			break;
		sb_add(&b, chunk, (size_t)n);
	}
	close(fd);
	if (b.oom) {
		sb_free(&b);
		return -ENOMEM;
	}
	*len = b.len;
	*buf = sb_detach(&b);
	return *buf ? 0 : -ENOMEM;
}

int vfs_write_all(kaish_kernel *k, const char *path, const char *buf, size_t len, bool append)
{
	char *host;
	bool mem;
	int e = resolve(k, path, true, &host, &mem);
	if (e < 0)
		return e;
	if (mem || !strcmp(host, "/dev/null")) {
		e = mem ? memfs_write(&k->sh->mem, host, buf, len, append) : 0;
		free(host);
		return e;
	}
	int fd = open_beneath(k, host, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
	free(host);
	if (fd < 0)
		return fd;
	while (len) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = -errno;
			close(fd);
			return e;
		}
		buf += n;
		len -= (size_t)n;
	}
	return close(fd) < 0 ? -errno : 0;
}

int vfs_stat(kaish_kernel *k, const char *path, struct stat *st, bool follow)
{
	char *host;
	bool mem;
	int e = resolve(k, path, follow, &host, &mem);
	if (e < 0)
		return e;
	if (mem) {
		e = memfs_stat(&k->sh->mem, host, st);
	} else if (!strcmp(host, "/dev/null")) {
		e = stat(host, st) < 0 ? -errno : 0;
	} else if (follow || !strcmp(host, k->sh->root)) {
		int fd = open_beneath(k, host, O_PATH, 0);
		e = fd < 0 ? fd : fstat(fd, st) < 0 ? -errno : 0;
		if (fd >= 0)
			close(fd);
	} else {
		const char *base;
		int pfd = parent_beneath(k, host, &base);
		e = pfd < 0 ? pfd : fstatat(pfd, base, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
		if (pfd >= 0)
			close(pfd);
	}
	free(host);
	return e;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_host(kaish_kernel *k, const char *host, struct strv *names)
{
	int fd = open_beneath(k, host, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = -errno;
		close(fd);
		return e;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (strv_pushdup(names, de->d_name) < 0) {
			closedir(d);
			return -ENOMEM;
		}
	}
	closedir(d);
	if (names->n)
		qsort(names->v, (size_t)names->n, sizeof(char *), cmp_str);
	return 0;
}

int vfs_list(kaish_kernel *k, const char *path, struct strv *names)
{
	char *host;
	bool mem;
	int e = resolve(k, path, true, &host, &mem);
	if (e < 0)
		return e;
	e = mem ? memfs_list(&k->sh->mem, host, names) : list_host(k, host, names);
	free(host);
	return e;
}

/* mkdir host, its parent opened beneath the root. */
static int mkdir_beneath(kaish_kernel *k, const char *host)
{
	if (!strcmp(host, k->sh->root))
		return -EEXIST;
	const char *base;
	int pfd = parent_beneath(k, host, &base);
	if (pfd < 0)
		return pfd;
	int e = mkdirat(pfd, base, 0755) < 0 ? -errno : 0;
	close(pfd);
	return e;
}

/* mkdir one directory, wherever its path lives. */
static int mkdir_one(kaish_kernel *k, const char *path)
{
	char *host;
	bool mem;
	int e = resolve(k, path, true, &host, &mem);
	if (e < 0)
		return e;
	e = mem ? memfs_mkdir(&k->sh->mem, host) : mkdir_beneath(k, host);
	free(host);
	return e;
}

int vfs_mkdir(kaish_kernel *k, const char *path, bool parents)
{
	int e;
	if (!parents)
		return mkdir_one(k, path);
	/* -p: create each missing component, checking confinement at every step. */
	char *dup = strdup(path);
	if (!dup)
		return -ENOMEM;
	size_t n = strlen(dup);
	e = 0;
	for (size_t i = 1; i <= n && e == 0; i++) {
		if (i < n && dup[i] != '/')
			continue;
		char c = dup[i];
		dup[i] = '\0';
		if ((e = mkdir_one(k, dup)) == -EEXIST)
			e = 0;
		dup[i] = c;
	}
	free(dup);
	return e;
}

/*
 * Remove name in dfd and, for a directory, everything below it, through descriptors only
 * (openat O_NOFOLLOW | O_DIRECTORY, unlinkat): a symlink is unlinked, never followed, and
 * swapping a directory for a symlink mid-way cannot redirect the removal.
 */
static int rm_tree_at(int dfd, const char *name, int depth)
{
	if (unlinkat(dfd, name, 0) == 0)
		return 0;
	if (errno != EISDIR)
		return -errno;
	if (depth > WALK_MAX_DEPTH * 4)
		return -ELOOP;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = -errno;
		close(fd);
		return e;
	}
	struct strv names;
	strv_init(&names);
	struct dirent *de;
	int e = 0;
	while (!e && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			e = strv_pushdup(&names, de->d_name) < 0 ? -ENOMEM : 0;
	for (int i = 0; !e && i < names.n; i++)
		e = rm_tree_at(dirfd(d), names.v[i], depth + 1);
	strv_free(&names);
	closedir(d);
	if (!e && unlinkat(dfd, name, AT_REMOVEDIR) < 0)
		e = -errno;
	return e;
}

/* <root>/.Trash/<sub>, created (0700) if missing, opened beneath the root (O_PATH). */
static int trash_dir(kaish_kernel *k, const char *sub)
{
	const char *base;
	char *p = join(k->sh->root, sub);
	if (!p)
		return -ENOMEM;
	int fd = parent_beneath(k, p, &base);
	if (fd >= 0) {
		int e = mkdirat(fd, base, 0700) < 0 && errno != EEXIST ? -errno : 0;
		close(fd);
		fd = e ? e : open_beneath(k, p, O_PATH | O_DIRECTORY, 0);
	}
	free(p);
	return fd;
}

/*
 * Move base (in pfd, the checked parent opened beneath the root) to <root>/.Trash/files with
 * a freedesktop-style .trashinfo record. Every step goes through descriptors opened beneath
 * the root (renameat, fstatat and openat relative to them, O_NOFOLLOW), so a path swapped
 * for a symlink after the check cannot move or overwrite anything outside the root.
 */
static int trash_move(kaish_kernel *k, int pfd, const char *base, const char *host)
{
	int tfd = trash_dir(k, TRASH_DIR), ffd = -1, ifd = -1;
	char *name = NULL;
	int e = tfd;
	if (tfd < 0)
		goto out;
	ffd = trash_dir(k, TRASH_DIR "/files");
	ifd = trash_dir(k, TRASH_DIR "/info");
	if ((e = ffd < 0 ? ffd : ifd) < 0)
		goto out;
	struct stat st;
	for (int i = 0; i < 10000; i++) {
		struct sbuf b;
		sb_init(&b);
		sb_adds(&b, base);
		if (i)
			sb_printf(&b, ".%d", i);
		free(name);
		name = sb_detach(&b);
		if (!name || fstatat(ffd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			break;
	}
	e = -ENOMEM;
	if (!name)
		goto out;
	if (renameat(pfd, base, ffd, name) < 0) {
		e = -errno; /* never fall through to destroying the data */
		goto out;
	}
	struct sbuf b;
	sb_init(&b);
	sb_printf(&b, "%s.trashinfo", name);
	char date[32];
	time_t now = time(NULL);
	struct tm tm;
	/* UTC: local time would consult TZ from the process environment (hermetic kernel). */
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	struct sbuf body;
	sb_init(&body);
	sb_printf(&body, "[Trash Info]\nPath=%s\nDeletionDate=%s\n", host, date);
	int fl = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC;
	int fd = b.oom ? -1 : openat(ifd, sb_str(&b), fl, 0600);
	if (fd >= 0) {
		if (write(fd, sb_str(&body), body.len) < 0) {
			/* the data is safe in files/; a missing info record only loses metadata */
		}
		close(fd);
	}
	sb_free(&b);
	sb_free(&body);
	e = 0;
out:
	if (tfd >= 0)
		close(tfd);
	if (ffd >= 0)
		close(ffd);
	if (ifd >= 0)
		close(ifd);
	free(name);
	return e;
}

int vfs_remove(kaish_kernel *k, const char *path, bool recursive, bool trash)
{
	char *host;
	bool mem;
	int e = resolve(k, path, false, &host, &mem);
	if (e < 0)
		return e;
	if (mem) { /* memory is not trashed: kaish's trash covers the local filesystem */
		e = memfs_remove(&k->sh->mem, host, recursive);
		free(host);
		return e;
	}
	struct stat st;
	if (!strcmp(host, k->sh->root) || !strcmp(host, "/dev/null")) {
		free(host);
		return -EPERM; /* never remove the sandbox root itself */
	}
	const char *base;
	int pfd = parent_beneath(k, host, &base);
	if (pfd < 0) {
		e = pfd;
	} else if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		e = -errno;
	} else if (S_ISLNK(st.st_mode)) {
		/* symlinks are unlinked, never followed */
		e = unlinkat(pfd, base, 0) < 0 ? -errno : 0;
	} else if (S_ISDIR(st.st_mode) && !recursive) {
		e = -EISDIR;
	} else if (trash && (S_ISDIR(st.st_mode) || st.st_size <= TRASH_MAX_SIZE)) {
		e = trash_move(k, pfd, base, host);
	} else {
		e = rm_tree_at(pfd, base, 0);
	}
	if (pfd >= 0)
		close(pfd);
	free(host);
	return e;
}

int vfs_touch(kaish_kernel *k, const char *path)
{
	char *host;
	bool mem;
	int e = resolve(k, path, true, &host, &mem);
	if (e < 0)
		return e;
	if (mem) {
		e = memfs_touch(&k->sh->mem, host);
		free(host);
		return e;
	}
	int fd = open_beneath(k, host, O_WRONLY | O_CREAT, 0644);
	if (fd < 0) {
		e = fd;
	} else {
		e = futimens(fd, NULL) < 0 ? -errno : 0;
		close(fd);
	}
	free(host);
	return e;
}

int vfs_chdir(kaish_kernel *k, const char *path)
{
	char *host;
	struct stat st;
	bool mem;
	int e = resolve(k, path, true, &host, &mem);
	if (e < 0)
		return e;
	if (mem) {
		e = memfs_stat(&k->sh->mem, host, &st);
		if (e == 0 && !S_ISDIR(st.st_mode))
			e = -ENOTDIR;
		if (e < 0) {
			free(host);
			return e;
		}
		free(k->cwd);
		k->cwd = host;
		scope_set(&k->scope, "PWD", host);
		return 0;
	}
	int fd = open_beneath(k, host, O_PATH | O_DIRECTORY, 0);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		e = fd < 0 ? fd : -ENOTDIR;
		if (fd >= 0)
			close(fd);
		free(host);
		return e;
	}
	close(fd);
	free(k->cwd);
	k->cwd = host;
	scope_set(&k->scope, "PWD", host);
	return 0;
}

/* --- walking with ignore rules ------------------------------------------------------------------ */

struct ignore_set {
	char *base;	    /* directory of the .gitignore, relative to the walk start */
	struct strv pats;   /* patterns in file order */
};

struct walk {
	kaish_kernel *k;
	vfs_walk_fn cb;
	void *ctx;
	struct ignore_set sets[WALK_MAX_DEPTH + 1];
	int nsets;
};

/* kaish's built-in default ignores, besides hidden entries. */
static const char *const default_ignores[] = { "node_modules", NULL };

static void load_gitignore(struct walk *w, const char *host_dir, const char *rel)
{
	char *p = join(host_dir, ".gitignore");
	int fd = p ? open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
	free(p);
	if (fd < 0)
		return;
	struct sbuf b;
	sb_init(&b);
	char chunk[4096];
	ssize_t n;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		sb_add(&b, chunk, (size_t)n);
	close(fd);
	struct ignore_set *s = &w->sets[w->nsets++];
	s->base = strdup(rel);
	strv_init(&s->pats);
	struct strv lines;
	strv_init(&lines);
	strv_split_lines(&lines, sb_str(&b), b.len);
	for (int i = 0; i < lines.n; i++) {
		char *l = lines.v[i];
		size_t len = strlen(l);
		while (len && (l[len - 1] == ' ' || l[len - 1] == '\r'))
			l[--len] = '\0';
		if (len && l[0] != '#')
			strv_pushdup(&s->pats, l);
	}
	strv_free(&lines);
	sb_free(&b);
}

/* Is rel (path relative to the walk start, name its last component) ignored? */
static bool ignored(struct walk *w, const char *rel, const char *name, bool is_dir)
{
	bool ign = false;
	for (const char *const *d = default_ignores; *d; d++)
		if (!strcmp(name, *d))
			return true;
	for (int i = 0; i < w->nsets; i++) {
		struct ignore_set *s = &w->sets[i];
		size_t bl = strlen(s->base);
		const char *sub = rel;
		if (bl) {
			if (strncmp(rel, s->base, bl) || rel[bl] != '/')
				continue;
			sub = rel + bl + 1;
		}
		for (int j = 0; j < s->pats.n; j++) {
			char pat[PATH_MAX];
			const char *p = s->pats.v[j];
			bool neg = p[0] == '!';
			if (neg)
				p++;
			snprintf(pat, sizeof(pat), "%s", p);
			size_t pl = strlen(pat);
			bool dir_only = pl > 1 && pat[pl - 1] == '/';
			if (dir_only)
				pat[--pl] = '\0';
			if (dir_only && !is_dir)
				continue;
			bool hit;
			if (strchr(pat, '/'))
				hit = fnmatch(pat[0] == '/' ? pat + 1 : pat, sub, FNM_PATHNAME) == 0;
			else
				hit = fnmatch(pat, name, 0) == 0;
			if (hit)
				ign = !neg;
		}
	}
	return ign;
}

static int walk_dir(struct walk *w, const char *host, const char *display, const char *rel,
		    int depth)
{
	if (depth > WALK_MAX_DEPTH)
		return 0;
	int sets_before = w->nsets;
	if (w->nsets < WALK_MAX_DEPTH + 1)
		load_gitignore(w, host, rel);
	struct strv names;
	strv_init(&names);
	int rc = list_host(w->k, host, &names);
	for (int i = 0; rc >= 0 && i < names.n; i++) {
		const char *name = names.v[i];
		if (name[0] == '.')
			continue; /* hidden entries are skipped by default */
		char *h = join(host, name);
		char *d = join(display, name);
		char *r = *rel ? join(rel, name) : strdup(name);
		struct stat st;
		if (h && d && r && lstat(h, &st) == 0 && !S_ISLNK(st.st_mode) &&
		    !ignored(w, r, name, S_ISDIR(st.st_mode))) {
			if (S_ISDIR(st.st_mode))
				rc = walk_dir(w, h, d, r, depth + 1);
			else if (S_ISREG(st.st_mode))
				rc = w->cb(w->ctx, d, h);
		}
		free(h);
		free(d);
		free(r);
		if (rc > 0)
			break; /* the callback asked to stop */
	}
	strv_free(&names);
	while (w->nsets > sets_before) {
		struct ignore_set *s = &w->sets[--w->nsets];
		free(s->base);
		strv_free(&s->pats);
	}
	return rc;
}

/* A walk in the memory filesystem: name order, hidden entries and default ignores
 * skipped (a .gitignore there is not read). */
static int walk_mem(struct walk *w, const char *mpath, const char *display, int depth)
{
	struct strv names;
	int rc;
	if (depth > WALK_MAX_DEPTH)
		return 0;
	strv_init(&names);
	rc = memfs_list(&w->k->sh->mem, mpath, &names);
	for (int i = 0; rc >= 0 && i < names.n; i++) {
		const char *name = names.v[i];
		char *m = join(mpath, name), *d = join(display, name);
		struct stat st;
		if (m && d && name[0] != '.' && !ignored(w, name, name, true) &&
		    memfs_stat(&w->k->sh->mem, m, &st) == 0)
			rc = S_ISDIR(st.st_mode) ? walk_mem(w, m, d, depth + 1) :
						   w->cb(w->ctx, d, m);
		free(m);
		free(d);
		if (rc > 0)
			break;
	}
	strv_free(&names);
	return rc;
}

int vfs_walk(kaish_kernel *k, const char *path, vfs_walk_fn cb, void *ctx)
{
	char *host;
	struct stat st;
	bool mem;
	int e = resolve(k, path, true, &host, &mem);
	if (e < 0)
		return e;
	if (mem ? (e = memfs_stat(&k->sh->mem, host, &st)) < 0 : stat(host, &st) < 0) {
		e = mem ? e : -errno;
		free(host);
		return e;
	}
	if (mem && S_ISDIR(st.st_mode)) {
		struct walk w = { .k = k, .cb = cb, .ctx = ctx };
		e = walk_mem(&w, host, path, 0);
		free(host);
		return e < 0 ? e : 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		e = cb(ctx, path, host);
		free(host);
		return e < 0 ? e : 0;
	}
	struct walk *w = calloc(1, sizeof(*w));
	if (!w) {
		free(host);
		return -ENOMEM;
	}
	w->k = k;
	w->cb = cb;
	w->ctx = ctx;
	/* Display paths keep the user's spelling: "." gives "./pkg0/file0.txt". */
	char *disp = strdup(path);
	size_t dl = disp ? strlen(disp) : 0;
	while (dl > 1 && disp[dl - 1] == '/')
		disp[--dl] = '\0';
	e = disp ? walk_dir(w, host, disp, "", 0) : -ENOMEM;
	free(disp);
	free(w);
	free(host);
	return e < 0 ? e : 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * procmaps: /proc/PID/{stat,maps,map_files,root,mem} for the symbolizer and the unwinder.
 *
 * Both read the target while it may be exiting, so every reader here turns a vanished
 * /proc entry into an error the caller can recognise (-ESRCH or a 0 start time) rather
 * than a partial result that looks valid.
 */
#include "procmaps.h"
#include "grow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "safe_open.h"

#define DELETED_SUFFIX " (deleted)"

unsigned long long proc_stat_field(pid_t pid, int field)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* comm may contain spaces and parens: count fields from the last ')' (field 2). */
	p = strrchr(buf, ')');
	for (int f = 2; p && f < field; f++)
		p = strchr(p + 1, ' ');
	/* Field 3 (the state) is a letter: every caller wants a number after it. */
	return p && field > 3 ? strtoull(p + 1, NULL, 10) : 0;
}

unsigned long long proc_start_time(pid_t pid)
{
	return proc_stat_field(pid, 22);
}

void procmaps__free(struct proc_mapping *maps, size_t cnt)
{
	size_t i;

	for (i = 0; maps && i < cnt; i++)
		free(maps[i].path);
	free(maps);
}

int procmaps__read(pid_t pid, bool exec_only, struct proc_mapping **out, size_t *cnt)
{
	struct proc_mapping *arr = NULL;
	size_t n = 0, cap = 0, line_sz = 0, sfx = strlen(DELETED_SUFFIX);
	char path[64], *line = NULL;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (getline(&line, &line_sz, f) > 0) {
		unsigned long long start, end, off, ino;
		unsigned int maj, min;
		char perms[8], *p;
		size_t len;
		bool deleted;
		int pos = 0;

		/* %n after the trailing space: pos is where the path starts (or the line end). */
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off,
			   &maj, &min, &ino, &pos) < 7 ||
		    !pos)
			continue;
		if (exec_only && (strlen(perms) < 3 || perms[2] != 'x'))
			continue;
		p = line + pos;
		p[strcspn(p, "\n")] = '\0';
		len = strlen(p);
		deleted = len > sfx && !strcmp(p + len - sfx, DELETED_SUFFIX);
		if (deleted)
			p[len - sfx] = '\0';
		if (grow__array(&arr, &cap, n + 1, sizeof(*arr))) {
			err = -ENOMEM;
			goto cleanup;
		}
		arr[n] = (struct proc_mapping){start, end, off, ino, strdup(p), deleted};
		if (!arr[n].path) {
			err = -ENOMEM;
			goto cleanup;
		}
		n++;
	}
	*out = arr;
	*cnt = n;
	arr = NULL;
	n = 0;
cleanup:
	procmaps__free(arr, n);
	free(line);
	fclose(f);
	return err;
}

int procmaps__open_file(pid_t pid, const struct proc_mapping *m)
{
	char mf[96], rootp[64];
	int i, fd, root_fd = -1, first = -1, err = -ENOENT;
	struct stat st;

	/* The mapping itself: exactly the mapped file, even deleted or a memfd (root only). */
	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", pid, (unsigned long long)m->start,
		 (unsigned long long)m->end);
	/* The path as the target resolves it (its root, maybe another mount namespace), then
	 * as we do: symlinks inside the target's root stay inside it (RESOLVE_IN_ROOT). */
	snprintf(rootp, sizeof(rootp), "/proc/%d/root", pid);
	if (m->path[0] == '/')
		root_fd = open(rootp, O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; i < 3; i++) {
		if (i == 0)
			fd = safe_open__read(AT_FDCWD, mf, 0, SAFE_OPEN_ELF_MAX);
		else if (m->path[0] != '/' || m->deleted)
			break;
		else if (i == 1 && root_fd >= 0)
			fd = safe_open__read(root_fd, m->path, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
					     SAFE_OPEN_ELF_MAX);
		else if (i == 2)
			fd = safe_open__read(AT_FDCWD, m->path, 0, SAFE_OPEN_ELF_MAX);
		else
			continue;
		if (fd < 0) {
			err = fd;
			continue;
		}
		if (!m->ino || (fstat(fd, &st) == 0 && st.st_ino == m->ino)) {
			if (first >= 0)
				close(first);
			first = fd;
			break;
		}
		/* Inode differs (replaced file, overlayfs): keep as a last resort. */
		if (first < 0)
			first = fd;
		else
			close(fd);
	}
	if (root_fd >= 0)
		close(root_fd);
	return first >= 0 ? first : err;
}

int procmaps__read_mem(pid_t pid, __u64 addr, void *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, buf, len, (off_t)addr);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (!err && n != (ssize_t)len)
		err = -EIO;
	return err;
}

int procmaps__read_vm(pid_t pid, __u64 addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n;

	if (!len)
		return 0;
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return -errno;
	/* A range that crosses into an unmapped page comes back short: not what was asked. */
	return (size_t)n == len ? 0 : -EFAULT;
}

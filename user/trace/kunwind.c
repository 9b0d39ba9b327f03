// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "kunwind.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "alloc_scope.h"
#include "cfi_table.h"
#include "clock.h"
#include "grow.h"
#include "procmaps.h"
#include "safe_open.h"
#include "safe_text.h"
#include "unwind.h"

#define LOG_TAG "kunwind: "
#include "log.h"

/* One file seen in an executable mapping. */
struct ku_module {
	dev_t dev;
	ino_t ino;
	__s64 vaddr_off; /* p_vaddr - p_offset of its executable segment */
	__u8 build_id[20];
	__u32 build_id_len;
	__u32 first_row; /* in the rows array */
	__u32 n_rows;	 /* 0: no table (no CFI, or no room) */
	struct cfi_table *pending; /* loaded before the array existed (kunwind__prepare) */
};

struct kunwind {
	const char *cache_dir;
	struct kunwind_sink sink;
	bool attached;
	struct ku_module *mods;
	size_t n_mods, cap_mods;
	pid_t *pids; /* described processes */
	size_t n_pids, cap_pids;
	struct unwind_proc proc; /* scratch: 8 KiB */
	struct kunwind_stats st;
};

struct kunwind *kunwind__new(const char *cache_dir)
{
	struct kunwind *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->cache_dir = cache_dir;
	return k;
}

void kunwind__free(struct kunwind *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n_mods; i++)
		cfi_table__free(k->mods[i].pending);
	free(k->mods);
	free(k->pids);
	free(k);
}

/* Copy t's rows into the array: the module's place, or n_rows 0 when there is no room. */
static void place(struct kunwind *k, struct ku_module *m, const struct cfi_table *t)
{
	__u8 *at;

	if (t->n_rows > k->sink.rows_cap - k->st.rows_used) {
		vlog("no room for %u more unwind rows (%llu of %u used): its stacks go as "
		     "snapshots\n", t->n_rows, (unsigned long long)k->st.rows_used,
		     k->sink.rows_cap);
		k->st.over_capacity++;
		m->n_rows = 0;
		return;
	}
	m->first_row = (__u32)k->st.rows_used;
	m->n_rows = t->n_rows;
	at = (__u8 *)k->sink.rows + (size_t)m->first_row * k->sink.row_stride;
	for (__u32 i = 0; i < t->n_rows; i++)
		memcpy(at + (size_t)i * k->sink.row_stride, &t->rows[i], sizeof(t->rows[i]));
	k->st.rows_used += t->n_rows;
	k->st.tables++;
}

/* m known to BPF by its file (unwind_modules), for PCs in no described mapping. */
static void publish(struct kunwind *k, const struct ku_module *m)
{
	struct unwind_module_key key = {
		/* the kernel's dev_t, as super_block.s_dev holds it */
		.dev = (__u64)major(m->dev) << 20 | minor(m->dev),
		.ino = m->ino,
	};
	struct unwind_module v = { .vaddr_off = m->vaddr_off, .first_row = m->first_row,
				   .n_rows = m->n_rows };

	if (k->sink.set_module && k->sink.set_module(k->sink.ctx, &key, &v))
		dlog("unwind_modules full: a module is known by its mappings only\n");
}

/* p_vaddr - p_offset of the executable PT_LOAD segment of the ELF file at fd (0 if none). */
static __s64 exec_vaddr_off(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t phnum = 0;
	__s64 off = 0;

	if (elf && !elf_getphdrnum(elf, &phnum)) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X)) {
				off = (__s64)(ph.p_vaddr - ph.p_offset);
				break;
			}
		}
	}
	elf_end(elf);
	return off;
}

/* A module already loaded from the same file, or (build-id) the same contents. */
static struct ku_module *find_module(struct kunwind *k, dev_t dev, ino_t ino,
				     const struct cfi_table *t)
{
	for (size_t i = 0; i < k->n_mods; i++) {
		struct ku_module *m = &k->mods[i];

		if (!t && m->dev == dev && m->ino == ino)
			return m;
		if (t && t->build_id_len && m->build_id_len == t->build_id_len &&
		    !memcmp(m->build_id, t->build_id, t->build_id_len) && (m->n_rows || m->pending))
			return m;
	}
	return NULL;
}

/* The module of the file open at fd (loaded now if new), or NULL (out of memory). */
static struct ku_module *module_of(struct kunwind *k, int fd, const char *shown)
{
	struct ku_module *m, *same;
	struct cfi_table *t;
	const char *why = "no CFI";
	char path[64];
	struct stat sb;
	__u64 t0;

	if (fstat(fd, &sb))
		return NULL;
	m = find_module(k, sb.st_dev, sb.st_ino, NULL);
	if (m) {
		k->st.shared++;
		return m;
	}
	if (grow__array((void **)&k->mods, &k->cap_mods, k->n_mods + 1, sizeof(*k->mods)))
		return NULL;
	/* cfi_table opens by path: this fd's file, whatever namespace the target sees. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	t0 = clock__mono_ns();
	t = cfi_table__load(path, k->cache_dir, &why);
	k->st.load_ns += clock__mono_ns() - t0;
	same = t ? find_module(k, 0, 0, t) : NULL;
	m = &k->mods[k->n_mods++];
	*m = (struct ku_module){ .dev = sb.st_dev, .ino = sb.st_ino,
				 .vaddr_off = exec_vaddr_off(fd) };
	k->st.modules++;
	if (!t) {
		vlog("%s: %s: its stacks go as snapshots\n", shown, why);
		k->st.no_cfi++;
		if (k->attached)
			publish(k, m);
		return m;
	}
	m->build_id_len = t->build_id_len <= sizeof(m->build_id) ? t->build_id_len : 0;
	memcpy(m->build_id, t->build_id, m->build_id_len);
	if (same) { /* another copy of a file loaded already (a container's, a hard link) */
		k->st.shared++;
		m->first_row = same->first_row;
		m->n_rows = same->n_rows; /* 0 while same is pending: kunwind__attach sets it */
		cfi_table__free(t);
		if (k->attached)
			publish(k, m);
		return m;
	}
	dlog("%s: %u unwind rows\n", shown, t->n_rows);
	if (k->attached) {
		place(k, m, t);
		cfi_table__free(t);
		publish(k, m);
	} else {
		m->pending = t;
	}
	return m;
}

__u64 kunwind__prepare(struct kunwind *k, pid_t pid)
{
	struct proc_mapping *maps;
	size_t n;
	__u64 rows = 0;

	if (!k || procmaps__read(pid, true, &maps, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		int fd = maps[i].path[0] == '/' ? procmaps__open_file(pid, &maps[i]) : -1;

		if (fd < 0)
			continue;
		module_of(k, fd, safe_text__term(maps[i].path));
		close(fd);
	}
	procmaps__free(maps, n);
	for (size_t i = 0; i < k->n_mods; i++)
		rows += k->mods[i].pending ? k->mods[i].pending->n_rows : 0;
	return rows;
}

int kunwind__attach(struct kunwind *k, const struct kunwind_sink *sink)
{
	if (!k || !sink || !sink->rows || sink->row_stride < sizeof(struct unwind_row))
		return -EINVAL;
	k->sink = *sink;
	k->attached = true;
	k->st.rows_cap = sink->rows_cap;
	for (size_t i = 0; i < k->n_mods; i++) {
		struct ku_module *m = &k->mods[i];

		if (!m->pending)
			continue;
		place(k, m, m->pending);
		cfi_table__free(m->pending);
		m->pending = NULL;
		/* copies of it (build-id) found while it was pending take its place */
		for (size_t j = 0; j < k->n_mods; j++)
			if (j != i && k->mods[j].build_id_len && !k->mods[j].n_rows &&
			    k->mods[j].build_id_len == m->build_id_len &&
			    !memcmp(k->mods[j].build_id, m->build_id, m->build_id_len)) {
				k->mods[j].first_row = m->first_row;
				k->mods[j].n_rows = m->n_rows;
			}
	}
	for (size_t i = 0; i < k->n_mods; i++)
		publish(k, &k->mods[i]);
	return 0;
}

static void remember(struct kunwind *k, pid_t pid)
{
	for (size_t i = 0; i < k->n_pids; i++)
		if (k->pids[i] == pid)
			return;
	if (!grow__array((void **)&k->pids, &k->cap_pids, k->n_pids + 1, sizeof(*k->pids)))
		k->pids[k->n_pids++] = pid;
}

static void drop(struct kunwind *k, pid_t pid)
{
	for (size_t i = 0; i < k->n_pids; i++)
		if (k->pids[i] == pid) {
			k->pids[i] = k->pids[--k->n_pids];
			return;
		}
}

/* The tables of pid's new image's lookup scope, before ld.so maps its libraries. */
static void load_scope(struct kunwind *k, pid_t pid)
{
	struct alloc_scope scope;
	char path[PATH_MAX];

	if (alloc_scope__for_exec(pid, &scope))
		return;
	for (size_t i = 0; i < scope.paths.cnt; i++) {
		int fd;

		alloc_scope__open_path(pid, scope.paths.items[i], path, sizeof(path));
		fd = safe_open__read(AT_FDCWD, path, 0, SAFE_OPEN_ELF_MAX);
		if (fd < 0)
			continue;
		module_of(k, fd, safe_text__term(scope.paths.items[i]));
		close(fd);
	}
	alloc_scope__release(&scope);
}

int kunwind__update(struct kunwind *k, pid_t pid, bool scope)
{
	struct unwind_proc *p;
	struct proc_mapping *maps;
	size_t n;
	int err;

	if (!k || !k->attached)
		return -EINVAL;
	err = procmaps__read(pid, true, &maps, &n);
	if (err) {
		kunwind__forget(k, pid);
		return err;
	}
	if (scope)
		load_scope(k, pid);
	p = &k->proc;
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < n; i++) {
		const struct proc_mapping *pm = &maps[i];
		struct unwind_mapping *um;
		struct ku_module *m;
		__u64 bias;
		int fd;

		if (pm->path[0] != '/') /* anonymous, [vdso]: BPF stops there, and falls back */
			continue;
		if (p->n == UNWIND_MAPPINGS_MAX) {
			k->st.maps_over++;
			break;
		}
		fd = procmaps__open_file(pid, pm);
		if (fd < 0)
			continue;
		m = module_of(k, fd, safe_text__term(pm->path));
		err = unwind__load_bias(fd, pm->start, pm->off, &bias);
		close(fd);
		if (!m || err)
			continue;
		/* maps order is address order: the array stays sorted by start */
		um = &p->m[p->n++];
		*um = (struct unwind_mapping){ .start = pm->start, .end = pm->end, .bias = bias,
					       .first_row = m->first_row, .n_rows = m->n_rows };
	}
	procmaps__free(maps, n);
	err = k->sink.set_proc(k->sink.ctx, pid, p);
	if (err)
		return err;
	k->st.updates++;
	remember(k, pid);
	return 0;
}

void kunwind__forget(struct kunwind *k, pid_t pid)
{
	if (!k || !k->attached)
		return;
	k->sink.set_proc(k->sink.ctx, pid, NULL);
	drop(k, pid);
}

void kunwind__refresh(struct kunwind *k)
{
	if (!k)
		return;
	/* backwards: an update of a gone process drops it from the array */
	for (size_t i = k->n_pids; i-- > 0;)
		kunwind__update(k, k->pids[i], false);
}

void kunwind__stats(const struct kunwind *k, struct kunwind_stats *st)
{
	if (!k) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = k->st;
}

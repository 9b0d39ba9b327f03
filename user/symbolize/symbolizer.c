// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * symbolizer: address -> Valgrind-style frame strings for one traced process.
 *
 * The tracer symbolizes at the end of a run, when the target may be gone. So everything that
 * only exists while the process lives is taken eagerly: /proc/PID/maps is read at creation
 * (and on refresh), and every executable file-backed mapping's file is opened right away
 * (through /proc/PID/map_files for deleted files, /proc/PID/root for other mount namespaces)
 * and the vdso is copied out of /proc/PID/mem. Parsing ELF/DWARF is left to the first
 * address that needs it (symbolizer_module.c).
 *
 * Caches: modules are shared by (path, inode) across refreshes; frame strings are cached per
 * looked-up address in an open-addressing hash table (flushed when the maps change).
 * Not thread-safe: one symbolizer per thread.
 */
#include "debug_fetch.h"
#include "symbolizer.h"
#include "grow.h"

#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "clock.h"
#include "module_share.h"
#include "procmaps.h"
#include "symbolizer_module.h"

/* Auto-refreshes (address in no mapping) allowed back to back before throttling kicks in. */
#define AUTO_REFRESH_BURST 64
/* After the burst, at most one auto-refresh per this many nanoseconds. */
#define AUTO_REFRESH_GAP_NS 10000000ULL

/* One executable mapping of the target. */
struct sym_map {
	__u64 start;		/* first address */
	__u64 end;		/* one past the last address */
	__u64 off;		/* file offset of start */
	struct sym_module *mod; /* NULL for anonymous executable memory (JIT) */
};

/* A module known by its maps path and inode; owns the module. */
struct mod_slot {
	char *path;		      /* path in maps, without " (deleted)" */
	__u64 ino;		      /* inode from maps */
	struct sym_module *mod;	      /* the module */
	struct shared_module *shared; /* a file's module, shared (module_share.h); NULL: ours */
};

/* A cached address: its frame strings, NUL-separated. Empty slot: frames == NULL. */
struct addr_entry {
	__u64 addr;   /* looked-up address (ip or ip-1) */
	char *frames; /* cnt strings back to back */
	int cnt;      /* number of frames */
};

struct symbolizer {
	unsigned long refs;	       /* holders: symbolizer__ref(), symbolizer__free() */
	pid_t pid;		       /* target */
	unsigned long long start_time; /* its start time (/proc/PID/stat), detects PID reuse */
	bool gone;		       /* target exited: maps are frozen */
	struct sym_map *maps;	       /* sorted by start, non-overlapping */
	size_t map_cnt;		       /* entries in maps */
	struct mod_slot *mods;	       /* every module seen */
	size_t mod_cnt;		       /* used entries in mods */
	size_t mod_cap;		       /* allocated entries in mods */
	struct addr_entry *cache;      /* hash table, power-of-two size */
	size_t cache_cap;	       /* slots in cache */
	size_t cache_cnt;	       /* used slots */
	struct strvec debug_dirs;      /* roots for separate debug files */
	int root_fd;		       /* the target's root (O_PATH), -1 if unavailable */
	unsigned int auto_refresh_cnt; /* automatic refreshes so far */
	__u64 last_refresh_ns;	       /* CLOCK_MONOTONIC of the last refresh */
};

/* Copy the vdso: from the target's memory, else our own (same kernel, same image). */
static void *vdso__copy(pid_t pid, __u64 start, __u64 end, size_t *sz)
{
	size_t len = end - start;
	void *img = NULL;

	if (len && len <= (64u << 20))
		img = malloc(len);
	if (!img)
		return NULL;
	if (!procmaps__read_mem(pid, start, img, len)) {
		*sz = len;
		return img;
	}
	/* Ours: the ELF image ends with its section headers. */
	{
		const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
		size_t own;

		if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
		    eh->e_ident[EI_CLASS] != ELFCLASS64)
			goto fail;
		own = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
		if (own > len)
			goto fail;
		memcpy(img, eh, own);
		*sz = own;
		return img;
	}
fail:
	free(img);
	return NULL;
}

/* The module for a maps entry, created (and its file opened) on first sight. */
static int symbolizer__module(struct symbolizer *s, const struct proc_mapping *m,
			      struct sym_module **out)
{
	struct sym_module *mod = NULL;
	struct shared_module *shared = NULL;
	char *path = NULL;
	void *img = NULL;
	size_t img_sz = 0, i;
	int fd = -1, err = 0;

	*out = NULL;
	if (!m->path[0])
		return 0; /* anonymous executable memory (JIT) */
	path = strdup(m->path);
	if (!path)
		return -ENOMEM;
	for (i = 0; i < s->mod_cnt; i++) {
		if (s->mods[i].ino == m->ino && !strcmp(s->mods[i].path, path)) {
			*out = s->mods[i].mod;
			goto cleanup;
		}
	}
	if (grow__array(&s->mods, &s->mod_cap, s->mod_cnt + 1, sizeof(*s->mods))) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (!strcmp(path, "[vdso]")) {
		img = vdso__copy(s->pid, m->start, m->end, &img_sz);
	} else if (path[0] != '[') {
		fd = procmaps__open_file(s->pid, m);
		if (fd < 0)
			fd = -1; /* sym_module__new: -1 is "no file" */
	}
	/* A file's module is loaded once for every process mapping that file; other pseudo
	 * paths ([vsyscall], ...) only get a name. */
	if (fd >= 0) {
		err = module_share__get(path, fd, s->root_fd, &s->debug_dirs, &mod, &shared);
		if (err)
			goto cleanup;
	} else {
		mod = sym_module__new(path, fd, img, img_sz, &s->debug_dirs, s->root_fd);
		if (!mod) {
			err = -errno;
			goto cleanup;
		}
	}
	s->mods[s->mod_cnt++] = (struct mod_slot){ path, m->ino, mod, shared };
	path = NULL;
	*out = mod;
cleanup:
	free(path);
	return err;
}

/* Read the executable mappings of the target into a new sorted array. 0 or -errno. */
static int symbolizer__read_maps(struct symbolizer *s, struct sym_map **maps, size_t *cnt)
{
	struct proc_mapping *pm = NULL;
	struct sym_map *arr = NULL;
	size_t pm_cnt = 0, n = 0;
	int err;

	err = procmaps__read(s->pid, true, &pm, &pm_cnt);
	if (err)
		return err;
	if (pm_cnt) {
		arr = malloc(pm_cnt * sizeof(*arr));
		if (!arr) {
			err = -ENOMEM;
			goto cleanup;
		}
	}
	for (n = 0; n < pm_cnt; n++) {
		struct sym_module *mod;

		err = symbolizer__module(s, &pm[n], &mod);
		if (err)
			goto cleanup;
		arr[n] = (struct sym_map){pm[n].start, pm[n].end, pm[n].off, mod};
	}
	/* maps is sorted by address already. */
	*maps = arr;
	*cnt = n;
	arr = NULL;
cleanup:
	free(arr);
	procmaps__free(pm, pm_cnt);
	return err;
}

static void symbolizer__flush_cache(struct symbolizer *s)
{
	size_t i;

	for (i = 0; i < s->cache_cap; i++) {
		free(s->cache[i].frames);
		s->cache[i].frames = NULL;
	}
	s->cache_cnt = 0;
}

static int sym_map__cmp(const void *a, const void *b)
{
	const struct sym_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int symbolizer__refresh_maps(struct symbolizer *s)
{
	struct sym_map *nm = NULL, *merged = NULL;
	size_t ncnt = 0, mcnt = 0, i, j;
	int err = 0;

	if (!s)
		return -EINVAL;
	s->last_refresh_ns = clock__mono_ns();
	if (s->gone)
		return -ESRCH;
	if (s->start_time && proc_start_time(s->pid) != s->start_time) {
		/* Exited, and maybe the PID already belongs to someone else. */
		s->gone = true;
		return -ESRCH;
	}
	err = symbolizer__read_maps(s, &nm, &ncnt);
	if (err) {
		if (err == -ESRCH)
			s->gone = true;
		goto cleanup;
	}
	/* New maps win; old ones that nothing replaced stay (dlclose'd libraries, zombies). */
	merged = malloc((ncnt + s->map_cnt + 1) * sizeof(*merged));
	if (!merged) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (ncnt)
		memcpy(merged, nm, ncnt * sizeof(*nm));
	mcnt = ncnt;
	for (i = 0; i < s->map_cnt; i++) {
		const struct sym_map *o = &s->maps[i];
		bool overlaps = false;

		for (j = 0; j < ncnt && !overlaps; j++)
			overlaps = o->start < nm[j].end && nm[j].start < o->end;
		if (!overlaps)
			merged[mcnt++] = *o;
	}
	if (mcnt > 1)
		qsort(merged, mcnt, sizeof(*merged), sym_map__cmp);
	if (mcnt != s->map_cnt || (mcnt && memcmp(merged, s->maps, mcnt * sizeof(*merged))))
		symbolizer__flush_cache(s);
	free(s->maps);
	s->maps = merged;
	s->map_cnt = mcnt;
	merged = NULL;
cleanup:
	free(nm);
	free(merged);
	return err;
}

struct symbolizer *symbolizer__new(pid_t pid)
{
	struct symbolizer *s = NULL;
	char dir[64];
	int err;

	if (pid <= 0) {
		err = -EINVAL;
		goto cleanup;
	}
	elf_version(EV_CURRENT);
	s = calloc(1, sizeof(*s));
	if (!s) {
		err = -ENOMEM;
		goto cleanup;
	}
	s->refs = 1;
	s->pid = pid;
	s->root_fd = -1;
	s->cache_cap = 1024;
	s->cache = calloc(s->cache_cap, sizeof(*s->cache));
	if (!s->cache) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* Kept open: debug files are looked up at the first lookup, maybe after the exit. */
	snprintf(dir, sizeof(dir), "/proc/%d/root", pid);
	s->root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* --debug-dir roots first: what the user points at wins over the system's. */
	err = 0;
	for (size_t i = 0; i < debug_fetch__dirs()->cnt && !err; i++)
		err = strvec__push(&s->debug_dirs, debug_fetch__dirs()->items[i]);
	err = err ?: strvec__push(&s->debug_dirs, "/usr/lib/debug");
	if (err)
		goto cleanup;
	s->start_time = proc_start_time(pid);
	err = symbolizer__refresh_maps(s);
	if (err)
		goto cleanup;
	return s;

cleanup:
	symbolizer__free(s);
	errno = -err;
	return NULL;
}

bool symbolizer__empty(const struct symbolizer *s)
{
	return !s || !s->map_cnt;
}

struct symbolizer *symbolizer__ref(struct symbolizer *s)
{
	if (s)
		s->refs++;
	return s;
}

void symbolizer__free(struct symbolizer *s)
{
	size_t i;

	if (!s || --s->refs)
		return;
	if (s->cache)
		symbolizer__flush_cache(s);
	free(s->cache);
	for (i = 0; i < s->mod_cnt; i++) {
		if (s->mods[i].shared)
			module_share__put(s->mods[i].shared);
		else
			sym_module__free(s->mods[i].mod);
		free(s->mods[i].path);
	}
	free(s->mods);
	free(s->maps);
	strvec__release(&s->debug_dirs);
	if (s->root_fd >= 0)
		close(s->root_fd);
	free(s);
}

int symbolizer__add_debug_dir(struct symbolizer *s, const char *dir)
{
	int err;

	if (!s || !dir)
		return -EINVAL;
	err = strvec__push(&s->debug_dirs, dir);
	/* The shared modules keep copies of the list: each gets the root too. */
	for (size_t i = 0; i < s->mod_cnt && !err; i++)
		if (s->mods[i].shared)
			err = module_share__add_dir(s->mods[i].shared, dir);
	return err;
}

/* The mapping holding addr, or NULL. */
static const struct sym_map *symbolizer__find_map(const struct symbolizer *s, __u64 addr)
{
	size_t lo = 0, hi = s->map_cnt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < s->maps[lo - 1].end)
		return &s->maps[lo - 1];
	return NULL;
}

static size_t addr__hash(__u64 addr, size_t cap)
{
	return (size_t)((addr * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);
}

/* The cache slot of addr: its entry, or the empty slot where it belongs. */
static struct addr_entry *symbolizer__slot(struct symbolizer *s, __u64 addr)
{
	size_t i = addr__hash(addr, s->cache_cap);

	while (s->cache[i].frames && s->cache[i].addr != addr)
		i = (i + 1) & (s->cache_cap - 1);
	return &s->cache[i];
}

/* Grow the table to keep the load factor under 1/2. 0 or -ENOMEM. */
static int symbolizer__grow_cache(struct symbolizer *s)
{
	struct addr_entry *old = s->cache;
	size_t old_cap = s->cache_cap, i;

	s->cache = calloc(2 * old_cap, sizeof(*s->cache));
	if (!s->cache) {
		s->cache = old;
		return -ENOMEM;
	}
	s->cache_cap = 2 * old_cap;
	for (i = 0; i < old_cap; i++) {
		if (old[i].frames)
			*symbolizer__slot(s, old[i].addr) = old[i];
	}
	free(old);
	return 0;
}

/* Remember out->items[first..] as the frames of addr. 0 or -ENOMEM. */
static int symbolizer__remember(struct symbolizer *s, __u64 addr, const struct strvec *out,
				size_t first)
{
	struct addr_entry *e;
	size_t i, len = 0;
	char *block, *p;

	if (2 * (s->cache_cnt + 1) > s->cache_cap && symbolizer__grow_cache(s))
		return -ENOMEM;
	for (i = first; i < out->cnt; i++)
		len += strlen(out->items[i]) + 1;
	block = malloc(len ? len : 1);
	if (!block)
		return -ENOMEM;
	for (i = first, p = block; i < out->cnt; i++)
		p = stpcpy(p, out->items[i]) + 1;
	e = symbolizer__slot(s, addr);
	e->addr = addr;
	e->frames = block;
	e->cnt = (int)(out->cnt - first);
	s->cache_cnt++;
	return 0;
}

/* Roll out back to first entries. */
static void strvec__truncate(struct strvec *out, size_t first)
{
	while (out->cnt > first)
		free(out->items[--out->cnt]);
}

int symbolizer__frames(struct symbolizer *s, __u64 ip, bool is_return, struct strvec *out)
{
	__u64 addr = is_return && ip ? ip - 1 : ip;
	const struct sym_map *map;
	struct addr_entry *e;
	size_t first;
	const char *p;
	int i, cnt, err;

	if (!s || !out)
		return -EINVAL;
	e = symbolizer__slot(s, addr);
	if (e->frames) {
		for (i = 0, p = e->frames; i < e->cnt; i++, p += strlen(p) + 1) {
			err = strvec__push(out, p);
			if (err)
				return err;
		}
		return e->cnt;
	}
	map = symbolizer__find_map(s, addr);
	if (!map && !s->gone &&
	    (s->auto_refresh_cnt < AUTO_REFRESH_BURST ||
	     clock__mono_ns() - s->last_refresh_ns >= AUTO_REFRESH_GAP_NS)) {
		/* Unknown address: maybe a dlopen since the last read. */
		s->auto_refresh_cnt++;
		symbolizer__refresh_maps(s);
		map = symbolizer__find_map(s, addr);
	}
	if (!map) {
		/* Not cached: a later refresh may still find it. */
		err = strvec__pushf(out, "0x%llX: ???", (unsigned long long)addr);
		return err ? err : 1;
	}
	first = out->cnt;
	if (map->mod) {
		cnt = sym_module__describe(map->mod, addr - map->start + map->off, addr, out);
	} else {
		err = strvec__pushf(out, "0x%llX: ???", (unsigned long long)addr);
		cnt = err ? err : 1;
	}
	if (cnt < 0)
		goto fail;
	err = symbolizer__remember(s, addr, out, first);
	if (err) {
		cnt = err;
		goto fail;
	}
	return cnt;
fail:
	strvec__truncate(out, first);
	return cnt;
}

bool symbolizer__is_main_frame(const char *frame)
{
	const char *name, *end;
	size_t len;

	if (!frame)
		return false;
	name = strstr(frame, ": ");
	name = name ? name + 2 : frame;
	end = strstr(name, " (");
	len = end ? (size_t)(end - name) : strlen(name);
	return len == 4 && !memcmp(name, "main", 4);
}

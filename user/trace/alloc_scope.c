// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "alloc_scope.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/types.h>

#define LOG_TAG "alloc: "
#include "elf_file.h"
#include "log.h"
#include "safe_text.h"

#define SCOPE_MAX 256 /* objects followed; a real program has a few dozen */

static const char *const default_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
};

/* What the dynamic linker reads from one object. */
struct dyn_info {
	char soname[256];	/* DT_SONAME, "" if none */
	struct strvec needed;	/* DT_NEEDED, in order */
	char runpath[PATH_MAX]; /* DT_RUNPATH, "" if none */
	char rpath[PATH_MAX];	/* DT_RPATH, "" if none */
	bool interp;		/* has a PT_INTERP: dynamically linked */
};

/* One dynamic entry's string into d (the tags the dynamic linker's search reads). */
static int dyn_take(struct dyn_info *d, GElf_Sxword tag, const char *s)
{
	if (tag == DT_NEEDED)
		return strvec__push(&d->needed, s) ? -ENOMEM : 0;
	if (tag == DT_SONAME)
		snprintf(d->soname, sizeof(d->soname), "%s", s);
	else if (tag == DT_RUNPATH)
		snprintf(d->runpath, sizeof(d->runpath), "%s", s);
	else if (tag == DT_RPATH)
		snprintf(d->rpath, sizeof(d->rpath), "%s", s);
	return 0;
}

static bool dyn_wanted(GElf_Sxword tag)
{
	return tag == DT_NEEDED || tag == DT_SONAME || tag == DT_RUNPATH || tag == DT_RPATH;
}

/* The dynamic section through the section headers. 1 if there is one, 0 if not, -ENOMEM. */
static int dyn_by_sections(Elf *elf, struct dyn_info *d)
{
	Elf_Scn *scn = NULL;
	int found = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		found = 1;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *s;
			GElf_Dyn dyn;

			if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			if (!dyn_wanted(dyn.d_tag) ||
			    !(s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)))
				continue;
			if (dyn_take(d, dyn.d_tag, s))
				return -ENOMEM;
		}
	}
	return found;
}

/* The file offset of virtual address va (PT_LOAD segments), or -1. */
static long long va_to_off(Elf *elf, size_t phnum, GElf_Addr va)
{
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && va >= ph.p_vaddr &&
		    va - ph.p_vaddr < ph.p_filesz)
			return (long long)(ph.p_offset + (va - ph.p_vaddr));
	}
	return -1;
}

/*
 * The dynamic section through the program headers, as the kernel and ld.so find it: an
 * executable whose section headers are stripped or corrupt still runs, and its DT_NEEDED
 * still says where malloc comes from. PT_DYNAMIC's entries, their strings in DT_STRTAB
 * (an address, mapped to the file through PT_LOAD). 0 or -ENOMEM.
 */
static int dyn_by_segments(Elf *elf, size_t phnum, struct dyn_info *d)
{
	for (size_t i = 0; i < phnum; i++) {
		GElf_Addr strtab = 0;
		GElf_Xword strsz = 0;
		Elf_Data *dyn, *str;
		long long off;
		GElf_Phdr ph;
		size_t n;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_DYNAMIC)
			continue;
		dyn = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_DYN);
		n = dyn ? dyn->d_size / sizeof(GElf_Dyn) : 0;
		for (size_t k = 0; k < n; k++) {
			GElf_Dyn e;

			if (!gelf_getdyn(dyn, (int)k, &e) || e.d_tag == DT_NULL)
				break;
			if (e.d_tag == DT_STRTAB)
				strtab = e.d_un.d_ptr;
			else if (e.d_tag == DT_STRSZ)
				strsz = e.d_un.d_val;
		}
		off = strtab ? va_to_off(elf, phnum, strtab) : -1;
		str = off >= 0 && strsz ? elf_getdata_rawchunk(elf, off, strsz, ELF_T_BYTE) : NULL;
		for (size_t k = 0; str && k < n; k++) {
			const char *s;
			GElf_Dyn e;

			if (!gelf_getdyn(dyn, (int)k, &e) || e.d_tag == DT_NULL)
				break;
			if (!dyn_wanted(e.d_tag) || e.d_un.d_val >= str->d_size)
				continue;
			s = (const char *)str->d_buf + e.d_un.d_val;
			if (!memchr(s, '\0', str->d_size - e.d_un.d_val))
				continue; /* not terminated inside the table */
			if (dyn_take(d, e.d_tag, s))
				return -ENOMEM;
		}
		return 0;
	}
	return 0;
}

/* The dynamic section of the x86-64 ELF object at path. 0, -ENOEXEC (not one), -errno. */
static int dyn_read(const char *path, struct dyn_info *d)
{
	struct elf_file f;
	GElf_Ehdr eh;
	size_t phnum;
	int err;
	Elf *elf;

	memset(d, 0, sizeof(*d));
	/* an object the target's maps or its library path name: opened the safe way (a FIFO
	 * there would otherwise hold the tracer) */
	if ((err = elf_file__open(path, &f)))
		return err;
	elf = f.elf;
	if (!gelf_getehdr(elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_machine != EM_X86_64 || elf_getphdrnum(elf, &phnum)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			d->interp = true;
	}
	err = dyn_by_sections(elf, d);
	if (err == 0) /* no dynamic section seen: headers stripped or corrupt */
		err = dyn_by_segments(elf, phnum, d);
	err = err < 0 ? err : 0;
cleanup:
	elf_file__close(&f);
	return err;
}

static char *read_small(const char *path, size_t *len);

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* How a DT_NEEDED (or preload) name becomes a path: on disk, or among mapped objects. */
struct finder {
	pid_t pid;		/* > 0: match mapped objects; 0: search the file system */
	struct strvec mapped;	/* pid: mapped objects, openable paths */
	struct strvec sonames;	/* pid: their DT_SONAME ("" if none), same index */
	const char *exe_rpath;	/* command: the executable's DT_RPATH, searched for every object */
	const char *lib_path;	/* command: its LD_LIBRARY_PATH, or NULL */
	char *cache;		/* command: /etc/ld.so.cache's contents (read once), or NULL */
	size_t cache_len;
};

/* Try each directory of a ':' list (with $ORIGIN = origin's directory) for name. */
static bool search_dirs(const char *list, const char *origin, const char *name, char *out,
			size_t sz)
{
	const char *slash = strrchr(origin, '/');
	int olen = slash ? (int)(slash - origin) : 1;

	if (!slash)
		origin = "."; /* a relative executable path: the cwd */
	for (const char *d = list; d && *d;) {
		size_t n = strcspn(d, ":");
		struct dyn_info probe;

		if (n >= 7 && !strncmp(d, "$ORIGIN", 7))
			snprintf(out, sz, "%.*s%.*s/%s", olen, origin, (int)(n - 7), d + 7, name);
		else if (n)
			snprintf(out, sz, "%.*s/%s", (int)n, d, name);
		/* ld.so skips a file of another class or machine and goes on searching. */
		if (n && !access(out, R_OK) && !dyn_read(out, &probe)) {
			strvec__release(&probe.needed);
			return true;
		}
		d += n + (d[n] == ':');
	}
	return false;
}

/* glibc's /etc/ld.so.cache, new format ("glibc-ld.so.cache1.1", what ldconfig writes since
 * glibc 2.32): a header, then entries whose key (soname) and value (path) are offsets of
 * NUL-terminated strings from the start of the file. */
#define CACHE_MAGIC	    "glibc-ld.so.cache1.1"
#define CACHE_HEADER_SZ	    48 /* magic+version 20, nlibs 4, len_strings 4, flags..unused 20 */
#define CACHE_ENTRY_SZ	    24 /* flags 4, key 4, value 4, osversion 4, hwcap 8 */
#define CACHE_FLAG_X86_64   0x0303 /* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */

/* The lookup in the cache file's contents buf (len bytes). */
static bool cache_find(const char *buf, size_t len, const char *name, char *out, size_t sz)
{
	bool found = false;
	__u32 nlibs;

	if (!buf || len < CACHE_HEADER_SZ || memcmp(buf, CACHE_MAGIC, strlen(CACHE_MAGIC)))
		return false;
	memcpy(&nlibs, buf + 20, sizeof(nlibs));
	for (size_t i = 0; i < nlibs && !found; i++) {
		const char *e = buf + CACHE_HEADER_SZ + i * CACHE_ENTRY_SZ;
		__s32 flags;
		__u32 key, value;

		if ((size_t)(e - buf) + CACHE_ENTRY_SZ > len)
			break;
		memcpy(&flags, e, 4);
		memcpy(&key, e + 4, 4);
		memcpy(&value, e + 8, 4);
		/* Offsets inside the file (and its NUL-terminated strings), of this machine. */
		if (flags != CACHE_FLAG_X86_64 || key >= len || value >= len ||
		    !memchr(buf + key, '\0', len - key) || !memchr(buf + value, '\0', len - value))
			continue;
		if (!strcmp(buf + key, name) && !access(buf + value, R_OK)) {
			snprintf(out, sz, "%s", buf + value);
			found = true;
		}
	}
	return found;
}

bool alloc_scope__cache_lookup(const char *cache, const char *name, char *out, size_t sz)
{
	size_t len = 0;
	char *buf = read_small(cache, &len);
	bool found = cache_find(buf, len, name, out, sz);

	free(buf);
	return found;
}

/* The path of needed name for requester (at req_path), or false. */
static bool find_object(struct finder *f, const char *name, const char *req_path,
			const struct dyn_info *req, char *out, size_t sz)
{
	if (f->pid > 0) {
		/* Mapped: by DT_SONAME, else by file name (a name with a '/' by its path). */
		for (size_t i = 0; i < f->mapped.cnt; i++)
			if (!strcmp(f->sonames.items[i], name)) {
				snprintf(out, sz, "%s", f->mapped.items[i]);
				return true;
			}
		for (size_t i = 0; i < f->mapped.cnt; i++)
			if (!strcmp(base_name(f->mapped.items[i]), base_name(name))) {
				snprintf(out, sz, "%s", f->mapped.items[i]);
				return true;
			}
		return false;
	}
	if (strchr(name, '/')) {
		snprintf(out, sz, "%s", name);
		return !access(out, R_OK);
	}
	if (!req->runpath[0] && (search_dirs(req->rpath, req_path, name, out, sz) ||
				 search_dirs(f->exe_rpath, req_path, name, out, sz)))
		return true;
	if (search_dirs(f->lib_path, req_path, name, out, sz) ||
	    search_dirs(req->runpath, req_path, name, out, sz) ||
	    cache_find(f->cache, f->cache_len, name, out, sz))
		return true;
	for (size_t i = 0; i < sizeof(default_dirs) / sizeof(default_dirs[0]); i++)
		if (search_dirs(default_dirs[i], req_path, name, out, sz))
			return true;
	return false;
}

/* Add path (and its dynamic info) to the scope unless it is there already. */
static int scope_add(struct alloc_scope *s, struct dyn_info *infos, const char *path)
{
	int err;

	for (size_t i = 0; i < s->paths.cnt; i++)
		if (!strcmp(s->paths.items[i], path))
			return 0;
	if (s->paths.cnt >= SCOPE_MAX)
		return 0;
	err = dyn_read(path, &infos[s->paths.cnt]);
	if (err) {
		vlog("%s: not a loadable object (%s): skipped\n", path, strerror(-err));
		return 0;
	}
	return strvec__push(&s->paths, path);
}

/* Append the ':'/space separated preload list to the scope. */
static int add_preloads(struct alloc_scope *s, struct dyn_info *infos, struct finder *f,
			const char *list)
{
	char *copy = list ? strdup(list) : NULL, *save = NULL, *tok;
	char path[PATH_MAX];
	int err = 0;

	if (list && !copy)
		return -ENOMEM;
	for (tok = copy ? strtok_r(copy, ": \t\n", &save) : NULL; tok && !err;
	     tok = strtok_r(NULL, ": \t\n", &save))
		if (find_object(f, tok, s->paths.items[0], &infos[0], path, sizeof(path)))
			err = scope_add(s, infos, path);
		else
			vlog("preloaded %s: not found\n", tok);
	free(copy);
	return err;
}

/* The contents of a small file (environ, ld.so.preload), NUL-terminated, or NULL. */
static char *read_small(const char *path, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0, n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	do {
		if (n + 1 >= cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 4096);

			if (!nb) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		n += r > 0 ? (size_t)r : 0;
	} while (r > 0);
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* The value of variable name (with its '=') in a NUL-separated environment block, or NULL. */
static const char *env_get(const char *env, size_t len, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; env && i < len; i += strlen(env + i) + 1)
		if (!strncmp(env + i, name, n))
			return env + i + n;
	return NULL;
}

/* exe first, then preloads, then breadth-first DT_NEEDED. */
static int build(struct alloc_scope *s, struct finder *f, const char *exe, const char *preload,
		 const char *preload_file)
{
	struct dyn_info *infos = calloc(SCOPE_MAX, sizeof(*infos));
	char path[PATH_MAX];
	int err;

	if (!infos)
		return -ENOMEM;
	err = dyn_read(exe, &infos[0]);
	if (err) {
		elog("%s: cannot read its ELF headers: %s\n", exe, strerror(-err));
		goto cleanup;
	}
	err = strvec__push(&s->paths, exe);
	if (err)
		goto cleanup;
	s->static_exe = !infos[0].interp;
	if (s->static_exe)
		goto cleanup;
	f->exe_rpath = infos[0].rpath;
	err = add_preloads(s, infos, f, preload);
	if (!err)
		err = add_preloads(s, infos, f, preload_file);
	for (size_t i = 0; !err && i < s->paths.cnt; i++)
		for (size_t k = 0; !err && k < infos[i].needed.cnt; k++) {
			const char *name = infos[i].needed.items[k];

			if (find_object(f, name, s->paths.items[i], &infos[i], path, sizeof(path)))
				err = scope_add(s, infos, path);
			else
				vlog("%s needs %s: not found\n", safe_text__term(s->paths.items[i]),
				     safe_text__term(name));
		}
cleanup:
	for (size_t i = 0; i < SCOPE_MAX; i++)
		strvec__release(&infos[i].needed);
	free(infos);
	return err;
}

void alloc_scope__open_path(pid_t pid, const char *path, char *out, size_t out_sz)
{
	struct stat here, in_root;

	/* The target may live in another mount namespace: the plain path is used when it is
	 * the very file the target mapped, else the target's root's view of it. */
	if (snprintf(out, out_sz, "/proc/%d/root%s", (int)pid, path) >= (int)out_sz ||
	    stat(out, &in_root) ||
	    (!stat(path, &here) && here.st_dev == in_root.st_dev && here.st_ino == in_root.st_ino))
		snprintf(out, out_sz, "%s", path);
}

/* Every mapped file of pid, once, with its DT_SONAME. */
static int read_mapped(struct finder *f, char *exe, size_t exe_sz)
{
	char maps[64], line[PATH_MAX + 256], link[PATH_MAX], path[PATH_MAX];
	ssize_t n;
	int err = 0;
	FILE *file;

	snprintf(maps, sizeof(maps), "/proc/%d/exe", (int)f->pid);
	n = readlink(maps, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)f->pid);
	file = fopen(maps, "re");
	if (!file) {
		err = errno == ENOENT ? -ESRCH : -errno;
		elog("cannot read %s: %s\n", maps, strerror(-err));
		return err;
	}
	exe[0] = '\0';
	while (!err && fgets(line, sizeof(line), file)) {
		char *p = strchr(line, '/');
		struct dyn_info d;
		bool seen = false;

		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		if (strstr(p, " (deleted)")) {
			/* Replaced or removed since it was mapped (an upgrade under a running
			 * service): the mapped file itself, through map_files, from the mapping
			 * at offset 0 (its ELF header). */
			unsigned long long lo, hi, off;

			if (sscanf(line, "%llx-%llx %*s %llx", &lo, &hi, &off) != 3 || off)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)f->pid,
				 lo, hi);
		} else {
			alloc_scope__open_path(f->pid, p, path, sizeof(path));
		}
		for (size_t i = 0; i < f->mapped.cnt && !seen; i++)
			seen = !strcmp(f->mapped.items[i], path);
		if (seen || dyn_read(path, &d))
			continue;
		if (!exe[0] && !strcmp(p, link))
			snprintf(exe, exe_sz, "%s", path);
		err = strvec__push(&f->mapped, path) ?: strvec__push(&f->sonames, d.soname);
		strvec__release(&d.needed);
	}
	fclose(file);
	if (!err && !exe[0]) {
		elog("pid %d: its executable %s is not among its mapped files\n", (int)f->pid,
		     safe_text__term(link));
		err = -ENOENT;
	}
	return err;
}

int alloc_scope__for_process(pid_t pid, struct alloc_scope *out)
{
	struct finder f = { .pid = pid };
	char exe[PATH_MAX], path[64], root_preload[PATH_MAX];
	char *env = NULL, *preload_file = NULL;
	size_t env_len = 0;
	int err;

	memset(out, 0, sizeof(*out));
	err = read_mapped(&f, exe, sizeof(exe));
	if (err)
		goto cleanup;
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	env = read_small(path, &env_len);
	snprintf(root_preload, sizeof(root_preload), "/proc/%d/root/etc/ld.so.preload", (int)pid);
	preload_file = read_small(root_preload, NULL);
	err = build(out, &f, exe, env_get(env, env_len, "LD_PRELOAD="), preload_file);
cleanup:
	free(env);
	free(preload_file);
	strvec__release(&f.mapped);
	strvec__release(&f.sonames);
	if (err)
		alloc_scope__release(out);
	return err;
}

/* exe's scope, searched on disk with this environment (LD_PRELOAD, LD_LIBRARY_PATH). */
static int command_scope(const char *exe, const char *preload, const char *lib_path,
			 struct alloc_scope *out)
{
	struct finder f = { .pid = 0, .lib_path = lib_path };
	char interp[PATH_MAX], *preload_file;
	FILE *file;
	int err;

	memset(out, 0, sizeof(*out));
	/* A script runs its interpreter: "#!/bin/sh -e" is /bin/sh's image. */
	file = fopen(exe, "re");
	if (file && fgets(interp, sizeof(interp), file) && !strncmp(interp, "#!", 2)) {
		char *p = interp + 2 + strspn(interp + 2, " \t");

		p[strcspn(p, " \t\n")] = '\0';
		memmove(interp, p, strlen(p) + 1);
		exe = interp;
	}
	if (file)
		fclose(file);
	preload_file = read_small("/etc/ld.so.preload", NULL);
	f.cache = read_small("/etc/ld.so.cache", &f.cache_len);
	err = build(out, &f, exe, preload, preload_file);
	free(f.cache);
	free(preload_file);
	if (err)
		alloc_scope__release(out);
	return err;
}

int alloc_scope__for_command(const char *exe, struct alloc_scope *out)
{
	char real[PATH_MAX];

	/* The file's own name, as /proc/PID/exe gives it once it runs (alloc_scope__for_exec):
	 * a command reached through a symlink (/usr/bin/python3 -> python3.11) is one object
	 * to the loader, not two whose probes would each fire (every allocation twice). */
	if (realpath(exe, real))
		exe = real;
	return command_scope(exe, getenv("LD_PRELOAD"), getenv("LD_LIBRARY_PATH"), out);
}

int alloc_scope__for_exec(pid_t pid, struct alloc_scope *out)
{
	char path[64], link[PATH_MAX], exe[PATH_MAX], *env;
	size_t env_len = 0;
	ssize_t n;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0) {
		err = errno == ENOENT ? -ESRCH : -errno;
		elog("cannot read %s: %s\n", path, strerror(-err));
		return err;
	}
	link[n] = '\0';
	alloc_scope__open_path(pid, link, exe, sizeof(exe));
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	env = read_small(path, &env_len);
	err = command_scope(exe, env_get(env, env_len, "LD_PRELOAD="),
			    env_get(env, env_len, "LD_LIBRARY_PATH="), out);
	free(env);
	return err;
}

void alloc_scope__release(struct alloc_scope *s)
{
	strvec__release(&s->paths);
}

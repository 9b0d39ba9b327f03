// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "alloc_symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Its messages are the loader's (the attach step fails with them). */
#define LOG_TAG "loader: "
#include "log.h"
#include "safe_open.h"

/* libc.so.6, libc.so, libc-2.31.so; not libcrypt.so or libc_malloc_debug.so. */
static bool is_libc_name(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!strncmp(base, "libc.so", 7))
		return true;
	if (!strncmp(base, "libc-", 5)) {
		size_t n = strlen(base);

		return n > 3 && !strcmp(base + n - 3, ".so");
	}
	return false;
}

/* The libc mapped by pid, as a path this process can open. */
static int find_libc(pid_t pid, char *out, size_t out_sz)
{
	char maps[64], line[PATH_MAX + 256];
	struct stat here, in_root;
	int err = -ENOENT;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f) {
		err = errno == ENOENT ? -ESRCH : -errno;
		elog("cannot read %s: %s\n", maps, strerror(-err));
		return err;
	}
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		if (!path)
			continue;
		path[strcspn(path, "\n")] = '\0';
		if (!is_libc_name(path) || strstr(path, " (deleted)"))
			continue;
		/* The target may live in another mount namespace: the plain path is used when it
		 * is the very file the target mapped, else the target's root's view of it. */
		if (snprintf(out, out_sz, "/proc/%d/root%s", (int)pid, path) >= (int)out_sz ||
		    stat(out, &in_root) ||
		    (!stat(path, &here) && here.st_dev == in_root.st_dev &&
		     here.st_ino == in_root.st_ino))
			snprintf(out, out_sz, "%s", path);
		err = 0;
		break;
	}
	fclose(f);
	if (err)
		elog("no libc in /proc/%d/maps (statically linked target?): use --lib PATH\n",
		     (int)pid);
	return err;
}

/* File offsets of the allocator functions in the ELF at path (0: absent). */
static int resolve_offsets(const char *path, size_t offs[FN_COUNT])
{
	bool hidden_only[FN_COUNT] = {};
	Elf_Scn *scn = NULL;
	int fd, err = 0;
	Elf *elf;

	memset(offs, 0, sizeof(offs[0]) * FN_COUNT);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = safe_open__read(AT_FDCWD, path, 0, SAFE_OPEN_ELF_MAX);
	if (fd < 0) {
		elog("cannot open %s: %s\n", path, safe_open__strerror(fd));
		return fd;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elog("%s is not an ELF file\n", path);
		err = -ENOEXEC;
		goto cleanup;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data, *versym = NULL;
		GElf_Shdr sh;
		size_t n;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		if (sh.sh_type == SHT_DYNSYM) {
			Elf_Scn *vs = NULL;
			GElf_Shdr vsh;

			while ((vs = elf_nextscn(elf, vs)))
				if (gelf_getshdr(vs, &vsh) && vsh.sh_type == SHT_GNU_versym)
					versym = elf_getdata(vs, NULL);
		}
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Versym ver = 0;
			GElf_Shdr tsh;
			GElf_Sym sym;
			const char *name;
			Elf_Scn *text;
			size_t off;
			__u32 fn;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !sym.st_value)
				continue;
			if (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
			    GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name)
				continue;
			for (fn = 0; fn < FN_COUNT; fn++)
				if (!strcmp(name, alloc_fn_name(fn)))
					break;
			if (fn == FN_COUNT)
				continue;
			if (GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC) {
				vlog("%s: %s is an IFUNC: not probed\n", path, name);
				continue;
			}
			if (versym)
				gelf_getversym(versym, (int)i, &ver);
			if (offs[fn] && (!hidden_only[fn] || (ver & 0x8000)))
				continue; /* keep the first default version */
			text = elf_getscn(elf, sym.st_shndx);
			if (!text || !gelf_getshdr(text, &tsh) || sym.st_value < tsh.sh_addr)
				continue;
			off = sym.st_value - tsh.sh_addr + tsh.sh_offset;
			offs[fn] = off;
			hidden_only[fn] = ver & 0x8000;
		}
	}
cleanup:
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

int alloc_symbols__for_binary(const char *path, struct alloc_symbols *out)
{
	size_t *offs = out->off;
	int err;

	if (path != out->path)
		snprintf(out->path, sizeof(out->path), "%s", path);
	err = resolve_offsets(out->path, offs);
	if (err)
		return err;
	if (!offs[FN_MALLOC] || !offs[FN_FREE] || !offs[FN_REALLOC] || !offs[FN_CALLOC]) {
		elog("%s does not define malloc, calloc, realloc and free\n", out->path);
		return -ENOENT;
	}
	for (__u32 fn = 0; fn < FN_COUNT; fn++) {
		out->owner[fn] = fn;
		for (__u32 prev = 0; prev < fn; prev++) {
			if (offs[fn] && offs[prev] == offs[fn]) {
				out->owner[fn] = prev;
				dlog("%s is an alias of %s: one probe\n", alloc_fn_name(fn),
				     alloc_fn_name(prev));
				break;
			}
		}
		if (!offs[fn])
			vlog("%s: no %s: not probed\n", out->path, alloc_fn_name(fn));
	}
	return 0;
}

int alloc_symbols__for_process(pid_t pid, const char *lib_path, struct alloc_symbols *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	if (lib_path) {
		if (access(lib_path, R_OK)) {
			err = -errno;
			elog("cannot read %s: %s\n", lib_path, strerror(-err));
			return err;
		}
		snprintf(out->path, sizeof(out->path), "%s", lib_path);
	} else {
		err = find_libc(pid, out->path, sizeof(out->path));
		if (err)
			return err;
	}
	vlog("probing %s in pid %d\n", out->path, (int)pid);
	return alloc_symbols__for_binary(out->path, out);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* main_arena from libc's debug info: see main_arena.h. */
#include "main_arena.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>

#include "debug_file.h"

#define DEBUG_ROOT "/usr/lib/debug"

static bool is_libc(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	return !strcmp(base, "libc.so.6") ||
	       (!strncmp(base, "libc-", 5) && len > 8 && !strcmp(base + len - 3, ".so"));
}

/* The load bias of libc mapped at start (file offset 0): start less its first PT_LOAD. */
static int load_bias(Elf *elf, uint64_t start, uint64_t *bias)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum))
		return -ENOEXEC;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			if (ph.p_offset) /* the mapping at offset 0 would not be this segment */
				return -ENOEXEC;
			*bias = start - (ph.p_vaddr & ~0xfffull);
			return 0;
		}
	}
	return -ENOEXEC;
}

/* main_arena's link-time address and size in the debug file's .symtab. */
static int symbol(Elf *elf, uint64_t *value, uint64_t *size)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *s;
			GElf_Sym es;

			if (!gelf_getsym(data, (int)i, &es) ||
			    GELF_ST_TYPE(es.st_info) != STT_OBJECT || es.st_shndx == SHN_UNDEF)
				continue;
			s = elf_strptr(elf, sh.sh_link, es.st_name);
			if (s && !strcmp(s, "main_arena")) {
				*value = es.st_value;
				*size = es.st_size;
				return 0;
			}
		}
	}
	return -ENOENT;
}

int main_arena__from_debuginfo(pid_t pid, const struct proc_mapping *m, size_t n,
			       uint64_t want_size, uint64_t *addr)
{
	const struct proc_mapping *lib = NULL;
	struct debug_file_want want = { 0 };
	uint64_t bias = 0, value = 0, size = 0;
	Elf *elf = NULL, *dbg = NULL;
	int fd, dfd = -1, err;
	char path[4096];

	for (size_t i = 0; i < n && !lib; i++)
		if (m[i].ino && !m[i].off && is_libc(m[i].path))
			lib = &m[i];
	if (!lib)
		return -ENOENT;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = procmaps__open_file(pid, lib);
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = elf ? load_bias(elf, lib->start, &bias) : -ENOEXEC;
	if (err)
		goto out;
	want.id_sz = dwelf_elf_gnu_build_id(elf, &want.id);
	if (want.id_sz <= 0 ||
	    debug_file__build_id_path(DEBUG_ROOT, want.id, want.id_sz, path, sizeof(path))) {
		err = -ENOENT;
		goto out;
	}
	dfd = debug_file__open(AT_FDCWD, path, 0, &want);
	if (dfd < 0) {
		err = dfd == -ESTALE ? -ENOENT : dfd;
		goto out;
	}
	dbg = elf_begin(dfd, ELF_C_READ_MMAP, NULL);
	err = dbg ? symbol(dbg, &value, &size) : -ENOEXEC;
	if (!err && size != want_size)
		err = -EPROTO;
	if (!err)
		*addr = bias + value;
out:
	if (dbg)
		elf_end(dbg);
	if (dfd >= 0)
		close(dfd);
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

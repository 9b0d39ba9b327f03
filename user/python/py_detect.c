/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_detect - the interpreter's file and symbols in a process (py_detect.h). The file is
 * opened through /proc/PID/map_files (procmaps__open_file): the mapped file itself, even in
 * another mount namespace; every size taken from it is bounded before use.
 */
#include <ctype.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_file.h"
#include "procmaps.h"
#include "py_detect.h"

#define RODATA_MAX (64u << 20) /* a .rodata larger than this is not searched */
#define SYMS_MAX   (1u << 22)  /* symbols searched per table (libpython: ~30,000) */

/* Digits at *p as a number (at most 3 digits), advancing *p; -1 if none. */
static int digits(const char **p)
{
	int v = 0, n = 0;

	while (isdigit((unsigned char)**p) && n < 3) {
		v = v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	return n && !isdigit((unsigned char)**p) ? v : -1;
}

unsigned int py_detect__name_version(const char *path)
{
	const char *base = strrchr(path, '/'), *p;
	int major, minor;

	base = base ? base + 1 : path;
	if (!strncmp(base, "libpython", 9))
		p = base + 9;
	else if (!strncmp(base, "python", 6))
		p = base + 6;
	else
		return 0;
	major = digits(&p);
	if (major < 2 || *p++ != '.')
		return 0;
	minor = digits(&p);
	if (minor < 0)
		return 0;
	if (base[0] == 'l') {
		/* libpython3.11.so.1.0, libpython3.7m.so, libpython3.13d.so */
		while (*p && strchr("dmut", *p))
			p++;
		if (strncmp(p, ".so", 3))
			return 0;
	} else if (*p) {
		return 0; /* python3.11-config, python3.11.bak */
	}
	return (unsigned int)major << 8 | (unsigned int)minor;
}

/* The mapping that holds pid's interpreter: a libpythonX.Y.so if one is mapped, else the
 * executable when its name is pythonX.Y. NULL if neither. */
static const struct proc_mapping *interpreter_mapping(pid_t pid, const struct proc_mapping *m,
						      size_t cnt)
{
	char link[64], exe[PATH_MAX];
	ssize_t n;

	for (size_t i = 0; i < cnt; i++) {
		const char *base = strrchr(m[i].path, '/');

		if (m[i].off == 0 && base && !strncmp(base + 1, "libpython", 9) &&
		    py_detect__name_version(m[i].path))
			return &m[i];
	}
	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	if (n > 10 && !strcmp(exe + n - 10, " (deleted)"))
		exe[n - 10] = 0;
	if (!py_detect__name_version(exe))
		return NULL;
	for (size_t i = 0; i < cnt; i++)
		if (m[i].off == 0 && !strcmp(m[i].path, exe))
			return &m[i];
	return NULL;
}

/* The load bias of f mapped at start (the mapping of file offset 0): start less the page of
 * the PT_LOAD that maps offset 0. */
static int load_bias(Elf *elf, __u64 start, __u64 *bias)
{
	size_t phnum;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &phnum))
		return -ENOEXEC;
	for (size_t i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_offset != 0)
			continue;
		*bias = start - (ph.p_vaddr & ~0xfffull);
		return 0;
	}
	return -ENOEXEC;
}

/* The symbols we read, from .dynsym and .symtab (the first definition found wins). */
static void find_symbols(Elf *elf, __u64 bias, struct py_image_info *info, __u64 *py_version)
{
	struct want {
		const char *name;
		__u64 *addr;
	} want[] = {
	    {"_PyRuntime", &info->runtime_addr},
	    {"PyCode_Type", &info->code_type_addr},
	    {"PyUnicode_Type", &info->unicode_type_addr},
	    {"Py_Version", py_version},
	};
	size_t sym_sz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t strndx;

	while (sym_sz && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		d = elf_getdata(scn, NULL);
		strndx = sh.sh_link;
		/* The count from the data libelf holds, not from sh_entsize (the file's word: an
		 * entsize of 1 made a loop as long as the section's bytes), and capped. */
		for (size_t i = 0; d && i < d->d_size / sym_sz && i < SYMS_MAX; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF || !s.st_value)
				continue;
			name = elf_strptr(elf, strndx, s.st_name);
			for (size_t w = 0; name && w < sizeof(want) / sizeof(want[0]); w++)
				if (!*want[w].addr && !strcmp(name, want[w].name))
					*want[w].addr = bias + s.st_value;
		}
	}
}

/* Is s (len bytes, no NUL) a PY_VERSION of version: "3.8.18", "3.13.0rc1", "3.9.0+"? */
static bool is_py_version(const char *s, size_t len, unsigned int version)
{
	char want[16], buf[32];
	const char *p;
	int n = snprintf(want, sizeof(want), "%u.%u.", version >> 8, version & 0xff);

	if (len >= sizeof(buf) || len <= (size_t)n || memcmp(s, want, (size_t)n))
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	p = buf + n;
	if (digits(&p) < 0)
		return false;
	if (*p == 'a' || *p == 'b')
		p++;
	else if (!strncmp(p, "rc", 2))
		p += 2;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '+')
		p++;
	return !*p;
}

/* The PY_VERSION string of version in the file's .rodata (before 3.11 the version exists
 * only there: Py_GetVersion formats it at run time). The linker merges string tails, so
 * "3.8.18" may be the end of "/root/.pyenv/versions/3.8.18": a whole string is preferred,
 * else the tail after a '/', '-' or ' '. */
static void rodata_version(Elf *elf, unsigned int version, char *out, size_t out_sz)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name, *p, *end;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(name, ".rodata") ||
		    sh.sh_size > RODATA_MAX || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		for (int tails = 0; tails < 2; tails++) {
			for (p = d->d_buf, end = p + d->d_size; p < end;) {
				const char *nul = memchr(p, 0, (size_t)(end - p));
				size_t len = nul ? (size_t)(nul - p) : (size_t)(end - p);

				for (size_t k = 0; k < len && (k == 0 || tails); k++) {
					if (k && !strchr("/- ", p[k - 1]))
						continue;
					if (is_py_version(p + k, len - k, version)) {
						snprintf(out, out_sz, "%.*s", (int)(len - k),
							 p + k);
						return;
					}
				}
				p += len + 1;
			}
		}
	}
}

/* Py_Version (PY_VERSION_HEX) as "3.11.2" or "3.13.0rc1". */
static void hex_version(__u64 v, char *out, size_t out_sz)
{
	unsigned int level = (v >> 4) & 0xf, serial = v & 0xf;
	const char *lv = level == 0xa ? "a" : level == 0xb ? "b" : level == 0xc ? "rc" : "";

	if (*lv)
		snprintf(out, out_sz, "%u.%u.%u%s%u", (unsigned int)(v >> 24) & 0xff,
			 (unsigned int)(v >> 16) & 0xff, (unsigned int)(v >> 8) & 0xff, lv, serial);
	else
		snprintf(out, out_sz, "%u.%u.%u", (unsigned int)(v >> 24) & 0xff,
			 (unsigned int)(v >> 16) & 0xff, (unsigned int)(v >> 8) & 0xff);
}

int py_detect__image(pid_t pid, struct py_image_info *info)
{
	struct proc_mapping *maps = NULL;
	const struct proc_mapping *m;
	struct elf_file f = {.fd = -1};
	__u64 bias = 0, py_version = 0, hex = 0;
	size_t cnt = 0;
	int err;

	memset(info, 0, sizeof(*info));
	err = procmaps__read(pid, false, &maps, &cnt);
	if (err)
		return err;
	m = interpreter_mapping(pid, maps, cnt);
	if (!m) {
		err = -ENOENT;
		goto cleanup;
	}
	snprintf(info->image, sizeof(info->image), "%s", m->path);
	info->name_version = py_detect__name_version(m->path);
	f.fd = procmaps__open_file(pid, m);
	if (f.fd < 0) {
		err = f.fd;
		goto cleanup;
	}
	elf_version(EV_CURRENT);
	f.elf = elf_begin(f.fd, ELF_C_READ_MMAP, NULL);
	if (!f.elf || elf_kind(f.elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto cleanup;
	}
	err = load_bias(f.elf, m->start, &bias);
	if (err)
		goto cleanup;
	find_symbols(f.elf, bias, info, &py_version);
	/* Py_Version (3.11+) is the interpreter's own word; the file name only guides the
	 * search of older ones. */
	if (py_version && !procmaps__read_vm(pid, py_version, &hex, sizeof(unsigned long)) &&
	    (hex >> 24) == (info->name_version >> 8)) {
		info->version = (unsigned int)(hex >> 16) & 0xffff;
		hex_version(hex, info->version_str, sizeof(info->version_str));
	} else {
		rodata_version(f.elf, info->name_version, info->version_str,
			       sizeof(info->version_str));
		/* No PY_VERSION found: the name's "3.8" is all the layout needs. */
		if (!info->version_str[0])
			snprintf(info->version_str, sizeof(info->version_str), "%u.%u",
				 info->name_version >> 8, info->name_version & 0xff);
		info->version = info->name_version;
	}
cleanup:
	elf_file__close(&f);
	procmaps__free(maps, cnt);
	return err;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* pymalloc copied into its callers: see py_inline.h. */
#include "py_inline.h"

#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_file.h"

#define HEAD_BYTES 64	       /* PyObject_Malloc's bytes searched for its own test */
#define TEXT_MAX   (64u << 20) /* larger executable sections are not read */

bool py_inline__cmp_at(const unsigned char *t, size_t n, size_t i, size_t *imm_at)
{
	if (i + 6 <= n && t[i] == 0x48 && t[i + 1] == 0x3d) {
		*imm_at = i + 2;
		return true;
	}
	if (i + 7 <= n && t[i] == 0x48 && t[i + 1] == 0x81 && (t[i + 2] & 0xf8) == 0xf8) {
		*imm_at = i + 3;
		return true;
	}
	if (i + 11 <= n && t[i] == 0x48 && t[i + 1] == 0x81 && t[i + 2] == 0x3d) {
		*imm_at = i + 7;
		return true;
	}
	return false;
}

static unsigned int imm32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

unsigned int py_inline__cmp_imm(const unsigned char *code, size_t n)
{
	size_t at;

	for (size_t i = 0; i < n; i++)
		if (py_inline__cmp_at(code, n, i, &at) && imm32(code + at) >= 0x400000)
			return imm32(code + at);
	return 0;
}

size_t py_inline__count(const unsigned char *text, size_t n, unsigned int addr)
{
	size_t cnt = 0, at;

	for (size_t i = 0; addr && i < n; i++)
		if (py_inline__cmp_at(text, n, i, &at) && imm32(text + at) == addr)
			cnt++;
	return cnt;
}

int py_inline__symbol_offset(Elf *elf, const char *name, size_t *off, size_t *size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, tsh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *sname;
			Elf_Scn *text;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
			    !(sname = elf_strptr(elf, sh.sh_link, s.st_name)) ||
			    strcmp(sname, name))
				continue;
			text = elf_getscn(elf, s.st_shndx);
			if (text && gelf_getshdr(text, &tsh) && tsh.sh_type != SHT_NOBITS &&
			    s.st_value >= tsh.sh_addr && s.st_value - tsh.sh_addr < tsh.sh_size) {
				*off = s.st_value - tsh.sh_addr + tsh.sh_offset;
				*size = s.st_size;
				return 0;
			}
		}
	}
	return -ENOENT;
}

int py_inline__sites(const char *path)
{
	unsigned char head[HEAD_BYTES], *text;
	struct elf_file f;
	Elf_Scn *scn = NULL;
	size_t off, sz, cnt = 0;
	unsigned int addr = 0;
	GElf_Shdr sh;
	int err = elf_file__open(path, &f);

	if (err)
		return err;
	if (!py_inline__symbol_offset(f.elf, "PyObject_Malloc", &off, &sz) &&
	    pread(f.fd, head, sizeof(head), (off_t)off) == (ssize_t)sizeof(head))
		addr = py_inline__cmp_imm(head, sizeof(head));
	while (addr && !err && (scn = elf_nextscn(f.elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size || sh.sh_size > TEXT_MAX)
			continue;
		text = malloc(sh.sh_size);
		if (!text)
			err = -ENOMEM;
		else if (pread(f.fd, text, sh.sh_size, (off_t)sh.sh_offset) == (ssize_t)sh.sh_size)
			cnt += py_inline__count(text, sh.sh_size, addr);
		free(text);
	}
	elf_file__close(&f);
	return err ? err : (int)cnt;
}

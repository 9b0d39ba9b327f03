// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "fp_detect.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/types.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "elf_file.h"
#include "x86_prologue.h"

#define FP_MIN_FUNC_SZ 16 /* smaller ones are stubs and thunks */
#define FP_SCAN_SZ     32 /* prologue bytes searched */

/* crt objects the toolchain links into every executable: not the program's own code. */
static bool is_crt(const char *name)
{
	static const char *const crt[] = {
	    "_start",
	    "_init",
	    "_fini",
	    "__libc_csu_init",
	    "__libc_csu_fini",
	    "_dl_relocate_static_pie",
	    "deregister_tm_clones",
	    "register_tm_clones",
	    "__do_global_dtors_aux",
	    "frame_dummy",
	};

	for (size_t i = 0; i < sizeof(crt) / sizeof(crt[0]); i++)
		if (!strcmp(name, crt[i]))
			return true;
	return !name[0];
}

/* Census over one symbol table section. */
static void census_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct fp_census *c)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		unsigned char code[FP_SCAN_SZ];
		size_t len;
		Elf_Data *text_data;
		GElf_Shdr tsh;
		GElf_Sym sym;
		Elf_Scn *text;
		const char *name;
		__u64 off;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
		    sym.st_size < FP_MIN_FUNC_SZ)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || is_crt(name))
			continue;
		text = elf_getscn(elf, sym.st_shndx);
		if (!text || !gelf_getshdr(text, &tsh) || tsh.sh_type != SHT_PROGBITS ||
		    sym.st_value < tsh.sh_addr)
			continue;
		text_data = elf_getdata(text, NULL);
		off = sym.st_value - tsh.sh_addr;
		len = sym.st_size < sizeof(code) ? sym.st_size : sizeof(code);
		if (!text_data || !text_data->d_buf || off + len > text_data->d_size)
			continue;
		memcpy(code, (const char *)text_data->d_buf + off, len);
		c->funcs++;
		c->with_fp += x86_prologue__sets_fp(code, len);
		if (!c->rust && (!strcmp(name, "__rust_alloc") ||
				 !strcmp(name, "rust_begin_unwind") || strstr(name, "__rust_")))
			c->rust = true;
	}
}

int fp_detect__census(const char *path, struct fp_census *out)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, ssh;
	struct elf_file f;
	GElf_Ehdr eh;
	Elf *elf;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = elf_file__open(path, &f)))
		return err;
	elf = f.elf;
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64) {
		err = -ENOEXEC;
		goto cleanup;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
	}
	scn = symtab ? symtab : dynsym;
	if (!scn || !gelf_getshdr(scn, &ssh)) {
		err = -ENOENT;
		goto cleanup;
	}
	census_symtab(elf, scn, &ssh, out);
	if (!out->funcs)
		err = -ENOENT;
cleanup:
	elf_file__close(&f);
	return err;
}

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
#include "alloc_scope.h"
#include "elf_file.h"
#include "log.h"
#include "safe_open.h"
#include "safe_text.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Allocator entry points that are not malloc's family: a program calling them directly is
 * invisible to the probes (see alloc_symbols.prefixed), unless one is malloc itself under
 * another name (mimalloc's mi_malloc is). */
static const char *const prefixed_names[] = {
	"je_malloc", "_rjem_malloc", "_rjem_mallocx", "mi_malloc", "tc_malloc", "rpmalloc", "mallocx",
};

/* The enum alloc_fn named name, or FN_COUNT. Rust's shims also match in rustc's v0
 * mangling (rustc >= 1.71: _RNvCs<hash>_7___rustc12___rust_alloc, a local symbol). */
static __u32 fn_of_name(const char *name, bool *rust_v0)
{
	const char *v0 = !strncmp(name, "_RNvCs", 6) ? strstr(name, "_7___rustc") : NULL;

	*rust_v0 = false;
	if (v0) {
		v0 += strlen("_7___rustc");
		v0 += strspn(v0, "0123456789");
		for (__u32 fn = FN_RUST_ALLOC; fn <= FN_RUST_ALLOC_ZEROED; fn++)
			if (!strcmp(v0, alloc_fn_name(fn))) {
				*rust_v0 = true;
				return fn;
			}
		return FN_COUNT;
	}
	for (__u32 fn = 0; fn < FN_COUNT; fn++)
		if (!strcmp(name, alloc_fn_name(fn)))
			return fn;
	return FN_COUNT;
}

/* File offsets of the allocator functions in the ELF at path (0: absent): defined global
 * symbols of .dynsym, and of .symtab too when symtab (the executable). A prefixed allocator
 * entry point defined, not at malloc's address, goes to prefixed (may be NULL). */
static int resolve_offsets(const char *path, size_t offs[FN_COUNT], bool symtab, char *prefixed,
			   size_t prefixed_sz)
{
	bool hidden_only[FN_COUNT] = {};
	GElf_Addr malloc_at = 0, other_at = 0;
	const char *other = NULL;
	Elf_Scn *scn = NULL;
	struct elf_file f;
	int err;
	Elf *elf;

	memset(offs, 0, sizeof(offs[0]) * FN_COUNT);
	err = elf_file__open(path, &f);
	if (err == -ENOEXEC)
		elog("%s is not an ELF file\n", safe_text__term(path));
	else if (err && err != -EINVAL)
		elog("cannot open %s: %s\n", safe_text__term(path), safe_open__strerror(err));
	if (err)
		return err;
	elf = f.elf;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data, *versym = NULL;
		GElf_Shdr sh;
		size_t n;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && (sh.sh_type != SHT_SYMTAB || !symtab)))
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
			bool rust_v0;
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
			fn = fn_of_name(name, &rust_v0);
			for (size_t k = 0; fn == FN_COUNT && !other && k < ARRAY_LEN(prefixed_names); k++)
				if (!strcmp(name, prefixed_names[k])) {
					other = prefixed_names[k];
					other_at = sym.st_value;
				}
			if (fn == FN_MALLOC)
				malloc_at = sym.st_value;
			/* A local symbol is no definition others reach (but rustc's v0 shims are
			 * local and called directly by the executable's own code). */
			if (fn == FN_COUNT || (GELF_ST_BIND(sym.st_info) == STB_LOCAL && !rust_v0))
				continue;
			if (GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC) {
				vlog("%s: %s is an IFUNC: not probed\n", safe_text__term(path),
				     safe_text__term(name));
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
	if (prefixed && !*prefixed && other && other_at != malloc_at)
		snprintf(prefixed, prefixed_sz, "%s", other);
	elf_file__close(&f);
	return 0;
}

/* Fill owner[]: aliases (same object, same offset) share the first name's probe. */
static void set_owners(struct alloc_symbols *out)
{
	for (__u32 fn = 0; fn < FN_COUNT; fn++) {
		out->owner[fn] = fn;
		for (__u32 prev = 0; prev < fn; prev++) {
			if (out->off[fn] && out->off[prev] == out->off[fn] &&
			    out->obj[prev] == out->obj[fn]) {
				out->owner[fn] = prev;
				dlog("%s is an alias of %s: one probe\n", alloc_fn_name(fn),
				     alloc_fn_name(prev));
				break;
			}
		}
		/* Rust's shims and C++'s operators: only programs in those languages have them. */
		if (!out->off[fn] && fn < FN_RUST_ALLOC)
			vlog("no %s: not probed\n", alloc_fn_name(fn));
	}
}

int alloc_symbols__for_binary(const char *path, struct alloc_symbols *out)
{
	size_t *offs = out->off;
	int err;

	if (path != out->path)
		snprintf(out->path, sizeof(out->path), "%s", path);
	memcpy(out->objs[0], out->path, sizeof(out->objs[0]));
	out->obj_cnt = 1;
	memset(out->obj, 0, sizeof(out->obj));
	err = resolve_offsets(out->path, offs, true, NULL, 0);
	if (err)
		return err;
	if (!offs[FN_MALLOC] || !offs[FN_FREE] || !offs[FN_REALLOC] || !offs[FN_CALLOC]) {
		elog("%s does not define malloc, calloc, realloc and free\n",
		     safe_text__term(out->path));
		return -ENOENT;
	}
	set_owners(out);
	return 0;
}

/* Take from the object at path every function no earlier object defined. */
static int take_from(struct alloc_symbols *out, const char *path, bool is_exe)
{
	size_t offs[FN_COUNT];
	__u32 idx = out->obj_cnt, skipped = 0;
	bool any = false;
	int err;

	err = resolve_offsets(path, offs, is_exe, out->prefixed, sizeof(out->prefixed));
	if (err)
		return err == -ENOEXEC ? 0 : err;
	if (out->prefixed[0] && !out->prefixed_in[0])
		snprintf(out->prefixed_in, sizeof(out->prefixed_in), "%s", path);
	for (__u32 fn = 0; fn < FN_COUNT; fn++) {
		/* Rust's shims are the executable's own functions, not a linker lookup. */
		if (!offs[fn] || out->off[fn] ||
		    (!is_exe && fn >= FN_RUST_ALLOC && fn <= FN_RUST_ALLOC_ZEROED))
			continue;
		if (idx >= ALLOC_OBJ_MAX) {
			skipped++;
			continue;
		}
		out->off[fn] = offs[fn];
		out->obj[fn] = (__u8)idx;
		any = true;
	}
	if (any) {
		snprintf(out->objs[idx], sizeof(out->objs[idx]), "%s", path);
		out->obj_cnt++;
	}
	if (skipped)
		elog("%s: %u allocator entry points not probed: already %d objects probed\n",
		     safe_text__term(path),
		     skipped, ALLOC_OBJ_MAX);
	return 0;
}

static int scope_resolve(const struct alloc_scope *scope, struct alloc_symbols *out, bool quiet);

/* Resolve every function in the order of scope, built with error err (see the header),
 * and release scope. quiet: no message when no object defines malloc and free (-ENOSYS). */
static int resolve_scope(int err, struct alloc_scope *scope, struct alloc_symbols *out,
			 bool quiet)
{
	if (err)
		return err;
	err = scope_resolve(scope, out, quiet);
	alloc_scope__release(scope);
	return err;
}

/* Every function from the first object of scope defining it. */
static int scope_resolve(const struct alloc_scope *scope, struct alloc_symbols *out, bool quiet)
{
	int err;

	snprintf(out->exe, sizeof(out->exe), "%s", scope->paths.items[0]);
	for (size_t i = 0; i < scope->paths.cnt; i++) {
		err = take_from(out, scope->paths.items[i], i == 0);
		if (err)
			return err;
	}
	if (!out->off[FN_MALLOC] || !out->off[FN_FREE]) {
		if (quiet)
			return -ENOSYS;
		elog("%s: no object of its scope defines malloc and free%s: use --lib PATH\n",
		     safe_text__term(out->exe),
		     scope->static_exe ? " (a stripped static executable?)" : "");
		return -ENOSYS;
	}
	/* CPython's domains come all from one image, or none: an allocation probed whose free
	 * is not would stay live for ever. */
	for (__u32 fn = FN_PY_OBJ_MALLOC; fn <= FN_PY_MEM_FREE; fn++)
		if (!out->off[fn] || out->obj[fn] != out->obj[FN_PY_OBJ_MALLOC]) {
			alloc_symbols__drop_python(out);
			break;
		}
	if (out->off[FN_RUST_ALLOC]) /* the shims are probed, whatever allocator they call */
		out->prefixed[0] = out->prefixed_in[0] = '\0';
	memcpy(out->path, out->objs[out->obj[FN_MALLOC]], sizeof(out->path));
	for (__u32 i = 0; i < out->obj_cnt; i++)
		vlog("probing %s in %s\n", i == out->obj[FN_MALLOC] ? "the allocator" : "entry points",
		     safe_text__term(out->objs[i]));
	/* Worth saying when malloc is not where libc's other functions are. */
	if (!out->off[FN_STRDUP] || out->obj[FN_STRDUP] != out->obj[FN_MALLOC] ||
	    !strcmp(out->path, out->exe))
		ilog("probing the allocator in %s: malloc of %s resolves there\n",
		     safe_text__term(out->path), safe_text__term(out->exe));
	set_owners(out);
	return 0;
}

int alloc_symbols__for_process(pid_t pid, const char *lib_path, struct alloc_symbols *out)
{
	struct alloc_scope scope;
	int err;

	memset(out, 0, sizeof(*out));
	if (lib_path) {
		if (access(lib_path, R_OK)) {
			err = -errno;
			elog("cannot read %s: %s\n", lib_path, strerror(-err));
			return err;
		}
		vlog("probing %s in pid %d\n", lib_path, (int)pid);
		return alloc_symbols__for_binary(lib_path, out);
	}
	err = resolve_scope(alloc_scope__for_process(pid, &scope), &scope, out, true);
	if (err != -ENOSYS)
		return err;
	/* A process caught in the dynamic linker's start-up (just exec'd) has not mapped its
	 * libraries yet: search them on disk, with its own environment, as ld.so is about to. */
	vlog("pid %d maps no allocator yet: resolving its libraries as ld.so will\n", (int)pid);
	return alloc_symbols__for_exec(pid, out);
}

int alloc_symbols__for_command(const char *exe, struct alloc_symbols *out)
{
	struct alloc_scope scope;

	memset(out, 0, sizeof(*out));
	return resolve_scope(alloc_scope__for_command(exe, &scope), &scope, out, false);
}

int alloc_symbols__for_exec(pid_t pid, struct alloc_symbols *out)
{
	struct alloc_scope scope;

	memset(out, 0, sizeof(*out));
	return resolve_scope(alloc_scope__for_exec(pid, &scope), &scope, out, false);
}

const char *alloc_symbols__obj(const struct alloc_symbols *s, __u32 fn)
{
	/* pymalloc's inlined copies and allocate_from_new_pool have no symbol of their own:
	 * they are in the interpreter's image, where PyObject_Malloc is (py_sites.h) */
	if (FN_IS_PY_SITE(fn) || fn == FN_PY_NEW_POOL)
		fn = FN_PY_OBJ_MALLOC;
	if (!s || fn >= FN_COUNT || !s->off[fn] || s->obj[fn] >= s->obj_cnt)
		return NULL;
	return s->objs[s->obj[fn]];
}

bool alloc_symbols__defines_malloc(const char *path)
{
	size_t offs[FN_COUNT];
	char magic[SELFMAG];
	FILE *f = fopen(path, "re");
	bool elf = f && fread(magic, SELFMAG, 1, f) == 1 && !memcmp(magic, ELFMAG, SELFMAG);

	if (f)
		fclose(f);
	/* Any mapped file may be asked about (fonts, locale archives): only ELF is read. */
	return elf && !resolve_offsets(path, offs, false, NULL, 0) && offs[FN_MALLOC];
}

bool alloc_symbols__glibc_malloc(const struct alloc_symbols *s)
{
	const char *base = s ? strrchr(s->path, '/') : NULL;

	base = base ? base + 1 : s ? s->path : "";
	return !strcmp(base, "libc.so.6") && !s->off[FN_RUST_ALLOC] &&
	       !s->off[FN_RUST_ALLOC_ZEROED] && !s->off[FN_RUST_REALLOC];
}

bool alloc_symbols__has_python(const struct alloc_symbols *s)
{
	return s && s->off[FN_PY_OBJ_MALLOC] && s->off[FN_PY_OBJ_FREE];
}

void alloc_symbols__drop_python(struct alloc_symbols *s)
{
	__u32 keep = 0;

	for (__u32 fn = 0; fn < FN_COUNT; fn++)
		if (FN_IS_PY(fn)) {
			s->off[fn] = 0;
			s->owner[fn] = fn;
		}
	/* An object left with nothing to probe (python3.N itself) leaves the list. */
	for (__u32 i = 0; i < s->obj_cnt; i++) {
		bool used = false;

		for (__u32 fn = 0; fn < FN_COUNT && !used; fn++)
			used = s->off[fn] && s->obj[fn] == i;
		if (!used)
			continue;
		for (__u32 fn = 0; fn < FN_COUNT; fn++)
			if (s->off[fn] && s->obj[fn] == i)
				s->obj[fn] = (__u8)keep;
		if (keep != i)
			memcpy(s->objs[keep], s->objs[i], sizeof(s->objs[keep]));
		keep++;
	}
	s->obj_cnt = keep;
}

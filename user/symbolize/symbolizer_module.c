// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One module of the symbolizer: ELF segments and symbols, DWARF lines and inlined scopes.
 *
 * Lookup path for an address (already turned into a file offset by the caller):
 *	file offset --PT_LOAD--> ELF vaddr --sorted symbols--> function name
 *	                                  --CU range table--> CU --line table--> file:line
 *	                                  --CU scope index--> inlined chain (innermost first)
 * Symbols come from the first non-empty of: the module's .symtab, the debug file's .symtab,
 * the module's .dynsym. DWARF comes from the module if it has .debug_info, else from the
 * debug file. The CU range table is built from the CUs themselves (DW_AT_ranges/low_pc), not
 * from .debug_aranges, which clang does not emit and libdw 0.188 would then not find.
 * Rust and C++ names are demangled (demangle.c) as each frame string is made; a DWARF
 * frame is named by its DIE's linkage name when that demangles (qualified, as the ELF symbol
 * of the same function reads), else by DW_AT_name.
 */
#include "symbolizer_module.h"
#include "grow.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "debug_fetch.h"
#include "debug_file.h"
#include "demangle.h"

/* A function symbol. name points into the (still open) ELF's string table. */
struct sym_entry {
	__u64 addr;	  /* st_value, ELF vaddr */
	__u64 size;	  /* st_size, 0 if unknown */
	const char *name; /* symbol name */
	int rank;	  /* lower is better: sized before unsized, GLOBAL < WEAK < LOCAL */
};

/* A subprogram or inlined_subroutine DIE with code, in a CU's scope index. */
struct scope_node {
	Dwarf_Die die;	 /* the DIE */
	int tag;	 /* DW_TAG_subprogram or DW_TAG_inlined_subroutine */
	int parent;	 /* enclosing node (index in the same CU), -1 if none */
	bool named;	 /* qualified was looked up */
	char *qualified; /* its demangled linkage name, owned; NULL: none (or not looked up) */
};

/* One address range of a scope node. */
struct scope_range {
	__u64 lo;     /* first address */
	__u64 hi;     /* one past the last address */
	__u64 max_hi; /* max hi over this and all earlier ranges (early stop in lookups) */
	__u32 node;   /* index into cu_info.nodes */
	__u32 depth;  /* nesting depth of the node, deeper sorts later on equal lo */
};

/*
 * A compile unit and, once an address in it is looked up, its scope index: every concrete
 * subprogram/inlined_subroutine with its ranges, so the inlined chain of an address costs a
 * binary search instead of dwarf_getscopes' walk over the CU's DIE tree.
 */
struct cu_info {
	Dwarf_Die die;		    /* the CU DIE */
	bool indexed;		    /* nodes/ranges built */
	struct scope_node *nodes;   /* DFS order */
	size_t node_cnt;	    /* entries in nodes */
	size_t node_cap;	    /* allocated nodes */
	struct scope_range *ranges; /* sorted by (lo, depth) */
	size_t range_cnt;	    /* entries in ranges */
	size_t range_cap;	    /* allocated ranges */
};

/* One address range of a compile unit. */
struct cu_range {
	__u64 lo;  /* first address */
	__u64 hi;  /* one past the last address */
	size_t cu; /* index into sym_module.cu_infos */
};

/* A PT_LOAD segment, for file offset -> vaddr. */
struct load_seg {
	__u64 off;    /* p_offset */
	__u64 vaddr;  /* p_vaddr */
	__u64 filesz; /* p_filesz */
};

struct sym_module {
	char *name;			 /* display name: path in the target, "[vdso]", ... */
	const struct strvec *debug_dirs; /* borrowed debug roots */
	int root_fd;			 /* borrowed: the target's root (O_PATH), or -1 */
	int fd;				 /* module file, -1 if none */
	void *image;			 /* in-memory ELF image (vdso), owned, or NULL */
	size_t image_sz;		 /* bytes in image */
	bool loaded;			 /* lazy load attempted */
	Elf *elf;			 /* the module's ELF, NULL if unreadable */
	int dbg_fd;			 /* separate debug file, -1 if none */
	Elf *dbg_elf;			 /* its ELF */
	Dwarf *dw;			 /* DWARF (module's or debug file's), NULL if none */
	struct load_seg *segs;		 /* PT_LOAD segments */
	size_t seg_cnt;			 /* entries in segs */
	struct strvec names;		 /* owned symbol names (version suffix removed) */
	struct sym_entry *syms;		 /* sorted by addr, one per addr */
	size_t sym_cnt;			 /* entries in syms */
	struct cu_range *cus;		 /* sorted by lo */
	size_t cu_cnt;			 /* entries in cus */
	struct cu_info *cu_infos;	 /* one per compile/partial unit */
	size_t cu_info_cnt;		 /* entries in cu_infos */
};

/* What an ELF file contains, from its section headers. */
struct elf_info {
	bool has_symtab; /* non-empty .symtab */
	bool has_dynsym; /* non-empty .dynsym */
	bool has_dwarf;	 /* .debug_info with data */
};

static void elf_info__scan(Elf *elf, struct elf_info *info)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	memset(info, 0, sizeof(*info));
	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && sh.sh_size)
			info->has_symtab = true;
		if (sh.sh_type == SHT_DYNSYM && sh.sh_size)
			info->has_dynsym = true;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && sh.sh_type != SHT_NOBITS && sh.sh_size &&
		    (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
			info->has_dwarf = true;
	}
}

struct sym_module *sym_module__new(const char *name, int fd, void *image, size_t image_sz,
				   const struct strvec *debug_dirs, int root_fd)
{
	struct sym_module *m = calloc(1, sizeof(*m));
	int err;

	if (!m) {
		err = -errno;
		goto cleanup;
	}
	m->name = strdup(name);
	if (!m->name) {
		err = -errno;
		goto cleanup;
	}
	m->fd = fd;
	m->image = image;
	m->image_sz = image_sz;
	m->dbg_fd = -1;
	m->debug_dirs = debug_dirs;
	m->root_fd = root_fd;
	return m;

cleanup:
	if (m)
		free(m->name);
	free(m);
	if (fd >= 0)
		close(fd);
	free(image);
	errno = -err;
	return NULL;
}

void sym_module__free(struct sym_module *m)
{
	if (!m)
		return;
	if (m->dw)
		dwarf_end(m->dw);
	if (m->dbg_elf)
		elf_end(m->dbg_elf);
	if (m->dbg_fd >= 0)
		close(m->dbg_fd);
	if (m->elf)
		elf_end(m->elf);
	if (m->fd >= 0)
		close(m->fd);
	free(m->image);
	free(m->segs);
	free(m->syms);
	strvec__release(&m->names);
	free(m->cus);
	for (size_t i = 0; i < m->cu_info_cnt; i++) {
		for (size_t j = 0; j < m->cu_infos[i].node_cnt; j++)
			free(m->cu_infos[i].nodes[j].qualified);
		free(m->cu_infos[i].nodes);
		free(m->cu_infos[i].ranges);
	}
	free(m->cu_infos);
	free(m->name);
	free(m);
}

/* Read the PT_LOAD program headers. 0 or -errno. */
static int sym_module__load_segs(struct sym_module *m)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(m->elf, &n) || !n)
		return 0;
	m->segs = calloc(n, sizeof(*m->segs));
	if (!m->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(m->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		m->segs[m->seg_cnt++] = (struct load_seg){ph.p_offset, ph.p_vaddr, ph.p_filesz};
	}
	return 0;
}

/* Open candidate path (inside the target's root when root_fd >= 0) as the debug file;
 * keeps it (returns true) if it belongs to the module and has symbols or DWARF. */
static bool sym_module__try_debug(struct sym_module *m, int root_fd, const char *path,
				  const struct debug_file_want *want)
{
	struct elf_info info;
	Elf *elf;
	int fd;

	if (root_fd >= 0)
		fd = debug_file__open(root_fd, path, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS, want);
	else
		fd = debug_file__open(AT_FDCWD, path, 0, want);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto reject;
	elf_info__scan(elf, &info);
	if (!info.has_dwarf && !info.has_symtab)
		goto reject;
	m->dbg_fd = fd;
	m->dbg_elf = elf;
	return true;

reject:
	if (elf)
		elf_end(elf);
	close(fd);
	return false;
}

/*
 * Find a separate debug file, as gdb does: build-id first (<root>/.build-id/xx/yyyy.debug),
 * then the .gnu_debuglink name in the module's directory, its .debug/, <root><dir>/ and
 * <root>/ itself (a flat directory of debug files, as --debug-dir may name: the build-id or
 * CRC check makes a same-named file of another module harmless), then debuginfod by
 * build-id (debug_fetch.h), last because it may go to the network.
 * The module's directory and the target's /usr/lib/debug are read inside the target's root
 * (root_fd); the tracer's own debug roots (--debug-dir, /usr/lib/debug) as they are.
 */
static void sym_module__find_debug(struct sym_module *m)
{
	struct debug_file_want want = { 0 };
	const unsigned char *id = NULL;
	const char *link, *base;
	char path[4096], dir[4096];
	GElf_Word crc;
	size_t i;

	want.id_sz = dwelf_elf_gnu_build_id(m->elf, (const void **)&id);
	want.id = id;
	for (i = 0; i < m->debug_dirs->cnt; i++)
		if (!debug_file__build_id_path(m->debug_dirs->items[i], id, want.id_sz, path,
					       sizeof(path)) &&
		    sym_module__try_debug(m, -1, path, &want))
			return;
	if (m->root_fd >= 0 &&
	    !debug_file__build_id_path("/usr/lib/debug", id, want.id_sz, path, sizeof(path)) &&
	    sym_module__try_debug(m, m->root_fd, path, &want))
		return;
	link = dwelf_elf_gnu_debuglink(m->elf, &crc);
	/* A name that climbs (../) or points elsewhere (/) is not a debuglink gdb would use. */
	if (!debug_file__link_ok(link) || m->name[0] != '/')
		goto fetch;
	want.have_crc = true;
	want.crc = crc;
	snprintf(dir, sizeof(dir), "%s", m->name);
	*strrchr(dir, '/') = '\0';
	base = strrchr(m->name, '/') + 1;
	/* Same directory: only if it is not the module itself. */
	snprintf(path, sizeof(path), "%s/%s", dir, link);
	if (strcmp(base, link) && sym_module__try_debug(m, m->root_fd, path, &want))
		return;
	snprintf(path, sizeof(path), "%s/.debug/%s", dir, link);
	if (sym_module__try_debug(m, m->root_fd, path, &want))
		return;
	snprintf(path, sizeof(path), "/usr/lib/debug%s/%s", dir, link);
	if (m->root_fd >= 0 && sym_module__try_debug(m, m->root_fd, path, &want))
		return;
	for (i = 0; i < m->debug_dirs->cnt; i++) {
		snprintf(path, sizeof(path), "%s%s/%s", m->debug_dirs->items[i], dir, link);
		if (sym_module__try_debug(m, -1, path, &want))
			return;
		snprintf(path, sizeof(path), "%s/%s", m->debug_dirs->items[i], link);
		if (sym_module__try_debug(m, -1, path, &want))
			return;
	}
fetch:
	/* Only by build-id: the server's file must carry the module's (no CRC fallback). */
	want.have_crc = false;
	if (want.id_sz > 0 && !debug_fetch__debuginfod(id, want.id_sz, path, sizeof(path)))
		sym_module__try_debug(m, -1, path, &want);
}

static int sym_entry__cmp(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	/* Deterministic among equals: the longer size, then the name. */
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Collect the function symbols of the first table of type `type` in elf. 0 or -errno. */
static int sym_module__load_syms(struct sym_module *m, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *data;
	size_t i, n, out;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type && sh.sh_entsize)
			break;
	}
	if (!scn || !(data = elf_getdata(scn, NULL)))
		return 0;
	n = sh.sh_size / sh.sh_entsize;
	m->syms = calloc(n ? n : 1, sizeof(*m->syms));
	if (!m->syms)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		int st_type, bind, rank;
		const char *name;

		if (!gelf_getsym(data, i, &sym))
			continue;
		st_type = GELF_ST_TYPE(sym.st_info);
		if (st_type != STT_FUNC && st_type != STT_GNU_IFUNC)
			continue;
		if (sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !*name || *name == '@')
			continue;
		if (strchr(name, '@')) {
			/* "localeconv@@GLIBC_2.2.5" (versioned .symtab entries): as Valgrind, no
			 * version. */
			char *bare = strndup(name, strcspn(name, "@"));

			if (!bare || strvec__push(&m->names, bare)) {
				free(bare);
				return -ENOMEM;
			}
			free(bare);
			name = m->names.items[m->names.cnt - 1];
		}
		bind = GELF_ST_BIND(sym.st_info);
		rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
		if (!sym.st_size)
			rank += 3;
		m->syms[m->sym_cnt++] = (struct sym_entry){sym.st_value, sym.st_size, name, rank};
	}
	if (m->sym_cnt > 1)
		qsort(m->syms, m->sym_cnt, sizeof(*m->syms), sym_entry__cmp);
	/* Keep the best symbol of each address. */
	for (i = 0, out = 0; i < m->sym_cnt; i++) {
		if (out && m->syms[out - 1].addr == m->syms[i].addr)
			continue;
		m->syms[out++] = m->syms[i];
	}
	m->sym_cnt = out;
	return 0;
}

static int cu_range__cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* Build the sorted table of CU address ranges. 0 or -errno. */
static int sym_module__load_cus(struct sym_module *m)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	Dwarf_Half version;
	uint8_t unit_type;
	size_t cap = 0, info_cap = 0;
	int err = 0;

	while (dwarf_get_units(m->dw, cu, &cu, &version, &unit_type, &cudie, &subdie) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		bool added = false;

		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
			continue;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			if (!added) {
				if (grow__array(&m->cu_infos, &info_cap, m->cu_info_cnt + 1,
						sizeof(*m->cu_infos))) {
					err = -ENOMEM;
					goto cleanup;
				}
				m->cu_infos[m->cu_info_cnt++] = (struct cu_info){.die = cudie};
				added = true;
			}
			if (grow__array(&m->cus, &cap, m->cu_cnt + 1, sizeof(*m->cus))) {
				err = -ENOMEM;
				goto cleanup;
			}
			m->cus[m->cu_cnt++] = (struct cu_range){lo, hi, m->cu_info_cnt - 1};
		}
	}
	if (m->cu_cnt > 1)
		qsort(m->cus, m->cu_cnt, sizeof(*m->cus), cu_range__cmp);
cleanup:
	return err;
}

/* Maximum DIE nesting followed when indexing (malformed input guard). */
#define SCOPE_MAX_DEPTH 128

/* Add a scope range. 0 or -ENOMEM. */
static int cu_info__add_range(struct cu_info *cu, __u64 lo, __u64 hi, size_t node, int depth)
{
	if (grow__array(&cu->ranges, &cu->range_cap, cu->range_cnt + 1, sizeof(*cu->ranges)))
		return -ENOMEM;
	cu->ranges[cu->range_cnt++] = (struct scope_range){lo, hi, 0, node, depth};
	return 0;
}

/* Add a scope node; its index in *idx. 0 or -ENOMEM. */
static int cu_info__add_node(struct cu_info *cu, Dwarf_Die *die, int tag, int parent, int *idx)
{
	if (grow__array(&cu->nodes, &cu->node_cap, cu->node_cnt + 1, sizeof(*cu->nodes)))
		return -ENOMEM;
	cu->nodes[cu->node_cnt] = (struct scope_node){.die = *die, .tag = tag, .parent = parent};
	*idx = (int)cu->node_cnt++;
	return 0;
}

/* Can a DIE with this tag hold concrete code DIEs below it? */
static bool tag__may_hold_code(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		return true;
	default:
		return false;
	}
}

/* Index the children of die (parent node: parent, at nesting depth). 0 or -errno. */
static int cu_info__walk(struct cu_info *cu, Dwarf_Die *die, int parent, int depth)
{
	Dwarf_Die child;
	int err = 0;

	if (depth > SCOPE_MAX_DEPTH || dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child), self = parent, child_depth = depth;
		bool descend = tag__may_hold_code(tag);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;

			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if (self == parent) {
					err = cu_info__add_node(cu, &child, tag, parent, &self);
					if (err)
						goto cleanup;
					child_depth = depth + 1;
				}
				err = cu_info__add_range(cu, lo, hi, self, child_depth);
				if (err)
					goto cleanup;
			}
			/* An abstract or declared-only function holds no code. */
			if (self == parent && tag == DW_TAG_subprogram)
				descend = false;
		}
		if (descend && dwarf_haschildren(&child)) {
			err = cu_info__walk(cu, &child, self, child_depth);
			if (err)
				goto cleanup;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
cleanup:
	return err;
}

static int scope_range__cmp(const void *a, const void *b)
{
	const struct scope_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (int)x->depth - (int)y->depth;
}

/* Build cu's scope index. 0 or -errno. */
static int cu_info__index(struct cu_info *cu)
{
	__u64 max_hi = 0;
	int err;

	cu->indexed = true;
	err = cu_info__walk(cu, &cu->die, -1, 0);
	if (err)
		return err;
	if (cu->range_cnt > 1)
		qsort(cu->ranges, cu->range_cnt, sizeof(*cu->ranges), scope_range__cmp);
	for (size_t i = 0; i < cu->range_cnt; i++) {
		if (cu->ranges[i].hi > max_hi)
			max_hi = cu->ranges[i].hi;
		cu->ranges[i].max_hi = max_hi;
	}
	return 0;
}

/*
 * The innermost scope node holding vaddr, or -1. Ranges containing one address are nested,
 * so the containing range with the greatest lo (then depth) is the innermost one.
 */
static int cu_info__innermost(const struct cu_info *cu, __u64 vaddr)
{
	size_t lo = 0, hi = cu->range_cnt, k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->ranges[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k > 0 && cu->ranges[k - 1].max_hi > vaddr; k--) {
		if (vaddr < cu->ranges[k - 1].hi)
			return (int)cu->ranges[k - 1].node;
	}
	return -1;
}

/* Open the ELF, its segments, symbols, debug file and DWARF. Failures leave less info. */
static int sym_module__load(struct sym_module *m)
{
	struct elf_info info, dbg_info = {0};
	Elf *dwarf_elf = NULL;
	int err = 0;

	m->loaded = true;
	if (m->fd >= 0)
		m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	else if (m->image)
		m->elf = elf_memory(m->image, m->image_sz);
	if (m->elf && elf_kind(m->elf) != ELF_K_ELF) {
		elf_end(m->elf);
		m->elf = NULL;
	}
	if (!m->elf)
		return 0;
	err = sym_module__load_segs(m);
	if (err)
		goto cleanup;
	elf_info__scan(m->elf, &info);
	if ((!info.has_dwarf || !info.has_symtab) && m->fd >= 0)
		sym_module__find_debug(m);
	if (m->dbg_elf)
		elf_info__scan(m->dbg_elf, &dbg_info);

	if (info.has_symtab)
		err = sym_module__load_syms(m, m->elf, SHT_SYMTAB);
	else if (dbg_info.has_symtab)
		err = sym_module__load_syms(m, m->dbg_elf, SHT_SYMTAB);
	else if (info.has_dynsym)
		err = sym_module__load_syms(m, m->elf, SHT_DYNSYM);
	if (err)
		goto cleanup;

	if (info.has_dwarf)
		dwarf_elf = m->elf;
	else if (dbg_info.has_dwarf)
		dwarf_elf = m->dbg_elf;
	if (dwarf_elf)
		m->dw = dwarf_begin_elf(dwarf_elf, DWARF_C_READ, NULL);
	if (m->dw)
		err = sym_module__load_cus(m);
cleanup:
	return err;
}

/* The best function symbol containing vaddr, or NULL. */
static const struct sym_entry *sym_module__find_sym(const struct sym_module *m, __u64 vaddr)
{
	size_t lo = 0, hi = m->sym_cnt, k;
	const struct sym_entry *nearest;

	/* First entry with addr > vaddr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	nearest = &m->syms[lo - 1];
	/* Sized symbols containing vaddr; a few steps back covers nested/aliased ranges. */
	for (k = lo; k > 0 && k + 8 > lo; k--) {
		const struct sym_entry *e = &m->syms[k - 1];

		if (e->size && vaddr - e->addr < e->size)
			return e;
	}
	/* An unsized symbol (hand-written asm) owns the bytes up to the next symbol. */
	if (!nearest->size && vaddr - nearest->addr < 4096)
		return nearest;
	return NULL;
}

/* The CU whose ranges contain vaddr, or NULL. */
static struct cu_info *sym_module__find_cu(struct sym_module *m, __u64 vaddr)
{
	size_t lo = 0, hi = m->cu_cnt, k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->cus[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges rarely overlap; look back a little in case they do. */
	for (k = lo; k > 0 && k + 8 > lo; k--) {
		if (vaddr < m->cus[k - 1].hi)
			return &m->cu_infos[m->cus[k - 1].cu];
	}
	return NULL;
}

static const char *path__basename(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

/* Push one frame, "0x%llX: name (file:line)" or "0x%llX: name (in module)", name as given. */
static int sym_module__push_shown(const struct sym_module *m, struct strvec *out, __u64 addr,
				  const char *name, const char *file, int line)
{
	if (file && line > 0)
		return strvec__pushf(out, "0x%llX: %s (%s:%d)", (unsigned long long)addr, name,
				     path__basename(file), line);
	return strvec__pushf(out, "0x%llX: %s (in %s)", (unsigned long long)addr, name, m->name);
}

/*
 * Push one frame named by a symbol or DWARF name (NULL: "???"). ELF symbols of Rust and C++
 * code are mangled, and so is a DW_AT_linkage_name fallback, so the name is demangled here;
 * a name demangle__name cannot read is shown as it is.
 */
static int sym_module__push(const struct sym_module *m, struct strvec *out, __u64 addr,
			    const char *name, const char *file, int line)
{
	char *readable;
	int err;

	if (!name)
		name = "???";
	readable = demangle__name(name);
	err = sym_module__push_shown(m, out, addr, readable ? readable : name, file, line);
	free(readable);
	return err;
}

/* The call site (DW_AT_call_file / DW_AT_call_line) of an inlined_subroutine DIE. */
static void inlined__call_site(Dwarf_Die *die, const char **file, int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx = 0, ln = 0;
	Dwarf_Files *files;
	Dwarf_Die cudie;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &ln) == 0)
		*line = (int)ln;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &idx) != 0)
		return;
	if (!dwarf_diecu(die, &cudie, NULL, NULL))
		return;
	if (dwarf_getsrcfiles(&cudie, &files, &nfiles) == 0 && idx < nfiles)
		*file = dwarf_filesrc(files, idx, NULL, NULL);
}

/* DW_AT_name of a subprogram/inlined DIE, or its linkage name if it has none. */
static const char *die__name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = dwarf_diename(die);

	if (name)
		return name;
	/* Some producers only give the linkage name. */
	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	return name;
}

/*
 * The demangled linkage name of a subprogram/inlined DIE: a new string, or NULL when it has
 * none or it does not demangle. dwarf_attr_integrate follows DW_AT_abstract_origin (an
 * inlined copy -> its abstract subprogram) and DW_AT_specification (an out-of-class C++
 * definition -> the declaration in its class), where the linkage name lives. C has no
 * linkage names, and names that are not mangled give NULL.
 */
static char *die__demangled_linkage_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	return name ? demangle__name(name) : NULL;
}

/*
 * Push the frame of a scope node. DW_AT_name is only the bare identifier ("push_back",
 * "alloc", "call_once<fn(), ()>"), while the demangled linkage name is the qualified one
 * ("std::vector<int, std::allocator<int> >::push_back(int const&)", "alloc::alloc::alloc"),
 * the same as that function's ELF symbol shows when it is not inlined, and what `tracer
 * report` recognizes allocator plumbing by. So the linkage name wins when it demangles;
 * otherwise the name is what it was. It is demangled once per node and kept: the nodes of
 * std's small inlined functions are shared by many addresses.
 */
static int sym_module__push_node(const struct sym_module *m, struct strvec *out, __u64 addr,
				 struct scope_node *n, const char *file, int line)
{
	if (!n->named) {
		errno = 0;
		n->qualified = die__demangled_linkage_name(&n->die);
		/* Out of memory: unnamed, so the next address tries again. */
		n->named = n->qualified || errno != ENOMEM;
	}
	if (!n->qualified)
		return sym_module__push(m, out, addr, die__name(&n->die), file, line);
	return sym_module__push_shown(m, out, addr, n->qualified, file, line);
}

/* Frames from DWARF for vaddr. Returns frames pushed (0: no DWARF for it) or -errno. */
static int sym_module__describe_dwarf(struct sym_module *m, __u64 vaddr, __u64 print_addr,
				      const struct sym_entry *sym, struct strvec *out)
{
	struct cu_info *cu;
	const char *file = NULL;
	Dwarf_Line *dl;
	int line = 0, node, cnt = 0, err = 0;

	cu = sym_module__find_cu(m, vaddr);
	if (!cu)
		return 0;
	if (!cu->indexed) {
		err = cu_info__index(cu);
		if (err)
			return err;
	}
	dl = dwarf_getsrc_die(&cu->die, vaddr);
	if (dl) {
		file = dwarf_linesrc(dl, NULL, NULL);
		if (dwarf_lineno(dl, &line))
			line = 0;
	}
	/* Innermost first: each inlined level, then the function they are inlined into. */
	for (node = cu_info__innermost(cu, vaddr); node >= 0; node = cu->nodes[node].parent) {
		struct scope_node *n = &cu->nodes[node];

		if (n->tag == DW_TAG_inlined_subroutine) {
			err = sym_module__push_node(m, out, print_addr, n, file, line);
			if (err)
				return err;
			cnt++;
			/* The next level out is positioned at this inlined call. */
			inlined__call_site(&n->die, &file, &line);
			continue;
		}
		/* Valgrind names the function by its ELF symbol (foo.part.0, foo.cold, ...). */
		if (sym)
			err = sym_module__push(m, out, print_addr, sym->name, file, line);
		else
			err = sym_module__push_node(m, out, print_addr, n, file, line);
		return err ? err : cnt + 1;
	}
	/* No enclosing subprogram: what the line table says, named by the symbol. */
	if (file && line > 0) {
		err = sym_module__push(m, out, print_addr, sym ? sym->name : NULL, file, line);
		return err ? err : cnt + 1;
	}
	/* Nothing to anchor inlined frames to: let the caller fall back to symbols. */
	while (cnt--)
		free(out->items[--out->cnt]);
	return 0;
}

/* File offset -> ELF vaddr via PT_LOAD. false if no segment holds off. */
static bool sym_module__off_to_vaddr(const struct sym_module *m, __u64 off, __u64 *vaddr)
{
	size_t i;

	for (i = 0; i < m->seg_cnt; i++) {
		const struct load_seg *s = &m->segs[i];

		if (off >= s->off && off - s->off < s->filesz) {
			*vaddr = off - s->off + s->vaddr;
			return true;
		}
	}
	return false;
}

/*
 * Push a frame no symbol names: "0xADDR: ??? (in MODULE+0xREL)", REL being what
 * `addr2line -e MODULE REL` takes, the ELF virtual address (the file offset when the module
 * has no readable ELF), so that the frame can be looked up later, e.g. with debug info
 * installed afterwards.
 */
static int sym_module__push_unknown(const struct sym_module *m, struct strvec *out,
				    __u64 print_addr, __u64 rel)
{
	return strvec__pushf(out, "0x%llX: ??? (in %s+0x%llx)", (unsigned long long)print_addr,
			     m->name, (unsigned long long)rel);
}

int sym_module__describe(struct sym_module *m, __u64 off, __u64 print_addr, struct strvec *out)
{
	const struct sym_entry *sym = NULL;
	__u64 vaddr;
	int err, cnt;

	if (!m->loaded) {
		err = sym_module__load(m);
		if (err)
			return err;
	}
	if (!m->elf || !sym_module__off_to_vaddr(m, off, &vaddr))
		return sym_module__push_unknown(m, out, print_addr, off) ?: 1;
	sym = sym_module__find_sym(m, vaddr);
	if (m->dw) {
		cnt = sym_module__describe_dwarf(m, vaddr, print_addr, sym, out);
		if (cnt)
			return cnt;
	}
	if (!sym)
		return sym_module__push_unknown(m, out, print_addr, vaddr) ?: 1;
	return sym_module__push(m, out, print_addr, sym->name, NULL, 0) ?: 1;
}

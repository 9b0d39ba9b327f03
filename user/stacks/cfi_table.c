// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cfi_table - a module's unwind table: found in the cache (cfi_cache.c) or compiled from
 * its CFI section (cfi_compile.c), and the lookup BPF's binary search mirrors.
 */
#include "cfi_table.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <gelf.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfi_cache.h"
#include "cfi_compile.h"
#include "elf_file.h"
#include "log.h"
#include "safe_open.h"
#include "sudo_user.h"

/* The most a compressed .debug_frame may inflate to. Its header (the file's word) sizes
 * libelf's buffer, and zlib inflates up to 1032-fold: a few MB of file, gigabytes of root's
 * memory. Real ones are tens of MB. */
#define CFI_INFLATE_MAX (512u << 20)

/* The section named name with bytes in the file (not NOBITS, not empty), or NULL. */
static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS || !sh->sh_size)
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* Compile the section name into rows. 0, -ENOENT (no such section, or no FDE of use in
 * it), -EINVAL (unreadable), -EFBIG (compressed, inflating past CFI_INFLATE_MAX), -ENOMEM. */
static int compile_section(Elf *elf, const char *name, struct cfi_rows *rows,
			   struct cfi_compile_stats *st)
{
	GElf_Shdr sh;
	Elf_Data *data;
	Elf_Scn *scn = find_section(elf, name, &sh);

	/* A compressed .debug_frame (SHF_COMPRESSED) is inflated in libelf's memory. */
	if (scn && (sh.sh_flags & SHF_COMPRESSED)) {
		GElf_Chdr ch;

		if (!gelf_getchdr(scn, &ch))
			return -EINVAL;
		if (ch.ch_size > CFI_INFLATE_MAX)
			return -EFBIG;
		if (elf_compress(scn, 0, 0) < 0 || !gelf_getshdr(scn, &sh))
			return -EINVAL;
	}
	if (!scn)
		return -ENOENT;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return -EINVAL;
	return cfi_compile(data->d_buf, data->d_size, sh.sh_addr, !strcmp(name, ".eh_frame"),
			   rows, st);
}

/* Compile the table of an open ELF file into t: its .eh_frame, or its .debug_frame when
 * .eh_frame is missing or describes nothing. 0, or -errno with *why. */
static int compile_elf(Elf *elf, struct cfi_table *t, const char **why)
{
	struct cfi_compile_stats st = {0};
	struct cfi_rows rows = {0};
	const char *name = ".eh_frame";
	int err = compile_section(elf, name, &rows, &st);

	if (err == -ENOENT) {
		name = ".debug_frame";
		st = (struct cfi_compile_stats){0};
		err = compile_section(elf, name, &rows, &st);
	}
	if (err) {
		free(rows.rows);
		*why = err == -ENOMEM  ? "out of memory"
		       : err == -EINVAL ? "the CFI section cannot be read"
		       : err == -EFBIG	? "the compressed CFI section inflates past 512 MiB"
					: "no FDE in .eh_frame or .debug_frame";
		return err;
	}
	if (rows.n > UINT32_MAX) {
		free(rows.rows);
		*why = "too many rows";
		return -E2BIG;
	}
	dlog("cfi: %s: %u FDEs (%u ok, %u bad, %u bad instructions, %u beyond 4 GiB, %u "
	     "overlapping, %u signal frames, %zu bytes cut), %zu rows (%u unsupported, %u "
	     "offsets too far)",
	     name, st.fde_cnt, st.fde_ok_cnt, st.fde_bad_cnt,
	     st.fde_bad_insn_cnt, st.fde_far_cnt, st.fde_overlap_cnt, st.signal_frame_cnt,
	     st.cut_bytes, rows.n, st.unsupported_cnt, st.too_far_off_cnt);
	t->rows = rows.rows;
	t->n_rows = (uint32_t)rows.n;
	return 0;
}

struct cfi_table *cfi_table__load(const char *path, const char *cache_dir, const char **why)
{
	struct cfi_table *t = calloc(1, sizeof(*t));
	struct cfi_cache_src src;
	struct elf_file f;
	const void *id;
	GElf_Ehdr eh;
	ssize_t id_len;
	const char *dummy;
	int err;

	if (!why)
		why = &dummy;
	if (!t) {
		*why = "out of memory";
		return NULL;
	}
	err = elf_file__open(path, &f);
	if (err) {
		*why = err == -ENOEXEC ? "not an ELF file" : safe_open__strerror(err);
		free(t);
		return NULL;
	}
	if (!gelf_getehdr(f.elf, &eh) || eh.e_machine != EM_X86_64 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64) {
		*why = "not an x86_64 ELF file";
		err = -ENOEXEC;
		goto out;
	}
	id_len = dwelf_elf_gnu_build_id(f.elf, &id);
	if (id_len > 0 && (size_t)id_len <= sizeof(t->build_id)) {
		memcpy(t->build_id, id, (size_t)id_len);
		t->build_id_len = (uint32_t)id_len;
	}
	/* The entry of this very file only: a build-id is the file's own claim. */
	if (cache_dir && t->build_id_len && cfi_cache__src_of(f.fd, &src))
		cache_dir = NULL;
	if (cache_dir && t->build_id_len &&
	    !cfi_cache__load(cache_dir, t->build_id, t->build_id_len, &src, &t->rows, &t->n_rows))
		goto out;
	err = compile_elf(f.elf, t, why);
	if (!err && cache_dir && t->build_id_len) {
		/* A cache that cannot be written costs the next run time, never this one. */
		int cerr = cfi_cache__store(cache_dir, t->build_id, t->build_id_len, &src, t->rows,
					    t->n_rows);

		if (cerr)
			vlog("cfi: not cached in %s: %s", cache_dir, strerror(-cerr));
	}
out:
	elf_file__close(&f);
	if (err) {
		cfi_table__free(t);
		return NULL;
	}
	return t;
}

void cfi_table__free(struct cfi_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t);
}

const struct unwind_row *cfi_table__find(const struct cfi_table *t, uint64_t pc)
{
	const struct unwind_row *best = NULL;
	uint32_t lo = 0, hi = t ? t->n_rows : 0;

	/* The last row whose pc <= the pc asked (the same search BPF does). */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc) {
			best = &t->rows[mid];
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return best;
}

const char *cfi_table__default_cache_dir(void)
{
	static char buf[4096];
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	const struct passwd *pw;
	int n;

	/* Under sudo the environment may still be the user's: the cache is root's own, so
	 * only the password entry of the user running counts then. */
	if (sudo_user__get()->active)
		xdg = home = NULL;
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, sizeof(buf), "%s/tracer/unwind", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, sizeof(buf), "%s/.cache/tracer/unwind", home);
	else if ((pw = getpwuid(geteuid())) && pw->pw_dir && pw->pw_dir[0] == '/')
		n = snprintf(buf, sizeof(buf), "%s/.cache/tracer/unwind", pw->pw_dir);
	else
		return NULL;
	return n > 0 && (size_t)n < sizeof(buf) ? buf : NULL;
}

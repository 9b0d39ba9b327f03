/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * cfi_table - a module's call frame information compiled into the rows BPF unwinds with
 * (bpf/unwind_abi.h, --unwind kernel, issue #33).
 *
 * Every FDE of .eh_frame (or of .debug_frame when the file has no .eh_frame) is run through
 * a DW_CFA interpreter (its CIE's initial instructions, then its own) and a row is emitted
 * wherever the CFA rule or the RBP rule changes; identical consecutive rows are merged. A
 * gap between FDEs is a UNWIND_CFA_NONE row. The file is untrusted: every read is bounded,
 * an entry that does not parse becomes UNWIND_CFA_UNSUPPORTED rows (counted), never a crash.
 *
 * Tables are cached on disk by build-id (cfi_cache.c), each entry for the file it was
 * compiled from (inode and ctime: a build-id is the file's own claim): a second run on the
 * same binaries loads them instead of compiling.
 */
#ifndef TRACER_CFI_TABLE_H
#define TRACER_CFI_TABLE_H

#include <stdint.h>

#include "unwind_abi.h"

struct cfi_table {
	struct unwind_row *rows; /* sorted by pc; a gap between FDEs is a UNWIND_CFA_NONE row */
	uint32_t n_rows;
	uint8_t build_id[20];
	uint32_t build_id_len; /* 0: the file has no build-id (then it is not cached) */
};

/*
 * The table of the ELF file at path (opened with the project's safe ELF open,
 * user/symbolize/elf_file.h): from the cache directory if a valid entry for its build-id is
 * there, else compiled from .eh_frame (or .debug_frame when that is all there is) and stored
 * there. cache_dir NULL: no cache. NULL + *why (one line, static) when the file has no usable
 * CFI or cannot be read.
 */
struct cfi_table *cfi_table__load(const char *path, const char *cache_dir, const char **why);

/* Accepts NULL. */
void cfi_table__free(struct cfi_table *t);

/* The row covering pc (ELF virtual address), or NULL (before the first row). */
const struct unwind_row *cfi_table__find(const struct cfi_table *t, uint64_t pc);

/*
 * The default cache directory: $XDG_CACHE_HOME/tracer/unwind or ~/.cache/tracer/unwind of
 * the user running (root's, under sudo too; the cache is written and read by root only).
 * A static buffer; NULL when neither variable nor the password entry gives a home.
 */
const char *cfi_table__default_cache_dir(void);

#endif

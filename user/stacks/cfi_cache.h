/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * cfi_cache - unwind tables on disk, one file per build-id: <dir>/<hex build-id>.unw.
 *
 * The file: struct cfi_cache_hdr, then n_rows struct unwind_row. A file is used only when
 * everything matches (magic, version, row size, build-id, the file compiled from, the size
 * the row count implies, the checksum of the rows); anything else is a miss, and the caller compiles and stores
 * the table again. Written with output.h's private mode (temp + rename, 0600, as the
 * process itself even under sudo: the cache is root's), read with safe_open.h's. The
 * directory is created 0700 and used only when the process's user owns it and nobody else
 * may enter it, and every directory above it is root's or ours and not writable by others
 * (unless sticky, as /tmp).
 */
#ifndef TRACER_CFI_CACHE_H
#define TRACER_CFI_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "unwind_abi.h"

/* Bump whenever cfi_compile's output for a given file changes: older files then miss. */
#define CFI_CACHE_VERSION 2

#define CFI_CACHE_MAGIC "TRUNWTB" /* 8 bytes with the NUL */

/* A table larger than this is not loaded from the cache (a hostile size field). */
#define CFI_CACHE_MAX_ROWS (64u << 20)

/*
 * The file a table was compiled from. A build-id is only the file's own claim: a hostile
 * file can carry libc's and different CFI, and its table would then serve every later
 * trace of the real libc. An entry is used only for the very file it was compiled from
 * (the same inode, unchanged since: its ctime cannot be set back).
 */
struct cfi_cache_src {
	uint64_t dev, ino; /* st_dev, st_ino */
	uint64_t size;	   /* st_size, bytes */
	int64_t ctime_ns;  /* st_ctim, ns since the epoch */
};

struct cfi_cache_hdr {
	char magic[8];		  /* CFI_CACHE_MAGIC */
	uint32_t version;	  /* CFI_CACHE_VERSION */
	uint32_t row_sz;	  /* sizeof(struct unwind_row) */
	uint8_t build_id[20];	  /* the module's, zero-padded */
	uint32_t build_id_len;	  /* bytes of build_id used */
	uint32_t n_rows;	  /* rows after the header */
	uint64_t checksum;	  /* FNV-1a 64 of the rows, a word at a time (cfi_cache.c) */
	struct cfi_cache_src src; /* the file the rows were compiled from */
};

/* The source identity of the open file fd. 0 or -errno. */
int cfi_cache__src_of(int fd, struct cfi_cache_src *src);

/*
 * The rows cached for build-id id (len bytes, 1..20) compiled from the file src in dir:
 * *rows (malloc'ed, the caller's) and *n. 0, -ENOENT (no entry), -EBADMSG (an entry that
 * does not match: stale, damaged, or another file's of the same build-id), -EPERM (a
 * directory we must not trust), or another -errno.
 */
int cfi_cache__load(const char *dir, const uint8_t *id, uint32_t len,
		    const struct cfi_cache_src *src, struct unwind_row **rows, uint32_t *n);

/* Store rows[0..n) compiled from the file src, build-id id, in dir (created 0700 if
 * missing). 0 or -errno. */
int cfi_cache__store(const char *dir, const uint8_t *id, uint32_t len,
		     const struct cfi_cache_src *src, const struct unwind_row *rows, uint32_t n);

/* The entry's path for build-id id in dir, into out (size sz). 0 or -ENAMETOOLONG. */
int cfi_cache__path(const char *dir, const uint8_t *id, uint32_t len, char *out, size_t sz);

#endif

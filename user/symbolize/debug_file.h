/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * debug_file - rules for a separate debug file, which a module names itself (build-id note,
 * .gnu_debuglink) and so the traced program chooses. Used by symbolizer_module.c.
 *
 * As gdb does: a debuglink is a plain file name, looked up only in the module's directory,
 * its .debug/ subdirectory and <debug root>/<module's directory>/; a build-id file is
 * <debug root>/.build-id/xx/yyyy.debug. Unlike a lenient reader, a candidate is used only
 * when it provably belongs to the module: the same build-id, or (when either side has none)
 * the CRC32 that .gnu_debuglink records. Files are opened through safe_open.
 */
#ifndef TRACER_DEBUG_FILE_H
#define TRACER_DEBUG_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Is link (a .gnu_debuglink name) a plain file name: not empty, no '/', not "." or ".."? */
bool debug_file__link_ok(const char *link);

/* What a candidate must match. */
struct debug_file_want {
	const void *id; /* the module's build-id, or NULL */
	ssize_t id_sz;	/* its length (<= 0: none) */
	bool have_crc;	/* the candidate was named by a debuglink carrying crc */
	uint32_t crc;	/* .gnu_debuglink CRC32 of the whole debug file */
};

/*
 * Open path (relative to dirfd, with openat2 RESOLVE_* flags resolve, 0 for none) as a debug
 * file of the module described by want: an fd (owned by the caller) if it is a regular ELF
 * file matching the build-id, or else the CRC; -errno otherwise (-ENOENT, -EINVAL for a
 * non-regular file, -ESTALE for a file that does not match).
 */
int debug_file__open(int dirfd, const char *path, uint64_t resolve,
		     const struct debug_file_want *want);

/* The build-id debug file of a module whose build-id is id (id_sz bytes) under the debug
 * root root: "<root>/.build-id/xx/yyyy.debug", into out. 0, or -EINVAL when the id cannot
 * name one (fewer than 2 or more than 64 bytes) or the path does not fit. */
int debug_file__build_id_path(const char *root, const void *id, ssize_t id_sz, char *out,
			      size_t sz);

/* CRC32 (the .gnu_debuglink one, zlib's) of everything in fd. 0 or -errno. */
int debug_file__crc32(int fd, uint32_t *crc);

#endif

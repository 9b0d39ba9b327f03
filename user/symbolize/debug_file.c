// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "debug_file.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <elfutils/libdwelf.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "safe_open.h"

bool debug_file__link_ok(const char *link)
{
	return link && *link && !strchr(link, '/') && strcmp(link, ".") && strcmp(link, "..");
}

int debug_file__crc32(int fd, uint32_t *crc)
{
	unsigned char buf[64 << 10];
	uLong c = crc32(0L, Z_NULL, 0);
	off_t off = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		c = crc32(c, buf, (uInt)n);
		off += n;
	}
	if (n < 0)
		return -errno;
	*crc = (uint32_t)c;
	return 0;
}

/* Does the ELF file in fd belong to the module? */
static bool matches(int fd, const struct debug_file_want *want)
{
	const void *other = NULL;
	ssize_t other_sz = -1;
	uint32_t crc;
	Elf *elf;

	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return false;
	if (elf_kind(elf) == ELF_K_ELF)
		other_sz = dwelf_elf_gnu_build_id(elf, &other);
	else
		other_sz = -2; /* not ELF at all */
	if (other_sz > 0 && want->id_sz > 0) {
		bool same = other_sz == want->id_sz && !memcmp(other, want->id, (size_t)other_sz);

		elf_end(elf);
		return same;
	}
	elf_end(elf);
	if (other_sz == -2)
		return false;
	/* One side has no build-id: only the debuglink's CRC can tie them. */
	return want->have_crc && !debug_file__crc32(fd, &crc) && crc == want->crc;
}

int debug_file__open(int dirfd, const char *path, uint64_t resolve,
		     const struct debug_file_want *want)
{
	int fd = safe_open__read(dirfd, path, resolve, SAFE_OPEN_ELF_MAX);

	if (fd < 0)
		return fd;
	if (!matches(fd, want)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int debug_file__build_id_path(const char *root, const void *id, ssize_t id_sz, char *out,
			      size_t sz)
{
	const unsigned char *b = id;
	char hex[2 * 64 + 1];
	int n;

	if (!id || id_sz < 2 || id_sz > 64)
		return -EINVAL;
	for (ssize_t i = 0; i < id_sz; i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	n = snprintf(out, sz, "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	return n > 0 && (size_t)n < sz ? 0 : -EINVAL;
}

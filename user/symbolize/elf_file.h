/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * elf_file - an ELF file named by the target or the command line, opened the safe way
 * (safe_open.h: regular file, bounded, as the sudo user) and begun for reading with libelf:
 * the one open of the allocator resolution, the frame-pointer census and --start-at's symbol
 * lookup.
 */
#ifndef TRACER_ELF_FILE_H
#define TRACER_ELF_FILE_H

#include <libelf.h>

/* An open ELF file: close with elf_file__close. */
struct elf_file {
	int fd;
	Elf *elf;
};

/* Open path (absolute or relative to the working directory) into *f. Returns 0, -EINVAL
 * when libelf cannot start, -ENOEXEC when the file is not ELF, or safe_open__read's error;
 * on failure *f holds nothing to close. */
int elf_file__open(const char *path, struct elf_file *f);

/* Close f (an unopened, zeroed-by-failure f too). */
void elf_file__close(struct elf_file *f);

#endif

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* elf_file - safe open of a target-named ELF file (see elf_file.h). */
#include "elf_file.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "safe_open.h"

int elf_file__open(const char *path, struct elf_file *f)
{
	*f = (struct elf_file){.fd = -1};
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	f->fd = safe_open__read(AT_FDCWD, path, 0, SAFE_OPEN_ELF_MAX);
	if (f->fd < 0) {
		int err = f->fd;

		f->fd = -1;
		return err;
	}
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		elf_file__close(f);
		return -ENOEXEC;
	}
	return 0;
}

void elf_file__close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	*f = (struct elf_file){.fd = -1};
}

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * symbolizer_module - one mapped object (executable, shared library, vdso) as the symbolizer
 * sees it: its ELF file or in-memory image, PT_LOAD segments, a sorted function-symbol table
 * and DWARF (its own or a separate debug file found by build-id / .gnu_debuglink).
 * Private to the symbolizer (symbolizer.c). Everything heavy is loaded lazily, on the
 * first address that falls in the module, and kept until the module is freed.
 */
#ifndef TRACER_SYMBOLIZER_MODULE_H
#define TRACER_SYMBOLIZER_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "strvec.h"

struct sym_module;

/*
 * A module shown as `name` in frames. Takes ownership of fd (-1: no file) and of image
 * (malloc'd in-memory ELF such as a copy of the vdso; NULL: none). With neither, the module
 * only has a name ("??? (in name)"). debug_dirs (borrowed, must outlive the module) lists
 * the tracer's roots searched for separate debug files: <root>/.build-id/xx/yyyy.debug and
 * <root><dir of path>/<debuglink>; root_fd (borrowed, -1: none) is the target's root, where
 * the module's own directory and the target's /usr/lib/debug are searched (debug_file.h).
 * NULL + errno on failure (fd/image are then released).
 */
struct sym_module *sym_module__new(const char *name, int fd, void *image, size_t image_sz,
				   const struct strvec *debug_dirs, int root_fd);
/* Accepts NULL. */
void sym_module__free(struct sym_module *m);

/*
 * Append the frame strings of the module's ELF virtual address for file offset off,
 * printing print_addr as the address ("0x%llX: ..."), innermost inlined frame first.
 * Returns the number of frames appended (>= 1) or -errno (-ENOMEM only).
 */
int sym_module__describe(struct sym_module *m, __u64 off, __u64 print_addr, struct strvec *out);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * module_share - symbolizer modules shared by every symbolizer of the tracer's process.
 *
 * Each process of a traced tree gets a symbolizer of its own, but most of them map the
 * same files. Loaded once per process, libc's DWARF (its debug file's compressed sections
 * inflated: ~70 ms here) was paid again at every fork, and while the tracer wrote a forked
 * child's profile the child waited as a zombie and its parent in waitpid: 100 ms a fork of
 * a shell loop. A module is shared when everything it is loaded from is the same: the file
 * opened (device, inode, size, modification time), its name in the maps, the target's root
 * (where its debug files are looked for) and the debug directories. During a trace
 * (module_share__keep_idle()), one nobody holds is kept for the next process: a shell loop's
 * children each map libc and end before the next starts; a debug file installed meanwhile is
 * then used from the next run on. Single-threaded, like the symbolizers. Private to the
 * symbolizer, but for module_share__keep_idle().
 */
#ifndef TRACER_MODULE_SHARE_H
#define TRACER_MODULE_SHARE_H

#include "strvec.h"

struct sym_module;
struct shared_module;

/*
 * The shared module for file fd (owned: closed here when an existing module is reused or
 * when making one fails) mapped as name, in a target whose root is root_fd (borrowed, -1:
 * none), searching debug_dirs (copied). *out: the module, *handle: what to release. 0 or
 * -errno.
 */
int module_share__get(const char *name, int fd, int root_fd, const struct strvec *debug_dirs,
		      struct sym_module **out, struct shared_module **handle);

/* One holder fewer; a module nobody holds is kept idle for a while. Accepts NULL. */
void module_share__put(struct shared_module *h);

/* One more debug directory for the module to search (symbolizer__add_debug_dir), for
 * every holder: a debug file is used only when it provably belongs to the module
 * (debug_file.h), so a root more finds nothing wrong. 0 or -ENOMEM. */
int module_share__add_dir(struct shared_module *h, const char *dir);

/* Keep up to n modules nobody holds (the least recently released go first); 0, the default:
 * free a module with its last holder. The tracer keeps 32 while it traces. */
void module_share__keep_idle(unsigned long n);

/* Free every module nobody holds. */
void module_share__flush(void);

/* Modules currently shared (for tests). */
unsigned long module_share__count(void);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * alloc_scope - the objects of a process image in the order the dynamic linker looks a
 * symbol up in them (its global scope): the executable, the preloaded objects (LD_PRELOAD,
 * then /etc/ld.so.preload), then the DT_NEEDED libraries breadth-first. The first object
 * of that list defining malloc is the one every call to malloc reaches (alloc_symbols.h).
 *
 * Two sources:
 *  - a running process: its mapped files (/proc/PID/maps), a DT_NEEDED name matched to the
 *    mapped object whose DT_SONAME (else file name) it is. Objects mapped but not reached
 *    that way (dlopen'd, the dynamic linker itself) are not in the scope.
 *  - a command not exec'd yet: the executable's DT_NEEDED searched as ld.so does, in an
 *    approximation: DT_RPATH (when the object has no DT_RUNPATH) and the executable's
 *    DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH, /etc/ld.so.cache (its new format, x86-64
 *    entries, no hwcap subdirectories), then the default directories
 *    (/lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu, /lib64, /usr/lib64, /lib, /usr/lib).
 *    $ORIGIN is expanded; $LIB and $PLATFORM are not. The environment is the tracer's,
 *    which the child inherits.
 * A statically linked executable is its own whole scope.
 */
#ifndef TRACER_ALLOC_SCOPE_H
#define TRACER_ALLOC_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "strvec.h"

struct alloc_scope {
	struct strvec paths; /* objects in lookup order, as paths this process can open; [0]:
			      * the executable */
	bool static_exe;     /* the executable has no PT_INTERP: nothing else is loaded */
};

/* The scope of running process pid. 0 or -errno (-ESRCH: no such process), logged. */
int alloc_scope__for_process(pid_t pid, struct alloc_scope *out);

/* The scope exe will have once exec'd (a #! script: its interpreter's), with this process's
 * environment, which a spawned child inherits. 0 or -errno. */
int alloc_scope__for_command(const char *exe, struct alloc_scope *out);

/* The scope of process pid's image, which has just exec'd (its libraries are not mapped
 * yet): as a command, with pid's environment. Libraries are searched in this process's
 * file system view (a pid in another mount namespace: only its executable is its own).
 * 0 or -errno (-ESRCH: no such process). */
int alloc_scope__for_exec(pid_t pid, struct alloc_scope *out);

/* The path /etc/ld.so.cache-format file cache maps name (a soname) to, for x86-64, into
 * out; false if none, or cache is not in glibc's new format. */
bool alloc_scope__cache_lookup(const char *cache, const char *name, char *out, size_t sz);

/* Free the paths. Accepts a zeroed scope. */
void alloc_scope__release(struct alloc_scope *s);

/* Path under which this process can open file path as mapped by pid (another mount
 * namespace: /proc/PID/root + path), into out. */
void alloc_scope__open_path(pid_t pid, const char *path, char *out, size_t out_sz);

#endif

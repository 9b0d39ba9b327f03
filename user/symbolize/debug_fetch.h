/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * debug_fetch - debug files from elsewhere than the target's own tree: the --debug-dir
 * roots given on the command line, and debuginfod servers (DEBUGINFOD_URLS) through libdw's
 * client, libdebuginfod, as gdb and perf fetch them.
 *
 * The debuginfod cache: under sudo the download runs with the invoking user's filesystem
 * identity (sudo_user.h) into that user's cache (DEBUGINFOD_CACHE_PATH if set, else
 * ~user/.cache/debuginfod_client, not root's $HOME), so root never creates or follows a
 * name in a directory the user controls, and the user ends up with files they could have
 * fetched themselves. Without sudo it is root's own default cache. Either way the file the
 * client names is then opened again through safe_open and used only if its build-id is the
 * module's (debug_file__open).
 */
#ifndef TRACER_DEBUG_FETCH_H
#define TRACER_DEBUG_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "strvec.h"

/* Add dir (--debug-dir: a .build-id tree or a flat directory of debug files) to the roots
 * every symbolizer made from now on searches, before /usr/lib/debug. 0 or -errno. */
int debug_fetch__add_dir(const char *dir);

/* The --debug-dir roots (borrowed). */
const struct strvec *debug_fetch__dirs(void);

/* Is a debuginfod server configured (DEBUGINFOD_URLS set and not empty)? */
bool debug_fetch__debuginfod_on(void);

/*
 * Ask the debuginfod servers for the debug file of build-id id (id_sz bytes): on success
 * the cached file's path into path and 0; -ENOENT when none is configured or none has it,
 * else -errno. The caller opens path itself (safe_open). Blocking (network): called at a
 * module's first lookup; a build-id asked once is not asked again in this run.
 */
int debug_fetch__debuginfod(const void *id, ssize_t id_sz, char *path, size_t sz);

/* Release the client (at exit; tests). */
void debug_fetch__release(void);

#endif

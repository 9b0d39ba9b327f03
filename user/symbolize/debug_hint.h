/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * debug_hint - when frames stay unnamed ("??? (in MODULE...)"), one closing line saying how
 * to get them named: the Debian debug package of the modules with the most such frames
 * (found by reading dpkg's file lists, the .list files of /var/lib/dpkg/info, never by
 * running dpkg -S on a name the target chose), or else debuginfod / --debug-dir.
 *
 * Debug package names, as Debian builds them: the binary package's name + "-dbgsym", except
 * where the package ships its own -dbg (libc6-dbg: glibc has no -dbgsym).
 */
#ifndef TRACER_DEBUG_HINT_H
#define TRACER_DEBUG_HINT_H

#include <stddef.h>
#include <stdio.h>

#define DEBUG_HINT_MODULES 64 /* distinct modules counted; more are left out */
#define DEBUG_HINT_TOP 3      /* modules named in the line */

struct debug_hint {
	struct {
		char path[256];
		size_t frames; /* distinct unnamed frames in it */
	} mod[DEBUG_HINT_MODULES];
	size_t cnt;
};

/* Count the unnamed frames of frame strings ftbl (a DHAT file's frame table) by module. */
void debug_hint__scan(struct debug_hint *h, char *const *ftbl, size_t cnt);

/* The debug package for the Debian package pkg ("libc6" -> "libc6-dbg", "git" ->
 * "git-dbgsym"), into out. */
void debug_hint__dbg_package(const char *pkg, char *out, size_t sz);

/* The Debian package owning path per the .list files of info_dir (/var/lib/dpkg/info),
 * without its ":arch", into pkg; a /usr/... path is also matched as its pre-usrmerge /...
 * name. 0, or -ENOENT when no package lists it. */
int debug_hint__package_of(const char *info_dir, const char *path, char *pkg, size_t sz);

/* Nothing unnamed: nothing printed. Else one line on f: "tracer: N frames without debug
 * info (in MODULE, ...): install PKG-dbgsym, ..., or set DEBUGINFOD_URLS". */
void debug_hint__print(FILE *f, const struct debug_hint *h);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * shebang - the program the kernel really runs for a script: the interpreter its "#!" line
 * names, read as execve(2) reads it (binfmt_script).
 *
 * A command such as pyenv's `python3` shim or a `#!/usr/bin/env python3` script is a text
 * file: what allocates is its interpreter, and a choice made from the file itself (can its
 * code be unwound, does it keep frame pointers) would be made from no code at all.
 */
#ifndef TRACER_SHEBANG_H
#define TRACER_SHEBANG_H

#include <stddef.h>

/* The kernel reads this many bytes of a script's first line (BINPRM_BUF_SIZE), and follows
 * this many scripts naming scripts before it gives up (binfmt's recursion limit). */
#define SHEBANG_LINE_MAX  256
#define SHEBANG_DEPTH_MAX 4

/*
 * The "#!" line of the first SHEBANG_LINE_MAX bytes of buf (n bytes): 1 with the interpreter
 * in interp and its one optional argument (the rest of the line, blanks trimmed; "" if none)
 * in arg; 0 if buf does not start with "#!" or names no interpreter; -ENAMETOOLONG if a part
 * does not fit its buffer.
 */
int shebang__parse(const char *buf, size_t n, char *interp, size_t isz, char *arg, size_t asz);

/*
 * The file path resolves to once its scripts are followed (at most SHEBANG_DEPTH_MAX): each
 * "#!INTERP [ARG]" replaces the path with INTERP, and "#!.../env NAME" with NAME searched in
 * $PATH (env's own options, "-S ...", are left to env: the path is then env). Files are read
 * with safe_open__read (regular files only, the sudo user's rights). Returns the number of
 * scripts followed (0: path is not a script, or could not be read: path is left as it is),
 * or -ELOOP past the depth (path: the last interpreter reached).
 */
int shebang__resolve(char *path, size_t sz);

/* name searched in dirs (a $PATH value; NULL: the default "/usr/local/bin:/usr/bin:/bin") as
 * execvp(3) does: the first entry where it is executable goes into path, 0; else -ENOENT. A
 * name holding a '/' is not searched: it is copied. */
int shebang__search_path(const char *name, const char *dirs, char *path, size_t sz);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_detect - is a process CPython, and where is its interpreter: the mapped libpythonX.Y.so
 * (pyenv's shared builds) or else a pythonX.Y executable; the addresses of the symbols the
 * tracer reads (_PyRuntime, PyCode_Type, PyUnicode_Type, Py_Version) from the file's .dynsym
 * (Debian's stripped python3.11 exports them) or .symtab; its version from Py_Version in the
 * target's memory (3.11+) or the PY_VERSION string in the file's .rodata.
 */
#ifndef TRACER_PY_DETECT_H
#define TRACER_PY_DETECT_H

#include <limits.h>
#include <sys/types.h>
#include <linux/types.h>

/* What detection found; addresses are the target's (load bias applied), 0 when absent. */
struct py_image_info {
	char image[PATH_MAX];	   /* the interpreter's file, as /proc/PID/maps names it */
	unsigned int name_version; /* major << 8 | minor from the file's name */
	unsigned int version;	   /* major << 8 | minor of the interpreter */
	char version_str[32];	   /* "3.11.2", "3.13.0rc1"; "3.8" when only the name says */
	__u64 runtime_addr;	   /* &_PyRuntime */
	__u64 code_type_addr;	   /* &PyCode_Type */
	__u64 unicode_type_addr;   /* &PyUnicode_Type */
};

/* Fill *info for pid. 0; -ENOENT when pid is not CPython (no libpythonX.Y.so mapped and the
 * executable is not pythonX.Y); -ENOEXEC when the file is not a readable ELF; -ESRCH when
 * the process is gone; -errno. Without Py_Version (before 3.11) and a PY_VERSION string,
 * the version is the file name's ("3.8"); the symbols not found stay 0. */
int py_detect__image(pid_t pid, struct py_image_info *info);

/* The major << 8 | minor of a file named libpythonX.Y[suffix].so[.N] or pythonX.Y; 0 if the
 * name is neither. */
unsigned int py_detect__name_version(const char *path);

#endif

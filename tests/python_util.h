/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * python_util - what python_unit and python_live_unit share: the interpreters they run.
 */
#ifndef TESTS_PYTHON_UTIL_H
#define TESTS_PYTHON_UTIL_H

#include <stddef.h>

/* A pyenv minor version the tests run when present: "3.8". Characters, not a pointer:
 * Criterion copies parameters into each test's process, which is another run of the binary. */
struct pyenv_minor {
	char m[8];
};

/* The minor versions, and how many. */
extern struct pyenv_minor pyenv_minors[];
#define PYENV_MINORS_CNT 6

/* The newest pyenv interpreter of minor version m ("3.8") into path
 * (/root/.pyenv/versions/3.8.18/bin/python3.8); skips the calling test, saying so, when this
 * host has none. */
void pyenv_python(const char *m, char *path, size_t path_sz);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The symbolizer fixture's shared library. */
#ifndef SYMFIX_LIB_H
#define SYMFIX_LIB_H

/* Return address recorded by the last symfix_lib_func() call (inside symfix_lib_func). */
extern void *symfix_lib_ra;
/* Calls a leaf that records symfix_lib_ra; returns x + 1. */
int symfix_lib_func(int x);

#endif

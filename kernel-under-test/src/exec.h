/* SPDX-License-Identifier: MIT */
/*
 * exec.h - the executor (exec.c, and scatter.c for scatter/gather pipelines): statements,
 * pipelines, functions and the I/O every command and builtin reads and writes.
 */
#ifndef KAISH_EXEC_H
#define KAISH_EXEC_H

#include <stdbool.h>
#include <stddef.h>

#include "kaish.h"

struct node;
struct program;
struct sbuf;

/* Where a command reads and writes. Builtins buffer their whole output into out. */
struct io {
	const char *in;	     /* stdin bytes, or NULL (no stdin) */
	size_t in_len;
	const char *in_data; /* structured stdin sideband (JSON), or NULL */
	struct sbuf *out;
	struct sbuf *err;
};

/* Run stages as one pipeline without scatter detection. */
int exec_stages(kaish_kernel *k, struct node **stages, int n, struct io *io);
/* Run a script's root node at the top level (used by kaish_execute). */
int exec_program(kaish_kernel *k, struct program *p, struct io *io);
/* scatter/gather runner: stages[s] is scatter, stages[g] is gather. */
int exec_scatter(kaish_kernel *k, struct node **stages, int n, int s, int g, struct io *io);
/* Run a $( ) body in k (same kernel, scope restored). Output in out; data via k. */
int exec_subst(kaish_kernel *k, struct node *prog, struct io *io, struct sbuf *out,
	       char **data, bool *data_is_value);

#endif /* KAISH_EXEC_H */

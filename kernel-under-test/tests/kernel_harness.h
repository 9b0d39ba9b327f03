/* SPDX-License-Identifier: MIT */
/*
 * kernel_harness.h - shared helpers of the kernel test binaries (kernel_harness.c): the
 * alloc_profile fixture in a mkdtemp dir, agent kernels on it, kaish_execute on a thread with
 * KAISH_RECOMMENDED_STACK_SIZE of stack, and the table-driven case runner.
 */
#ifndef TESTS_KERNEL_HARNESS_H
#define TESTS_KERNEL_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

#include "kaish.h"

/* A fresh temp dir (malloc'd path); with_files: the 64-file alloc_profile fixture. */
char *kh_mkfixture(bool with_files);
void kh_rmtree(const char *dir);
/* An agent kernel sandboxed to root, trash off. */
kaish_kernel *kh_kernel(const char *root);
/* kaish_execute on a thread with the recommended stack. */
enum kaish_status kh_exec(kaish_kernel *k, const char *script, kaish_result *r);
/* Write text to dir/rel. Returns 0 or -errno. */
int kh_write(const char *dir, const char *rel, const char *text);

/* One table row: name, setup, script, expected out, code, status, err substring. */
struct kcase {
	const char *name;
	const char *setup;  /* run first in the same kernel (must succeed), or NULL */
	const char *script;
	const char *out;    /* expected stdout, exact */
	int code;	    /* expected exit code */
	int status;	    /* expected enum kaish_status */
	const char *err;    /* substring expected in err ("" = err must be empty) */
};

/* Run each case on a fresh kernel in a fresh fixture dir, with Criterion expectations. */
void kh_run_cases(const struct kcase *cases, size_t n);

#define OK KAISH_OK
#define RUN(table) kh_run_cases(table, sizeof(table) / sizeof(table[0]))

#endif

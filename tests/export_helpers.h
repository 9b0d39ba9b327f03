/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers of the exporter tests (export_*_unit.c): fixtures, external tools, artifacts. */
#ifndef TESTS_EXPORT_HELPERS_H
#define TESTS_EXPORT_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "dhat_reader.h"
#include "export.h"

#define EX_DATA TESTS_SRC_DIR "/data/export"

/* Load EX_DATA/name; the test fails (with the reader's message) if it cannot. */
struct dhat_profile *ex_load(const char *name);

/* What fn wrote to a memory stream: a NUL-terminated malloc'ed string; *rc its return. */
typedef int (*ex_write_fn)(const struct dhat_profile *p, FILE *out, const void *arg);
char *ex_capture(const struct dhat_profile *p, ex_write_fn fn, const void *arg, int *rc,
		 size_t *len);

/* Run a shell command; its stdout as a malloc'ed string (NULL if it could not start),
 * its exit status in *status (-1 if it did not exit normally). */
char *ex_run(const char *cmd, int *status);

/* `command -v prog` succeeds. */
bool ex_have(const char *prog);

/* CI=true: a missing tool is a failure, not a skip (STYLE.md, Tests). */
bool ex_ci(void);

/* TESTS_BIN_DIR/artifacts (created): screenshots and exported files kept for a human. */
const char *ex_artifacts(void);

/* Write len bytes of text to path; the test fails if it cannot. */
void ex_write_file(const char *path, const char *text, size_t len);

/* Headless Chromium on file://path[query]: a PNG screenshot to png (if not NULL) or the
 * DOM after scripts ran (returned, malloc'ed) when png is NULL. NULL on failure. */
char *ex_chromium(const char *path, const char *query, const char *png, int w, int h);

/* Sum of the counts of folded text (the number after the last space of each line). */
unsigned long long ex_folded_sum(const char *text, size_t *lines);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * suppress - which program points are not leak suspects although blocks of theirs are still
 * live at the end: the one-time allocations of glibc, ld.so and the language runtimes
 * (built in), and the patterns of a suppressions file in LeakSanitizer's format, as
 * heaptrack reads it:
 *
 *	# a comment
 *	leak:PATTERN
 *
 * A PATTERN matches a frame when it matches the frame's function, or its location (the source
 * file, or the module of a frame without one), as LSAN matches: anywhere in the text, "*" for
 * any run of characters, "^" at its start and "$" at its end to anchor. A program point is
 * suppressed when any frame of its stack matches (LSAN: any frame of the allocation stack).
 * Lines of other types ("called_from_lib:", TSAN's "race:") are ignored.
 */
#ifndef TRACER_SUPPRESS_H
#define TRACER_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>

struct suppress;

/* The built-in list plus path's patterns (path NULL: the built-in list alone). NULL on
 * error, with a one-line message, with the line number, in err. */
struct suppress *suppress__load(const char *path, char *err, size_t errsz);
void suppress__free(struct suppress *s);

/* Whether one frame of a stack (DHAT's "0xADDR: fn (file:line)" text, or cleaned) matches;
 * a stack is suppressed when any of its frames is. s NULL: the built-in list. Sets *builtin
 * to whether the pattern that matched is built in. */
bool suppress__frame(const struct suppress *s, const char *frame, bool *builtin);

/* One pattern against one text, as above (exposed for tests). */
bool suppress__glob(const char *pattern, const char *text, size_t len);

#endif

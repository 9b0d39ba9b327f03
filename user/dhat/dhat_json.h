/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dhat_json - the one way strings are written into a DHAT file, by the writer and by the
 * writers of our extra objects (dhat_death.c, dhat_mappings.c).
 */
#ifndef TRACER_DHAT_JSON_H
#define TRACER_DHAT_JSON_H

#include <stdio.h>

/* Write s as a JSON string: quotes, backslash and control characters escaped; bytes that
 * are not UTF-8 (a Latin-1 path, a corrupt name) become U+FFFD, so that strict parsers
 * accept the file too. */
void dhat__json_str(FILE *f, const char *s);

#endif

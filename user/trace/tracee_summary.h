/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* tracee_summary - the closing list of the process images a trace followed: one line each
 * with its pid, parent, totals, profile file and command line. */
#ifndef TRACER_TRACEE_SUMMARY_H
#define TRACER_TRACEE_SUMMARY_H

#include <stdio.h>

#include "tracee.h"

/* Print the list of every image of ts, in the order they started, to f. */
void tracee_summary__print(FILE *f, const struct tracees *ts);

/* The image the closing report shows (--report top), among those whose profile was
 * written: the program a target finally ran (a command's last exec: `sh -c '...; exec
 * ./hog'` is the hog, not the shell that made more calls), the largest by bytes when there
 * are several; when no target's final image allocated (make, a shell running children),
 * the largest image of all. The first on a tie; NULL if none was written. */
const struct tracee *tracee_summary__top(const struct tracees *ts);

#endif

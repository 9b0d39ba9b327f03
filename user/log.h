/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Logging to stderr with verbosity levels (retsnoop style): elog always, ilog unless -q,
 * vlog at -v, dlog at -vv. Data never goes through these. */
#ifndef TRACER_LOG_H
#define TRACER_LOG_H

#include <stdio.h>

extern int tracer_verbosity; /* -1 quiet, 0 default, 1 -v, 2 -vv, 3 -vvv */

#define elog(...) fprintf(stderr, "tracer: " __VA_ARGS__)
#define ilog(...)                                                                                   \
	do {                                                                                       \
		if (tracer_verbosity >= 0)                                                         \
			fprintf(stderr, __VA_ARGS__);                                              \
	} while (0)
#define vlog(...)                                                                                  \
	do {                                                                                       \
		if (tracer_verbosity >= 1)                                                         \
			fprintf(stderr, __VA_ARGS__);                                              \
	} while (0)
#define dlog(...)                                                                                  \
	do {                                                                                       \
		if (tracer_verbosity >= 2)                                                         \
			fprintf(stderr, __VA_ARGS__);                                              \
	} while (0)

#endif

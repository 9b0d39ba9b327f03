/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Logging to stderr with verbosity levels (retsnoop style): elog always, ilog unless -q,
 * vlog at -v, dlog at -vv. Data never goes through these. */
#ifndef TRACER_LOG_H
#define TRACER_LOG_H

#include <stdio.h>

extern int tracer_verbosity; /* -1 quiet, 0 default, 1 -v, 2 -vv, 3 -vvv */

/* A file may #define LOG_TAG "name: " before including this header: its elog/vlog/dlog
 * lines then start "tracer: name: ", saying which part of the tracer speaks. */
#ifdef LOG_TAG
#define LOG_VPREFIX "tracer: " LOG_TAG
#else
#define LOG_TAG	    ""
#define LOG_VPREFIX ""
#endif

#define elog(...) fprintf(stderr, "tracer: " LOG_TAG __VA_ARGS__)
#define ilog(...)                                                                                   \
	do {                                                                                       \
		if (tracer_verbosity >= 0)                                                         \
			fprintf(stderr, __VA_ARGS__);                                              \
	} while (0)
#define vlog(...)                                                                                  \
	do {                                                                                       \
		if (tracer_verbosity >= 1)                                                         \
			fprintf(stderr, LOG_VPREFIX __VA_ARGS__);                                  \
	} while (0)
#define dlog(...)                                                                                  \
	do {                                                                                       \
		if (tracer_verbosity >= 2)                                                         \
			fprintf(stderr, LOG_VPREFIX __VA_ARGS__);                                  \
	} while (0)

#endif

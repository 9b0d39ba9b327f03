/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The tracer's exit statuses, documented in --help, the man page and the README. */
#ifndef TRACER_EXIT_H
#define TRACER_EXIT_H

enum tracer_exit {
	TRACER_EXIT_OK = 0,
	TRACER_EXIT_FAILURE = 1,     /* tracing or writing failed, or a workload failed */
	TRACER_EXIT_USAGE = 2,	     /* bad arguments or input: unknown workload, bad pid, bad file */
	TRACER_EXIT_UNSUPPORTED = 3, /* not root, or the kernel lacks BTF / uprobes, or --workload
				      * without the workload driver installed (component kaish) */
	TRACER_EXIT_INCOMPLETE = 4,  /* profile written, but ring-buffer records were dropped */
};

#endif

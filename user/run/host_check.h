/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * host_check - `tracer --check`: what this host supports and what the tracer would use on
 * it (bpftrace --info, bpftool feature probe). Each line is one feature: what was found,
 * then "ok", or what is missing, what the tracer loses without it and what to do. With
 * --pid, also the allocator it would probe in that process, the unwinder and the attach
 * path. Every answer is asked of the kernel (a link made and closed on the tracer's own
 * process, a tracefs reached and let go), never read off a version number.
 */
#ifndef TRACER_HOST_CHECK_H
#define TRACER_HOST_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "options.h"

/* Exit statuses: tracing can work here, or it cannot (the reason is on a "missing" line). */
#define HOST_CHECK_OK	 0
#define HOST_CHECK_CANNOT 1

/* Run every check and print them to f: text, or one JSON object with o->check_json.
 * o->pid (> 0): the process checks too. Returns HOST_CHECK_OK or HOST_CHECK_CANNOT. */
int host_check__run(const struct tracer_opts *o, FILE *f);

#endif

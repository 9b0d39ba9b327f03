/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * recorded_skip - the plumbing rule a reader applies to a file: the reader's own --skip
 * patterns, then those the trace recorded in the file ("skip", dhat_skip.h), so that
 * `tracer report FILE` names the rows the trace's closing summary named. One syntax for both
 * (site.h: "PREFIX" or "=NAME").
 */
#ifndef TRACER_RECORDED_SKIP_H
#define TRACER_RECORDED_SKIP_H

#include <stdbool.h>

#include "dhat_reader.h"
#include "site.h"

/* given's patterns, plus p's recorded ones when use_recorded, into out (its other fields
 * given's; given NULL: the built-in table). out->skip borrows from given and p and is a new
 * array: free it with recorded_skip__release. 0 or -ENOMEM. */
int recorded_skip__merge(const struct dhat_profile *p, const struct site_opts *given,
			 bool use_recorded, struct site_opts *out);

void recorded_skip__release(struct site_opts *out);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * export_diff - the differential flame graph of `tracer diff OLD NEW --format svg`, in the
 * manner of Brendan Gregg's differential flame graphs: the NEW profile's stacks (as the diff
 * matched them: function names or lines, cut to its depth), each frame as wide as its NEW
 * weight, coloured by the change of the weight below it, NEW - OLD: red for growth, blue for
 * shrinkage, white for none, the saturation growing with |change| up to the largest change
 * of any frame. A stack that only OLD has is 0 wide, but its loss still colours its callers.
 * Same interactivity as export__flamegraph_svg (tooltips, zoom, search); each tooltip reads
 * "new N unit (P%), old M unit, +D (+X%)".
 */
#ifndef TRACER_EXPORT_DIFF_H
#define TRACER_EXPORT_DIFF_H

#include <stdio.h>

#include "diff.h"

/* Write d's differential flame graph under metric m (bytes, blocks, peak or end bytes) to
 * out. Returns 0, -ENOMEM or -EIO. */
int export__diff_svg(const struct diff *d, enum diff_metric m, FILE *out);

#endif

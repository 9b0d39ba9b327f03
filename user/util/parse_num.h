/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * parse_num - strict parsing of numeric option values, shared by every subcommand.
 *
 * strtoul/strtod alone accept too much: leading spaces and signs ("-1" wraps to a huge
 * count), overflow clamped to the largest value, "nan" and "inf", hex floats. Here a value
 * is plain decimal, finite and inside the option's range, or it is refused, so that every
 * option fails the same way: a one-line message and exit 2.
 */
#ifndef TRACER_PARSE_NUM_H
#define TRACER_PARSE_NUM_H

#include <stdint.h>

/* s is digits only and min <= value <= max: 0 and *out set; else -EINVAL (syntax) or
 * -ERANGE (outside [min, max], including overflow). */
int parse_num__u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* s is a decimal number ("2", "0.5", "1e3"; no sign, space, hex, inf or nan) with
 * min <= value <= max: 0 and *out set; else -EINVAL or -ERANGE. */
int parse_num__double(const char *s, double min, double max, double *out);

#endif

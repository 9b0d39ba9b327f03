// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "parse_num.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int parse_num__u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL; /* no space, sign or empty string: strtoull would accept them */
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_num__double(const char *s, double min, double max, double *out)
{
	double v;
	char *end;

	/* A digit or a '.' first rules out signs, spaces, "inf", "nan"; then no hex. */
	if (!s || (!(*s >= '0' && *s <= '9') && *s != '.') || strpbrk(s, "xXpP"))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end)
		return -EINVAL;
	if (errno == ERANGE || !isfinite(v) || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

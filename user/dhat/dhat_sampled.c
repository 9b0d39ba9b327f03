// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The "sampled" object of a DHAT file: see dhat_sampled.h. */
#include "dhat_sampled.h"

#include <math.h>
#include <string.h>

#include "units.h"

void dhat_sampled__set(uint64_t *n, const char *key, bool u_ok, uint64_t u)
{
	if (!strcmp(key, DHAT_SAMPLED_MEAN) && u_ok)
		*n = u;
}

void dhat_sampled__write(FILE *f, uint64_t n)
{
	if (n)
		fprintf(f, ",\"" DHAT_SAMPLED_KEY "\":{\"" DHAT_SAMPLED_MEAN "\":%llu}\n",
			(unsigned long long)n);
}

void dhat_sampled__label(uint64_t n, char *buf, size_t sz)
{
	char mean[UNITS_BYTES_SZ];

	if (!sz)
		return;
	buf[0] = '\0';
	if (!n)
		return;
	snprintf(buf, sz, "estimates: sampled every %s on average (--sample-bytes %llu)",
		 units__bytes(n, false, mean, sizeof(mean)), (unsigned long long)n);
}

void dhat_sampled__pm(uint64_t value, double se, char *buf, size_t sz)
{
	double pct;

	if (!sz)
		return;
	pct = value ? 100.0 * DHAT_SAMPLED_Z95 * se / (double)value : 0;
	if (pct > 999.0)
		snprintf(buf, sz, "\xc2\xb1>999%%");
	else
		snprintf(buf, sz, "\xc2\xb1%.0f%%", pct);
}

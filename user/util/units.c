// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Byte figures for humans and sizes from them: see units.h. */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <strings.h>

static const char *const UNIT[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
#define UNIT_CNT (sizeof(UNIT) / sizeof(UNIT[0]))

const char *units__bytes_frac(double v, char *buf, size_t sz)
{
	size_t u = 0;

	/* Step up while the figure would round to 1024 or more in this unit: "1024 B" and
	 * "1024.00 KiB" are "1.00 KiB" and "1.00 MiB". */
	while (u + 1 < UNIT_CNT && v >= (u ? 1023.995 : 1023.5)) {
		v /= 1024;
		u++;
	}
	if (!u)
		snprintf(buf, sz, "%.0f B", v);
	else
		snprintf(buf, sz, "%.2f %s", v, UNIT[u]);
	return buf;
}

const char *units__bytes(uint64_t v, bool exact, char *buf, size_t sz)
{
	/* Exactly, not through a double: below 1 KiB and with exact every digit shows. */
	if (exact || v < 1024) {
		snprintf(buf, sz, "%llu B", (unsigned long long)v);
		return buf;
	}
	return units__bytes_frac((double)v, buf, sz);
}

uint64_t units__scale(uint64_t max, const char **name)
{
	size_t u = 0;

	while (u + 1 < UNIT_CNT && max >> (10 * (u + 1)))
		u++;
	*name = UNIT[u];
	return 1ull << (10 * u);
}

/* UNIT = "B" | ( "K" | "M" | "G" ) [ "iB" | "B" ], any case: its power of 1024 in *shift. */
static int parse_unit(const char *s, unsigned *shift)
{
	static const char LETTERS[] = "KMG";
	int c = toupper((unsigned char)*s);

	*shift = 0;
	if (!c)
		return 0;
	if (c == 'B')
		return s[1] ? -EINVAL : 0;
	for (unsigned i = 0; LETTERS[i]; i++)
		if (c == LETTERS[i])
			*shift = 10 * (i + 1);
	if (!*shift)
		return -EINVAL;
	s++;
	return !*s || !strcasecmp(s, "iB") || !strcasecmp(s, "B") ? 0 : -EINVAL;
}

/* SIZE = DIGITS [ "." DIGITS ] [ UNIT ] */
int units__parse_size(const char *s, uint64_t *out)
{
	uint64_t whole = 0, frac_bytes;
	double frac = 0, scale = 0.1;
	unsigned shift;
	bool range = false;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL; /* no sign, space or empty string */
	for (; isdigit((unsigned char)*s); s++)
		if (__builtin_mul_overflow(whole, 10, &whole) ||
		    __builtin_add_overflow(whole, (uint64_t)(*s - '0'), &whole))
			range = true; /* still a size: read on, to say "too large" only if it is */
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return -EINVAL; /* "5." and "5.K" */
		for (; isdigit((unsigned char)*s); s++, scale /= 10)
			frac += (*s - '0') * scale;
	}
	if (parse_unit(s, &shift))
		return -EINVAL;
	if (range || (shift && whole >> (64 - shift)))
		return -ERANGE;
	whole <<= shift;
	/* The fraction of a unit, at most 2^30 bytes: a double holds it to well below a byte. */
	frac_bytes = (uint64_t)(frac * (double)(1ull << shift) + 0.5); /* half up */
	if (__builtin_add_overflow(whole, frac_bytes, &whole))
		return -ERANGE;
	*out = whole;
	return 0;
}

const char *units__size_error(int err)
{
	if (err == -ERANGE)
		return "too large (at most 2^64 - 1 bytes)";
	return "not a size (bytes, or with K, M, G: KiB, MiB, GiB; e.g. 4096, 64K, 1.5M, 1G)";
}

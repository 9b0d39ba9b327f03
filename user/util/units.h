/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * units - byte figures for humans and sizes from them: the one formatter and the one parser,
 * so that the report, the interval lines, the exports and every option taking a size write
 * and read bytes the same way. Binary units throughout: 1 KiB = 1024 B (IEC 80000-13).
 *
 * Written (units__bytes):
 *	below 1 KiB	the integer: "0 B", "512 B", "1023 B"
 *	from 1 KiB	two decimals of the largest unit that keeps the rounded figure below
 *			1024: "1.00 KiB", "9.93 KiB", "1023.99 KiB", then "1.00 MiB" (1048575 B
 *			is 1023.999 KiB: it rounds into the next unit), ... "EiB"
 *	exact		the integer, whatever its size: "1048576 B" (--bytes)
 * Two decimals, not significant digits: the columns of a table then line up on the point.
 *
 * Read (units__parse_size), the same for --sample-bytes, --snapshot-at-rss and diff's
 * --fail-if:
 *	SIZE = DIGITS [ "." DIGITS ] [ UNIT ]
 *	UNIT = "B" | ( "K" | "M" | "G" ) [ "iB" | "B" ]		(any case)
 * K, M and G are powers of 1024 with or without "iB" or "B": 64K = 64KiB = 64KB = 64kb =
 * 65536. A fraction rounds to the nearest byte: 1.5M = 1572864, 0.5 = 1. No sign, spaces,
 * exponent or hex: they are refused, as is a value above 2^64 - 1.
 */
#ifndef TRACER_UNITS_H
#define TRACER_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for any text of units__bytes, the longest being an exact 2^64 - 1 (22 bytes). */
#define UNITS_BYTES_SZ 32

/* v bytes into buf as above: human units, or the exact integer with exact. Returns buf. */
const char *units__bytes(uint64_t v, bool exact, char *buf, size_t sz);

/* A byte figure with a fraction (an average) in human units: as units__bytes, the part
 * below 1 KiB rounded by %.0f (half to even, like the integers next to it). Returns buf. */
const char *units__bytes_frac(double v, char *buf, size_t sz);

/* The unit a scale up to max bytes is drawn in (an axis): the largest of B, KiB, MiB, GiB,
 * ... not above max. *name is its name ("B" below 1 KiB); returns its size in bytes. */
uint64_t units__scale(uint64_t max, const char **name);

/* s as SIZE above into *out: 0, or -EINVAL (not a size: empty, a sign, garbage, a unit
 * alone) or -ERANGE (above 2^64 - 1 bytes). Callers check their own range. */
int units__parse_size(const char *s, uint64_t *out);

/* Why units__parse_size refused: "not a size (...the syntax...)" for -EINVAL, "too large"
 * for -ERANGE; for an option's one-line message. */
const char *units__size_error(int err);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_linetable - the decoders of CPython's line tables, each a transcription of the
 * interpreter's own lookup (named above each function), with every read checked against len.
 */
#include <limits.h>
#include <stdbool.h>

#include "py_linetable.h"

enum py_linetable_kind py_linetable__kind(unsigned int version)
{
	if (version >= 0x030b)
		return PY_LT_LOCATIONS;
	return version == 0x030a ? PY_LT_PEP626 : PY_LT_LNOTAB;
}

/* A line summed in 64 bits (co_firstlineno and the deltas are the target's: an int sum could
 * overflow) as an int, or -1 when it is none. */
static int as_line(long long line)
{
	return line < INT_MIN || line > INT_MAX ? -1 : (int)line;
}

/* 3.8/3.9 PyCode_Addr2Line: the line grows by each pair's delta until the address passes. */
static int lnotab_line(const __u8 *tab, size_t len, long long line, __u32 off)
{
	__u32 addr = 0;

	for (size_t i = 0; i + 1 < len; i += 2) {
		addr += tab[i];
		if (addr > off)
			break;
		line += (signed char)tab[i + 1];
	}
	return as_line(line);
}

/* 3.10 _PyCode_CheckLineNumber over PEP 626 pairs: [start, start + length) has the running
 * line, or none when the delta is -128 (the running line then stays as it was). */
static int pep626_line(const __u8 *tab, size_t len, long long line, __u32 off)
{
	__u32 start = 0, end = 0;

	for (size_t i = 0; i + 1 < len; i += 2) {
		signed char delta = (signed char)tab[i + 1];

		start = end;
		end += tab[i];
		if (delta != -128)
			line += delta;
		if (start <= off && off < end)
			return delta == -128 ? -1 : as_line(line);
	}
	return -1;
}

/* A location table varint: 6 bits a byte, bit 6 says another byte follows. false when the
 * table ends inside it. */
static bool read_varint(const __u8 *tab, size_t len, size_t *i, __u32 *val)
{
	unsigned int shift = 0;
	__u8 b;

	*val = 0;
	do {
		if (*i >= len || shift > 28)
			return false;
		b = tab[(*i)++];
		*val |= (__u32)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return true;
}

/* 3.11+ location table (Objects/locations.md, advance() in codeobject.c): each entry starts
 * with a byte of bit 7 set, code = bits 3-6, length = bits 0-2 plus one code units.
 * Codes 0-9: same line; 10-12: line + code - 10; 13: signed varint delta, no columns;
 * 14: signed varint delta then three varints; 15: no location. */
static int locations_line(const __u8 *tab, size_t len, long long line, __u32 off)
{
	__u32 unit = off / 2, start = 0, end = 0, v;
	size_t i = 0;

	while (i < len) {
		__u8 b = tab[i++];
		int code = (b >> 3) & 15, delta = 0;
		bool none = false;

		if (!(b & 0x80))
			return -1; /* not the first byte of an entry: malformed */
		start = end;
		end += (b & 7) + 1u;
		if (code == 15) {
			none = true;
		} else if (code == 14 || code == 13) {
			if (!read_varint(tab, len, &i, &v))
				return -1;
			delta = (v & 1) ? -(int)(v >> 1) : (int)(v >> 1);
			for (int k = 0; code == 14 && k < 3; k++)
				if (!read_varint(tab, len, &i, &v))
					return -1;
		} else if (code >= 10) {
			delta = code - 10;
			i += 2;
		} else {
			i += 1;
		}
		if (i > len)
			return -1;
		line += delta;
		if (start <= unit && unit < end)
			return none ? -1 : as_line(line);
	}
	return -1;
}

int py_linetable__line(enum py_linetable_kind kind, const __u8 *tab, size_t len, int firstlineno,
		       __u32 off)
{
	switch (kind) {
	case PY_LT_LNOTAB:
		return lnotab_line(tab, len, firstlineno, off);
	case PY_LT_PEP626:
		return pep626_line(tab, len, firstlineno, off);
	case PY_LT_LOCATIONS:
		return locations_line(tab, len, firstlineno, off);
	}
	return -1;
}

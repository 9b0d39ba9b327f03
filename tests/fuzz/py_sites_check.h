/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The invariants of py_sites' x86 walks (user/trace/py_sites.h) on arbitrary bytes, shared by
 * the fuzzer (tests/fuzz/fuzz_py_sites.c) and the corpus replay of py_sites_unit, through the
 * public functions only. One input: byte 0 picks the site (bits 0..3 the register, bit 4 a
 * constant instead, bit 5 low32, bit 6 a free's site; bit 7 the slow path's base address
 * near 2^64, where a jump's target wraps), the rest is the code.
 */
#ifndef TESTS_FUZZ_PY_SITES_CHECK_H
#define TESTS_FUZZ_PY_SITES_CHECK_H

#include <stdint.h>
#include <string.h>

#include "py_sites.h"

#define PY_CHECK_INSN_MAX 15 /* the longest x86 instruction */

/* The length of the instruction the kernel emulates at c[0..n) (push r64, 41 push r64,
 * jcc/jmp rel8, jmp/call rel32, jcc rel32), by its opcode alone; 0: not one of those. */
static inline size_t py_check_emulated_len(const uint8_t *c, size_t n)
{
	size_t len = 0;

	if (n >= 1 && c[0] >= 0x50 && c[0] <= 0x57)
		len = 1;
	else if (n >= 2 && c[0] == 0x41 && c[1] >= 0x50 && c[1] <= 0x57)
		len = 2;
	else if (n >= 1 && ((c[0] >= 0x70 && c[0] <= 0x7f) || c[0] == 0xeb))
		len = 2;
	else if (n >= 1 && (c[0] == 0xe8 || c[0] == 0xe9))
		len = 5;
	else if (n >= 2 && c[0] == 0x0f && c[1] >= 0x80 && c[1] <= 0x8f)
		len = 6;
	return len <= n ? len : 0;
}

/* py_sites__advance on code[0..len) for site: NULL when every invariant holds, else which. */
static inline const char *py_check_advance(const uint8_t *code, size_t len,
					   const struct py_site *site)
{
	struct py_site copy = *site, imm = *site, other = *site;
	size_t at = py_sites__advance(code, len, site), seen = 0;

	if (memcmp(&copy, site, sizeof(copy)))
		return "advance: the site changed";
	if (at && at >= len)
		return "advance: beyond the code";
	if (at > (PY_ADVANCE_INSNS - 1) * PY_CHECK_INSN_MAX)
		return "advance: past more instructions than PY_ADVANCE_INSNS";
	if (at && !py_check_emulated_len(code + at, len - at))
		return "advance: not onto an instruction the kernel emulates";
	/* the instruction moved to is emulated: from there, no move */
	if (at && py_sites__advance(code + at, len - at, site))
		return "advance: moved again from the instruction moved to";
	/* a register's site moves no further than a constant's, and to the same place: the
	 * walks differ only in the writes of that register */
	imm.is_imm = true;
	imm.reg = 0;
	if (!site->is_imm && at && py_sites__advance(code, len, &imm) != at)
		return "advance: a register's site moved where a constant's does not";
	/* the kind, low32 and constant play no part */
	other.kind = site->kind == PY_SITE_FREE ? PY_SITE_MALLOC : PY_SITE_FREE;
	other.low32 = !site->low32;
	other.imm = ~site->imm;
	if (py_sites__advance(code, len, &other) != at)
		return "advance: depends on the kind, low32 or constant";
	/* cut short: the same instructions decoded, or the walk stops (0); once the probed
	 * instruction fits, the same place whatever follows */
	for (size_t n = 0; n < len && n <= PY_ADVANCE_INSNS * PY_CHECK_INSN_MAX; n++) {
		size_t a = py_sites__advance(code, n, site);

		if (a && a != at)
			return "advance: cut short, moved elsewhere";
		if (seen && !a)
			return "advance: cut short, longer code stopped the move";
		seen |= a;
	}
	return NULL;
}

/* py_sites__slow_value on code[0..len) at base: NULL when every invariant holds. */
static inline const char *py_check_slow(const uint8_t *code, size_t len, uint64_t base,
					const struct py_site *site)
{
	struct py_site s = *site, again = *site;
	bool ok = py_sites__slow_value(code, len, base, &s);

	if (!ok)
		return memcmp(&s, site, sizeof(s)) ? "slow: not found, yet the site changed" : NULL;
	if (s.off != site->off || s.fast_off != site->fast_off || s.kind != site->kind ||
	    s.cmp_addr != site->cmp_addr || s.slow_addr != site->slow_addr)
		return "slow: found, and a field not the value's changed";
	if (s.is_imm ? s.reg || s.low32 : s.reg >= 16 || s.imm)
		return "slow: a value out of its range";
	if (!py_sites__slow_value(code, len, base, &again) || memcmp(&again, &s, sizeof(s)))
		return "slow: not the same value twice";
	return NULL;
}

/* One input (layout above): NULL when every invariant holds. */
static inline const char *py_check_input(const uint8_t *data, size_t size)
{
	struct py_site site;
	uint64_t base;
	const char *why;

	if (!size)
		return NULL;
	memset(&site, 0, sizeof(site));
	site.off = site.fast_off = 0x1234;
	site.kind = data[0] & 0x40 ? PY_SITE_FREE : PY_SITE_MALLOC;
	site.is_imm = data[0] & 0x10;
	site.reg = site.is_imm ? 0 : data[0] & 0xf;
	site.low32 = data[0] & 0x20;
	site.imm = site.is_imm ? 0x40 : 0;
	site.cmp_addr = 0x401000;
	site.slow_addr = 0x402000;
	base = data[0] & 0x80 ? UINT64_MAX - 0x3f : 0x402000;
	if ((why = py_check_slow(data + 1, size - 1, base, &site)))
		return why;
	return py_check_advance(data + 1, size - 1, &site);
}

#endif

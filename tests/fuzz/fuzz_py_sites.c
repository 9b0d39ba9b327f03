// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for py_sites' x86 walks (user/trace/py_sites.c): any bytes -> the slow
 * path's symbolic walk (py_sites__slow_value) and the probe's move along a fast path
 * (py_sites__advance), the code a hostile ELF file hands us. Byte 0 picks the site (the
 * value's register or a constant, low32, the kind) and the slow path's base address; the
 * rest is the code. The invariants (py_sites_check.h): a value's register < 16, the probe
 * moved only onto an instruction the kernel emulates, within the code, no further for a
 * register than for a constant, the same when the code is cut short or longer. ASan/UBSan
 * catch every read past the code; libFuzzer's -timeout catches a walk that does not end.
 * Seed corpus: tests/fuzz/corpus/py_sites/ (also replayed by py_sites_unit).
 */
#include <stdint.h>

#include "py_sites_check.h"

/* libFuzzer hands data in a buffer of exactly size bytes: ASan sees a read one past it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size <= 4096 && py_check_input(data, size))
		__builtin_trap();
	return 0;
}

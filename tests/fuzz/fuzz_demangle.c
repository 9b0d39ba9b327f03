// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the demangler: any bytes (cut at the first NUL) -> demangle__name.
 * A result must be non-empty text of at most DEMANGLE_MAX_OUT bytes without control bytes
 * (it goes into frame strings, folded stacks and SVG); a refusal must set errno.
 * ASan/UBSan catch the rest; libFuzzer's -timeout and -rss_limit_mb catch a blow-up.
 * Seed corpus: tests/fuzz/corpus/fuzz_demangle/ (also replayed by demangle_unit).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *sym = strndup((const char *)data, size), *got;
	size_t n;

	if (!sym)
		return 0;
	errno = 0;
	got = demangle__name(sym);
	if (!got) {
		if (errno != EINVAL && errno != ENOMEM)
			__builtin_trap();
	} else {
		n = strlen(got);
		if (!n || n > DEMANGLE_MAX_OUT)
			__builtin_trap();
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)got[i] < 0x20 || got[i] == 0x7f)
				__builtin_trap();
	}
	free(got);
	free(sym);
	return 0;
}

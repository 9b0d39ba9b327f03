// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the CFI table compiler: any bytes -> cfi_compile (user/stacks/
 * cfi_compile.c), the section a hostile ELF file hands us. The first byte picks the format
 * (bit 0: .debug_frame) and the rest is the section. The rows must come out strictly sorted
 * by pc (BPF binary-searches them) with known rules, and every FDE counted exactly once.
 * ASan/UBSan catch the rest; libFuzzer's -timeout and -rss_limit_mb catch a blow-up.
 * Seed corpus: tests/fuzz/corpus/cfi_compile/ (also replayed by cfi_table_unit).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "cfi_compile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfi_compile_stats st = {0};
	struct cfi_rows out = {0};
	int err;

	if (!size)
		return 0;
	err = cfi_compile(data + 1, size - 1, 0x1000, !(data[0] & 1), &out, &st);
	if (err && err != -ENOENT && err != -ENOMEM)
		__builtin_trap();
	for (size_t i = 0; i < out.n; i++) {
		if (i && out.rows[i].pc <= out.rows[i - 1].pc)
			__builtin_trap();
		if (out.rows[i].cfa_rule > UNWIND_CFA_UNSUPPORTED ||
		    out.rows[i].rbp_rule > UNWIND_RBP_UNSUPPORTED)
			__builtin_trap();
	}
	if (st.fde_ok_cnt + st.fde_bad_cnt + st.fde_empty_cnt + st.fde_far_cnt +
		    st.fde_bad_insn_cnt !=
	    st.fde_cnt)
		__builtin_trap();
	free(out.rows);
	return 0;
}

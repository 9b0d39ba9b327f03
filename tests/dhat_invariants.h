/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dhat_invariants - checks every DHAT file our writer produces (STYLE.md: "golden files plus
 * invariants checked on every produced file"). Independent of user/dhat_reader on purpose:
 * it parses with cJSON directly, so a reader bug cannot hide a writer bug.
 *
 * Checked: JSON, dhatFileVersion 2, every required key with the right type, bklt true,
 * bkacc false, tu "µs", Mtu "s", tuth 10, integers only, tg <= te; ftbl[0] == "[root]" and
 * no repeated frame string; per PP all of tb tbk tl mb mbk gb gbk eb ebk fs present,
 * gb <= mb <= tb, eb <= mb, mbk <= tbk, fs non-empty, no 0 in fs, every index in range, no
 * two PPs with equal fs; and, when expected figures are given, Σtb Σtbk Σgb Σgbk Σeb Σebk.
 */
#ifndef TESTS_DHAT_INVARIANTS_H
#define TESTS_DHAT_INVARIANTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct collector_totals;

/* Figures the sums over the PPs must equal. */
struct dhat_inv_expect {
	uint64_t total_bytes, total_blocks; /* Σtb, Σtbk */
	uint64_t max_bytes, max_blocks;	    /* Σgb, Σgbk: the global peak */
	uint64_t end_bytes, end_blocks;	    /* Σeb, Σebk: live at the end */
};

/* Expectations taken from a finished collector's totals. */
struct dhat_inv_expect dhat_inv_expect_from(const struct collector_totals *t);

/* Check the file at path (plain or .gz). exp may be NULL (sums not compared).
 * Returns 0, or -1 with a one-line explanation in msg. */
int dhat_check_invariants(const char *path, const struct dhat_inv_expect *exp, char *msg,
			  size_t msgsz);

/* Same on an in-memory text. */
int dhat_check_invariants_text(const char *text, size_t len, const struct dhat_inv_expect *exp,
			       char *msg, size_t msgsz);

#endif

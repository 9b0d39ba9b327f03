// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the DHAT reader: any bytes -> dhat_profile__parse; a profile it
 * accepts must print (text with every --sort table, and JSON) without crashing; a text it
 * rejects must come with one non-empty line of error. ASan/UBSan do the rest.
 * Seed corpus: tests/fuzz/corpus/dhat_reader/ (also replayed by report_unit).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dhat_reader.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	static const char *const skip[] = {"main", "=g"};
	struct report_opts opts = {
	    .top = 3, .site = {.skip = skip, .skip_cnt = 2}, .iterations = 3, .unit = "u"};
	struct dhat_profile *p;
	char err[512];

	if (!null)
		null = fopen("/dev/null", "w");
	p = dhat_profile__parse((const char *)data, size, "fuzz", err, sizeof(err));
	if (!p) {
		if (!err[0] || strchr(err, '\n'))
			__builtin_trap(); /* every rejection says why, on one line */
		return 0;
	}
	for (int s = REPORT_SORT_DEFAULT; s <= REPORT_SORT_LIFETIME; s++) {
		opts.sort = (enum report_sort)s;
		opts.json = false;
		report__print(null, p, &opts);
		opts.json = true;
		report__print(null, p, &opts);
	}
	opts.site.no_default_skip = true;
	report__print(null, p, &opts);
	dhat_profile__free(p);
	return 0;
}

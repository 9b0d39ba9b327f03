// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for diff: the input is split in two (at the first "\n--\n", else in the
 * middle), each half parsed as a DHAT file; when both parse, they are diffed and printed
 * as text and JSON under every sort order. Shares the dhat_reader seed corpus.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dhat_reader.h"
#include "diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	const char *text = (const char *)data;
	const char *sep = memmem(text, size, "\n--\n", 4);
	size_t half = sep ? (size_t)(sep - text) : size / 2;
	size_t rest = sep ? half + 4 : half;
	struct dhat_profile *a = NULL, *b = NULL;
	struct diff_opts opts = {.top = 4};
	struct diff *d = NULL;
	char err[512];

	if (!null)
		null = fopen("/dev/null", "w");
	a = dhat_profile__parse(text, half, "old", err, sizeof(err));
	if (!a)
		goto cleanup;
	b = dhat_profile__parse(text + rest, size - rest, "new", err, sizeof(err));
	if (!b)
		goto cleanup;
	d = diff__new(a, b, NULL);
	if (!d)
		goto cleanup;
	for (int s = DIFF_SORT_BYTES; s <= DIFF_SORT_END; s++) {
		opts.sort = (enum diff_sort)s;
		opts.json = false;
		diff__print(null, d, &opts);
		opts.json = true;
		diff__print(null, d, &opts);
	}
cleanup:
	diff__free(d);
	dhat_profile__free(b);
	dhat_profile__free(a);
	return 0;
}

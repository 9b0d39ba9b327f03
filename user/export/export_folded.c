// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export_folded - DHAT profile -> collapsed ("folded") stacks, the input format of
 * flamegraph.pl, inferno-flamegraph and speedscope:
 *
 *	main;make_table;calloc 80
 *	main;grow_buffer;malloc 100
 *
 * One line per distinct stack, outermost frame first, the weight last. The collapsing itself
 * (names, merge, sort) lives in export_util.c because the SVG flame graph draws the same set.
 */
#include "export_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

int export__folded_opts(const struct dhat_profile *p, FILE *out, const struct export_opts *opts)
{
	struct export_opts o = opts ? *opts : (struct export_opts){0};
	struct export_stacks *s = NULL;
	char est[160];
	int err;

	err = export_stacks__build_opts(p, &o, &s);
	if (err)
		goto cleanup;
	/* A sampled profile's weights are estimates. flamegraph.pl and inferno skip a line
	 * without a trailing count, so this one says it without breaking them. */
	if (*export__estimates(p, "\n", est, sizeof(est)))
		fprintf(out, "# %s", est);
	for (size_t i = 0; i < s->cnt; i++) {
		const struct export_stack *st = &s->v[i];

		for (size_t j = 0; j < st->cnt; j++) {
			if (j)
				fputc(';', out);
			fputs(export_stack__name(s, st, j), out);
		}
		fprintf(out, " %" PRIu64 "\n", st->w);
	}
	/* Report a failed write (full disk, closed pipe) rather than a short file. */
	err = ferror(out) ? -EIO : 0;
cleanup:
	export_stacks__free(s);
	return err;
}

int export__folded(const struct dhat_profile *p, FILE *out, enum export_weight w)
{
	struct export_opts o = {.weight = w};

	return export__folded_opts(p, out, &o);
}

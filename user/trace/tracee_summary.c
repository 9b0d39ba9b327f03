// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The list of traced process images: see tracee_summary.h. */
#include "tracee_summary.h"
#include "safe_text.h"

void tracee_summary__print(FILE *f, const struct tracees *ts)
{
	size_t cnt = tracees__count(ts);

	fprintf(f, "tracer: %zu process image%s traced:\n", cnt, cnt == 1 ? "" : "s");
	fprintf(f, "  %7s %7s %10s %12s  %s\n", "pid", "parent", "blocks", "bytes",
		"command line -> profile");
	for (size_t i = 0; i < cnt; i++) {
		const struct tracee *t = tracees__at(ts, i);

		fprintf(f, "  %7d %7d %10llu %12llu  %s -> %s\n", (int)t->tgid, (int)t->parent,
			(unsigned long long)t->totals.total_blocks,
			(unsigned long long)t->totals.total_bytes, safe_text__term(t->cmdline),
			t->written ? safe_text__term(t->written_path) : "(not written)");
	}
}

const struct tracee *tracee_summary__top(const struct tracees *ts)
{
	const struct tracee *top = NULL;

	for (size_t i = 0; i < tracees__count(ts); i++) {
		const struct tracee *t = tracees__at(ts, i);

		if (t->written && (!top || t->totals.total_blocks > top->totals.total_blocks))
			top = t;
	}
	return top;
}

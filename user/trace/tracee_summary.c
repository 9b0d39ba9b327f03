// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The list of traced process images: see tracee_summary.h. */
#include "tracee_summary.h"
#include "safe_text.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define IMAGE_MIN_BLOCKS_S STR(IMAGE_MIN_BLOCKS)

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
			t->written ? safe_text__term(t->written_path) :
			t->too_small ? "(fewer than " IMAGE_MIN_BLOCKS_S " allocations: no file; "
				       "--all-images writes it)" : "(not written)");
	}
}

/* Is t the last image of a target process (a command, a --pid or a cgroup's process:
 * parent 0), the program it finally ran? */
static bool final_target_image(const struct tracees *ts, size_t i)
{
	const struct tracee *t = tracees__at(ts, i);

	if (t->parent)
		return false;
	for (size_t j = i + 1; j < tracees__count(ts); j++)
		if (tracees__at(ts, j)->tgid == t->tgid)
			return false; /* it exec'd again */
	return true;
}

const struct tracee *tracee_summary__top(const struct tracees *ts)
{
	const struct tracee *top = NULL, *largest = NULL;

	for (size_t i = 0; i < tracees__count(ts); i++) {
		const struct tracee *t = tracees__at(ts, i);

		if (!t->written)
			continue;
		if (!largest || t->totals.total_bytes > largest->totals.total_bytes)
			largest = t;
		if (t->totals.total_blocks && final_target_image(ts, i) &&
		    (!top || t->totals.total_bytes > top->totals.total_bytes))
			top = t;
	}
	return top ? top : largest;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "alloc_check.h"
#include "safe_text.h"

#include <string.h>

bool alloc_check__silent(const struct alloc_check_in *in)
{
	if (!in->syms)
		return false;
	for (__u32 fn = 0; fn < FN_COUNT; fn++)
		if (in->hit[fn])
			return false;
	return true;
}

bool alloc_check__warn(FILE *out, const struct alloc_check_in *in)
{
	const struct alloc_symbols *s = in->syms;
	const char *cmd = in->cmd ? in->cmd : "?";
	char name[256];

	if (!alloc_check__silent(in))
		return false;
	/* The command's first word: its name, the target's own choice (escaped). */
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(cmd, " "), cmd);
	fprintf(out, "tracer: warning: pid %d (%s) made no call to the probed allocator in %s",
		(int)in->pid, safe_text__term(name), safe_text__term(s->path));
	if (in->lib)
		fprintf(out, " (--lib): its calls may resolve to another object; without --lib the "
			     "tracer resolves malloc the way the dynamic linker does\n");
	else if (s->prefixed[0])
		fprintf(out, " (its malloc resolves there), but %s defines %s, an allocator entry "
			     "point outside malloc's family (a prefixed API) that the tracer does not probe: what the program allocates with it directly is "
			     "missing. Allocate through malloc (mimalloc and jemalloc export it too), or "
			     "in Rust through a #[global_allocator], whose __rust_alloc shims are "
			     "probed\n",
			safe_text__term(s->prefixed_in), safe_text__term(s->prefixed));
	else
		fprintf(out, " (its malloc resolves there): the profile is empty. If it allocates at "
			     "all, it does so without malloc and its family (mmap, a private arena), "
			     "through an allocator it loaded itself, or in a child process\n");
	return true;
}

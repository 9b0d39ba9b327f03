// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "frames.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "procmaps.h"

/* The allocator's own frame, named by the public function that was called, as Debian's
 * Valgrind shows `malloc (in …vgpreload…)`: "0xADDR: malloc (in /…/libc.so.6)". The DWARF
 * name and line of libc's internals (__libc_malloc, malloc.c:3281) would only add noise. */
static int frames__allocator(struct frames_ctx *fc, const struct pp_stats *pp, struct strvec *out)
{
	__u64 addr = fc->src->fn_addr ? fc->src->fn_addr(fc->src->ctx, pp->fn) : 0;
	const char *lib = fc->src->fn_lib ? fc->src->fn_lib(fc->src->ctx, pp->fn) : NULL;

	lib = lib ? lib : fc->src->lib_path ? fc->src->lib_path : "libc";

	return strvec__pushf(out, "0x%llX: %s (in %s)", (unsigned long long)addr,
			     alloc_fn_name(pp->fn), lib);
}

static int describe(struct frames_ctx *fc, const struct pp_stats *pp, struct strvec *out)
{
	__u64 ips[STACK_MAX_DEPTH];
	bool reached_main = false;
	int n, err;

	err = frames__allocator(fc, pp, out);
	if (err)
		return err;
	if (pp->stack_id < 0)
		return strvec__pushf(out, "0x0: [stack capture failed: error %d]", -pp->stack_id);

	n = fc->src->stack(fc->src->ctx, pp->stack_id, ips, STACK_MAX_DEPTH);
	if (n < 0)
		return strvec__pushf(out, "0x0: [stack %d unavailable: error %d]", pp->stack_id,
				     -n);
	for (int i = 0; i < n && !reached_main; i++) {
		size_t first = out->cnt;

		if (!fc->sym) {
			err = strvec__pushf(out, "0x%llX: ???", (unsigned long long)ips[i] - 1);
		} else {
			/* Every address in a user stack taken at a return probe is a return
			 * address: look up ip-1 so the line is the call's. */
			err = symbolizer__frames(fc->sym, ips[i], true, out);
			err = err < 0 ? err : 0;
		}
		if (err)
			return err;
		for (size_t j = first; j < out->cnt; j++)
			if (symbolizer__is_main_frame(out->items[j]))
				reached_main = true;
	}
	/* A stack that reaches neither main nor a thread's start routine lost frames
	 * (a frame-pointer-less function broke the walk). */
	if (!reached_main && out->cnt > 0 && !strstr(out->items[out->cnt - 1], "start_thread") &&
	    !strstr(out->items[out->cnt - 1], "clone"))
		fc->truncated++;
	return 0;
}

/* Timed, so the benchmark can tell symbolization from JSON writing (they interleave). */
int frames__describe(void *ctx, const struct pp_stats *pp, struct strvec *out)
{
	struct frames_ctx *fc = ctx;
	size_t before = out->cnt;
	__u64 t0 = mono_now_ns();
	int err = describe(fc, pp, out);

	fc->describe_ns += mono_now_ns() - t0;
	fc->frames += out->cnt - before;
	return err;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "frames.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "dhat_writer.h"
#include "py_stacks.h"

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

/* The functions a thread's stack starts in: the process's entry (_start, libc's start
 * code) or a thread's (start_thread, the clone wrappers). glibc may name the same code by an
 * alias or a versioned symbol ("__libc_start_main@@GLIBC_2.34"). */
static const char *const ENTRY_FNS[] = {
	"_start",	 "__libc_start_call_main", "__libc_start_main", "__libc_start_main_impl",
	"start_thread", "clone3",		  "__clone3",	       "clone",
	"__clone",
};

/* True if frame (a DHAT frame string, "0xADDR: fn (file:line)") is in an entry function. */
static bool is_entry_frame(const char *frame)
{
	const char *name = strstr(frame, ": ");
	size_t len;

	name = name ? name + 2 : frame;
	len = strcspn(name, " @(");
	for (size_t i = 0; i < sizeof(ENTRY_FNS) / sizeof(ENTRY_FNS[0]); i++)
		if (strlen(ENTRY_FNS[i]) == len && !memcmp(name, ENTRY_FNS[i], len))
			return true;
	return false;
}

/* Whether any of frames [first, cnt) of out is an entry function. */
static bool any_entry(const struct strvec *out, size_t first)
{
	for (size_t j = first; j < out->cnt; j++)
		if (is_entry_frame(out->items[j]))
			return true;
	return false;
}

/*
 * Whether the raw stack ips[from..n) reaches a thread's entry: the frames Valgrind's cut
 * below main leaves out are symbolized into a scratch list only to be judged. Returns 1 if
 * it does, 0 if not, or -errno.
 */
static int reaches_entry(struct frames_ctx *fc, const __u64 *ips, int from, int n)
{
	struct strvec rest = { 0 };
	int err = 0, found = 0;

	for (int i = from; i < n && !found && !err; i++) {
		strvec__clear(&rest);
		err = symbolizer__frames(fc->sym, ips[i], true, &rest);
		err = err < 0 ? err : 0;
		found = !err && any_entry(&rest, 0);
	}
	strvec__release(&rest);
	return err ? err : found;
}

/* The program point's Python frames in place of the evaluation loop's (counted when the
 * two do not match). */
static int splice_python(struct frames_ctx *fc, const struct pp_stats *pp, struct strvec *out)
{
	const char *const *names;
	const __u32 *flags;
	size_t n;
	int r;

	if (!pp->py_stack || !fc->src->py_frames)
		return 0;
	n = fc->src->py_frames(fc->src->ctx, pp->py_stack, &names, &flags);
	if (!n)
		return 0;
	r = py_stacks__splice(out, 1, names, flags, n);
	if (r < 0)
		return r;
	if (!r)
		fc->py_mismatched++;
	return 0;
}

static int describe(struct frames_ctx *fc, const struct pp_stats *pp, struct strvec *out)
{
	__u64 ips[STACK_MAX_DEPTH];
	bool reached_main = false, entry = false;
	int n, i, err;

	err = frames__allocator(fc, pp, out);
	if (err)
		return err;
	if (pp->stack_id < 0)
		return strvec__pushf(out, "0x0: [stack capture failed: error %d]", -pp->stack_id);

	n = fc->src->stack(fc->src->ctx, pp->stack_id, ips, STACK_MAX_DEPTH);
	if (n < 0)
		return strvec__pushf(out, "0x0: [stack %d unavailable: error %d]", pp->stack_id,
				     -n);
	for (i = 0; i < n && !reached_main; i++) {
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
		entry = entry || any_entry(out, first);
	}
	err = splice_python(fc, pp, out);
	if (err)
		return err;
	/* Without names nothing can be judged. With them, a stack is cut short when the
	 * unwinder stopped before the thread's entry (a function without frame pointers or
	 * CFI broke the walk): a stack that names no main is not (stripped programs). */
	if (!fc->sym)
		return 0;
	if (!entry) {
		err = reaches_entry(fc, ips, i, n);
		if (err < 0)
			return err;
		entry = err;
	}
	fc->stacks++;
	if (entry)
		return 0;
	fc->cut_short++;
	return DHAT_FRAMES_CUT_SHORT;
}

/* Timed, so the benchmark can tell symbolization from JSON writing (they interleave). */
int frames__describe(void *ctx, const struct pp_stats *pp, struct strvec *out)
{
	struct frames_ctx *fc = ctx;
	size_t before = out->cnt;
	__u64 t0 = clock__mono_ns();
	int err = describe(fc, pp, out);

	fc->describe_ns += clock__mono_ns() - t0;
	fc->frames += out->cnt - before;
	return err;
}

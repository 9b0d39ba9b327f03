/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frames - builds a program point's DHAT frame list: the allocator function first (as
 * Debian's Valgrind shows `malloc (in ...)`), then every caller, innermost first, cut
 * below `main` as Valgrind does. Each stack is also judged: it is cut short when it stops
 * before the thread's entry (_start, __libc_start_call_main, __libc_start_main,
 * start_thread, clone3, clone). Stack storage is reached through callbacks, so this works
 * on plain data and is tested without BPF. A CPython program point's Python frames
 * ("py: QUALNAME (FILE:LINE)") replace the interpreter's evaluation-loop frames
 * (py_stacks__splice).
 */
#ifndef TRACER_FRAMES_H
#define TRACER_FRAMES_H

#include "collector.h"
#include "strvec.h"
#include "symbolizer.h"

struct stack_source {
	/* Raw return addresses of stack_id, innermost first. Count or -errno. */
	int (*stack)(void *ctx, __s32 stack_id, __u64 *ips, size_t max);
	/* Runtime entry address of allocator function fn in the target, 0 if unknown. */
	__u64 (*fn_addr)(void *ctx, __u32 fn);
	void *ctx;
	const char *lib_path; /* the allocator library, named in the allocator frame */
	/* The object allocator function fn is probed in (several may be: alloc_symbols.h), or
	 * NULL; then lib_path names it. May be NULL. */
	const char *(*fn_lib)(void *ctx, __u32 fn);
	/* The named Python frames of py_stack (pp_stats.py_stack), innermost first, and their
	 * PY_FRAME_F_* flags: the count (0: none). May be NULL (no Python). */
	size_t (*py_frames)(void *ctx, __u32 py_stack, const char *const **names,
			    const __u32 **flags);
};

struct frames_ctx {
	struct symbolizer *sym;
	const struct stack_source *src;
	__u64 stacks;	   /* stacks judged (a symbolizer was given and the stack was read) */
	__u64 cut_short;   /* of those, stacks that stop before the thread's entry */
	__u64 describe_ns; /* time spent in frames__describe (stack fetch + symbolization) */
	__u64 frames;	   /* frames described */
	__u64 py_mismatched; /* Python stacks whose entries did not match the native stack's
			      * evaluation-loop frames: all put at the innermost one */
};

/* A pp_frames_fn (dhat_writer.h): ctx is a struct frames_ctx. Returns 0,
 * DHAT_FRAMES_CUT_SHORT (a symbolized stack that stops before the thread's entry) or -errno. */
int frames__describe(void *ctx, const struct pp_stats *pp, struct strvec *out);

#endif

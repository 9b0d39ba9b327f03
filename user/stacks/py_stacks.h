/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_stacks - the Python frames of one traced image (issue #32): finds its interpreter
 * (py_runtime.h), hands BPF the layout to walk with, names each new Python stack of its
 * records at record time (the target may be gone when the profile is written), and splices
 * a program point's Python frames into its native ones.
 *
 * A record's Python stack is alloc_event.py_stack, a key of BPF's py_stacks map, read through
 * the read callback the first time it is seen; its frames are named "py: QUALNAME
 * (FILE:LINE)" (py_runtime__frame_name) and kept until the image's profile is written.
 * Not thread-safe: the collector's thread only.
 */
#ifndef TRACER_PY_STACKS_H
#define TRACER_PY_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "events.h"
#include "strvec.h"

/* Whether CPython processes get Python frames and allocator probes (--python, --no-python). */
enum py_mode {
	PY_MODE_AUTO = 0, /* when the image is a CPython we can read */
	PY_MODE_REQUIRE,  /* --python: the target must be one (error otherwise) */
	PY_MODE_OFF,	  /* --no-python: native frames and allocator only */
};

/* BPF's py_stacks[id] into *out: 0 or -errno. */
typedef int (*py_stack_read_fn)(void *ctx, __u32 id, struct py_stack_val *out);
/* The layout BPF walks process tgid with; NULL: forget it (the image is gone). 0/-errno. */
typedef int (*py_layout_fn)(void *ctx, pid_t tgid, const struct py_layout *l);

struct py_stacks_opts {
	py_stack_read_fn read;
	py_layout_fn layout;
	void *ctx;
};

struct py_stacks_stats {
	__u64 stacks;  /* distinct Python stacks named */
	__u64 frames;  /* frames named */
	__u64 unnamed; /* frames whose code object could not be read (named by address) */
	__u64 unread;  /* stack ids BPF's map did not give (records without Python frames) */
};

struct py_stacks;

/* For process pid (its interpreter looked for now, and by py_stacks__probe). NULL + errno. */
struct py_stacks *py_stacks__new(pid_t pid, const struct py_stacks_opts *o);

/* Frees ps (accepts NULL), forgetting its layout in BPF. */
void py_stacks__free(struct py_stacks *ps);

/* Look for the interpreter if it is not known yet (a just exec'd image maps libpython
 * later): at most every 50 ms, during the image's first 5 s. True once it is known. *why:
 * when it gives up, once, the reason a CPython found could not be read (unsupported
 * version), else NULL. */
bool py_stacks__probe(struct py_stacks *ps, const char **why);

/* While no interpreter is known: why the CPython found could not be read, else NULL. */
const char *py_stacks__why(const struct py_stacks *ps);

/* The interpreter's ELF file (as in /proc/PID/maps), or NULL while none is known. */
const char *py_stacks__image(const struct py_stacks *ps);

/* The interpreter's version ("3.11.7"), or NULL while none is known. */
const char *py_stacks__version(const struct py_stacks *ps);

/* Name the Python stack id of a record (nothing when already named). 0 or -errno. */
int py_stacks__see(struct py_stacks *ps, __u32 id);

/* The named frames of id, innermost first, with their PY_FRAME_F_* flags: the count, 0 when
 * none. Valid until ps is freed. */
size_t py_stacks__frames(const struct py_stacks *ps, __u32 id, const char *const **names,
			 const __u32 **flags);

/*
 * Splice Python frames (names[n], flags, innermost first) into a native frame list, from
 * frames[first] on: each group ending at a PY_FRAME_F_ENTRY frame replaces one frame of
 * CPython's evaluation loop (py_is_eval_loop), innermost first. When the counts differ,
 * all of them replace the innermost evaluation-loop frame (or go after the last frame when
 * there is none). Returns 1 when the counts matched, 0 when not, -errno (-ENOMEM).
 */
int py_stacks__splice(struct strvec *frames, size_t first, const char *const *names,
		      const __u32 *flags, size_t n);

/* Its counters (zeros for NULL). */
void py_stacks__stats(const struct py_stacks *ps, struct py_stacks_stats *out);

#endif

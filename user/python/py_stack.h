/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_stack - one thread's Python frames read from userspace with exactly the walk the BPF
 * programs do (python_abi.h, steps 1-3), on a struct py_layout and nothing else. It is the
 * reference the BPF side is written against, and lets the layouts be tested without BPF.
 *
 * The walk, every step bounded, every pointer read checked:
 *   interp = *(runtime_addr + runtime_interp_head)          (the main interpreter only)
 *   tstate = *(interp + interp_tstate_head); follow tstate_next (at most PY_THREADS_MAX)
 *            until *(tstate + tstate_thread_id) == the thread's pthread_t
 *   frame  = *(tstate + tstate_frame), or *(*(tstate + tstate_cframe) + tstate_frame)
 *   then per frame (at most 2 * PY_FRAMES_MAX steps, PY_FRAMES_MAX recorded), innermost first:
 *     owner == owner_cstack (3.12+): a C-stack shim; skip it, and the frame recorded just
 *                                    before it (its callee side) is an entry frame;
 *     record { *(frame + frame_code), frame_instr (4-byte int for the lasti kinds, else a
 *              pointer), flags: ENTRY always before 3.11, is_entry in 3.11 };
 *     frame = *(frame + frame_back).
 */
#ifndef TRACER_PY_STACK_H
#define TRACER_PY_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "python_abi.h"

/* Fill frames[0..max) with the frames of the thread whose pthread_t is thread_id in pid,
 * innermost first. The count (0: a thread state with no frame), -ENOENT when no thread
 * state has that id, -EFAULT on an unreadable pointer, or a read's -errno. *cut (may be
 * NULL) is set when frames remained past max. */
int py_stack__walk(pid_t pid, const struct py_layout *l, __u64 thread_id, struct py_frame *frames,
		   size_t max, bool *cut);

#endif

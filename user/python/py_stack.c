/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_stack - the userspace twin of BPF's Python frame walk (py_stack.h has the algorithm).
 */
#include <errno.h>
#include <stdbool.h>

#include "procmaps.h"
#include "py_stack.h"

/* The pointer at addr + off. */
static int read_ptr(pid_t pid, __u64 addr, __u16 off, __u64 *out)
{
	*out = 0;
	if (off == PY_LAYOUT_NONE)
		return -EINVAL;
	return procmaps__read_vm(pid, addr + off, out, sizeof(*out));
}

/* The thread state of thread_id, or -ENOENT. */
static int find_tstate(pid_t pid, const struct py_layout *l, __u64 thread_id, __u64 *tstate)
{
	__u64 interp, id;
	int err;

	err = read_ptr(pid, l->runtime_addr, l->runtime_interp_head, &interp);
	if (!err && !interp)
		return -ENOENT; /* not initialized yet, or finalized */
	if (!err)
		err = read_ptr(pid, interp, l->interp_tstate_head, tstate);
	for (int i = 0; !err && *tstate && i < PY_THREADS_MAX; i++) {
		err = read_ptr(pid, *tstate, l->tstate_thread_id, &id);
		if (!err && id == thread_id)
			return 0;
		if (!err)
			err = read_ptr(pid, *tstate, l->tstate_next, tstate);
	}
	return err ? err : -ENOENT;
}

int py_stack__walk(pid_t pid, const struct py_layout *l, __u64 thread_id, struct py_frame *frames,
		   size_t max, bool *cut)
{
	__u64 tstate, frame, cframe;
	size_t n = 0;
	int err;

	if (cut)
		*cut = false;
	err = find_tstate(pid, l, thread_id, &tstate);
	if (err)
		return err;
	if (l->tstate_cframe != PY_LAYOUT_NONE) {
		err = read_ptr(pid, tstate, l->tstate_cframe, &cframe);
		if (!err)
			err = cframe ? read_ptr(pid, cframe, l->tstate_frame, &frame) : -EFAULT;
	} else {
		err = read_ptr(pid, tstate, l->tstate_frame, &frame);
	}
	for (int step = 0; !err && frame; step++) {
		if (step == 2 * PY_FRAMES_MAX) {
			/* Out of steps with a frame still to read (a cycle, a run of shims): the
			 * stack is cut short, not complete. */
			if (cut)
				*cut = true;
			break;
		}
		struct py_frame f = {.flags = 0};
		__u8 owner = 0, is_entry = 0;
		__s32 lasti;

		if (l->frame_owner != PY_LAYOUT_NONE)
			err = procmaps__read_vm(pid, frame + l->frame_owner, &owner, 1);
		if (!err && l->owner_cstack != 0xff && owner == l->owner_cstack) {
			/* A shim the evaluation loop put below its first frame (3.12+). */
			if (n)
				frames[n - 1].flags |= PY_FRAME_F_ENTRY;
			err = read_ptr(pid, frame, l->frame_back, &frame);
			continue;
		}
		if (n == max) {
			if (cut)
				*cut = true;
			break;
		}
		if (!err)
			err = read_ptr(pid, frame, l->frame_code, &f.code);
		if (!err && l->instr_kind <= PY_INSTR_LASTI_UNITS) {
			err = procmaps__read_vm(pid, frame + l->frame_instr, &lasti, sizeof(lasti));
			f.instr = (__u64)(__s64)lasti;
		} else if (!err) {
			err = read_ptr(pid, frame, l->frame_instr, &f.instr);
		}
		if (!err && l->frame_is_entry != PY_LAYOUT_NONE)
			err = procmaps__read_vm(pid, frame + l->frame_is_entry, &is_entry, 1);
		if (l->frame_owner == PY_LAYOUT_NONE || is_entry)
			f.flags |= PY_FRAME_F_ENTRY;
		if (!err)
			err = read_ptr(pid, frame, l->frame_back, &frame);
		if (!err)
			frames[n++] = f;
	}
	return err ? err : (int)n;
}

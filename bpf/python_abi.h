/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The BPF/user ABI of Python frames (issue #32): how the BPF programs find the allocating
 * thread's interpreter frames in a CPython process, and what they record of each frame.
 *
 * Userspace (user/python/) fills one struct py_layout per traced CPython process from the
 * interpreter's version (per-minor-version tables for 3.8-3.12, _Py_DebugOffsets for 3.13+)
 * and hands it to BPF in the `py_layouts` map keyed by tgid. BPF then, at an allocation:
 *   1. takes the thread's fsbase (task->thread.fsbase) = pthread_self() on x86_64 glibc,
 *   2. walks *(runtime_addr + runtime_interp_head) -> interp -> threads (tstate_next) until
 *      tstate->thread_id == fsbase (bounded; a miss is counted, native frames only),
 *   3. reads the current frame (through tstate_cframe when it is not PY_LAYOUT_NONE) and
 *      follows frame_back up to PY_FRAMES_MAX frames, recording struct py_frame for each.
 * Userspace turns (code, instr) into `py: QUALNAME (FILE:LINE)` by reading the code object
 * from the target's memory, and splices the frames into the native stack at the
 * interpreter's evaluation-loop frames (PY_FRAME_F_ENTRY marks where each loop began).
 *
 * Fixed-width types only, explicit padding (STYLE.md, "The BPF/user ABI").
 */
#ifndef PYTHON_ABI_H
#define PYTHON_ABI_H

#ifdef __BPF__
#else
#include <linux/types.h>
#endif

#define PY_FRAMES_MAX	 64	     /* Python frames kept per stack (deeper ones are cut, counted) */
#define PY_THREADS_MAX	 64	     /* thread states walked to find the allocating thread */
#define PY_LAYOUT_NONE	 0xffffu     /* "this version has no such field" */

/* struct py_layout.instr_kind: what frame_instr holds. */
enum py_instr_kind {
	PY_INSTR_LASTI_BYTES = 0, /* int f_lasti, a byte offset into co_code (3.8, 3.9) */
	PY_INSTR_LASTI_UNITS = 1, /* int f_lasti, in 2-byte code units (3.10) */
	PY_INSTR_PREV_PTR = 2,	  /* _Py_CODEUNIT *prev_instr (3.11, 3.12) */
	PY_INSTR_CUR_PTR = 3,	  /* _Py_CODEUNIT *instr_ptr (3.13+) */
};

/* Byte offsets in the target's structures; PY_LAYOUT_NONE where the version has none. */
struct py_layout {
	__u64 runtime_addr;	    /* &_PyRuntime in the target (absolute address) */
	__u16 runtime_interp_head;  /* _PyRuntime.interpreters.head */
	__u16 interp_tstate_head;   /* PyInterpreterState.tstate_head / .threads.head */
	__u16 tstate_next;	    /* PyThreadState.next */
	__u16 tstate_thread_id;	    /* PyThreadState.thread_id (pthread_t) */
	__u16 tstate_cframe;	    /* PyThreadState.cframe (3.11, 3.12), else NONE */
	__u16 tstate_frame;	    /* the current frame: in PyThreadState (.frame 3.8-3.10,
				     * .current_frame 3.13+), or in _PyCFrame (.current_frame)
				     * when tstate_cframe is set */
	__u16 frame_back;	    /* PyFrameObject.f_back / _PyInterpreterFrame.previous */
	__u16 frame_code;	    /* .f_code / .f_executable */
	__u16 frame_instr;	    /* see instr_kind */
	__u16 frame_owner;	    /* _PyInterpreterFrame.owner (char), 3.11+, else NONE */
	__u16 frame_is_entry;	    /* _PyInterpreterFrame.is_entry (bool), 3.11 only, else NONE */
	__u8 instr_kind;	    /* enum py_instr_kind */
	__u8 owner_cstack;	    /* owner value of a C-stack shim frame to skip (3.12+: 3), or 0xff */
	__u32 version;		    /* major << 8 | minor, e.g. 0x030b */
	__u32 pad;
};

/* struct py_frame.flags */
#define PY_FRAME_F_ENTRY 1u /* the first frame an evaluation-loop call ran (3.11 is_entry, the
			     * frame above a C-stack shim in 3.12+; every frame before 3.11) */

struct py_frame {
	__u64 code;  /* PyCodeObject * in the target */
	__u64 instr; /* raw frame_instr value (f_lasti, or the instruction pointer) */
	__u32 flags; /* PY_FRAME_F_* */
	__u32 pad;
};

#endif /* PYTHON_ABI_H */

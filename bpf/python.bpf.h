/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * python.bpf.h - the allocating thread's Python frames (issue #32), included by alloc.bpf.c.
 *
 * At the outermost allocator return, where the native stack is taken (take_stack(), both
 * frame-pointer and --unwind dwarf modes), a process with a struct py_layout in py_layouts
 * (filled by userspace from user/python/py_runtime.h) gets its Python frames read too, by
 * the walk bpf/python_abi.h writes out (user/python/py_stack.c is its userspace twin):
 *   1. fsbase of the current task = pthread_self() = PyThreadState.thread_id;
 *   2. _PyRuntime.interpreters.head -> threads, following next, at most PY_THREADS_MAX;
 *   3. the current frame (through the cframe in 3.11/3.12), then back/previous, at most
 *      PY_FRAMES_MAX frames recorded; 3.12+'s C-stack shim frames are skipped and mark the
 *      frame above them as an evaluation loop's entry (PY_FRAME_F_ENTRY).
 * The frames are deduplicated by content in py_stacks (as `stacks` is for native frames)
 * and the id goes into alloc_event.py_stack. Every walk that yields nothing for a process
 * with a layout is counted by cause in py_counters; the closing summary prints them.
 *
 * Nothing read here is trusted: every pointer is read with bpf_probe_read_user (a bad one
 * fails, counted), every loop is bounded, and offsets are masked into the read buffer.
 */
#ifndef PYTHON_BPF_H
#define PYTHON_BPF_H

#include "python_abi.h"

#define PY_LAYOUTS_MAX 1024 /* CPython processes traced at once */
/* Distinct Python stacks kept (1.5 KiB each, not preallocated: 96 MiB at most, as `stacks`
 * may take 256 MiB). An interpreter's start-up alone makes ~20k (imports: every call site
 * of importlib at every depth). */
#define PY_STACKS_MAX	(64 << 10)
#define PY_FRAME_SPAN	128 /* bytes of a frame read at once: every field offset below */
#define PY_STACK_PROBES 4   /* ids tried for one stack (hash collisions) */

/* tgid -> its layout, written by userspace (loader__set_py_layout) once it knows the
 * interpreter; a process without one costs one lookup per allocation. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PY_LAYOUTS_MAX);
	__type(key, __u32);
	__type(value, struct py_layout);
} py_layouts SEC(".maps");

/* Python stacks by content hash (never 0), read back by loader__py_stack(). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PY_STACKS_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct py_stack_val);
} py_stacks SEC(".maps");

/* This CPU's stack being taken, and the id of the last one taken (read by emit(): the
 * program that took it runs on this CPU until its records are out, as stack_scratch). */
struct py_scratch {
	struct py_stack_val s;
	__u32 last;  /* py_stacks id of the last take_py_stack() on this CPU, 0: none */
	__u32 fresh; /* last is new in py_stacks: wake the reader, so that it names the frames
		      * before their code objects go (an imported module's, once run) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_scratch);
} py_scratch SEC(".maps");

struct py_counters py_counters = {};
/* Set by userspace when the first layout goes in: until then no lookup at all. */
__u32 py_any = 0;

/* task->thread.fsbase (CO-RE; the suffix is ignored by relocation, so this does not clash
 * with alloc.bpf.c's struct task_struct). */
struct thread_struct___py {
	unsigned long fsbase;
} __attribute__((preserve_access_index));

struct task_struct___py {
	struct thread_struct___py thread;
} __attribute__((preserve_access_index));

/* A pointer-sized word of the target at addr + off; false when it cannot be read. */
static __always_inline bool py_read_ptr(__u64 addr, __u32 off, __u64 *out)
{
	*out = 0;
	return addr && off != PY_LAYOUT_NONE &&
	       !bpf_probe_read_user(out, sizeof(*out), (void *)(addr + off));
}

/* ---- step 2: the thread state whose thread_id is this thread's pthread_t ---------------- */

struct py_tstate_walk {
	const struct py_layout *l;
	__u64 tstate; /* the thread state to look at next (0: end of the list) */
	__u64 want;   /* pthread_self() of the allocating thread */
	__u64 found;  /* its thread state, 0 until found */
	__u32 failed; /* a read failed */
};

static long py_tstate_step(__u64 i, void *data)
{
	struct py_tstate_walk *w = data;
	__u64 id, next;

	if (!w->tstate)
		return 1;
	if (!py_read_ptr(w->tstate, w->l->tstate_thread_id, &id) ||
	    !py_read_ptr(w->tstate, w->l->tstate_next, &next)) {
		w->failed = 1;
		return 1;
	}
	if (id == w->want) {
		w->found = w->tstate;
		return 1;
	}
	w->tstate = next;
	return 0;
}

/* ---- step 3: the frames ----------------------------------------------------------------- */

struct py_frame_walk {
	const struct py_layout *l;
	struct py_stack_val *s;
	__u64 frame;  /* the frame to read next (0: end) */
	__u32 span;   /* bytes read per frame: past the furthest field used */
	__u32 failed; /* a read failed */
};

/* The field at off of a frame read into buf (span bytes), sz bytes (1, 4 or 8). */
static __always_inline __u64 py_field(const __u8 *buf, __u32 off, __u32 sz)
{
	__u32 o = off & (PY_FRAME_SPAN - 8); /* keeps the verifier's bound; offsets are checked */

	if (sz == 1)
		return buf[o];
	if (sz == 4)
		return (__u64)(__s64) * (const __s32 *)(buf + o);
	return *(const __u64 *)(buf + o);
}

static long py_frame_step(__u64 i, void *data)
{
	struct py_frame_walk *w = data;
	const struct py_layout *l = w->l;
	struct py_stack_val *s = w->s;
	__u8 buf[PY_FRAME_SPAN];
	__u32 d = s->depth, isz;
	__u64 owner, span = w->span;

	if (!w->frame)
		return 1;
	if (d >= PY_FRAMES_MAX) {
		s->flags |= PY_STACK_F_CUT;
		return 1;
	}
	/* One read per frame, of every field used (py_frame_span, <= PY_FRAME_SPAN). The
	 * mask is done in asm on the very register passed: clang otherwise tests a copy. */
	asm volatile("%0 &= 0xff" : "+r"(span));
	if (span > PY_FRAME_SPAN)
		span = PY_FRAME_SPAN;
	if (bpf_probe_read_user(buf, span, (void *)w->frame)) {
		w->failed = 1;
		return 1;
	}
	if (l->frame_owner != PY_LAYOUT_NONE) {
		owner = py_field(buf, l->frame_owner, 1);
		if (l->owner_cstack != 0xff && owner == l->owner_cstack) {
			/* 3.12+: the shim an evaluation loop pushed on entry: the frame recorded
			 * just before (above it) is the first that loop ran. */
			if (d > 0)
				s->f[(d - 1) & (PY_FRAMES_MAX - 1)].flags |= PY_FRAME_F_ENTRY;
			w->frame = py_field(buf, l->frame_back, 8);
			return 0;
		}
	}
	isz = l->instr_kind <= PY_INSTR_LASTI_UNITS ? 4 : 8;
	d &= PY_FRAMES_MAX - 1;
	s->f[d].code = py_field(buf, l->frame_code, 8);
	s->f[d].instr = py_field(buf, l->frame_instr, isz);
	s->f[d].pad = 0;
	/* Before 3.11 every frame is its own evaluation loop call; 3.11 says it in is_entry;
	 * 3.12+ by the shim below (above). */
	if (l->frame_owner == PY_LAYOUT_NONE)
		s->f[d].flags = PY_FRAME_F_ENTRY;
	else if (l->frame_is_entry != PY_LAYOUT_NONE)
		s->f[d].flags = py_field(buf, l->frame_is_entry, 1) ? PY_FRAME_F_ENTRY : 0;
	else
		s->f[d].flags = 0;
	s->depth = d + 1;
	w->frame = py_field(buf, l->frame_back, 8);
	return 0;
}

/* The furthest byte of a frame the walk reads, rounded for the mask, or 0 if an offset is
 * out of PY_FRAME_SPAN (a layout the walk cannot use). */
static __always_inline __u32 py_frame_span(const struct py_layout *l)
{
	__u32 end = 0, offs[5] = {l->frame_back, l->frame_code, l->frame_instr, l->frame_owner,
				  l->frame_is_entry};

	for (int i = 0; i < 5; i++) {
		if (offs[i] == PY_LAYOUT_NONE)
			continue;
		if (offs[i] > PY_FRAME_SPAN - 8)
			return 0;
		if (offs[i] + 8 > end)
			end = offs[i] + 8;
	}
	return end;
}

static __always_inline bool same_py_stack(const struct py_stack_val *a,
					  const struct py_stack_val *b)
{
	if (a->depth != b->depth || a->flags != b->flags)
		return false;
	for (int i = 0; i < PY_FRAMES_MAX; i++) {
		if (i >= a->depth)
			break;
		if (a->f[i].code != b->f[i].code || a->f[i].instr != b->f[i].instr ||
		    a->f[i].flags != b->f[i].flags)
			return false;
	}
	return true;
}

/* s deduplicated into py_stacks: its id (never 0), or 0 (counted). */
static __always_inline __u32 py_intern(struct py_stack_val *s, __u32 *fresh)
{
	struct py_stack_val *have;
	__u64 h = 0x9e3779b97f4a7c15ull ^ s->depth ^ ((__u64)s->flags << 32);
	__u32 id;
	long n;

	for (int i = 0; i < PY_FRAMES_MAX; i++) {
		if (i >= s->depth)
			break;
		h = (h ^ s->f[i].code) * 0xff51afd7ed558ccdull;
		h = (h ^ s->f[i].instr ^ ((__u64)s->f[i].flags << 48)) * 0xc4ceb9fe1a85ec53ull;
		h ^= h >> 32;
	}
	id = (__u32)(h ^ (h >> 31));
	for (int p = 0; p < PY_STACK_PROBES; p++, id++) {
		if (!id)
			id = 1;
		have = bpf_map_lookup_elem(&py_stacks, &id);
		if (have) {
			if (same_py_stack(have, s))
				return id;
			continue;
		}
		n = bpf_map_update_elem(&py_stacks, &id, s, BPF_NOEXIST);
		if (!n) {
			*fresh = 1;
			return id;
		}
		if (n != -EEXIST)
			break;
		have = bpf_map_lookup_elem(&py_stacks, &id);
		if (have && same_py_stack(have, s))
			return id;
	}
	__sync_fetch_and_add(&py_counters.map_full, 1);
	return 0;
}

/*
 * The current thread's Python stack: its id into this CPU's py_scratch.last (0 when the
 * process has no layout, or the walk failed: counted). A global function, checked once by
 * the verifier (as take_stack).
 */
__noinline int take_py_stack(void)
{
	struct task_struct___py *task = (void *)bpf_get_current_task_btf();
	__u32 zero = 0, tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct py_tstate_walk tw = {};
	struct py_frame_walk fw = {};
	const struct py_layout *l;
	struct py_scratch *sc;
	__u64 interp, cframe;

	sc = bpf_map_lookup_elem(&py_scratch, &zero);
	if (!sc)
		return 0;
	sc->last = 0;
	sc->fresh = 0;
	if (!py_any)
		return 0;
	l = bpf_map_lookup_elem(&py_layouts, &tgid);
	if (!l)
		return 0;
	tw.l = l;
	tw.want = task->thread.fsbase;
	if (!py_read_ptr(l->runtime_addr, l->runtime_interp_head, &interp) ||
	    !py_read_ptr(interp, l->interp_tstate_head, &tw.tstate)) {
		__sync_fetch_and_add(&py_counters.no_tstate, 1);
		return 0;
	}
	bpf_loop(PY_THREADS_MAX, py_tstate_step, &tw, 0);
	if (!tw.found) {
		__sync_fetch_and_add(tw.failed ? &py_counters.read_failed : &py_counters.no_tstate,
				     1);
		return 0;
	}
	fw.l = l;
	fw.s = &sc->s;
	fw.span = py_frame_span(l);
	sc->s.depth = 0;
	sc->s.flags = 0;
	if (l->tstate_cframe != PY_LAYOUT_NONE) {
		if (!py_read_ptr(tw.found, l->tstate_cframe, &cframe) ||
		    !py_read_ptr(cframe, l->tstate_frame, &fw.frame)) {
			__sync_fetch_and_add(&py_counters.read_failed, 1);
			return 0;
		}
	} else if (!py_read_ptr(tw.found, l->tstate_frame, &fw.frame)) {
		__sync_fetch_and_add(&py_counters.read_failed, 1);
		return 0;
	}
	if (!fw.span) {
		__sync_fetch_and_add(&py_counters.read_failed, 1);
		return 0;
	}
	/* Shim frames take a step without a frame: room for one per recorded frame. */
	bpf_loop(2 * PY_FRAMES_MAX, py_frame_step, &fw, 0);
	if (fw.frame && !(sc->s.flags & PY_STACK_F_CUT) && sc->s.depth >= PY_FRAMES_MAX)
		sc->s.flags |= PY_STACK_F_CUT;
	if (fw.failed && !sc->s.depth) {
		__sync_fetch_and_add(&py_counters.read_failed, 1);
		return 0;
	}
	if (!sc->s.depth) {
		__sync_fetch_and_add(&py_counters.no_frame, 1);
		return 0;
	}
	if (fw.failed) /* kept: the frames read so far, the rest counted as lost */
		__sync_fetch_and_add(&py_counters.read_failed, 1);
	if (sc->s.flags & PY_STACK_F_CUT)
		__sync_fetch_and_add(&py_counters.cut, 1);
	sc->last = py_intern(&sc->s, &sc->fresh);
	if (sc->last)
		__sync_fetch_and_add(&py_counters.stacks, 1);
	return 0;
}

/* The py_stacks id take_py_stack() left on this CPU (0: none); *wake set when it is new
 * (once: the record that carries it wakes the reader). */
static __always_inline __u32 py_last_stack(__u64 *wake)
{
	__u32 zero = 0;
	struct py_scratch *sc = bpf_map_lookup_elem(&py_scratch, &zero);

	if (!sc)
		return 0;
	if (sc->fresh) {
		*wake = BPF_RB_FORCE_WAKEUP;
		sc->fresh = 0;
	}
	return sc->last;
}

#endif /* PYTHON_BPF_H */

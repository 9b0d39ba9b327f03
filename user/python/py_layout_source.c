/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_layout_source - which layout a process gets: the generated table's entry for its minor
 * version, or for 3.13 the _Py_DebugOffsets the interpreter keeps at the start of _PyRuntime.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "procmaps.h"
#include "py_layout_source.h"

const struct py_version_layout *py_layouts__find(unsigned int version)
{
	for (unsigned int i = 0; i < py_layouts_cnt; i++)
		if (py_layouts[i].frames.version == version)
			return &py_layouts[i];
	return NULL;
}

/*
 * 3.13's _Py_DebugOffsets (Include/internal/pycore_runtime.h), as far as we read it: every
 * member a uint64_t, each group led by its struct's size. 3.14 reorders and extends it, so
 * this mirror is used only when the offsets' own version says 3.13.
 */
struct debug_offsets_313 {
	char cookie[8];
	__u64 version; /* PY_VERSION_HEX */
	__u64 free_threaded;
	struct {
		__u64 size, finalizing, interpreters_head;
	} runtime_state;
	struct {
		__u64 size, id, next, threads_head, gc, imports_modules, sysdict, builtins,
		    ceval_gil, gil_runtime_state, gil_runtime_state_enabled,
		    gil_runtime_state_locked, gil_runtime_state_holder;
	} interpreter_state;
	struct {
		__u64 size, prev, next, interp, current_frame, thread_id, native_thread_id,
		    datastack_chunk, status;
	} thread_state;
	struct {
		__u64 size, previous, executable, instr_ptr, localsplus, owner;
	} interpreter_frame;
	struct {
		__u64 size, filename, name, qualname, linetable, firstlineno, argcount,
		    localsplusnames, localspluskinds, co_code_adaptive;
	} code_object;
	struct {
		__u64 size, ob_type;
	} pyobject;
	struct {
		__u64 size, tp_name, tp_repr, tp_flags;
	} type_object;
	struct {
		__u64 size, ob_item, ob_size;
	} tuple_object, list_object;
	struct {
		__u64 size, ma_keys, ma_values;
	} dict_object;
	struct {
		__u64 size, ob_fval;
	} float_object;
	struct {
		__u64 size, lv_tag, ob_digit;
	} long_object;
	struct {
		__u64 size, ob_size, ob_sval;
	} bytes_object;
	struct {
		__u64 size, state, length, asciiobject_size;
	} unicode_object;
};

size_t py_debug_offsets__size(void)
{
	return sizeof(struct debug_offsets_313);
}

/* *dst = off when off + width fits in struct_sz (the target's own word on its struct size)
 * and in 16 bits; else false. */
static bool take(__u16 *dst, __u64 off, unsigned int width, __u64 struct_sz)
{
	if (off >= PY_LAYOUT_NONE || off + width > struct_sz)
		return false;
	*dst = (__u16)off;
	return true;
}

int py_debug_offsets__apply(const void *buf, size_t len, struct py_version_layout *l,
			    unsigned int *found_version)
{
	struct debug_offsets_313 d;
	struct py_layout *f = &l->frames;
	struct py_code_layout *c = &l->code;
	bool ok = true;

	if (len < sizeof(d))
		return -EPROTO;
	memcpy(&d, buf, sizeof(d));
	if (memcmp(d.cookie, "xdebugpy", 8))
		return -EPROTO;
	*found_version = (unsigned int)(d.version >> 16) & 0xffff;
	/* Another version's struct, or a free-threaded build (its objects differ: ob_tid,
	 * per-object locks), is not read with 3.13's default-build layout. */
	if (*found_version != 0x030d || d.free_threaded)
		return -ENOTSUP;
	ok &= take(&f->runtime_interp_head, d.runtime_state.interpreters_head, 8,
		   d.runtime_state.size);
	ok &= take(&f->interp_tstate_head, d.interpreter_state.threads_head, 8,
		   d.interpreter_state.size);
	ok &= take(&f->tstate_next, d.thread_state.next, 8, d.thread_state.size);
	ok &= take(&f->tstate_thread_id, d.thread_state.thread_id, 8, d.thread_state.size);
	ok &= take(&f->tstate_frame, d.thread_state.current_frame, 8, d.thread_state.size);
	ok &= take(&f->frame_back, d.interpreter_frame.previous, 8, d.interpreter_frame.size);
	ok &= take(&f->frame_code, d.interpreter_frame.executable, 8, d.interpreter_frame.size);
	ok &= take(&f->frame_instr, d.interpreter_frame.instr_ptr, 8, d.interpreter_frame.size);
	ok &= take(&f->frame_owner, d.interpreter_frame.owner, 1, d.interpreter_frame.size);
	ok &= take(&c->co_filename, d.code_object.filename, 8, d.code_object.size);
	ok &= take(&c->co_name, d.code_object.name, 8, d.code_object.size);
	ok &= take(&c->co_qualname, d.code_object.qualname, 8, d.code_object.size);
	ok &= take(&c->co_linetable, d.code_object.linetable, 8, d.code_object.size);
	ok &= take(&c->co_firstlineno, d.code_object.firstlineno, 4, d.code_object.size);
	ok &= take(&c->co_code_adaptive, d.code_object.co_code_adaptive, 2, d.code_object.size);
	ok &= take(&c->ob_type, d.pyobject.ob_type, 8, d.pyobject.size);
	ok &= take(&c->ob_size, d.bytes_object.ob_size, 8, d.bytes_object.size);
	ok &= take(&c->bytes_sval, d.bytes_object.ob_sval, 1, d.bytes_object.size);
	ok &= take(&c->str_state, d.unicode_object.state, 4, d.unicode_object.size);
	ok &= take(&c->str_length, d.unicode_object.length, 8, d.unicode_object.size);
	ok &= take(&c->str_ascii_data, d.unicode_object.asciiobject_size, 0,
		   d.unicode_object.size + 1);
	/* Not described by the offsets (the table's stay): tstate_cframe (none in 3.13),
	 * frame_is_entry (none), owner_cstack, instr_kind, the compact str's data offset and
	 * the state's bit positions. */
	return ok ? 0 : -ERANGE;
}

int py_layout_source__get(pid_t pid, unsigned int version, __u64 runtime_addr,
			  struct py_version_layout *out, bool *from_debug, char *why, size_t why_sz)
{
	const struct py_version_layout *t = py_layouts__find(version);
	unsigned char buf[sizeof(struct debug_offsets_313)];
	unsigned int found = 0;
	int err;

	*from_debug = false;
	if (version < 0x030d) {
		if (!t) {
			snprintf(why, why_sz, "unsupported version, native frames only");
			return -ENOTSUP;
		}
		*out = *t;
		out->frames.runtime_addr = runtime_addr;
		return 0;
	}
	/* 3.13+: the interpreter's own description. Only 3.13's is known here. */
	err = procmaps__read_vm(pid, runtime_addr, buf, sizeof(buf));
	if (err) {
		snprintf(why, why_sz, "cannot read _PyRuntime (%s), native frames only",
			 strerror(-err));
		return err;
	}
	if (!t) {
		snprintf(why, why_sz,
			 "unsupported version (its _Py_DebugOffsets are not known "
			 "to this tracer), native frames only");
		return -ENOTSUP;
	}
	*out = *t;
	err = py_debug_offsets__apply(buf, sizeof(buf), out, &found);
	if (err) {
		snprintf(why, why_sz, "%s, native frames only",
			 err == -EPROTO	   ? "no _Py_DebugOffsets at _PyRuntime"
			 : err == -ENOTSUP ? "_Py_DebugOffsets of another version"
					   : "_Py_DebugOffsets out of range");
		return -ENOTSUP;
	}
	*from_debug = true;
	out->frames.runtime_addr = runtime_addr;
	return 0;
}

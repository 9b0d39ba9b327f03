/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * gen_layout - run by gen_layouts.sh, never linked into the tracer: compiled against one
 * CPython's headers (-DPy_BUILD_CORE, internal/ on the include path), it prints that
 * version's entry of py_layouts.c, every number an offsetof()/sizeof() the compiler computed
 * from the interpreter's own structure definitions.
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#if PY_VERSION_HEX < 0x030B0000
#include <frameobject.h>
#endif
#include <internal/pycore_pystate.h>
#if PY_VERSION_HEX >= 0x030B0000
#include <internal/pycore_frame.h>
#include <internal/pycore_runtime.h>
#include <internal/pycore_interp.h>
#endif
#if PY_VERSION_HEX >= 0x030A0000 && PY_VERSION_HEX < 0x030B0000
#include <internal/pycore_interp.h>
#include <internal/pycore_runtime.h>
#endif
#if PY_VERSION_HEX >= 0x03090000 && PY_VERSION_HEX < 0x030A0000
#include <internal/pycore_interp.h>
#include <internal/pycore_runtime.h>
#endif

#define NONE "PY_LAYOUT_NONE"

static void field(const char *name, size_t off)
{
	printf("\t\t.%s = %zu,\n", name, off);
}

static void none(const char *name)
{
	printf("\t\t.%s = %s,\n", name, NONE);
}

/* The bit position of the first set bit of the 4-byte word at p. */
static int first_bit(const void *p)
{
	unsigned int w;

	memcpy(&w, p, sizeof(w));
	return w ? __builtin_ctz(w) : -1;
}

int main(void)
{
	PyASCIIObject a;
	size_t st = offsetof(PyASCIIObject, state);

	printf("\t{ /* %s, from %s */\n", PY_VERSION, GEN_SOURCE);
	printf("\t.frames = {\n");
	field("runtime_interp_head", offsetof(_PyRuntimeState, interpreters.head));
#if PY_VERSION_HEX >= 0x030B0000
	field("interp_tstate_head", offsetof(PyInterpreterState, threads.head));
#else
	field("interp_tstate_head", offsetof(PyInterpreterState, tstate_head));
#endif
	field("tstate_next", offsetof(PyThreadState, next));
	field("tstate_thread_id", offsetof(PyThreadState, thread_id));
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030D0000
	field("tstate_cframe", offsetof(PyThreadState, cframe));
	field("tstate_frame", offsetof(_PyCFrame, current_frame));
#elif PY_VERSION_HEX >= 0x030D0000
	none("tstate_cframe");
	field("tstate_frame", offsetof(PyThreadState, current_frame));
#else
	none("tstate_cframe");
	field("tstate_frame", offsetof(PyThreadState, frame));
#endif
#if PY_VERSION_HEX >= 0x030B0000
	field("frame_back", offsetof(_PyInterpreterFrame, previous));
#if PY_VERSION_HEX >= 0x030D0000
	field("frame_code", offsetof(_PyInterpreterFrame, f_executable));
	field("frame_instr", offsetof(_PyInterpreterFrame, instr_ptr));
#else
	field("frame_code", offsetof(_PyInterpreterFrame, f_code));
	field("frame_instr", offsetof(_PyInterpreterFrame, prev_instr));
#endif
	field("frame_owner", offsetof(_PyInterpreterFrame, owner));
#if PY_VERSION_HEX < 0x030C0000
	field("frame_is_entry", offsetof(_PyInterpreterFrame, is_entry));
#else
	none("frame_is_entry");
#endif
#else
	field("frame_back", offsetof(PyFrameObject, f_back));
	field("frame_code", offsetof(PyFrameObject, f_code));
	field("frame_instr", offsetof(PyFrameObject, f_lasti));
	none("frame_owner");
	none("frame_is_entry");
#endif
#if PY_VERSION_HEX >= 0x030D0000
	printf("\t\t.instr_kind = PY_INSTR_CUR_PTR,\n");
#elif PY_VERSION_HEX >= 0x030B0000
	printf("\t\t.instr_kind = PY_INSTR_PREV_PTR,\n");
#elif PY_VERSION_HEX >= 0x030A0000
	printf("\t\t.instr_kind = PY_INSTR_LASTI_UNITS,\n");
#else
	printf("\t\t.instr_kind = PY_INSTR_LASTI_BYTES,\n");
#endif
#if PY_VERSION_HEX >= 0x030C0000
	printf("\t\t.owner_cstack = %d,\n", (int)FRAME_OWNED_BY_CSTACK);
#else
	printf("\t\t.owner_cstack = 0xff,\n");
#endif
	printf("\t\t.version = 0x%02x%02x,\n", PY_MAJOR_VERSION, PY_MINOR_VERSION);
	printf("\t},\n\t.code = {\n");
	field("ob_type", offsetof(PyObject, ob_type));
	field("ob_size", offsetof(PyVarObject, ob_size));
	field("co_filename", offsetof(PyCodeObject, co_filename));
	field("co_name", offsetof(PyCodeObject, co_name));
#if PY_VERSION_HEX >= 0x030B0000
	field("co_qualname", offsetof(PyCodeObject, co_qualname));
#else
	none("co_qualname");
#endif
	field("co_firstlineno", offsetof(PyCodeObject, co_firstlineno));
#if PY_VERSION_HEX >= 0x030A0000
	field("co_linetable", offsetof(PyCodeObject, co_linetable));
#else
	field("co_linetable", offsetof(PyCodeObject, co_lnotab));
#endif
#if PY_VERSION_HEX >= 0x030B0000
	none("co_code");
	field("co_code_adaptive", offsetof(PyCodeObject, co_code_adaptive));
#else
	field("co_code", offsetof(PyCodeObject, co_code));
	none("co_code_adaptive");
#endif
	field("bytes_sval", offsetof(PyBytesObject, ob_sval));
	field("str_length", offsetof(PyASCIIObject, length));
	field("str_state", st);
	field("str_ascii_data", sizeof(PyASCIIObject));
	field("str_compact_data", sizeof(PyCompactUnicodeObject));
	/* The state bit-fields' positions, measured: set one field, find its bit. */
	memset(&a, 0, sizeof(a));
	a.state.kind = 1;
	field("str_kind_shift", (size_t)first_bit((char *)&a + st));
	memset(&a, 0, sizeof(a));
	a.state.compact = 1;
	field("str_compact_bit", (size_t)first_bit((char *)&a + st));
	memset(&a, 0, sizeof(a));
	a.state.ascii = 1;
	field("str_ascii_bit", (size_t)first_bit((char *)&a + st));
	printf("\t},\n\t},\n");
	return 0;
}

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_runtime - one CPython process we can read from outside (issue #32): is it CPython, which
 * version, where its _PyRuntime is, the struct py_layout BPF walks its frames with, and the
 * names of the (code, instr) pairs BPF records.
 *
 * Every read of the target goes through process_vm_readv, bounded; nothing the target holds
 * is trusted (sizes, pointers and strings are checked; names are made terminal-safe).
 * Not thread-safe: one runtime is used by one thread (the collector's).
 */
#ifndef TRACER_PY_RUNTIME_H
#define TRACER_PY_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "python_abi.h"

struct py_runtime; /* one CPython process we can read */

/* NULL if pid is not CPython (or an unsupported one). *why: NULL for "not Python";
 * else a one-line reason for the user ("python 3.7: unsupported version, native frames only").
 * *why is a static string or one owned by the library, valid until the next call. */
struct py_runtime *py_runtime__open(pid_t pid, const char **why);

/* The layout BPF walks frames with (runtime_addr filled in). Valid while rt lives. */
const struct py_layout *py_runtime__layout(const struct py_runtime *rt);

/* The interpreter's version, "3.11.2". Valid while rt lives. */
const char *py_runtime__version(const struct py_runtime *rt);

/* The ELF file (path as in /proc/PID/maps) holding the interpreter: the python3.N executable
 * or the mapped libpython3.N.so: where the allocator domain functions are probed. */
const char *py_runtime__image(const struct py_runtime *rt);

/* Names a recorded frame "py: QUALNAME (FILE:LINE)" into buf (sanitized, bounded).
 * Reads the code object from the live target, cached by code address and validated
 * (type is PyCode_Type, fields unchanged). false if it cannot be read (freed/reused). */
bool py_runtime__frame_name(struct py_runtime *rt, const struct py_frame *f, char *buf, size_t len);

/* Free rt. Accepts NULL. */
void py_runtime__free(struct py_runtime *rt);

/* Is this native function (symbol name) CPython's evaluation loop, where Python frames are
 * spliced in: _PyEval_EvalFrameDefault (3.8+), and 3.14's tail-call frames if any. */
bool py_is_eval_loop(const char *native_fn);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_runtime - one CPython process read from outside (py_runtime.h): detection (py_detect),
 * its layout (py_layout_source), frame names (py_code). The one-line reasons for a process
 * that is Python but cannot be read are worded here, the same for every caller.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "py_code.h"
#include "py_detect.h"
#include "py_layout_source.h"
#include "py_runtime.h"
#include "safe_text.h"

struct py_runtime {
	pid_t pid;
	char version[32];
	char *image;
	struct py_version_layout layout; /* frames.runtime_addr set */
	struct py_code_target target;	 /* points at layout */
	struct py_code_cache *codes;
};

/* The reason of the last py_runtime__open that returned one (per thread). Every part of it
 * that came from the target (a path, a version) is terminal-safe or checked to be digits. */
static __thread char why_buf[512];

/* Set *why to "python VERSION: reason" and return NULL. */
static struct py_runtime *refuse(const char **why, const char *version, const char *reason)
{
	snprintf(why_buf, sizeof(why_buf), "python %s: %s", version, reason);
	if (why)
		*why = why_buf;
	return NULL;
}

struct py_runtime *py_runtime__open(pid_t pid, const char **why)
{
	struct py_image_info *info = calloc(1, sizeof(*info));
	struct py_runtime *rt = NULL;
	char reason[256], ver[32];
	bool from_debug;
	int err;

	if (why)
		*why = NULL;
	if (!info)
		return NULL;
	err = py_detect__image(pid, info);
	if (err) {
		/* -ENOENT: not Python, nothing to say. Else a Python we could not open. */
		if (err != -ENOENT && info->name_version) {
			snprintf(ver, sizeof(ver), "%u.%u", info->name_version >> 8,
				 info->name_version & 0xff);
			snprintf(reason, sizeof(reason), "cannot read %s (%s), native frames only",
				 safe_text__term(info->image), strerror(-err));
			refuse(why, ver, reason);
		}
		goto cleanup;
	}
	snprintf(ver, sizeof(ver), "%s", info->version_str);
	/* Before 3.8 the frames and thread states differ in kind, not just in offsets; 3.14+
	 * is refused by py_layout_source, after a look at its debug offsets. */
	if (info->version < 0x0308) {
		refuse(why, ver, "unsupported version, native frames only");
		goto cleanup;
	}
	if (!info->runtime_addr || !info->code_type_addr) {
		refuse(
		    why, ver,
		    !info->runtime_addr
			? "_PyRuntime not found in the interpreter's symbols, native frames only"
			: "PyCode_Type not found in the interpreter's symbols, native frames only");
		goto cleanup;
	}
	rt = calloc(1, sizeof(*rt));
	if (!rt)
		goto cleanup;
	err = py_layout_source__get(pid, info->version, info->runtime_addr, &rt->layout,
				    &from_debug, reason, sizeof(reason));
	if (err) {
		refuse(why, ver, reason);
		goto fail;
	}
	rt->codes = py_code_cache__new();
	rt->image = strdup(info->image);
	if (!rt->codes || !rt->image)
		goto fail;
	rt->pid = pid;
	snprintf(rt->version, sizeof(rt->version), "%s", info->version_str);
	rt->target = (struct py_code_target){.pid = pid,
					     .l = &rt->layout,
					     .code_type = info->code_type_addr,
					     .unicode_type = info->unicode_type_addr};
	goto cleanup;
fail:
	py_runtime__free(rt);
	rt = NULL;
cleanup:
	free(info);
	return rt;
}

const struct py_layout *py_runtime__layout(const struct py_runtime *rt)
{
	return &rt->layout.frames;
}

const char *py_runtime__version(const struct py_runtime *rt)
{
	return rt->version;
}

const char *py_runtime__image(const struct py_runtime *rt)
{
	return rt->image;
}

bool py_runtime__frame_name(struct py_runtime *rt, const struct py_frame *f, char *buf, size_t len)
{
	if (!len)
		return false;
	return py_code__name(rt->codes, &rt->target, f, buf, len);
}

void py_runtime__free(struct py_runtime *rt)
{
	if (!rt)
		return;
	py_code_cache__free(rt->codes);
	free(rt->image);
	free(rt);
}

bool py_is_eval_loop(const char *native_fn)
{
	static const char eval[] = "_PyEval_EvalFrameDefault";
	size_t n = sizeof(eval) - 1;

	if (!native_fn)
		return false;
	/* 3.8-3.13: one function runs every Python frame of one evaluation-loop call; GCC
	 * moves its unlikely paths to "_PyEval_EvalFrameDefault.cold" (pyenv 3.11, 3.12),
	 * still the same call. */
	if (!strncmp(native_fn, eval, n) && (!native_fn[n] || !strcmp(native_fn + n, ".cold")))
		return true;
	/* 3.14's tail-calling interpreter (clang 19+, --with-tail-call-interp) runs each
	 * instruction in its own function, _TAIL_CALL_<OPNAME>, entered by tail calls from
	 * _PyEval_EvalFrameDefault (whose own frame is then gone): one such frame stands for
	 * one loop call. (From CPython 3.14's sources; no 3.14 on the test host.) */
	return strncmp(native_fn, "_TAIL_CALL_", 11) == 0;
}

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* py_runtime - stub bodies (the interface first; see py_runtime.h). */
#include <string.h>

#include "py_runtime.h"

struct py_runtime *py_runtime__open(pid_t pid, const char **why)
{
	(void)pid;
	if (why)
		*why = NULL;
	return NULL;
}

const struct py_layout *py_runtime__layout(const struct py_runtime *rt)
{
	(void)rt;
	return NULL;
}

const char *py_runtime__version(const struct py_runtime *rt)
{
	(void)rt;
	return "";
}

const char *py_runtime__image(const struct py_runtime *rt)
{
	(void)rt;
	return "";
}

bool py_runtime__frame_name(struct py_runtime *rt, const struct py_frame *f, char *buf,
			    size_t len)
{
	(void)rt;
	(void)f;
	(void)buf;
	(void)len;
	return false;
}

void py_runtime__free(struct py_runtime *rt)
{
	(void)rt;
}

bool py_is_eval_loop(const char *native_fn)
{
	return native_fn && strcmp(native_fn, "_PyEval_EvalFrameDefault") == 0;
}

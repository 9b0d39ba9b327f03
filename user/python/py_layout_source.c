/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_layout_source - which layout a process gets: the generated table's entry for its minor
 * version, or for 3.13+ the _Py_DebugOffsets the interpreter keeps at the start of _PyRuntime.
 */
#include <stddef.h>

#include "py_layouts.h"

const struct py_version_layout *py_layouts__find(unsigned int version)
{
	for (unsigned int i = 0; i < py_layouts_cnt; i++)
		if (py_layouts[i].frames.version == version)
			return &py_layouts[i];
	return NULL;
}

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * python_util - the interpreters the Python tests run (python_util.h).
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "python_util.h"

struct pyenv_minor pyenv_minors[PYENV_MINORS_CNT] = {{"3.8"},  {"3.9"},	 {"3.10"},
						     {"3.11"}, {"3.12"}, {"3.13"}};

void pyenv_python(const char *m, char *path, size_t path_sz)
{
	char pattern[256];
	const char *best = NULL;
	glob_t g;

	snprintf(pattern, sizeof(pattern), "/root/.pyenv/versions/%s.*/bin/python%s", m, m);
	if (glob(pattern, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (!access(g.gl_pathv[i], X_OK) &&
			    (!best || strverscmp(g.gl_pathv[i], best) > 0))
				best = g.gl_pathv[i];
	}
	snprintf(path, path_sz, "%s", best ? best : "");
	globfree(&g);
	if (!path[0])
		cr_skip_test("no pyenv python%s on this host", m);
}

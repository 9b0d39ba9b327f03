// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Loaded by the fixture with dlopen(), after the symbolizer has read the maps. */

int symfix_dl_func(int x)
{
	return x * 7 + 3;
}

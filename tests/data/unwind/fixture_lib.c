// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Shared library dlopen()ed by the unwinder fixture (unwfix dlopen LIB) after the test
 * read its maps: its frames unwind only once the unwinder refreshed its maps. Built
 * -O2 -fomit-frame-pointer like the fixture.
 */
volatile int unwlib_sink; /* defeats constant folding */

/* Calls back into the executable's probe with a frame of its own. */
__attribute__((noinline)) int unwlib_mid(int x, void (*probe)(void))
{
	volatile int buf[20];

	buf[x % 20] = x;
	probe();
	return buf[(x + 1) % 20] + x + unwlib_sink;
}

int unwlib_entry(int x, void (*probe)(void))
{
	int r = unwlib_mid(x + 1, probe);

	return r * 3 + x;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * live_path_link_unit - built from the live path's libraries alone, every object of them linked
 * (tests/layering.cmake): that it links at all is the check. Running it says so for ctest.
 */
#include <stdio.h>

int main(void)
{
	puts("the live path links without report and diff");
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A program with PLT calls, linked with binutils' IBT .plt (tests/cfi_table.cmake): its
 * .eh_frame carries that .plt's CFA expression, whose threshold differs from the lazy one. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	char *p = malloc((size_t)argc + 16);

	puts(argc > 1 ? argv[1] : "ibtplt");
	free(p);
	return 0;
}

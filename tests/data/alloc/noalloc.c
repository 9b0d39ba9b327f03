// SPDX-License-Identifier: MIT
/* noalloc - makes no allocator call at all: a trace of it must say so, not stay silent. */
#include <unistd.h>

int main(void)
{
	return write(1, "noalloc: nothing allocated\n", 27) == 27 ? 0 : 1;
}

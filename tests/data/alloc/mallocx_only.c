// SPDX-License-Identifier: MIT
/*
 * mallocx_only - allocates only through jemalloc's non-standard API (mallocx/dallocx), with
 * jemalloc linked statically (libjemalloc_pic.a). malloc resolves to the executable's
 * jemalloc but is never called: the tracer, which probes malloc's family, sees nothing and
 * must say why. Build:
 *   cc -O1 -o mallocx_only mallocx_only.c /usr/lib/x86_64-linux-gnu/libjemalloc_pic.a -lpthread -ldl -lm
 */
#include <jemalloc/jemalloc.h>
#include <unistd.h>

int main(void)
{
	for (int i = 0; i < 10; i++)
		dallocx(mallocx(100 + (size_t)i, 0), 0);
	return write(1, "mallocx only: 10 blocks\n", 24) == 24 ? 0 : 1;
}

// SPDX-License-Identifier: MIT
/*
 * jemalloc_static - the alloc_script.h calls with Debian's jemalloc (libjemalloc-dev 5.3.0)
 * linked statically into the executable, which therefore exports malloc/free itself: libc's
 * malloc is never called. Build (verified on Debian 12):
 *   cc -O1 -g -o jemalloc_static jemalloc_static.c \
 *      /usr/lib/x86_64-linux-gnu/libjemalloc_pic.a -lpthread -ldl -lm
 * Own counts printed: "jemalloc_static: blocks 22 bytes 185944 frees 18 live 1/777"
 * Valgrind 3.19 DHAT (needs --soname-synonyms=somalloc=NONE to replace the executable's malloc):
 *   valgrind --tool=dhat --soname-synonyms=somalloc=NONE ./jemalloc_static
 *   Total: 185,944 bytes in 22 blocks; At t-gmax: 104,237 bytes in 6 blocks;
 *   At t-end: 777 bytes in 1 blocks
 * Valgrind 3.19 reported the same figures without the option too.
 */
#include <jemalloc/jemalloc.h>

#include "alloc_script.h"

int main(void)
{
	struct alloc_counts c = { 0 };
	const char *version = "?";
	size_t sz = sizeof(version);

	alloc_script_run(&c);
	alloc_script_print("jemalloc_static", &c);
	/* Proves jemalloc is linked; it reads a constant and allocates nothing. */
	if (mallctl("version", &version, &sz, NULL, 0) == 0)
		if (write(1, "jemalloc ", 9) < 0 || write(1, version, strlen(version)) < 0 ||
		    write(1, "\n", 1) < 0)
			return 1;
	return 0;
}

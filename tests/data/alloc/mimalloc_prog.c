// SPDX-License-Identifier: MIT
/*
 * mimalloc_prog - the alloc_script.h calls with Debian's mimalloc (libmimalloc-dev 2.0.9). Debian
 * ships only libmimalloc.so, which exports malloc/free; linked first it is the executable's first
 * DT_NEEDED, ahead of libc, so the dynamic linker resolves malloc to mimalloc. Build (verified
 * on Debian 12; -Wl,--no-as-needed keeps the DT_NEEDED although no mi_* symbol is needed):
 *   cc -O1 -g -o mimalloc_prog mimalloc_prog.c -Wl,--no-as-needed -lmimalloc
 * Own counts printed: "mimalloc_prog: blocks 22 bytes 185944 frees 18 live 1/777"
 *   then "malloc is mimalloc"
 * Valgrind 3.19 DHAT, with no option or with --soname-synonyms=somalloc=*mimalloc* (its preloaded
 * malloc comes first in symbol lookup, so mimalloc's malloc is never called; the program then
 * prints "malloc is not mimalloc"):
 *   valgrind --tool=dhat ./mimalloc_prog
 *   Total: 185,944 bytes in 22 blocks; At t-gmax: 104,237 bytes in 6 blocks;
 *   At t-end: 777 bytes in 1 blocks
 * With --soname-synonyms=somalloc=NONE (the option for an allocator inside the executable)
 * Valgrind reported 0 bytes in 0 blocks here: do not use it for this program.
 */
#include <mimalloc.h>

#include "alloc_script.h"

int main(void)
{
	struct alloc_counts c = { 0 };
	int ours;

	alloc_script_run(&c);
	alloc_script_print("mimalloc_prog", &c);
	/* Proves malloc resolved to mimalloc, without allocating: the leaked block (the last one
	 * the script made) lies in mimalloc's heap. Under Valgrind it does not: Valgrind replaced
	 * malloc. */
	ours = mi_is_in_heap_region((const void *)alloc_sink);
	if (write(1, ours ? "malloc is mimalloc\n" : "malloc is not mimalloc\n", ours ? 19 : 23) < 0)
		return 1;
	return 0;
}

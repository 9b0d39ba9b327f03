/*
 * Memory malloc itself maps, from known callers (death_e2e: the mapping sites' stacks go
 * through malloc, whose return the allocation probes hijack, on to grow_here,
 * grow_brk_here and main): after one small block (the heap set up by brk), grow_brk_here
 * asks for blocks under the mmap threshold until the brk heap has to grow, and grow_here
 * asks for one block of 1 MiB, which glibc maps with mmap (above the 128 KiB threshold).
 * Nothing is freed before the exit, so the threshold does not move.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG_BYTES  (1ul << 20)
#define BRK_BYTES  (96ul << 10)
#define BRK_BLOCKS 4

static void *volatile keep[BRK_BLOCKS + 2];

__attribute__((noinline)) static void grow_brk_here(void)
{
	for (int i = 0; i < BRK_BLOCKS; i++) {
		keep[1 + i] = malloc(BRK_BYTES);
		if (!keep[1 + i])
			abort();
		memset(keep[1 + i], i, BRK_BYTES);
	}
}

__attribute__((noinline)) static void grow_here(void)
{
	keep[1 + BRK_BLOCKS] = malloc(BIG_BYTES);
	if (!keep[1 + BRK_BLOCKS])
		abort();
	memset(keep[1 + BRK_BLOCKS], 1, BIG_BYTES);
}

int main(void)
{
	keep[0] = malloc(16);
	grow_brk_here();
	grow_here();
	printf("grown %p %p\n", keep[1], keep[1 + BRK_BLOCKS]);
	return 0;
}

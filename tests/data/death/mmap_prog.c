/*
 * Maps 100 MiB with mmap outside malloc (map_pool), touches every page, allocates a little
 * with malloc (a few blocks Valgrind's DHAT counts the same), then exits 0 with both held
 * (death_e2e: the outside-malloc section and the RSS split name map_pool, while the
 * DHAT totals equal Valgrind's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define POOL_BYTES (100ul << 20)

static void *keep[8];

__attribute__((noinline)) static void *map_pool(void)
{
	void *p =
	    mmap(NULL, POOL_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		abort();
	memset(p, 1, POOL_BYTES);
	return p;
}

__attribute__((noinline)) static void small_blocks(void)
{
	for (int i = 0; i < 8; i++) {
		keep[i] = malloc(1000 + (size_t)i);
		memset(keep[i], i, 1000);
	}
	free(keep[0]);
	keep[0] = NULL;
}

int main(void)
{
	volatile char *pool = map_pool();

	small_blocks();
	printf("pool %p first byte %d\n", (void *)pool, pool[0]);
	return 0;
}

/* Dies of SIGSEGV at a known address after a few allocations (death_e2e). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAD_ADDR 0x1234

static void *keep[16];

__attribute__((noinline)) static void fill(void)
{
	for (int i = 0; i < 16; i++) {
		keep[i] = malloc(4096);
		memset(keep[i], i, 4096);
	}
}

int main(void)
{
	volatile int *p = (volatile int *)(unsigned long)BAD_ADDR;

	fill();
	printf("faulting at 0x%x\n", BAD_ADDR);
	fflush(stdout);
	return *p;
}

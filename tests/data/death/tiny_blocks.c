/*
 * 1000 blocks of 1 byte, all live at exit, and nothing else allocated (no stdio): in glibc's
 * malloc each is a chunk of MINSIZE, 32 bytes, so the heap counted in chunks is exactly
 * 32000 bytes at the end against 1000 live (rss_e2e).
 */
#include <stdlib.h>
#include <unistd.h>

#define BLOCKS 1000

static void *keep[BLOCKS];

__attribute__((noinline)) static void tiny(void)
{
	for (int i = 0; i < BLOCKS; i++)
		keep[i] = malloc(1);
}

int main(void)
{
	static const char done[] = "tiny blocks done\n";

	tiny();
	if (write(STDOUT_FILENO, done, sizeof(done) - 1) < 0)
		return 1;
	return keep[BLOCKS - 1] ? 0 : 1;
}

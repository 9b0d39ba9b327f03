/*
 * Leaks at one site (leak_chunk) until something stops it: in a memory cgroup, the OOM
 * killer (death_e2e_test, docs/OOM.md). Every chunk is written so it counts in RSS.
 * With "--wait FILE" it first prints "waiting" and starts only once FILE exists, so a tracer
 * can attach with --pid before the leak begins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (64 << 10)

static void **chunks;
static size_t n_chunks;

__attribute__((noinline)) static void leak_chunk(void)
{
	char *p = malloc(CHUNK);

	if (!p)
		abort();
	memset(p, 0x5a, CHUNK);
	if (n_chunks % 1024 == 0) /* the index itself: a second, small site */
		chunks = realloc(chunks, (n_chunks + 1024) * sizeof(*chunks));
	chunks[n_chunks++] = p;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--wait")) {
		printf("waiting %d\n", (int)getpid());
		fflush(stdout);
		while (access(argv[2], F_OK))
			usleep(10000);
	}
	printf("leaking\n");
	fflush(stdout);
	for (;;)
		leak_chunk();
}

/*
 * Leaks at one site (leak_chunk) until something stops it: in a memory cgroup, the OOM
 * killer (death_e2e, docs/OOM.md). Every chunk is written so it counts in RSS.
 * With "--wait FILE" it first prints "waiting" and starts only once FILE exists, so a tracer
 * can attach with --pid before the leak begins. With "--slow" it pauses 1 ms per chunk
 * (64 MiB in a second or more instead of ~0.2 s), so that an RSS threshold is seen on the
 * way up even on a loaded machine. With "--hold-at MIB FILE" it stops once MIB MiB are
 * leaked until FILE exists (at most 60 s), so a test can have a tracer act on that state,
 * whatever the speed of the host, before the leak goes on.
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
	size_t hold_chunks = 0;
	const char *hold_file = NULL;
	int slow = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--slow")) {
			slow = 1;
		} else if (!strcmp(argv[i], "--hold-at") && i + 2 < argc) {
			hold_chunks = (size_t)atol(argv[++i]) * ((1 << 20) / CHUNK);
			hold_file = argv[++i];
		} else if (!strcmp(argv[i], "--wait") && i + 1 < argc) {
			const char *go = argv[++i]; /* once: not on every turn of the wait */

			printf("waiting %d\n", (int)getpid());
			fflush(stdout);
			while (access(go, F_OK))
				usleep(10000);
		}
	}
	printf("leaking\n");
	fflush(stdout);
	for (;;) {
		leak_chunk();
		if (slow)
			usleep(1000);
		if (hold_file && n_chunks == hold_chunks) {
			printf("holding at %zu MiB\n", n_chunks * CHUNK >> 20);
			fflush(stdout);
			for (int t = 0; t < 6000 && access(hold_file, F_OK); t++)
				usleep(10000);
		}
	}
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A steady allocator for `tracer top` (tests/top_e2e.c): every 10 ms grow_cache keeps one
 * more 1 KiB block (live bytes that only grow: the top row by live bytes) and churn_buffers
 * allocates and frees eight 256-byte blocks (the top row by count, nothing left live); a
 * worker thread named "top_worker" allocates and frees 512 bytes in worker_scratch (the
 * thread row of `t`, its top site).
 * Writes nothing on stdout (top draws there). Runs until killed, or argv[1] seconds.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Global and written: no compiler may drop the kept blocks. */
void *kept[1 << 16];
size_t kept_cnt;

__attribute__((noinline)) static void grow_cache(void)
{
	void *p = malloc(1024);

	if (p)
		memset(p, 1, 1024);
	if (kept_cnt < sizeof(kept) / sizeof(kept[0]))
		kept[kept_cnt++] = p;
	else
		free(p);
}

__attribute__((noinline)) static void churn_buffers(void)
{
	for (int i = 0; i < 8; i++) {
		char *volatile p = malloc(256);

		if (p)
			p[0] = (char)i;
		free(p);
	}
}

__attribute__((noinline)) static void worker_scratch(void)
{
	char *volatile p = malloc(512);

	if (p)
		p[0] = 1;
	free(p);
}

static void *worker(void *arg)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	(void)arg;
	/* named by itself before its first malloc: the tracer reads the name (comm) when it
	 * first sees the thread allocate */
	pthread_setname_np(pthread_self(), "top_worker");
	for (;;) {
		worker_scratch();
		nanosleep(&tick, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 600;
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	pthread_t w;

	if (pthread_create(&w, NULL, worker, NULL))
		return 1;

	for (long turn = 0; turn < (long)(secs * 100); turn++) {
		grow_cache();
		churn_buffers();
		nanosleep(&tick, NULL);
	}
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * alloc_bench - allocator micro-benchmarks for the tracer benchmark (workloads/bench/run.sh).
 *
 *   alloc_bench pairs N        N malloc/free pairs on one thread (sizes 16..1008 bytes)
 *   alloc_bench mt T N         the same on T threads, N pairs each
 *   alloc_bench realloc N      N rounds of realloc growth: realloc(NULL, 16), then doubling
 *                              to 4096 (8 more reallocs), then free: 10 calls per round
 *
 * Every call goes through the libc entry points (-fno-builtin, and the pointers escape
 * through an empty asm), so a tracer sees exactly the calls counted above. Prints nothing:
 * run.sh times the process with bench_timer.so.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keep the compiler from pairing away malloc/free. */
#define ESCAPE(p) __asm__ volatile("" : : "r"(p) : "memory")

__attribute__((noinline)) static void *bench_alloc(size_t sz)
{
	void *p = malloc(sz);

	ESCAPE(p);
	return p;
}

__attribute__((noinline)) static void bench_free(void *p)
{
	ESCAPE(p);
	free(p);
}

static void *pairs(void *arg)
{
	long n = (long)arg;

	for (long i = 0; i < n; i++)
		bench_free(bench_alloc(16 + (size_t)(i & 63) * 16));
	return NULL;
}

static void growth(long rounds)
{
	for (long r = 0; r < rounds; r++) {
		void *p = realloc(NULL, 16);

		for (size_t sz = 32; sz <= 4096; sz *= 2) {
			void *q = realloc(p, sz);

			if (!q)
				abort();
			p = q;
			ESCAPE(p);
		}
		free(p);
	}
}

static long arg_long(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v <= 0) {
		fprintf(stderr, "alloc_bench: bad number: %s\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "pairs")) {
		pairs((void *)arg_long(argv[2]));
	} else if (argc == 4 && !strcmp(argv[1], "mt")) {
		long t = arg_long(argv[2]), n = arg_long(argv[3]);
		pthread_t th[64];

		if (t > 64)
			t = 64;
		for (long i = 0; i < t; i++)
			if (pthread_create(&th[i], NULL, pairs, (void *)n))
				return 1;
		for (long i = 0; i < t; i++)
			pthread_join(th[i], NULL);
	} else if (argc == 3 && !strcmp(argv[1], "realloc")) {
		growth(arg_long(argv[2]));
	} else {
		fprintf(stderr, "usage: alloc_bench pairs N | mt THREADS N | realloc ROUNDS\n");
		return 2;
	}
	return 0;
}

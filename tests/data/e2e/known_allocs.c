// SPDX-License-Identifier: MIT
/*
 * known_allocs - a deterministic program with known allocations per call site, traced by
 * the end-to-end tests with `tracer -- known_allocs` and with `valgrind --tool=dhat`.
 * Each call site lives in its own noinline function so both tools name it the same way.
 * Exit status 3 (non-zero on purpose: the tracer must pass the command's status through).
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

/* Stops the compiler from proving a block unused and dropping the call. */
static void *volatile sink;

NOINLINE static void *site_malloc(size_t n)
{
	void *p = malloc(n);
	sink = p;
	return p;
}

NOINLINE static void *site_calloc(size_t m, size_t n)
{
	void *p = calloc(m, n);
	sink = p;
	return p;
}

/* malloc(100) -> realloc 200 (growth) -> realloc 50 (shrink): one PP, 3 blocks, 350 bytes. */
NOINLINE static void *site_grow_shrink(void)
{
	char *p = malloc(100);
	memset(p, 1, 100);
	p = realloc(p, 200);
	p = realloc(p, 50);
	sink = p;
	return p;
}

NOINLINE static void *site_realloc_null(void)
{
	void *p = realloc(NULL, 64);
	sink = p;
	return p;
}

/* malloc(16) then realloc(p, 0): a free; 16 bytes in 1 block at this PP. */
NOINLINE static void site_realloc_zero(void)
{
	void *p = malloc(16);
	sink = p;
	p = realloc(p, 0);
	sink = p;
}

NOINLINE static void *site_reallocarray(void)
{
	void *p = malloc(24);
	p = reallocarray(p, 10, 12);
	sink = p;
	return p;
}

NOINLINE static void *site_posix_memalign(void)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, 256))
		return NULL;
	sink = p;
	return p;
}

NOINLINE static void *site_aligned_alloc(void)
{
	void *p = aligned_alloc(128, 384);
	sink = p;
	return p;
}

NOINLINE static void *site_memalign(void)
{
	void *p = memalign(32, 48);
	sink = p;
	return p;
}

NOINLINE static void *site_valloc(void)
{
	void *p = valloc(1000);
	sink = p;
	return p;
}

NOINLINE static char *site_strdup(void)
{
	char *p = strdup("a string of thirty-one bytes..");
	sink = p;
	return p;
}

NOINLINE static void *site_leak(void)
{
	void *p = malloc(777);
	sink = p;
	return p;
}

#define THREAD_ALLOCS 50

/* The two threads allocate at once, in lock step: both blocks of a round are live together
 * before either is freed, so the peak is the same in every run (free-running, whether the
 * two overlapped at the peak was up to the scheduler, and the peak differed by a block). */
static pthread_barrier_t lock_step;

NOINLINE static void *thread_allocs(void *arg)
{
	size_t sz = (size_t)arg;
	for (int i = 0; i < THREAD_ALLOCS; i++) {
		void *p = site_malloc(sz);

		pthread_barrier_wait(&lock_step);
		free(p);
		pthread_barrier_wait(&lock_step);
	}
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;
	void *table, *buf, *ra, *arr, *pm, *aa, *ma, *va, *s;
	void *small[3];

	table = site_calloc(10, 8);
	buf = site_grow_shrink();
	for (int i = 0; i < 3; i++)
		small[i] = site_malloc(32);
	ra = site_realloc_null();
	site_realloc_zero();
	arr = site_reallocarray();
	pm = site_posix_memalign();
	aa = site_aligned_alloc();
	ma = site_memalign();
	va = site_valloc();
	s = site_strdup();
	site_leak();

	if (pthread_barrier_init(&lock_step, NULL, 2) ||
	    pthread_create(&t1, NULL, thread_allocs, (void *)(size_t)40) ||
	    pthread_create(&t2, NULL, thread_allocs, (void *)(size_t)56))
		return 1;
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);

	free(small[0]);
	free(small[1]);
	free(small[2]);
	free(table);
	free(buf);
	free(ra);
	free(arr);
	free(pm);
	free(aa);
	free(ma);
	free(va);
	free(s);
	free(NULL);
	return 3;
}

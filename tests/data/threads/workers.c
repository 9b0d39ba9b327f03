// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Four named worker threads (pthread_setname_np before their first allocation), each
 * allocating blocks of one known size: worker-0 100 x 24 B, worker-1 50 x 200 B,
 * worker-2 20 x 3000 B, worker-3 5 x 40000 B; every block freed but worker-3's, which stay
 * live to the end. The threads wait at a barrier before they end, so that they are still
 * alive when the tracer first sees them allocate (it reads their names from /proc).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const size_t SIZE[4] = { 24, 200, 3000, 40000 };
static const int COUNT[4] = { 100, 50, 20, 5 };
static pthread_barrier_t done;
static void *kept[5];

static void *work(void *arg)
{
	int w = (int)(long)arg;
	char name[16];
	void *p[100];

	snprintf(name, sizeof(name), "worker-%d", w);
	pthread_setname_np(pthread_self(), name);
	for (int i = 0; i < COUNT[w]; i++) {
		p[i] = malloc(SIZE[w]);
		memset(p[i], w, SIZE[w]);
	}
	for (int i = 0; i < COUNT[w]; i++) {
		if (w == 3)
			kept[i] = p[i];
		else
			free(p[i]);
	}
	pthread_barrier_wait(&done);
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	pthread_barrier_init(&done, NULL, 5);
	for (long w = 0; w < 4; w++)
		pthread_create(&t[w], NULL, work, (void *)w);
	usleep(300 * 1000); /* the tracer reads each name at its first record */
	pthread_barrier_wait(&done);
	for (int w = 0; w < 4; w++)
		pthread_join(t[w], NULL);
	printf("%p\n", kept[0]);
	return 0;
}

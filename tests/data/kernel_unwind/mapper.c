// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * mapper: one thread maps and unmaps 1 MiB in a loop (each mmap and munmap holds the
 * process's mmap_lock for writing) while WORKERS threads malloc and free ROUNDS blocks each.
 * The workers' stacks run through libc's start_thread, which ld.so mapped after the exec's
 * description: BPF finds it by its VMA, a lookup refused while the lock is held. Built
 * without frame pointers, like Debian's programs.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>

#define WORKERS 2
#define ROUNDS	20000

static atomic_int stop;

static void *mapper(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		void *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, 1 << 20);
	}
	return NULL;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		void *volatile p = malloc(64 + (size_t)(i % 512)); /* volatile: not elided */

		free(p);
	}
	return NULL;
}

int main(void)
{
	pthread_t m, w[WORKERS];

	if (pthread_create(&m, NULL, mapper, NULL))
		return 1;
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&w[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	atomic_store(&stop, 1);
	pthread_join(m, NULL);
	return 0;
}

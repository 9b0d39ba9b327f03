// SPDX-License-Identifier: MIT
/*
 * threads - three threads allocating from a recursion of 256-byte frames, 0 to 8 deep,
 * without frame pointers (-O2 -fomit-frame-pointer like the other DWARF fixtures). A
 * thread's stack copy runs into the end of its stack mapping (a short copy) when the thread
 * is shallow: stack hints must serve those too, per thread. ROUNDS (argv[1], default 30000)
 * allocations a thread. Exit status 0.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static void *volatile sink;
static volatile char byte_sink;
static long rounds = 30000;

NOINLINE static void leaf(int i)
{
	void *p = malloc(16 + (size_t)(i & 255));

	sink = p;
	free(p);
}

NOINLINE static void frames(int i, int depth)
{
	volatile char pad[256];

	memset((char *)pad, depth, sizeof(pad));
	if (depth)
		frames(i, depth - 1);
	else
		leaf(i);
	byte_sink = pad[3];
}

static void *worker(void *arg)
{
	long k = (long)arg;

	for (long i = 0; i < rounds; i++)
		frames((int)i, (int)((i + k) % 9));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];

	if (argc > 1)
		rounds = atol(argv[1]);
	for (long k = 0; k < 3; k++)
		if (pthread_create(&t[k], NULL, worker, (void *)k))
			return 1;
	for (int k = 0; k < 3; k++)
		pthread_join(t[k], NULL);
	return 0;
}

/*
 * many_threads N READY-FILE - a process of N threads (and its main one) that each make a
 * malloc/free pair every 10 ms, for attach_paths.sh: the attach and detach of the inherited
 * probes are per thread. Writes READY-FILE once every thread runs; lives until killed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		void *volatile p = malloc(64);

		free(p);
		usleep(10000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 64;
	FILE *f;

	if (argc < 3 || n < 1 || n > 4096) {
		fprintf(stderr, "usage: many_threads N READY-FILE\n");
		return 2;
	}
	for (int i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker, NULL))
			return 1;
	}
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n", n);
	fclose(f);
	worker(NULL);
	return 0;
}

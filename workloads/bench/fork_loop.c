/*
 * fork_loop N - the fork-heavy row (docs/BENCHMARKS.md, "Forks"): N sequential fork +
 * waitpid, each child making one malloc/free pair and exiting, as a shell loop or a
 * pre-forking server does. Prints its own wall time for the loop (ms), so the tracer's
 * start and stop are not counted: "fork_loop: N forks in T ms".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 30;
	double t0 = now_ms();

	for (int i = 0; i < n; i++) {
		pid_t p = fork();

		if (p < 0)
			return 1;
		if (p == 0) {
			void *volatile q = malloc(64);

			free(q);
			_exit(0);
		}
		waitpid(p, NULL, 0);
	}
	fprintf(stderr, "fork_loop: %d forks in %.1f ms\n", n, now_ms() - t0);
	return 0;
}

/*
 * alloc_spin - a busy allocation loop for the fault tests: malloc/free pairs as fast as it
 * can, and every 100 ms one line "RATE" on stdout (pairs per second over that interval), so a
 * test can see whether uprobes are (still) slowing it down. Runs until killed, or for argv[1]
 * seconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = argc > 1 ? now_s() + atof(argv[1]) : 0, t0 = now_s();
	unsigned long n = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		for (int i = 0; i < 1000; i++) {
			void *volatile p = malloc(32 + (i & 63));

			free(p);
		}
		n += 1000;
		double t = now_s();
		if (t - t0 >= 0.1) {
			printf("%.0f\n", n / (t - t0));
			n = 0;
			t0 = t;
			if (end && t >= end)
				return 0;
		}
	}
}

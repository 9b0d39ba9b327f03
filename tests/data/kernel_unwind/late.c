// SPDX-License-Identifier: MIT
/*
 * late - deterministic work that starts when told, for tracers that came late: attached
 * with --pid to the running process, or meeting code dlopen'd after the exec
 * (kernel_unwind_e2e). Built -O2 without frame pointers.
 *
 *   late READY GO [LIB]
 *
 * With LIB: dlopen(LIB) and one call of its late_lib_work (one block through it). Then
 * create the file READY, wait for GO to exist, do the work and exit 0. The work: ROUNDS
 * rounds of blocks three calls deep here, qsort with a comparator that allocates (frames in
 * libc between ours), and, with LIB, late_lib_work: blocks in the library and in a callback
 * of ours below it. No stdio, and nothing allocated while waiting: every block after GO is
 * the work's, the same every run.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define ROUNDS 300

typedef void *(*late_cb)(size_t n);
typedef void (*late_lib_fn)(int i, late_cb cb);

static void *volatile sink;
static volatile int spill;

NOINLINE void *late_leaf(size_t n)
{
	volatile char pad[96];
	void *p;

	pad[n % 96] = (char)n;
	p = malloc(n + (size_t)(pad[n % 96] & 1));
	sink = p;
	return p;
}

NOINLINE void late_mid(int i)
{
	void *a = late_leaf((size_t)i % 200 + 16), *b = calloc(2, (size_t)i % 50 + 8);

	spill += i;
	sink = b;
	free(a);
	free(b);
}

NOINLINE void late_top(int i)
{
	late_mid(i);
	spill ^= i;
}

/* qsort's comparator: a block per comparison, freed (its callers are in libc). */
static int late_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	free(late_leaf(24));
	return (x > y) - (x < y);
}

/* The library's callback: a block in our code, below the library's frames. */
NOINLINE static void *late_callback(size_t n)
{
	void *p = late_leaf(n + 1);

	spill++; /* no tail call: this frame stays */
	return p;
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000 * 1000 };
	late_lib_fn lib_work = NULL;
	struct stat st;
	int fd;

	if (argc < 3)
		return 2;
	if (argc > 3) {
		void *h = dlopen(argv[3], RTLD_NOW);

		lib_work = h ? (late_lib_fn)dlsym(h, "late_lib_work") : NULL;
		if (!lib_work)
			return 3;
		lib_work(0, late_callback);
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return 1;
	close(fd);
	while (stat(argv[2], &st))
		nanosleep(&ms, NULL);
	for (int i = 1; i <= ROUNDS; i++) {
		int v[6] = { i % 7, 3, i % 5, 1, i % 11, 4 };

		late_top(i);
		qsort(v, 6, sizeof(v[0]), late_cmp);
		if (lib_work)
			lib_work(i, late_callback);
	}
	return 0;
}

/*
 * Fragments glibc's main arena and a thread's arena, pins each top with one small block,
 * then writes glibc's own answer to STATS (mallinfo2, malloc_info) and the RSS each arena's
 * mapping drops across malloc_trim(0), measured in a forked child so the parent's heap is
 * left as it was (tests/arenas_e2e.c compares the tracer's "arenas" with it).
 *
 *   arenas_prog STATS [--wait GO] [--hold HOLD]
 * --wait: print "waiting PID" and start once GO exists (a tracer attaches with --pid first);
 * --hold: after writing STATS ("done" last), wait until HOLD exists (the profile is taken
 * then, with SIGINT to the tracer).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAIN_BLOCKS  768
#define MAIN_SIZE    (48 << 10)
#define MAIN_EVERY   8 /* every 8th block stays: the fragmenter */
#define THR_BLOCKS   384
#define THR_SIZE     (32 << 10)
#define THR_EVERY    4
#define PIN_SIZE     64
#define FAST_MAIN    40 /* a 48-byte chunk: fastbin 1 */
#define FAST_THREAD  72 /* an 80-byte chunk: fastbin 3 */
#define FAST_BLOCKS  20 /* 7 fill the thread's tcache for the size, 13 go to the fastbin */

static void *thread_heap; /* a block of the thread's arena */

__attribute__((noinline)) static void *keep_main(void)
{
	return memset(malloc(MAIN_SIZE), 1, MAIN_SIZE);
}

__attribute__((noinline)) static void *churn_main(void)
{
	return memset(malloc(MAIN_SIZE), 2, MAIN_SIZE);
}

__attribute__((noinline)) static void *pin_here(void)
{
	return memset(malloc(PIN_SIZE), 3, PIN_SIZE);
}

__attribute__((noinline)) static void *keep_thread(void)
{
	return memset(malloc(THR_SIZE), 4, THR_SIZE);
}

__attribute__((noinline)) static void *churn_thread(void)
{
	return memset(malloc(THR_SIZE), 5, THR_SIZE);
}

__attribute__((noinline)) static void *pin_thread(void)
{
	return memset(malloc(PIN_SIZE), 6, PIN_SIZE);
}

/* Chunks left in a fastbin: the first 7 frees of a size fill the thread's tcache for it,
 * the rest go to the arena's fastbin (malloc_info's "fast"). Nothing afterwards may malloc
 * a large chunk (malloc_consolidate would empty the fastbins) until the figures are taken. */
__attribute__((noinline)) static void fill_fastbin(size_t size)
{
	void *f[FAST_BLOCKS];

	for (int i = 0; i < FAST_BLOCKS; i++)
		f[i] = memset(malloc(size), 7, size);
	for (int i = 0; i < FAST_BLOCKS; i++)
		free(f[i]);
}

static void *thread_main(void *arg)
{
	static void *b[THR_BLOCKS];

	(void)arg;
	for (int i = 0; i < THR_BLOCKS; i++)
		b[i] = i % THR_EVERY ? churn_thread() : keep_thread();
	thread_heap = pin_thread();
	for (int i = 0; i < THR_BLOCKS; i++)
		if (i % THR_EVERY)
			free(b[i]);
	/* at the thread's exit its tcache is emptied into the arena: these 7 join the 13 */
	fill_fastbin(FAST_THREAD);
	return NULL;
}

/* Rss of the mapping that holds addr, bytes, from /proc/self/smaps (no malloc). */
static unsigned long long rss_of(uintptr_t addr)
{
	static char buf[4 << 20];
	unsigned long long a, b, kb, total = 0;
	int fd = open("/proc/self/smaps", O_RDONLY), in = 0;
	size_t n = 0;
	ssize_t r;
	char *l;

	while (fd >= 0 && (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)r;
	if (fd >= 0)
		close(fd);
	buf[n] = '\0';
	for (l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (sscanf(l, "%llx-%llx ", &a, &b) == 2)
			in = addr >= a && addr < b;
		else if (in && sscanf(l, "Rss: %llu kB", &kb) == 1)
			total += kb << 10;
	}
	return total;
}

static void wait_for(const char *path)
{
	while (access(path, F_OK))
		usleep(10000);
}

int main(int argc, char **argv)
{
	static void *b[MAIN_BLOCKS];
	static char fbuf[1 << 16]; /* STATS' buffer: malloc'ing 4 KiB would empty the fastbins */
	const char *go = NULL, *hold = NULL;
	struct mallinfo2 mi;
	pthread_t th;
	void *pin;
	FILE *f;
	pid_t child;

	if (argc < 2)
		return 2;
	for (int i = 2; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--wait"))
			go = argv[++i];
		else if (!strcmp(argv[i], "--hold"))
			hold = argv[++i];
	}
	if (go) {
		printf("waiting %d\n", (int)getpid());
		fflush(stdout);
		wait_for(go);
	}
	for (int i = 0; i < MAIN_BLOCKS; i++)
		b[i] = i % MAIN_EVERY ? churn_main() : keep_main();
	pin = pin_here();
	for (int i = 0; i < MAIN_BLOCKS; i++)
		if (i % MAIN_EVERY)
			free(b[i]);
	if (pthread_create(&th, NULL, thread_main, NULL) || pthread_join(th, NULL))
		return 1;
	/* the known point: glibc's figures, then nothing allocates or frees any more */
	f = fopen(argv[1], "w");
	if (!f || setvbuf(f, fbuf, _IOFBF, sizeof(fbuf)))
		return 1;
	fill_fastbin(FAST_MAIN);
	mi = mallinfo2();
	fprintf(f, "mallinfo2 arena=%zu fordblks=%zu keepcost=%zu uordblks=%zu\n", mi.arena,
		mi.fordblks, mi.keepcost, mi.uordblks);
	fprintf(f, "main_heap=%p thread_heap=%p\n", pin,
		(void *)((uintptr_t)thread_heap & ~((64ul << 20) - 1)));
	malloc_info(0, f);
	fflush(f);
	child = fork();
	if (child == 0) { /* the drop across malloc_trim, in a copy of this address space */
		unsigned long long m0 = rss_of((uintptr_t)pin), t0 = rss_of((uintptr_t)thread_heap);
		unsigned long long m1, t1;

		malloc_trim(0);
		m1 = rss_of((uintptr_t)pin);
		t1 = rss_of((uintptr_t)thread_heap);
		dprintf(fileno(f), "trim main_drop=%llu thread_drop=%llu\n", m0 - m1, t0 - t1);
		_exit(0);
	}
	waitpid(child, NULL, 0);
	fprintf(f, "done\n");
	fclose(f);
	if (hold)
		wait_for(hold);
	return 0;
}

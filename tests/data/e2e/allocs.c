// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * allocs - deterministic allocation workload for the BPF end-to-end tests (bpf_probe_e2e.c).
 *
 * Protocol on stdout (write(2) only, so logging never allocates):
 *   FNADDR <name> <hex>          runtime address of an allocator function
 *   READY <pid>                  then it waits for one byte on stdin ("go"); skipped with
 *                                --no-wait (the tracer attached before exec)
 *   E <tid> <type> <fn> <addr> <old> <size> <exact> <own>
 *                                a record the tracer must produce, in order per thread
 *                                (type/fn: enum event_type/alloc_fn; exact 0: size is a
 *                                lower bound because glibc chooses it; own 0: the call is
 *                                made by libc itself, so the first stack frame is in libc)
 *   DONE
 * Everything checked happens between the USDT marks kaish_workload:window_begin/window_end.
 * Setup that allocates inside glibc (warm-up threads, the fmemopen stream) happens before.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <malloc.h>

#include "alloc_events.h"

#define THREADS	      2
#define THREAD_ALLOCS 50
#define THREAD_SIZE   777

static void out(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (write(STDOUT_FILENO, buf, (size_t)n) != n)
		_exit(3);
}

static unsigned long tid(void)
{
	return (unsigned long)syscall(SYS_gettid);
}

static int libc_calls; /* the next expected records come from calls made inside libc */

static void expect(int type, int fn, const void *addr, const void *old, size_t size, int exact)
{
	out("E %lu %d %d %lx %lx %zu %d %d\n", tid(), type, fn, (unsigned long)(uintptr_t)addr,
	    (unsigned long)(uintptr_t)old, size, exact, !libc_calls);
}

static void *worker(void *arg)
{
	void *blocks[THREAD_ALLOCS];
	int log = arg != NULL;

	for (int i = 0; i < THREAD_ALLOCS; i++) {
		blocks[i] = malloc(THREAD_SIZE);
		if (log)
			expect(EV_ALLOC, FN_MALLOC, blocks[i], NULL, THREAD_SIZE, 1);
	}
	for (int i = 0; i < THREAD_ALLOCS; i++) {
		if (log)
			expect(EV_FREE, FN_FREE, blocks[i], NULL, 0, 1);
		free(blocks[i]);
	}
	return NULL;
}

static void run_threads(int log)
{
	pthread_t th[THREADS];

	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&th[i], NULL, worker, log ? (void *)1 : NULL))
			_exit(4);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
}

static int my_vasprintf(char **strp, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(strp, fmt, ap);
	va_end(ap);
	return n;
}

static char text[2048];

int main(int argc, char **argv)
{
	static char stream_buf[4096];
	char *line = NULL, *mbuf = NULL, *s3, *s4, *old;
	void *p1, *p2, *p3, *p3b, *p3c, *p4, *p5, *p5b, *p6, *p7, *p8, *p9, *p10;
	char *s1, *s2, *mbuf2;
	uintptr_t prev;
	size_t n = 0, msz = 0, len1, len2;
	char big[256];
	FILE *f, *mf;
	char go;

	out("FNADDR malloc %lx\n", (unsigned long)(uintptr_t)&malloc);
	out("FNADDR free %lx\n", (unsigned long)(uintptr_t)&free);
	out("FNADDR strdup %lx\n", (unsigned long)(uintptr_t)&strdup);
	out("FNADDR memalign %lx\n", (unsigned long)(uintptr_t)&memalign);
	out("FNADDR aligned_alloc %lx\n", (unsigned long)(uintptr_t)&aligned_alloc);

	/* Setup: thread stacks and arenas are cached for the measured threads; the stream and
	 * its buffer exist before the window (getline's own buffer is what is measured). */
	run_threads(0);
	memset(text, 'x', 300);
	text[300] = '\n';
	memset(text + 301, 'y', 1000);
	text[1301] = '\n';
	strcpy(text + 1302, "short\n");
	f = fmemopen(text, strlen(text), "r");
	if (!f || setvbuf(f, stream_buf, _IOFBF, sizeof(stream_buf)))
		return 2;

	if (argc < 2 || strcmp(argv[1], "--no-wait")) {
		out("READY %d\n", (int)getpid());
		if (read(STDIN_FILENO, &go, 1) != 1)
			return 1;
	}

	DTRACE_PROBE2(kaish_workload, window_begin, "allocs", 1);

	p1 = malloc(1001);
	expect(EV_ALLOC, FN_MALLOC, p1, NULL, 1001, 1);
	p2 = calloc(10, 103);
	expect(EV_ALLOC, FN_CALLOC, p2, NULL, 1030, 1);
	p3 = realloc(NULL, 1003);
	expect(EV_ALLOC, FN_REALLOC, p3, NULL, 1003, 1);
	prev = (uintptr_t)p3;	 /* logged as a number: the old pointer is dead after realloc */
	p3b = realloc(p3, 5000); /* growth */
	expect(EV_REALLOC, FN_REALLOC, p3b, (void *)prev, 5000, 1);
	prev = (uintptr_t)p3b;
	p3c = realloc(p3b, 17); /* shrink */
	expect(EV_REALLOC, FN_REALLOC, p3c, (void *)prev, 17, 1);
	p4 = malloc(1004);
	expect(EV_ALLOC, FN_MALLOC, p4, NULL, 1004, 1);
	if (realloc(p4, 0) != NULL) /* glibc: frees p4 */
		return 5;
	expect(EV_FREE, FN_REALLOC, p4, NULL, 0, 1);
	p5 = reallocarray(NULL, 7, 11);
	expect(EV_ALLOC, FN_REALLOCARRAY, p5, NULL, 77, 1);
	prev = (uintptr_t)p5;
	p5b = reallocarray(p5, 70, 11);
	expect(EV_REALLOC, FN_REALLOCARRAY, p5b, (void *)prev, 770, 1);
	if (posix_memalign(&p6, 64, 1006))
		return 6;
	expect(EV_ALLOC, FN_POSIX_MEMALIGN, p6, NULL, 1006, 1);
	p7 = aligned_alloc(64, 1024);
	expect(EV_ALLOC, FN_ALIGNED_ALLOC, p7, NULL, 1024, 1);
	p8 = memalign(128, 1008);
	expect(EV_ALLOC, FN_MEMALIGN, p8, NULL, 1008, 1);
	p9 = valloc(1009);
	expect(EV_ALLOC, FN_VALLOC, p9, NULL, 1009, 1);
	p10 = pvalloc(1010);
	expect(EV_ALLOC, FN_PVALLOC, p10, NULL, 1010, 1);

	s1 = strdup("hello strdup"); /* malloc(13) inside */
	expect(EV_ALLOC, FN_STRDUP, s1, NULL, 13, 1);
	s2 = strndup("hello strndup", 5); /* malloc(6) inside */
	expect(EV_ALLOC, FN_STRNDUP, s2, NULL, 6, 1);
	if (asprintf(&s3, "%s-%d", "asprintf", 42) < 0) /* "asprintf-42": 12 bytes */
		return 7;
	expect(EV_ALLOC, FN_ASPRINTF, s3, NULL, 12, 1);
	memset(big, 'v', 250);
	big[250] = '\0';
	if (my_vasprintf(&s4, "%s", big) != 250) /* overflows glibc's 100-byte scratch buffer */
		return 8;
	expect(EV_ALLOC, FN_VASPRINTF, s4, NULL, 251, 1);

	/* getline: a new buffer, then growth, then neither, then EOF. */
	len1 = (size_t)getline(&line, &n, f);
	expect(EV_ALLOC, FN_GETLINE, line, NULL, len1 + 1, 0);
	old = line;
	len2 = (size_t)getline(&line, &n, f);
	expect(EV_REALLOC, FN_GETLINE, line, old, len2 + 1, 0);
	if (getline(&line, &n, f) != 6 || getline(&line, &n, f) != -1)
		return 9;

	/* open_memstream: its FILE and its BUFSIZ buffer are charged to this call. */
	mf = open_memstream(&mbuf, &msz);
	if (!mf)
		return 10;
	fputs("memstream", mf);
	fflush(mf); /* publishes mbuf */
	expect(EV_ALLOC, FN_OPEN_MEMSTREAM, mf, NULL, 1, 0);
	expect(EV_ALLOC, FN_OPEN_MEMSTREAM, mbuf, NULL, BUFSIZ, 1);
	old = mbuf;
	uintptr_t mf_addr = (uintptr_t)mf;
	fclose(mf); /* realloc(buf, len + 1), free(FILE): plain calls made by stdio */
	mbuf2 = mbuf;
	libc_calls = 1;
	expect(EV_REALLOC, FN_REALLOC, mbuf2, old, 10, 1);
	expect(EV_FREE, FN_FREE, (void *)mf_addr, NULL, 0, 1);
	libc_calls = 0;

	free(NULL); /* dropped in BPF */
	expect(EV_FREE, FN_FREE, p1, NULL, 0, 1);
	free(p1);
	/* p2 (calloc) is the leak */
	void *frees[] = {p3c, p5b, p6, p7, p8, p9, p10, s1, s2, s3, s4, line, mbuf2};
	for (size_t i = 0; i < sizeof(frees) / sizeof(frees[0]); i++) {
		expect(EV_FREE, FN_FREE, frees[i], NULL, 0, 1);
		free(frees[i]);
	}

	run_threads(1);

	DTRACE_PROBE2(kaish_workload, window_end, "allocs", 1);

	fclose(f);
	out("DONE\n");
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fixture process for the unwinder tests (tests/unwind.cmake builds it with
 * -O2 -fomit-frame-pointer, so a frame-pointer walk cannot get past its frames).
 * It stops itself on an int3 at the first instruction of unwfix_probe(), the way a uprobe
 * at a function's entry sees a thread: the test, its ptrace parent, takes the registers and
 * a copy of the stack there.
 *	unwfix chain	main -> fix_a -> fix_b -> fix_c -> unwfix_probe
 *	unwfix qsort	main -> fix_sort -> qsort (libc, no frame pointers) -> fix_cmp
 *			-> unwfix_probe
 *	unwfix signal	main -> fix_sig -> raise (libc) => SIGUSR1 handler fix_handler
 *			-> unwfix_probe (through the kernel's signal frame, __restore_rt)
 *	unwfix dlopen LIB  unwfix_probe once before dlopen(LIB) (the test takes its maps
 *			there), then main -> fix_dl -> unwlib_entry -> unwlib_mid -> unwfix_probe
 * Each mode runs its probe once (dlopen: twice), then exits 0.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void unwfix_probe(void);

/* A function entered like a probed one: int3 first, CFA = rsp + 8 there. The CFI makes it
 * unwindable like compiler output. */
__asm__(".text\n"
	".globl unwfix_probe\n"
	".type unwfix_probe, @function\n"
	"unwfix_probe:\n"
	".cfi_startproc\n"
	"\tint3\n"
	"\tret\n"
	".cfi_endproc\n"
	".size unwfix_probe, .-unwfix_probe\n");

volatile int fix_sink; /* defeats constant folding */

/* Innermost: a real stack frame (the buffer), so its CFA is rsp + N with N > 8. */
__attribute__((noinline)) int fix_c(int x)
{
	volatile char buf[96];

	buf[x & 63] = (char)x;
	unwfix_probe();
	return buf[(x + 1) & 63] + x + fix_sink;
}

/* Saves callee-saved registers (x lives across the call). */
__attribute__((noinline)) int fix_b(int x)
{
	volatile long pad[6];
	int r;

	pad[x % 6] = x;
	r = fix_c(x + 1);
	return r * 2 + (int)pad[(x + 3) % 6] + x;
}

__attribute__((noinline)) int fix_a(int x)
{
	int r = fix_b(x + 1);

	return r + x + 1;
}

static int probed; /* the comparator probes once */

/* Called by libc's qsort: its caller frames are libc's (no frame pointers there). */
__attribute__((noinline)) int fix_cmp(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;

	if (!probed) {
		probed = 1;
		unwfix_probe();
	}
	return (a > b) - (a < b);
}

__attribute__((noinline)) int fix_sort(int n)
{
	int *v = malloc((size_t)n * sizeof(*v)), i, r;

	if (!v)
		return -1;
	for (i = 0; i < n; i++)
		v[i] = (i * 7919) % n;
	qsort(v, (size_t)n, sizeof(*v), fix_cmp);
	r = v[0] + fix_sink;
	free(v);
	return r;
}

/* SIGUSR1 handler: the probe runs on top of a signal frame. */
static void fix_handler(int sig)
{
	fix_sink += sig;
	unwfix_probe();
	fix_sink++;
}

__attribute__((noinline)) int fix_sig(int x)
{
	signal(SIGUSR1, fix_handler);
	raise(SIGUSR1);
	return x + fix_sink;
}

/* Loads lib after a first probe, then calls into it; -1 if it does not load. */
__attribute__((noinline)) int fix_dl(const char *lib)
{
	int (*entry)(int, void (*)(void));
	void *h;
	int r;

	unwfix_probe();
	h = dlopen(lib, RTLD_NOW);
	entry = h ? (int (*)(int, void (*)(void)))dlsym(h, "unwlib_entry") : NULL;
	if (!entry)
		return -1;
	r = entry(fix_sink + 1, unwfix_probe);
	return r + fix_sink;
}

int main(int argc, char **argv)
{
	int r;

	if (argc < 2) {
		fprintf(stderr, "usage: unwfix chain|qsort|signal|dlopen LIB\n");
		return 2;
	}
	if (!strcmp(argv[1], "chain"))
		r = fix_a(argc);
	else if (!strcmp(argv[1], "qsort"))
		r = fix_sort(64 + argc);
	else if (!strcmp(argv[1], "signal"))
		r = fix_sig(argc);
	else if (!strcmp(argv[1], "dlopen") && argc > 2)
		r = fix_dl(argv[2]);
	else
		return 2;
	/* Use r so nothing is folded away; keep the exit status 0. */
	return r == -12345 ? 1 : 0;
}

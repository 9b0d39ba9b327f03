// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fixture process for the symbolizer tests, built PIE, non-PIE, stripped, ... by
 * tests/symbolizer.cmake. It prints one line per interesting address:
 *	NAME 0xRUNTIME_ADDR 0xLOAD_BIAS
 * (load bias from the dynamic linker, so ELF vaddr = RUNTIME_ADDR - LOAD_BIAS), then "ready",
 * and then serves commands on stdin until EOF or "exit":
 *	dlopen PATH	dlopen PATH and print "dl_func ADDR BIAS" for its symfix_dl_func
 * The "*_ra" entries are return addresses (symbolize them with is_return = true).
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_lib.h"

static void *volatile g_ra;	 /* last capture() return address */
static void *volatile g_libc_ra; /* return address of the qsort comparator (in libc) */

/* Records its return address: the instruction after the call in its caller. */
__attribute__((noinline)) void capture(void)
{
	g_ra = __builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

/* Innermost inlined level: the call to capture() is the inlined call site. */
static inline __attribute__((always_inline)) int inl_inner(int x)
{
	capture();
	return x * 3 + 1;
}

/* Middle inlined level. */
static inline __attribute__((always_inline)) int inl_outer(int x)
{
	return inl_inner(x + 1) * 2;
}

/* Out-of-line function holding two inlined levels. */
__attribute__((noinline)) int host(int x)
{
	int r = inl_outer(x);

	__asm__ volatile("" ::: "memory");
	return r + 1;
}

/* A plain function that calls capture() (its return address is in here). */
__attribute__((noinline)) int plain(int x)
{
	capture();
	return x - 1;
}

/* qsort comparator: its return address lies inside libc. */
static int cmp_capture(const void *a, const void *b)
{
	g_libc_ra = __builtin_return_address(0);
	return *(const int *)a - *(const int *)b;
}

/* Print NAME ADDR BIAS, BIAS being the load bias of the object holding addr. */
static void report(const char *name, const void *addr)
{
	struct link_map *lm = NULL;
	Dl_info info;
	unsigned long bias = 0;

	if (dladdr1(addr, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm)
		bias = lm->l_addr;
	printf("%s %p 0x%lx\n", name, addr, bias);
}

int main(int argc, char **argv __attribute__((unused)))
{
	int nums[] = {5, 3, 9, 1, 7};
	char line[4096];
	void *vdso, *heap;

	report("plain", (void *)plain);
	report("host", (void *)host);
	report("main", (void *)main);
	host(argc);
	report("host_ra", g_ra);
	plain(argc);
	report("plain_ra", g_ra);
	capture();
	report("main_ra", g_ra);
	symfix_lib_func(argc);
	report("lib_func", (void *)symfix_lib_func);
	report("lib_ra", symfix_lib_ra);
	qsort(nums, 5, sizeof(nums[0]), cmp_capture);
	report("libc_ra", g_libc_ra);
	vdso = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (vdso)
		printf("vdso_clock_gettime %p 0x0\n", dlsym(vdso, "__vdso_clock_gettime"));
	heap = malloc(64);
	printf("heap %p 0x0\n", heap);
	printf("ready\n");
	fflush(stdout);

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "exit"))
			break;
		if (!strncmp(line, "dlopen ", 7)) {
			void *h = dlopen(line + 7, RTLD_NOW);
			void *f = h ? dlsym(h, "symfix_dl_func") : NULL;

			if (f)
				report("dl_func", f);
			else
				printf("dl_func 0x0 0x0\n");
			fflush(stdout);
		}
	}
	free(heap);
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * C++ fixture process for the symbolizer tests (g++ -O2 -g, built by tests/symbolizer.cmake):
 * libstdc++'s inline members are inlined into this file's functions and allocate from there,
 *	grow_vector:	std::vector<int>::push_back -> (call) _M_realloc_insert, which holds
 *			_M_allocate -> allocator_traits::allocate -> __new_allocator::allocate
 *			-> (call) operator new
 *	make_string:	std::string's constructor -> _M_construct -> (call) operator new
 * so their frames are inlined frames whose DW_AT_name is the bare member name ("push_back").
 * A replaced operator new records the return addresses of its last two callers with glibc's
 * backtrace() (unwound by .eh_frame: frame pointers are not needed).
 *
 * Protocol as fixture.c: one "NAME 0xRUNTIME_ADDR 0xLOAD_BIAS" line per address, "ready",
 * then it waits for "exit" or EOF on stdin. The "*_ra" entries are return addresses.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

/* The last operator new's caller ([0]) and that caller's caller ([1]). */
static void *volatile g_new_ra[2];

/* noinline: a call that backtrace() sees, whatever g++ decides about this TU's callers. */
__attribute__((noinline)) void *operator new(std::size_t sz)
{
	void *bt[3];
	int n = backtrace(bt, 3);
	void *p;

	/* bt[0] is in this function, bt[1] in its caller. */
	g_new_ra[0] = n > 1 ? bt[1] : nullptr;
	g_new_ra[1] = n > 2 ? bt[2] : nullptr;
	p = std::malloc(sz ? sz : 1);
	if (!p)
		throw std::bad_alloc();
	return p;
}

void operator delete(void *p) noexcept
{
	std::free(p);
}

void operator delete(void *p, std::size_t) noexcept
{
	std::free(p);
}

/* push_back grows the vector through the out-of-line _M_realloc_insert. */
__attribute__((noinline)) std::vector<int> grow_vector(int n)
{
	std::vector<int> v;

	for (int i = 0; i < n; i++)
		v.push_back(i);
	return v;
}

/* Longer than the small-string buffer, so the constructor allocates. */
__attribute__((noinline)) std::string make_string(void)
{
	return std::string("a string longer than the small-string buffer");
}

/* Print NAME ADDR BIAS, BIAS being the load bias of the object holding addr. */
static void report(const char *name, const void *addr)
{
	struct link_map *lm = nullptr;
	Dl_info info;
	unsigned long bias = 0;

	if (dladdr1(addr, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm)
		bias = lm->l_addr;
	std::printf("%s %p 0x%lx\n", name, addr, bias);
}

int main(int argc, char **)
{
	void *prime[1];
	char line[256];

	/* The first backtrace() loads libgcc_s (with malloc): not inside operator new. */
	backtrace(prime, 1);
	{
		std::vector<int> v = grow_vector(argc * 100);

		report("vec_new_ra", g_new_ra[0]);
		report("vec_push_ra", g_new_ra[1]);
		std::string s = make_string();

		report("str_new_ra", g_new_ra[0]);
		if (v.size() + s.size() == 12345)
			return 1;
	}
	std::printf("ready\n");
	std::fflush(stdout);
	while (std::fgets(line, sizeof(line), stdin)) {
		line[std::strcspn(line, "\n")] = '\0';
		if (!std::strcmp(line, "exit"))
			break;
	}
	return 0;
}

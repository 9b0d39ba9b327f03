// SPDX-License-Identifier: MIT
/*
 * cxx_new - C++ allocations through every kind of operator new/delete: plain, array,
 * nothrow, over-aligned, sized delete, and the containers'. Run as is, libstdc++'s operators
 * call malloc/free; run with LD_PRELOAD=libjemalloc.so.2, jemalloc's own operators are used
 * and never call malloc. Either way a tracer must count each block once. A sink keeps the
 * compiler from eliding new/delete pairs.
 * Build: c++ -O1 -g -o cxx_new cxx_new.cc
 */
#include <memory>
#include <new>
#include <string>
#include <unistd.h>
#include <vector>

struct alignas(64) Aligned {
	char b[200];
};

static void *volatile sink;

int main()
{
	std::vector<std::string> v;
	for (int i = 0; i < 100; i++)
		v.push_back(std::string(40 + i, 'x'));
	int *a = new int[50];
	sink = a;
	delete[] a;
	Aligned *b = new Aligned;
	sink = b;
	delete b;
	Aligned *c = new Aligned[3];
	sink = c;
	delete[] c;
	double *n = new (std::nothrow) double[10];
	sink = n;
	delete[] n;
	long *l = new (std::nothrow) long(5);
	sink = l;
	delete l;
	std::unique_ptr<long> p(new long(5));
	sink = p.get();
	sink = new char[777]; // the leak
	return write(1, "cxx_new done\n", 13) == 13 ? 0 : 1;
}

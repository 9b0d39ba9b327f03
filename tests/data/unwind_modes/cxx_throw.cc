// SPDX-License-Identifier: MIT
/*
 * cxx_throw - C++ allocations around exceptions, built -O2 without frame pointers
 * (tests/unwind_modes.cmake): operator new under a few noinline frames, a throw (libstdc++
 * allocates the exception object with malloc, then unwinds through the frames), a
 * destructor that allocates while the stack unwinds, and a catch handler that allocates.
 * Deterministic; exit status 0.
 */
#include <stdexcept>
#include <string>
#include <vector>

#define NOINLINE __attribute__((noinline))

static std::vector<std::string> *volatile keep;

struct Guard {
	int n;
	NOINLINE ~Guard()
	{
		/* runs during the unwind of a throw: an allocation under the personality routine */
		keep->push_back(std::string(32 + n % 8, 'g'));
	}
};

NOINLINE static void deep(int n)
{
	Guard g{n};
	std::vector<int> v(n + 4, n);
	if (n % 3 == 0)
		throw std::runtime_error(std::string(40 + n % 5, 'e'));
	keep->push_back(std::string(48, 'd'));
}

NOINLINE static void middle(int n)
{
	std::string s(64 + n % 4, 'm');
	deep(n);
	keep->push_back(s);
}

int main()
{
	keep = new std::vector<std::string>();
	for (int i = 0; i < 300; i++) {
		try {
			middle(i);
		} catch (const std::exception &e) {
			keep->push_back(std::string(e.what()) + "!");
		}
		if (keep->size() > 64)
			keep->clear();
	}
	delete keep;
	return 0;
}

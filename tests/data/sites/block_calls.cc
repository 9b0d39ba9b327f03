// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Calls that are the last statement of their block, built with g++ -g -O2 (sites_e2e): the
 * return address of each call to grow is the first instruction after the block, which the
 * line table puts at the closing brace or the loop's head. A caller frame is looked up at
 * its return address minus one, so each row must name the call's own line (the lines
 * marked CALL_ODD and CALL_EVEN), not where the block ends.
 */
#include <cstdlib>

static char *volatile sink[64];
static unsigned cnt;

/* Not inlined, and not a tail call target: its caller goes on after it returns. */
__attribute__((noinline)) void grow(std::size_t n)
{
	sink[cnt++ & 63] = new char[n];
}

__attribute__((noinline)) void run(int turns)
{
	for (int i = 0; i < turns; i++) {
		if (i & 1) {
			grow(100); // CALL_ODD
		} else {
			grow(200); // CALL_EVEN
		}
	}
}

int main(int argc, char **argv)
{
	run(argc > 1 ? std::atoi(argv[1]) : 40);
	return 0;
}

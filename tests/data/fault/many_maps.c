/* many_maps N: N anonymous 4 KiB mappings, each touched and kept, then exit 0. Each is an
 * mmap record of the tracer's mappings probes: a small ring cannot take them all. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;

	for (int i = 0; i < n; i++) {
		char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		p[0] = 1;
	}
	return 0;
}

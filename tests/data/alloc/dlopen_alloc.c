// SPDX-License-Identifier: MIT
/*
 * dlopen_alloc FIFO - dlopens Debian's libmimalloc.so.2 (RTLD_LOCAL: malloc stays glibc's; libjemalloc.so.2
 * cannot be dlopen'd: its TLS must be static),
 * then blocks opening FIFO for reading until the test opens it for writing. The tracer must
 * report the library, which defines its own malloc, when it reads the maps again.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	void *h;
	int fd;

	if (argc != 2)
		return 2;
	h = dlopen("libmimalloc.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen_alloc: %s\n", dlerror());
		return 1;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 1;
	close(fd);
	dlclose(h);
	return 0;
}

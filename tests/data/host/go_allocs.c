/*
 * go_allocs - a target with known allocations, started before the tracer attaches: it
 * prints "waiting", waits for the file argv[1] to exist, then allocates a known set in its
 * own functions, forks a child that allocates its own known set, waits for it, prints
 * "done" and exits. Used by host_e2e to check that every attach path counts exactly.
 *
 *   host_alloc_parent: 100 x malloc(1000), 50 x calloc(3, 8); half freed
 *   host_alloc_child:  40 x malloc(777), in the forked child
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile sink[200];

__attribute__((noinline)) static void host_alloc_parent(void)
{
	for (int i = 0; i < 100; i++)
		sink[i] = malloc(1000);
	for (int i = 0; i < 50; i++)
		sink[100 + i] = calloc(3, 8);
	for (int i = 0; i < 150; i += 2)
		free(sink[i]);
}

__attribute__((noinline)) static void host_alloc_child(void)
{
	for (int i = 0; i < 40; i++)
		sink[i] = malloc(777);
}

int main(int argc, char **argv)
{
	pid_t child;

	if (argc < 2) {
		fprintf(stderr, "usage: go_allocs GO-FILE\n");
		return 2;
	}
	printf("waiting\n");
	fflush(stdout);
	for (int i = 0; i < 60000 && access(argv[1], F_OK); i++)
		usleep(1000); /* at most a minute: a helper is bounded */
	host_alloc_parent();
	child = fork();
	if (child == 0) {
		host_alloc_child();
		_exit(0);
	}
	waitpid(child, NULL, 0);
	printf("done\n");
	fflush(stdout);
	return 0;
}

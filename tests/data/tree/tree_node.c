// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tree_node - a process of a test tree with a known number of allocations. No stdio (its
 * buffer would be one more block): exactly N mallocs and N frees per "N" step.
 *
 *   tree_node N                      N blocks (malloc(64 + i), freed), exit 0
 *   tree_node N exec ARGV...         N blocks, then execv(ARGV) (an absolute path)
 *   tree_node N fork ARGV...         N blocks, then a child execv's ARGV; waits for it
 *   tree_node N workers K M READY GO N blocks, write READY, wait for the file GO to exist,
 *                                    then K forked children (no exec) make M blocks each
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static void tree_node_allocs(int n)
{
	for (int i = 0; i < n; i++) {
		volatile char *p = malloc(64 + (size_t)i);

		if (p)
			p[0] = 1;
		free((void *)p);
	}
}

/* The GO file exists: the target's own wait, not the test's. */
static void wait_for_file(const char *path)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };
	struct stat st;

	while (stat(path, &st))
		nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;

	tree_node_allocs(n);
	if (argc > 3 && !strcmp(argv[2], "exec")) {
		execv(argv[3], argv + 3);
		_exit(127);
	}
	if (argc > 3 && !strcmp(argv[2], "fork")) {
		pid_t c = fork();
		int st = 0;

		if (c == 0) {
			execv(argv[3], argv + 3);
			_exit(127);
		}
		waitpid(c, &st, 0);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	if (argc > 6 && !strcmp(argv[2], "workers")) {
		int k = atoi(argv[3]), m = atoi(argv[4]), fd;

		fd = open(argv[5], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, "ready\n", 6) != 6)
			return 1;
		close(fd);
		wait_for_file(argv[6]);
		for (int i = 0; i < k; i++)
			if (fork() == 0) {
				tree_node_allocs(m);
				_exit(0);
			}
		while (wait(NULL) > 0)
			;
	}
	return 0;
}

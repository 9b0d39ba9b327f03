// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tree_links: per-process link sets of a followed tree, closed in the background. Pipe fds
 * stand in for link fds: what is checked is which fds get closed, and when. No root. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "tree_links.h"
#include "test_timeout.h"

static bool is_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

/* Two pipes: four fds, all open. */
static void four_fds(int fd[4])
{
	cr_assert_eq(pipe(fd), 0);
	cr_assert_eq(pipe(fd + 2), 0);
}

Test(tree_links, a_reaped_process_loses_only_its_links, .timeout = TEST_TIMEOUT(30))
{
	struct tree_links *t = tree_links__new();
	int fd[4];

	cr_assert_not_null(t);
	four_fds(fd);
	cr_assert_eq(tree_links__add(t, 100, fd, 2, 0x1), 0);
	cr_assert_eq(tree_links__add(t, 200, fd + 2, 2, 0x1), 0);
	cr_expect(tree_links__has(t, 100) && tree_links__has(t, 200));
	cr_expect_eq(tree_links__count(t), 2);
	tree_links__drop(t, 100);
	tree_links__drop(t, 12345); /* unknown: nothing */
	/* Closed by the background thread: close_all of the remaining ones waits for it. */
	cr_expect(!tree_links__has(t, 100));
	cr_expect_eq(tree_links__count(t), 1);
	cr_expect(is_open(fd[2]) && is_open(fd[3]), "process 200's links stay");
	tree_links__close_all(t);
	for (int i = 0; i < 4; i++)
		cr_expect(!is_open(fd[i]), "fd %d closed", i);
	cr_expect_eq(tree_links__count(t), 0);
	tree_links__free(t);
}

Test(tree_links, objects_accumulate_per_process, .timeout = TEST_TIMEOUT(30))
{
	struct tree_links *t = tree_links__new();
	int fd[4];

	four_fds(fd);
	/* The target's own links are elsewhere: only which objects they cover. */
	cr_assert_eq(tree_links__add(t, 1, NULL, 0, 0x3), 0);
	cr_expect_eq(tree_links__objs(t, 1), 0x3);
	cr_assert_eq(tree_links__add(t, 1, fd, 2, 0x4), 0); /* an exec'd image's objects */
	cr_expect_eq(tree_links__objs(t, 1), 0x7);
	cr_expect_eq(tree_links__objs(t, 2), 0, "no such process: no objects");
	tree_links__free(t); /* closes them */
	cr_expect(!is_open(fd[0]) && !is_open(fd[1]));
	close(fd[2]);
	close(fd[3]);
}

Test(tree_links, too_many_links_are_refused_and_closed, .timeout = TEST_TIMEOUT(30))
{
	struct tree_links *t = tree_links__new();
	int fds[TREE_LINKS_PER_PROC + 2];

	for (int i = 0; i < TREE_LINKS_PER_PROC + 2; i += 2)
		cr_assert_eq(pipe(fds + i), 0);
	cr_assert_eq(tree_links__add(t, 7, fds, TREE_LINKS_PER_PROC, 1), 0);
	cr_expect_eq(tree_links__add(t, 7, fds + TREE_LINKS_PER_PROC, 2, 2), -E2BIG);
	cr_expect(!is_open(fds[TREE_LINKS_PER_PROC]), "a refused fd is closed, not leaked");
	cr_expect_eq(tree_links__objs(t, 7), 1);
	tree_links__free(t);
	for (int i = 0; i < TREE_LINKS_PER_PROC; i++)
		cr_expect(!is_open(fds[i]));
}

Test(tree_links, many_processes_come_and_go, .timeout = TEST_TIMEOUT(60))
{
	struct tree_links *t = tree_links__new();
	int first[2], fd[2];

	cr_assert_eq(pipe(first), 0);
	cr_assert_eq(tree_links__add(t, 1, first, 2, 1), 0);
	for (pid_t pid = 2; pid < 500; pid++) {
		cr_assert_eq(pipe(fd), 0);
		cr_assert_eq(tree_links__add(t, pid, fd, 2, 1), 0);
		tree_links__drop(t, pid);
	}
	cr_expect_eq(tree_links__count(t), 1);
	tree_links__close_all(t);
	cr_expect(!is_open(fd[0]) && !is_open(fd[1]) && !is_open(first[0]));
	tree_links__free(t);
}

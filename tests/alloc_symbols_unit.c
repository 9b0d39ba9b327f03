// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* alloc_symbols: this process's allocator, files that are not one, and the dynamic linker's
 * resolution order on the allocator fixtures (tests/data/alloc). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc_scope.h"
#include "alloc_symbols.h"
#include "test_timeout.h"

static struct alloc_symbols syms;

/* Our allocator: libc (the sanitizer runtime under TRACER_SANITIZE), the four required
 * functions defined, each name owned by itself or by an earlier name at the very same
 * offset of the same object. */
Test(alloc_symbols, own_libc)
{
	cr_assert_eq(alloc_symbols__for_process(getpid(), NULL, &syms), 0);
	cr_expect(strstr(syms.path, "libc") || strstr(syms.path, "san"), "%s", syms.path);
	cr_expect_neq(syms.off[FN_MALLOC], 0);
	cr_expect_neq(syms.off[FN_FREE], 0);
	cr_expect_neq(syms.off[FN_MALLOC], syms.off[FN_FREE]);
	for (__u32 fn = 0; fn < FN_COUNT; fn++) {
		cr_expect_leq(syms.owner[fn], fn, "%s", alloc_fn_name(fn));
		if (syms.owner[fn] != fn) {
			cr_expect_eq(syms.off[syms.owner[fn]], syms.off[fn], "%s",
				     alloc_fn_name(fn));
			cr_expect_eq(syms.obj[syms.owner[fn]], syms.obj[fn], "%s",
				     alloc_fn_name(fn));
		}
	}
}

/* --lib PATH: the same answer for the same file. */
Test(alloc_symbols, given_library)
{
	struct alloc_symbols again;

	cr_assert_eq(alloc_symbols__for_process(getpid(), NULL, &syms), 0);
	cr_assert_eq(alloc_symbols__for_process(getpid(), syms.path, &again), 0);
	cr_expect_arr_eq(again.off, syms.off, sizeof(syms.off));
	cr_expect_arr_eq(again.owner, syms.owner, sizeof(syms.owner));
}

Test(alloc_symbols, not_an_allocator)
{
	cr_expect_eq(alloc_symbols__for_process(getpid(), "/nonexistent/libc.so.6", &syms),
		     -ENOENT);
	cr_expect_eq(alloc_symbols__for_binary(TESTS_SRC_DIR "/alloc_symbols_unit.c", &syms),
		     -ENOEXEC);
	/* Not /proc/self/exe: under TRACER_SANITIZE the test itself defines malloc. */
	cr_expect_eq(alloc_symbols__for_binary("/bin/true", &syms), -ENOENT);
}

/* The bug of issue #15: a file merely NAMED like an allocator, mapped by the process, is
 * not probed; resolution goes by symbols. */
Test(alloc_symbols, allocator_named_data_file_ignored)
{
	char dir[] = "/tmp/alloc_symbols_XXXXXX", path[64];
	struct alloc_symbols before;
	void *map;
	int fd;

	cr_assert_eq(alloc_symbols__for_process(getpid(), NULL, &before), 0);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/libjemalloc.so.2", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "not an ELF file, only its name says jemalloc\n", 45), 45);
	map = mmap(NULL, 45, PROT_READ, MAP_PRIVATE, fd, 0);
	cr_assert_neq(map, MAP_FAILED);
	cr_assert_eq(alloc_symbols__for_process(getpid(), NULL, &syms), 0);
	cr_expect_str_eq(syms.path, before.path);
	for (__u32 i = 0; i < syms.obj_cnt; i++)
		cr_expect_null(strstr(syms.objs[i], "libjemalloc"), "%s", syms.objs[i]);
	munmap(map, 45);
	close(fd);
	unlink(path);
	rmdir(dir);
}

/* A command not exec'd yet: jemalloc linked into the executable wins over libc for every
 * function it defines; libc keeps the helpers it alone defines. */
Test(alloc_symbols, command_with_jemalloc_in_the_executable)
{
	const char *strdup_obj;

	cr_assert_eq(alloc_symbols__for_command(JEMALLOC_STATIC_BIN, &syms), 0);
	cr_expect_str_eq(syms.path, JEMALLOC_STATIC_BIN);
	cr_expect_str_eq(alloc_symbols__obj(&syms, FN_FREE), JEMALLOC_STATIC_BIN);
	cr_expect_str_eq(alloc_symbols__obj(&syms, FN_POSIX_MEMALIGN), JEMALLOC_STATIC_BIN);
	strdup_obj = alloc_symbols__obj(&syms, FN_STRDUP);
	cr_assert_not_null(strdup_obj);
	cr_expect(strstr(strdup_obj, "/libc.so"), "strdup in %s", strdup_obj);
	cr_expect_geq(syms.obj_cnt, 2);
	cr_expect_null(alloc_symbols__obj(&syms, FN_RUST_ALLOC));
	/* mallocx is jemalloc's, not malloc's family: named, since it is not probed. */
	cr_expect_str_eq(syms.prefixed, "mallocx");
}

/* The first DT_NEEDED defining malloc wins over libc, found by its symbols. */
Test(alloc_symbols, command_with_mimalloc_needed_first)
{
	cr_assert_eq(alloc_symbols__for_command(MIMALLOC_PROG_BIN, &syms), 0);
	cr_expect(strstr(syms.path, "libmimalloc"), "%s", syms.path);
	cr_expect(strstr(alloc_symbols__obj(&syms, FN_STRDUP), "/libc.so"), "%s",
		  alloc_symbols__obj(&syms, FN_STRDUP));
	/* mi_malloc is malloc under another name there: nothing unprobed to report. */
	cr_expect_str_eq(syms.prefixed, "");
}

/* LD_PRELOAD of the command's environment comes before the executable's libraries. */
Test(alloc_symbols, command_with_preload)
{
	setenv("LD_PRELOAD", "libmimalloc.so.2", 1);
	cr_assert_eq(alloc_symbols__for_command("/bin/true", &syms), 0);
	unsetenv("LD_PRELOAD");
	cr_expect(strstr(syms.path, "libmimalloc"), "%s", syms.path);
	cr_assert_eq(alloc_symbols__for_command("/bin/true", &syms), 0);
	cr_expect(strstr(syms.path, "/libc.so"), "%s", syms.path);
}

/* A script is its interpreter's image. */
Test(alloc_symbols, command_script_resolves_its_interpreter)
{
	char dir[] = "/tmp/alloc_symbols_XXXXXX", path[64];
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/script", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "#!" MIMALLOC_PROG_BIN " -x\n");
	fclose(f);
	cr_assert_eq(alloc_symbols__for_command(path, &syms), 0);
	cr_expect(strstr(syms.path, "libmimalloc"), "%s", syms.path);
	unlink(path);
	rmdir(dir);
}

/* A process right after an exec (a followed exec): its new executable and environment,
 * not the tracer's. cat echoes its stdin, a pipe, until the test closes it. The tracer
 * resolves an image at sched_process_exec, after the kernel has laid out the new stack;
 * /proc/PID/exe names cat earlier than that (its environment reads empty until then), so
 * the test waits for cat to echo a byte: its exec is then complete. */
Test(alloc_symbols, exec_uses_the_image_environment, .timeout = TEST_TIMEOUT(30))
{
	char want[PATH_MAX], echo;
	int in[2], out[2];
	pid_t pid;

	cr_assert_not_null(realpath("/bin/cat", want));
	cr_assert_eq(pipe(in), 0);
	cr_assert_eq(pipe(out), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char *argv[] = { "cat", NULL };
		char *envp[] = { "LD_PRELOAD=libmimalloc.so.2", NULL };

		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		close(in[1]);
		close(out[0]);
		execve("/bin/cat", argv, envp);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	cr_assert_eq(write(in[1], "x", 1), 1);
	cr_assert_eq(read(out[0], &echo, 1), 1, "cat did not start");
	cr_assert_eq(echo, 'x');
	cr_expect_eq(alloc_symbols__for_exec(pid, &syms), 0);
	cr_expect(strstr(syms.path, "libmimalloc"), "%s", syms.path);
	cr_expect_str_eq(syms.exe, want);
	close(in[1]); /* EOF: cat exits */
	close(out[0]);
	waitpid(pid, NULL, 0);
	cr_expect_eq(alloc_symbols__for_exec(pid, &syms), -ESRCH);
}

/* /etc/ld.so.cache, read as ld.so does for a soname no path names. */
Test(alloc_symbols, ld_so_cache_lookup)
{
	char path[PATH_MAX];

	cr_assert(alloc_scope__cache_lookup("/etc/ld.so.cache", "libc.so.6", path, sizeof(path)));
	cr_expect(strstr(path, "/libc.so.6"), "%s", path);
	cr_expect_eq(access(path, R_OK), 0, "%s", path);
	cr_expect_not(alloc_scope__cache_lookup("/etc/ld.so.cache", "libnot-a-library.so.9", path,
						sizeof(path)));
	cr_expect_not(alloc_scope__cache_lookup("/etc/hostname", "libc.so.6", path, sizeof(path)));
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_timer.so - LD_PRELOAD'ed into the benchmarked process by run.sh. Appends one line to
 * $BENCH_TIME_FILE at exit, when the process's name is $BENCH_TIME_EXE (the tools' own
 * processes inherit LD_PRELOAD too and must not write):  "<wall_s> <user_s> <sys_s> <maxrss_kb>"
 * measured from the library's constructor, i.e. the target's own run time without the tool's
 * start-up and tear-down (bcc compiles for seconds before the target starts; the tracer symbolizes
 * after it ends). Allocates nothing, so it adds no event to any trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static struct timespec t0;

__attribute__((constructor)) static void bench_timer_start(void)
{
	clock_gettime(CLOCK_MONOTONIC, &t0);
}

__attribute__((destructor)) static void bench_timer_stop(void)
{
	const char *path = getenv("BENCH_TIME_FILE"), *exe = getenv("BENCH_TIME_EXE");
	struct timespec t1;
	struct rusage ru;
	char line[160];
	int fd, n;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!path || (exe && strcmp(exe, program_invocation_short_name)) ||
	    getrusage(RUSAGE_SELF, &ru))
		return;
	n = snprintf(line, sizeof(line), "%.6f %.6f %.6f %ld\n",
		     (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		     (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
		     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) < 0) {
		/* nothing to do: the benchmark reports the row as missing */
	}
	close(fd);
}

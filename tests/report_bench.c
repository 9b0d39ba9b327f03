// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report_bench - load one DHAT file with dhat_profile__load, print its summary to /dev/null
 * and report the wall time and the process's peak RSS against the file size:
 *
 *	report_bench FILE      ->  "FILE: 225614125 bytes, 500000 pps, load 2.31 s,
 *	                            peak RSS 251 MB (1.12 x file size)"
 *
 * Used by tests/data/report/rss_bench.sh on a generated ~200 MB file (not part of ctest).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "dhat_reader.h"
#include "report.h"

int main(int argc, char **argv)
{
	struct dhat_profile *p;
	struct timespec t0, t1;
	struct rusage ru;
	struct stat st;
	char err[512];
	FILE *null;

	if (argc != 2 || stat(argv[1], &st)) {
		fprintf(stderr, "usage: report_bench FILE\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	p = dhat_profile__load(argv[1], err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!p) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	null = fopen("/dev/null", "w");
	if (null) {
		report__print(null, p, NULL);
		fclose(null);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("%s: %lld bytes, %zu pps, %zu frames, load %.2f s, peak RSS %ld MB "
	       "(%.2f x file size)\n",
	       argv[1], (long long)st.st_size, p->pp_cnt, p->ftbl_cnt,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       ru.ru_maxrss / 1024, (double)ru.ru_maxrss * 1024.0 / (double)st.st_size);
	dhat_profile__free(p);
	return 0;
}

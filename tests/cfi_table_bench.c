// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cfi_table_bench FILE...: the unwind table of each file, cold (compiled from its CFI,
 * no cache) and warm (loaded from a fresh cache directory the cold run of this program
 * filled), best of REPEAT runs each; rows and bytes. docs/BENCHMARKS.md records its output.
 *
 *	build/tests/cfi_table_bench /lib/x86_64-linux-gnu/libc.so.6 /usr/bin/python3.11 ...
 *	CFI_BENCH_REPEAT=9 (default 5)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cfi_table.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The best of repeat loads of path with cache_dir; the last table in *out. */
static double best_load(const char *path, const char *cache_dir, int repeat,
			struct cfi_table **out)
{
	double best = 1e18;

	for (int i = 0; i < repeat; i++) {
		const char *why = NULL;
		double t0 = now_ms();
		struct cfi_table *t = cfi_table__load(path, cache_dir, &why);
		double dt = now_ms() - t0;

		if (!t) {
			fprintf(stderr, "%s: %s\n", path, why ? why : "?");
			return -1;
		}
		if (dt < best)
			best = dt;
		cfi_table__free(*out);
		*out = t;
	}
	return best;
}

/* Rows by rule: the second table (what BPF will meet). */
static void print_rules(const char *path, const struct cfi_table *t)
{
	uint32_t cfa[UNWIND_CFA_UNSUPPORTED + 1] = {0}, rbp_bad = 0, rbp_off = 0;

	for (uint32_t i = 0; i < t->n_rows; i++) {
		const struct unwind_row *r = &t->rows[i];

		if (r->cfa_rule <= UNWIND_CFA_UNSUPPORTED)
			cfa[r->cfa_rule]++;
		rbp_bad += r->rbp_rule == UNWIND_RBP_UNSUPPORTED;
		rbp_off += r->rbp_rule == UNWIND_RBP_CFA_OFF;
	}
	printf("| %s | %u | %u | %u | %u | %u | %u | %u | %u |\n", path, cfa[UNWIND_CFA_RSP],
	       cfa[UNWIND_CFA_RBP], cfa[UNWIND_CFA_PLT], cfa[UNWIND_CFA_END], cfa[UNWIND_CFA_NONE],
	       cfa[UNWIND_CFA_UNSUPPORTED], rbp_off, rbp_bad);
}

int main(int argc, char **argv)
{
	const char *rep_env = getenv("CFI_BENCH_REPEAT");
	int repeat = rep_env ? atoi(rep_env) : 5, status = 0;
	char dir[] = "/tmp/cfi_bench.XXXXXX", cache[64], cmd[96];

	if (argc < 2 || repeat < 1) {
		fprintf(stderr, "usage: cfi_table_bench FILE...\n");
		return 2;
	}
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(cache, sizeof(cache), "%s/unwind", dir);
	printf("| file | size | rows | table bytes | bytes/row | cold ms | warm ms | cold/warm |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
	struct cfi_table **tables = calloc((size_t)argc, sizeof(*tables));

	if (!tables)
		return 1;
	for (int i = 1; i < argc; i++) {
		struct cfi_table *cold = NULL, *warm = NULL, *fill = NULL;
		struct stat st;
		double c, w;

		c = best_load(argv[i], NULL, repeat, &cold);
		/* Fill the cache once, then time loads that hit it. */
		if (c >= 0 && best_load(argv[i], cache, 1, &fill) >= 0 && cold->build_id_len)
			w = best_load(argv[i], cache, repeat, &warm);
		else
			w = -1;
		if (c < 0 || stat(argv[i], &st)) {
			status = 1;
		} else {
			size_t bytes = (size_t)cold->n_rows * sizeof(struct unwind_row);

			printf("| %s | %.1f MiB | %u | %zu | %zu | %.2f | %.3f | %.0fx |\n", argv[i],
			       (double)st.st_size / 1048576.0, cold->n_rows, bytes,
			       sizeof(struct unwind_row), c, w, w > 0 ? c / w : 0.0);
		}
		tables[i] = cold;
		cfi_table__free(warm);
		cfi_table__free(fill);
	}
	printf("\n| file | CFA rsp | CFA rbp | PLT | end | gap | unsupported | rbp saved | rbp "
	       "unsupported |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 1; i < argc; i++) {
		if (tables[i])
			print_rules(argv[i], tables[i]);
		cfi_table__free(tables[i]);
	}
	free(tables);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	return status;
}

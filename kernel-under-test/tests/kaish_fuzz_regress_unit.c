/* SPDX-License-Identifier: MIT */
/*
 * kaish_fuzz_regress_unit.c - the kaish fuzz corpora as a unit test: every file under
 * fuzz/corpus/fuzz_kaish_{parse,exec}/ (seeds from the kernel test tables, and every
 * input that once crashed a fuzzer, named crash-*) goes through the fuzzers' own entry
 * points, built without libFuzzer: lex/parse/validate, then kaish_execute in a sandbox with
 * the result-contract and sandbox checks. A crash, abort or sanitizer report fails the test.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_timeout.h"

int kaish_fuzz_parse_one(const uint8_t *data, size_t size);
int kaish_fuzz_exec_one(const uint8_t *data, size_t size);

typedef int (*one_fn)(const uint8_t *data, size_t size);

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	cr_assert_not_null(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* Replay every file of both corpora through fn; returns the number of files. */
static size_t replay(one_fn fn)
{
	static const char *const dirs[] = { "fuzz_kaish_parse", "fuzz_kaish_exec" };
	size_t cnt = 0;

	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		char dpath[4096];
		struct dirent **names;
		int n;

		snprintf(dpath, sizeof(dpath), "%s/%s", KAISH_FUZZ_CORPUS, dirs[d]);
		n = scandir(dpath, &names, NULL, alphasort);
		cr_assert_geq(n, 0, "cannot list %s", dpath);
		for (int i = 0; i < n; i++) {
			char path[8192];
			size_t len;
			char *buf;

			if (names[i]->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", dpath, names[i]->d_name);
				buf = slurp(path, &len);
				fn((const uint8_t *)buf, len);
				free(buf);
				cnt++;
			}
			free(names[i]);
		}
		free(names);
	}
	return cnt;
}

Test(kaish_fuzz_regress, corpus_through_lexer_parser_validator, .timeout = TEST_TIMEOUT(300))
{
	cr_expect_gt(replay(kaish_fuzz_parse_one), 100, "the seed corpus is missing");
}

Test(kaish_fuzz_regress, corpus_through_execute_in_a_sandbox, .timeout = TEST_TIMEOUT(500))
{
	cr_expect_gt(replay(kaish_fuzz_exec_one), 100, "the seed corpus is missing");
}

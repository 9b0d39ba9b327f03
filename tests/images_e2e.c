/*
 * End-to-end: one profile for the program named (issue #35 item 4; root + BTF). The command
 * `sh -c 'PROG 3; exec env PROG 40'` ends as PROG 40 (the last exec of the started process):
 *  - -o out.json holds that image, and only it;
 *  - the other images that made 16 allocations or more are in out.json.d/ (sh, env), the
 *    smaller ones (the forked sh, PROG 3) only in the closing table, which says so;
 *  - nothing is written to the working directory but out.json and out.json.d;
 *  - --all-images writes the small ones too.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dhat_reader.h"
#include "e2e_util.h"
#include "test_timeout.h"

#define MIN_BLOCKS 16 /* IMAGE_MIN_BLOCKS */

struct seen {
	size_t small, sh, env, final;
};

static bool count(const char *path, struct dhat_profile *p, void *ctx)
{
	struct seen *s = ctx;
	char small[1200], final[1200];

	(void)path;
	snprintf(small, sizeof(small), "%s 3", PROG_BIN);
	snprintf(final, sizeof(final), "%s 40", PROG_BIN);
	s->small += p->total_blocks < MIN_BLOCKS;
	s->sh += !strncmp(p->cmd, "sh -c", 5);
	s->env += !strncmp(p->cmd, "env ", 4);
	s->final += !strcmp(p->cmd, final);
	cr_expect(p->total_blocks >= MIN_BLOCKS || !strcmp(p->cmd, small) ||
			  !strncmp(p->cmd, "sh -c", 5),
		  "%s: %s, %llu blocks", path, p->cmd, (unsigned long long)p->total_blocks);
	return false;
}

/* Run the chain in a fresh working directory; its output into *out. */
static char *run_chain(const char *opts, char **out)
{
	char *dir = e2e_tmpdir("images"), cmd[4096];
	int rc;

	snprintf(cmd, sizeof(cmd),
		 "cd %s && %s %s -o out.json -- sh -c '%s 3; exec env %s 40' 2>&1", dir,
		 TRACER_BIN, opts, PROG_BIN, PROG_BIN);
	rc = e2e_run(cmd, out);
	cr_assert_eq(rc, 0, "%s: %d\n%s", cmd, rc, *out);
	return dir;
}

/* The working directory holds out.json and out.json.d, nothing else. */
static void expect_only_outputs(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		cr_expect(!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
				  !strcmp(e->d_name, "out.json") || !strcmp(e->d_name, "out.json.d"),
			  "%s written to the working directory", e->d_name);
	closedir(d);
}

static void expect_final(const char *dir)
{
	char path[1200], err[512], want[1200];
	struct dhat_profile *p;

	snprintf(path, sizeof(path), "%s/out.json", dir);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	snprintf(want, sizeof(want), "%s 40", PROG_BIN);
	cr_expect_str_eq(p->cmd, want, "out.json is not the final image");
	cr_expect_geq(p->total_blocks, 40);
	dhat_profile__free(p);
}

Test(images_e2e, final_image_to_o_others_beside_it, .timeout = TEST_TIMEOUT(300))
{
	char *dir, *out = NULL, sub[1200];
	struct seen s = { 0 };

	E2E_REQUIRE_ROOT();
	dir = run_chain("", &out);
	expect_final(dir);
	expect_only_outputs(dir);
	snprintf(sub, sizeof(sub), "%s/out.json.d", dir);
	e2e_each_profile(sub, count, &s, NULL);
	cr_expect_eq(s.final, 0, "the final image in out.json.d too");
	cr_expect_eq(s.env, 1, "env's profile (it allocates) not in out.json.d");
	cr_expect_eq(s.small, 0, "%zu small images written without --all-images", s.small);
	cr_expect(strstr(out, "allocations: no file") != NULL, "the table does not say:\n%s", out);
	cr_expect(strstr(out, "-> out.json\n") != NULL, "the table does not name out.json:\n%s",
		  out);
	free(out);
	free(dir);
}

Test(images_e2e, all_images_writes_the_small_ones, .timeout = TEST_TIMEOUT(300))
{
	char *dir, *out = NULL, sub[1200];
	struct seen s = { 0 };

	E2E_REQUIRE_ROOT();
	dir = run_chain("--all-images", &out);
	expect_final(dir);
	expect_only_outputs(dir);
	snprintf(sub, sizeof(sub), "%s/out.json.d", dir);
	e2e_each_profile(sub, count, &s, NULL);
	cr_expect_eq(s.final, 0);
	cr_expect_eq(s.env, 1);
	cr_expect_geq(s.small, 1, "no small image written with --all-images");
	cr_expect(strstr(out, "allocations: no file") == NULL, "%s", out);
	free(out);
	free(dir);
}

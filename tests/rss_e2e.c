/*
 * End-to-end: the heap against RSS per process image (issue #19; root + BTF).
 *  - the timeline of a profile has the heap in glibc malloc chunks next to the live heap:
 *    1000 blocks of 1 byte are 1000 chunks of 32 bytes, so the series ends at exactly
 *    32000 bytes, is >= the live heap at every point, and the chart draws it; the RSS
 *    split's allocator overhead is that difference;
 *  - under `-- sh -c 'prog; true'`, the program (a child of sh) maps 100 MiB outside
 *    malloc: its own profile has the mapping in its section and its own RSS series, and
 *    sh's profile has neither the mapping nor that RSS.
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dhat_reader.h"
#include "e2e_util.h"
#include "test_timeout.h"

/* Every image gets a file, the small ones too: these tests count them (tracee.h). */
#define TRACER_CMD TRACER_BIN " --all-images"

#define TINY_BLOCKS 1000
#define POOL_BYTES  (100ull << 20) /* data/death/mmap_prog.c */

Test(rss_e2e, timeline_has_the_heap_in_malloc_chunks, .timeout = TEST_TIMEOUT(60))
{
	char *dir, cmd[2048], path[1024], svg[1024], err[512], *out = NULL;
	struct dhat_profile *p;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("rss-chunks");
	snprintf(path, sizeof(path), "%s/tiny.json", dir);
	snprintf(svg, sizeof(svg), "%s/tiny.svg", dir);
	snprintf(cmd, sizeof(cmd), "%s -o %s -- %s 2>&1", TRACER_BIN, path, TINY_BLOCKS_BIN);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 0, "tracer exited %d:\n%s", st, out);
	/* 32000 - 1000 bytes of headers and rounding: "30.27 KiB". */
	cr_expect(strstr(out, "    allocator overhead (chunk headers) : 30.27 KiB\n") != NULL,
		  "%s", out);
	free(out);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_assert_eq(p->end_blocks, TINY_BLOCKS, "blocks live at the end: %llu",
		     (unsigned long long)p->end_blocks);
	cr_assert_eq(p->end_bytes, TINY_BLOCKS);
	cr_assert_not_null(p->live_cb, "no chunk series in %s", path);
	cr_expect_eq(p->live_cb_end, 32 * TINY_BLOCKS, "chunks at the end: %llu",
		     (unsigned long long)p->live_cb_end);
	cr_assert_gt(p->live_cnt, 1);
	for (size_t i = 0; i < p->live_cnt; i++)
		cr_expect_geq(p->live_cb[i], p->live_b[i], "point %zu: %llu chunk bytes, %llu live",
			      i, (unsigned long long)p->live_cb[i],
			      (unsigned long long)p->live_b[i]);
	cr_expect_eq(p->live_cb[p->live_cnt - 1], 32 * TINY_BLOCKS);
	dhat_profile__free(p);
	snprintf(cmd, sizeof(cmd), "%s export %s --format timeline -o %s 2>&1", TRACER_BIN, path,
		 svg);
	cr_assert_eq(e2e_run(cmd, &out), 0, "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "grep -c -e '<path id=\"chunks\"' -e 'heap in malloc chunks</text>' "
				   "-e '<path id=\"rss\"' %s",
		 svg);
	cr_assert_eq(e2e_run(cmd, &out), 0, "no chunk line in %s", svg);
	cr_expect_eq(atoi(out), 3, "chunk line, its key and the RSS line: %s", out);
	free(out);
	free(dir);
}

/* The map_pool site of p's mappings section, or NULL. */
static const struct dhat_mapping_site *pool_site(const struct dhat_profile *p)
{
	for (size_t i = 0; p->has_mappings && i < p->mappings.cnt; i++)
		if (p->mappings.sites[i].site && strstr(p->mappings.sites[i].site, "map_pool"))
			return &p->mappings.sites[i];
	return NULL;
}

Test(rss_e2e, forked_child_has_its_own_mappings_and_rss, .timeout = TEST_TIMEOUT(60))
{
	char *dir, cmd[2048], path[1024], err[512], *out = NULL;
	const struct dhat_mapping_site *pool;
	struct dhat_profile *p, *sh;
	glob_t g;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("rss-child");
	snprintf(path, sizeof(path), "%s/sh.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -o %s -- sh -c '%s; true' 2>&1", TRACER_CMD, path,
		 MMAP_PROG_BIN);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 0, "tracer exited %d:\n%s", st, out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s/sh.json.d/sh.*.death_mmap_prog.json", dir);
	cr_assert(!glob(cmd, 0, NULL, &g) && g.gl_pathc == 1, "no single %s", cmd);
	p = dhat_profile__load(g.gl_pathv[0], err, sizeof(err));
	globfree(&g);
	cr_assert_not_null(p, "%s", err);
	pool = pool_site(p);
	cr_assert_not_null(pool, "the child's profile has no map_pool mapping");
	cr_expect_eq(pool->bytes, POOL_BYTES);
	cr_expect_not(pool->in_malloc);
	cr_expect_geq(p->mappings.outside_malloc, POOL_BYTES);
	/* Its own RSS: sampled while it ran, the pool resident (every page written). */
	cr_expect(p->has_rss && p->rss_cnt > 0, "the child has no RSS series");
	cr_expect(p->has_death && p->death.cause == DHAT_DEATH_EXIT, "the child's end");
	cr_expect_geq(p->death.has_rss ? p->death.rss.anon : p->rss_end.anon, POOL_BYTES * 99 / 100,
		      "the child's anonymous RSS at its exit");
	dhat_profile__free(p);
	/* sh's own profile: its RSS, never the child's pool. */
	sh = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(sh, "%s", err);
	cr_expect_null(pool_site(sh), "sh's profile has the child's mapping");
	cr_expect(sh->has_rss && sh->rss_cnt > 0, "sh has no RSS series");
	for (size_t i = 0; i < sh->rss_cnt; i++)
		cr_expect_lt(sh->rss_b[i], POOL_BYTES, "sh's RSS holds the child's pool");
	dhat_profile__free(sh);
	free(dir);
}

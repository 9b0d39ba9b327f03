/*
 * End-to-end: `tracer --unwind dwarf` on programs without frame pointers.
 *  - levels (C, -O2 -fomit-frame-pointer): every program point names the same callers,
 *    level3 <- level2 <- level1 <- main, with the same bytes and blocks as Valgrind DHAT;
 *    in fp mode the same binary loses them (the fixture really has no frame pointers);
 *  - rs_allocs (rustc -O): the Vec and String allocations name the Rust functions down to
 *    main, demangled (rs_allocs::rs_middle; std's alloc:: frames, v0-mangled in rustc's
 *    own std since 1.8x, legacy in older ones), with no frame name left mangled, and
 *    `tracer report` names each site that reaches them by them, not by std's inlined frames;
 *  - libc_paths (strdup, a qsort comparator that allocates, getline): every stack runs
 *    through libc back to main, with Valgrind's call chains.
 * Every run must report no dropped record, no unwind failure, no unwind that ended early
 * and no stack cut short before the thread's entry.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_timeout.h"
#include "e2e_util.h"
#include "fp_detect.h"
#include "report.h"

static struct dhat_profile *load_or_die(const char *path)
{
	char err[512];
	struct dhat_profile *p = dhat_profile__load(path, err, sizeof(err));

	cr_assert_not_null(p, "cannot load %s: %s", path, err);
	return p;
}

/* Run the tracer on bin with the given --unwind mode into dir/NAME.json; return the profile
 * and (in *log) its stderr. */
static struct dhat_profile *trace(const char *dir, const char *name, const char *mode,
				  const char *bin, char **log)
{
	char cmd[2048], path[1024];
	int st;

	snprintf(path, sizeof(path), "%s/%s.json", dir, name);
	snprintf(cmd, sizeof(cmd), "%s -v --unwind %s -o %s -- %s 2>&1 >/dev/null", TRACER_BIN,
		 mode, path, bin);
	st = e2e_run(cmd, log);
	cr_assert_eq(st, 0, "tracer --unwind %s -- %s exited %d:\n%s", mode, bin, st, *log);
	return load_or_die(path);
}

static struct dhat_profile *valgrind(const char *dir, const char *bin)
{
	char cmd[2048], path[1024];

	snprintf(path, sizeof(path), "%s/valgrind.json", dir);
	snprintf(cmd, sizeof(cmd),
		 "valgrind --tool=dhat --run-libc-freeres=no --dhat-out-file=%s %s >/dev/null 2>&1",
		 path, bin);
	cr_assert_eq(e2e_run(cmd, NULL), 0, "valgrind --tool=dhat %s failed", bin);
	return load_or_die(path);
}

/* The tracer's summary says nothing was lost on the way. */
static void assert_clean_dwarf_run(const char *log)
{
	cr_expect(strstr(log, "dropped 0,"), "records were dropped:\n%s", log);
	cr_expect(strstr(log, "stack failures 0,"), "stack failures:\n%s", log);
	cr_expect(strstr(log, "stacks cut short 0 of "), "stacks stopping before the entry:\n%s",
		  log);
	cr_expect(strstr(log, "unwind failures 0, unwinds ended early 0\n"), "unwinding:\n%s",
		  log);
	cr_expect(strstr(log, "dwarf: snapshots "), "no dwarf details (-v):\n%s", log);
}

/* Call chains of a profile, summed: chain -> bytes, blocks. */
struct chain {
	char *callers;
	uint64_t bytes, blocks;
};

static size_t chains(const struct dhat_profile *p, struct chain **out)
{
	struct chain *c = calloc(p->pp_cnt + 1, sizeof(*c));
	size_t n = 0;

	cr_assert_not_null(c);
	for (size_t i = 0; i < p->pp_cnt; i++) {
		char *callers = e2e_callers(p, &p->pps[i]);
		size_t j;

		for (j = 0; j < n && strcmp(c[j].callers, callers); j++)
			;
		if (j == n)
			c[n++].callers = callers;
		else
			free(callers);
		c[j].bytes += p->pps[i].tb;
		c[j].blocks += p->pps[i].tbk;
	}
	*out = c;
	return n;
}

static const struct chain *chain_find(const struct chain *c, size_t n, const char *callers)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].callers, callers))
			return &c[i];
	return NULL;
}

static void chains_free(struct chain *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i].callers);
	free(c);
}

/* Every chain of each profile is in the other; with exact totals when exact is set, or only
 * for chains containing one of the NULL-terminated names in exact_for. */
static void assert_same_chains(const struct dhat_profile *ours, const struct dhat_profile *vg,
			       bool exact, const char *const *exact_for)
{
	struct chain *co, *cv;
	size_t no = chains(ours, &co), nv = chains(vg, &cv);

	for (size_t i = 0; i < nv; i++) {
		const struct chain *o = chain_find(co, no, cv[i].callers);
		bool check = exact;

		cr_expect_not_null(o, "valgrind's chain '%s' (%lu B in %lu) is not in ours",
				   cv[i].callers, cv[i].bytes, cv[i].blocks);
		for (size_t k = 0; !check && exact_for && exact_for[k]; k++)
			check = strstr(cv[i].callers, exact_for[k]) != NULL;
		if (!o || !check)
			continue;
		cr_expect_eq(o->bytes, cv[i].bytes, "'%s': bytes ours %lu, valgrind %lu",
			     cv[i].callers, o->bytes, cv[i].bytes);
		cr_expect_eq(o->blocks, cv[i].blocks, "'%s': blocks ours %lu, valgrind %lu",
			     cv[i].callers, o->blocks, cv[i].blocks);
	}
	for (size_t i = 0; i < no; i++)
		cr_expect_not_null(chain_find(cv, nv, co[i].callers),
				   "our chain '%s' (%lu B in %lu) is not in valgrind's",
				   co[i].callers, co[i].bytes, co[i].blocks);
	chains_free(co, no);
	chains_free(cv, nv);
}

/* The fixture must really lack frame pointers: no `mov %rsp,%rbp` in the level functions
 * (objdump), and the census --unwind auto uses agrees. */
static void assert_no_frame_pointers(const char *bin, const char *const *fns)
{
	struct fp_census c;
	char cmd[2048], *out = NULL;

	for (size_t i = 0; fns[i]; i++) {
		snprintf(cmd, sizeof(cmd),
			 "objdump -d --no-show-raw-insn --disassemble=%s %s | grep -c 'mov "
			 "*%%rsp,%%rbp'",
			 fns[i], bin);
		e2e_run(cmd, &out);
		cr_assert_eq(atoi(out), 0, "%s sets up a frame pointer in %s", fns[i], bin);
		free(out);
	}
	cr_assert_eq(fp_detect__census(bin, &c), 0, "no census of %s", bin);
	cr_expect_not(fp_detect__has_fp(&c), "%s: %zu of %zu functions keep frame pointers", bin,
		      c.with_fp, c.funcs);
}

Test(tracer_dwarf_e2e, c_without_frame_pointers_matches_valgrind, .timeout = TEST_TIMEOUT(300))
{
	static const char *const fns[] = {"level1", "level2", "level3", "main", NULL};
	struct dhat_profile *po, *pv, *pf;
	char *dir, *log = NULL, *fp_log = NULL;
	const char *bad;

	E2E_REQUIRE_ROOT();
	assert_no_frame_pointers(DWARF_LEVELS_BIN, fns);
	dir = e2e_tmpdir("dwarf-levels");
	po = trace(dir, "dwarf", "dwarf", DWARF_LEVELS_BIN, &log);
	assert_clean_dwarf_run(log);
	bad = e2e_invariants(po);
	cr_assert_null(bad, "invariant violated: %s", bad);
	pv = valgrind(dir, DWARF_LEVELS_BIN);

	cr_expect_eq(po->total_blocks, pv->total_blocks, "blocks: ours %lu, valgrind %lu",
		     po->total_blocks, pv->total_blocks);
	cr_expect_eq(po->total_bytes, pv->total_bytes, "bytes: ours %lu, valgrind %lu",
		     po->total_bytes, pv->total_bytes);
	cr_expect_eq(po->pp_cnt, pv->pp_cnt, "program points: ours %zu, valgrind %zu", po->pp_cnt,
		     pv->pp_cnt);
	assert_same_chains(po, pv, true, NULL);
	for (size_t i = 0; i < po->pp_cnt; i++) {
		char *callers = e2e_callers(po, &po->pps[i]);

		cr_expect_eq(strcmp(callers, "level3 <- level2 <- level1 <- main"), 0, "pp %zu: %s",
			     i, callers);
		free(callers);
	}

	/* The same binary in fp mode: BPF's frame-pointer walk cannot get past level3. */
	pf = trace(dir, "fp", "fp", DWARF_LEVELS_BIN, &fp_log);
	for (size_t i = 0; i < pf->pp_cnt; i++) {
		char *callers = e2e_callers(pf, &pf->pps[i]);

		cr_expect_null(strstr(callers, "level1 <- main"),
			       "fp mode got a complete stack without frame pointers: %s", callers);
		free(callers);
	}
	dhat_profile__free(po);
	dhat_profile__free(pv);
	dhat_profile__free(pf);
	free(log);
	free(fp_log);
	free(dir);
}

/* The Rust functions of one PP, in order: "inner <- ... <- rs_allocs::main <- main". */
static bool rust_chain_complete(const char *callers, const char *inner)
{
	static const char *const chain[] = {"rs_allocs::rs_middle", "rs_allocs::rs_outer",
					    "rs_allocs::main", NULL};
	const char *at = strstr(callers, inner), *end;

	if (!at)
		return false;
	for (size_t k = 0; chain[k]; k++) {
		at = strstr(at, chain[k]);
		if (!at)
			return false;
	}
	end = strrchr(callers, ' ');
	return end && !strcmp(end + 1, "main");
}

/*
 * Every frame name of the written profile is demangled: none starts like a Rust mangling
 * (_ZN..., _R<uppercase>...), and std's allocation path reads as Rust paths (alloc::...,
 * <alloc::...>), which no mangled name does.
 */
static void assert_rust_names_demangled(const struct dhat_profile *p)
{
	size_t alloc_paths = 0;

	for (size_t i = 0; i < p->ftbl_cnt; i++) {
		const char *f = p->ftbl[i], *name = strstr(f, ": ");

		name = name ? name + 2 : f;
		cr_expect(strncmp(name, "_ZN", 3) && !(name[0] == '_' && name[1] == 'R' &&
						       name[2] >= 'A' && name[2] <= 'Z'),
			  "frame %zu left mangled: %s", i, f);
		if (!strncmp(name, "alloc::", 7) || !strncmp(name, "<alloc::", 8))
			alloc_paths++;
	}
	cr_expect_gt(alloc_paths, 0, "no frame reads alloc::... (std's Vec/String growth)");
}

/*
 * `tracer report` names a program point by its first frame that is not allocation plumbing:
 * each one whose stack reaches the program's own code is named by it (rs_allocs::main for
 * std::env::args), not by one of std's inlined frames ("alloc (alloc.rs:95)" while inlined
 * frames had DWARF's bare names, "<u8 as <[_]>::to_vec_in::ConvertVec>::to_vec" in v0).
 */
static void assert_report_sites_are_user_code(const struct dhat_profile *p)
{
	size_t user_sites = 0;

	for (size_t i = 0; i < p->pp_cnt; i++) {
		const struct dhat_pp *pp = &p->pps[i];
		const char **frames = calloc(pp->fs_cnt + 1, sizeof(*frames));
		bool user = false;
		size_t head;

		cr_assert_not_null(frames);
		for (size_t j = 0; j < pp->fs_cnt; j++) {
			frames[j] = site__clean_frame(dhat_profile__pp_frame(p, pp, j));
			user = user || !strncmp(frames[j], "rs_allocs::", 11);
		}
		head = site__head(frames, pp->fs_cnt, NULL);
		if (user) {
			cr_expect(!strncmp(frames[head], "rs_allocs::", 11),
				  "site named by std, not the program: %s", frames[head]);
			user_sites++;
		}
		free(frames);
	}
	cr_expect_gt(user_sites, 0, "no program point reaches rs_allocs' code");
}

Test(tracer_dwarf_e2e, rust_release_build_stacks_reach_main, .timeout = TEST_TIMEOUT(300))
{
#ifndef DWARF_RS_ALLOCS_BIN
	if (e2e_in_ci())
		cr_assert_fail("rustc was not found at configure time: the Rust test cannot run");
	cr_skip_test("rustc not found at configure time");
#else
	struct dhat_profile *p;
	char *dir, *log = NULL;
	bool vec = false, string = false;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("dwarf-rust");
	p = trace(dir, "rust", "dwarf", DWARF_RS_ALLOCS_BIN, &log);
	assert_clean_dwarf_run(log);
	for (size_t i = 0; i < p->pp_cnt; i++) {
		char *callers = e2e_callers(p, &p->pps[i]);

		if (strstr(callers, "rs_fill_vec")) {
			vec = true;
			cr_expect(rust_chain_complete(callers, "rs_fill_vec"), "Vec: %s", callers);
		}
		if (strstr(callers, "rs_make_string")) {
			string = true;
			cr_expect(rust_chain_complete(callers, "rs_make_string"), "String: %s",
				  callers);
		}
		free(callers);
	}
	cr_expect(vec, "no program point names rs_fill_vec:\n%s", log);
	cr_expect(string, "no program point names rs_make_string:\n%s", log);
	assert_rust_names_demangled(p);
	assert_report_sites_are_user_code(p);
	/* auto chooses dwarf for it too (a Rust program, though std keeps frame pointers). */
	{
		struct fp_census c;

		cr_assert_eq(fp_detect__census(DWARF_RS_ALLOCS_BIN, &c), 0);
		cr_expect(c.rust, "rs_allocs not recognized as Rust");
		cr_expect_not(fp_detect__has_fp(&c));
	}
	dhat_profile__free(p);
	free(log);
	free(dir);
#endif
}

Test(tracer_dwarf_e2e, libc_callers_strdup_qsort_getline_reach_main, .timeout = TEST_TIMEOUT(300))
{
	static const char *const exact[] = {"cmp_alloc", "sort_site", "dup_site", NULL};
	static const char *const sites[] = {"dup_site <- main", "cmp_alloc <- msort_with_tmp",
					    "qsort_r <- sort_site <- main", "line_site", NULL};
	struct dhat_profile *po, *pv;
	char *dir, *log = NULL;
	size_t qsort_pps = 0;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("dwarf-libc");
	po = trace(dir, "dwarf", "dwarf", DWARF_LIBC_PATHS_BIN, &log);
	assert_clean_dwarf_run(log);
	pv = valgrind(dir, DWARF_LIBC_PATHS_BIN);

	/* Every program point ends in main, through libc's frames where there are some. */
	for (size_t i = 0; i < po->pp_cnt; i++) {
		char *callers = e2e_callers(po, &po->pps[i]);
		size_t n = strlen(callers);

		cr_expect(n >= 4 && !strcmp(callers + n - 4, "main") &&
			      (n == 4 || !strcmp(callers + n - 8, " <- main")),
			  "pp %zu does not reach main: %s", i, callers);
		qsort_pps += strstr(callers, "cmp_alloc <- msort_with_tmp") != NULL;
		free(callers);
	}
	cr_expect_gt(qsort_pps, 0, "no comparator allocation seen through qsort");
	for (size_t k = 0; sites[k]; k++) {
		bool found = false;

		for (size_t i = 0; i < po->pp_cnt && !found; i++) {
			char *callers = e2e_callers(po, &po->pps[i]);

			found = strstr(callers, sites[k]) != NULL;
			free(callers);
		}
		cr_expect(found, "no program point with '%s'", sites[k]);
	}
	/* Valgrind's chains, exactly where the tracer charges like Valgrind (getline's
	 * internal reallocs are merged by design: see alloc.bpf.c). */
	assert_same_chains(po, pv, false, exact);
	dhat_profile__free(po);
	dhat_profile__free(pv);
	free(log);
	free(dir);
}

/* The snapshot counts of a -v log's dwarf line. */
struct snap_counts {
	long long snaps, sparse, hints, sites, missed;
};

static struct snap_counts snapshot_counts(const char *log)
{
	const char *d = strstr(log, "dwarf: snapshots ");
	struct snap_counts c;

	cr_assert_not_null(d, "no dwarf details (-v):\n%s", log);
	cr_assert_eq(sscanf(d,
			    "dwarf: snapshots %lld (%lld sparse), unwound %*d, "
			    "stack hints %lld set at %lld sites, %*d refused, %lld missed",
			    &c.snaps, &c.sparse, &c.hints, &c.sites, &c.missed),
		     5, "unexpected dwarf line:\n%s", d);
	return c;
}

/* "unwinds ended early N" of a summary, or -1. */
static long long ended_early(const char *log)
{
	const char *at = strstr(log, "unwinds ended early ");

	return at ? strtoll(at + strlen("unwinds ended early "), NULL, 10) : -1;
}

/*
 * Stack hints: after a call site's first dense copy, its copies carry only the words the
 * unwinder read. cmd traced with them and with --dense-stacks must give the same profile,
 * chain for chain, with most snapshots sparse and no hint missed. The sparse profile.
 */
static struct dhat_profile *assert_sparse_like_dense(const char *dir, const char *cmd,
						     struct snap_counts *out)
{
	struct dhat_profile *ps, *pd;
	char *log = NULL, *dense_log = NULL;
	struct snap_counts c, cd;

	ps = trace(dir, "sparse", "dwarf", cmd, &log);
	pd = trace(dir, "dense", "dwarf --dense-stacks", cmd, &dense_log);
	/* A dropped record would show as a difference below: say so first. */
	cr_expect(strstr(log, "dropped 0,") && strstr(dense_log, "dropped 0,"),
		  "records dropped:\n%s\n%s", log, dense_log);
	c = snapshot_counts(log);
	/* Hints are set ~20 ms behind the target: its first copies go dense. */
	cr_expect_gt(c.sparse, c.snaps / 4, "only %lld of %lld snapshots sparse:\n%s", c.sparse,
		     c.snaps, log);
	cr_expect_eq(c.missed, 0, "hint misses:\n%s", log);
	cr_expect_geq(ended_early(log), 0, "%s", log);
	cr_expect_eq(ended_early(log), ended_early(dense_log), "sparse:\n%s\ndense:\n%s", log,
		     dense_log);
	cd = snapshot_counts(dense_log);
	cr_expect_gt(cd.snaps, 0);
	cr_expect_eq(cd.sparse, 0, "--dense-stacks sent sparse copies:\n%s", dense_log);
	if (out)
		*out = c;
	cr_expect_eq(ps->total_blocks, pd->total_blocks);
	cr_expect_eq(ps->total_bytes, pd->total_bytes);
	cr_expect_eq(ps->pp_cnt, pd->pp_cnt, "program points: sparse %zu, dense %zu", ps->pp_cnt,
		     pd->pp_cnt);
	assert_same_chains(ps, pd, true, NULL);
	dhat_profile__free(pd);
	free(log);
	free(dense_log);
	return ps;
}

/* Debian's sed (no frame pointers; its regex code allocates from the same deep sites over
 * and over). */
Test(tracer_dwarf_e2e, sparse_stack_copies_give_the_dense_profile, .timeout = TEST_TIMEOUT(300))
{
	char *dir, input[1024], cmd[2048];
	FILE *f;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("dwarf-sparse");
	snprintf(input, sizeof(input), "%s/input.txt", dir);
	f = fopen(input, "w");
	cr_assert_not_null(f);
	for (int i = 0; i < 3000; i++)
		fprintf(f, "id%d ka=%d kb=%d kc=%d\n", i, i * 7, i * 13 % 1000, i % 97);
	cr_assert_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "sed -E -e 's/([a-z]+)=([0-9]+)/\\2:\\1/g' %s", input);
	dhat_profile__free(assert_sparse_like_dense(dir, cmd, NULL));
	free(dir);
}

/* One site reached at one depth by two chains whose frames lie at other places: a hint of
 * one path must not stand for the other (without the check of its return addresses, about
 * a fifth of these stacks came out cut). */
Test(tracer_dwarf_e2e, a_hint_is_not_used_for_another_path, .timeout = TEST_TIMEOUT(300))
{
	static const char *const chains[] = {"site <- narrow_g <- wide_a <- rounds_of <- main",
					     "site <- wide_g <- narrow_a <- rounds_of <- main"};
	struct dhat_profile *p;
	struct snap_counts c;
	char *dir;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("dwarf-two-paths");
	p = assert_sparse_like_dense(dir, DWARF_TWO_PATHS_BIN " 100000", &c);
	/* The two paths met at one site (one key), each with its own hint: the case tested. */
	cr_expect_eq(c.sites, 1, "the paths reach the site at other depths: %lld sites", c.sites);
	cr_expect_geq(c.hints, 2, "%lld hints", c.hints);
	cr_assert_eq(p->pp_cnt, 2);
	for (size_t i = 0; i < p->pp_cnt; i++) {
		char *callers = e2e_callers(p, &p->pps[i]);

		cr_expect(!strcmp(callers, chains[0]) || !strcmp(callers, chains[1]), "%s",
			  callers);
		cr_expect_eq(p->pps[i].tbk, 50000, "%s: %lu blocks", callers, p->pps[i].tbk);
		free(callers);
	}
	dhat_profile__free(p);
	free(dir);
}

/* Threads: their stacks are not the main one, and a shallow thread's copy runs into the end
 * of its stack mapping (a short copy). Each thread's sites get their own hints. */
Test(tracer_dwarf_e2e, thread_stacks_are_hinted_per_thread, .timeout = TEST_TIMEOUT(300))
{
	struct dhat_profile *p;
	struct snap_counts c;
	char *dir;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("dwarf-threads");
	p = assert_sparse_like_dense(dir, DWARF_THREADS_BIN " 30000", &c);
	/* three threads, nine depths: a site each (without hints for short copies, one
	 * thread in three went sparse) */
	cr_expect_gt(c.sparse, c.snaps / 2, "%lld of %lld sparse", c.sparse, c.snaps);
	cr_expect_eq(c.sites, 27, "%lld sites", c.sites);
	cr_expect_geq(p->total_blocks, 90000, "%lu blocks", p->total_blocks); /* + pthread's own */
	dhat_profile__free(p);
	free(dir);
}

/*
 * End-to-end: the tracer binary against real programs.
 *  - `tracer -- known_allocs` gives, per call site, exactly the blocks and bytes Valgrind
 *    DHAT gives for the same binary, and passes the command's exit status through;
 *  - `tracer --workload scatter-gather` writes a profile with the seed's report;
 *  - every file written satisfies the DHAT invariants and loads in the real dh_view.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_timeout.h"
#include "e2e_util.h"

static struct dhat_profile *load_or_die(const char *path)
{
	char err[512];
	struct dhat_profile *p = dhat_profile__load(path, err, sizeof(err));

	cr_assert_not_null(p, "cannot load %s: %s", path, err);
	return p;
}

static void assert_dh_view_accepts(const char *path)
{
	char cmd[1024], *out = NULL;
	int st;

	snprintf(cmd, sizeof(cmd), "python3 %s %s 2>&1", DHVIEW_CHECK, path);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 0, "dh_view rejected %s:\n%s", path, out);
	cr_assert(strstr(out, "ACCEPTED"), "%s", out);
	free(out);
}

/* The sites of known_allocs.c and what each allocates (see the program). */
static const struct {
	const char *fn; /* site function name, the file:line is checked against Valgrind's */
	uint64_t bytes, blocks;
} known_sites[] = {
	{ "site_calloc", 80, 1 },	   { "site_grow_shrink", 350, 3 },
	{ "site_realloc_null", 64, 1 },	   { "site_realloc_zero", 16, 1 },
	{ "site_reallocarray", 144, 2 },   { "site_posix_memalign", 256, 1 },
	{ "site_aligned_alloc", 384, 1 },  { "site_memalign", 48, 1 },
	{ "site_valloc", 1000, 1 },	   { "site_strdup", 31, 1 },
	{ "site_leak", 777, 1 },
};

Test(tracer_e2e, known_program_matches_valgrind_per_site, .timeout = TEST_TIMEOUT(300))
{
	char *dir, cmd[2048], ours[1024], vg[1024], *out = NULL;
	struct dhat_profile *po, *pv;
	struct site_total *so, *sv;
	size_t no, nv;
	const char *bad;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("known");
	snprintf(ours, sizeof(ours), "%s/ours.json", dir);
	snprintf(vg, sizeof(vg), "%s/valgrind.json", dir);

	snprintf(cmd, sizeof(cmd), "%s -q -o %s -- %s 2>&1", TRACER_BIN, ours, KNOWN_ALLOCS_BIN);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 3, "tracer must exit with the command's status 3, got %d:\n%s", st, out);
	free(out);
	snprintf(cmd, sizeof(cmd), "valgrind --tool=dhat --run-libc-freeres=no --dhat-out-file=%s %s >/dev/null 2>&1",
		 vg, KNOWN_ALLOCS_BIN);
	cr_assert_eq(e2e_run(cmd, NULL), 3, "valgrind run failed");

	po = load_or_die(ours);
	pv = load_or_die(vg);
	bad = e2e_invariants(po);
	cr_assert_null(bad, "invariant violated in %s: %s", ours, bad);

	/* Same totals as Valgrind, and the same blocks and bytes at every call site. */
	cr_expect_eq(po->total_blocks, pv->total_blocks, "total blocks: ours %lu, valgrind %lu",
		     po->total_blocks, pv->total_blocks);
	cr_expect_eq(po->total_bytes, pv->total_bytes, "total bytes: ours %lu, valgrind %lu",
		     po->total_bytes, pv->total_bytes);
	cr_expect_eq(po->end_bytes, pv->end_bytes, "bytes at t-end: ours %lu, valgrind %lu",
		     po->end_bytes, pv->end_bytes);
	cr_expect_eq(po->end_blocks, pv->end_blocks);
	no = e2e_sites(po, &so);
	nv = e2e_sites(pv, &sv);
	for (size_t i = 0; i < nv; i++) {
		const struct site_total *o = e2e_site_find(so, no, sv[i].site);

		cr_expect_not_null(o, "valgrind site '%s' (%lu B in %lu) missing from ours",
				   sv[i].site, sv[i].bytes, sv[i].blocks);
		if (!o)
			continue;
		cr_expect_eq(o->bytes, sv[i].bytes, "%s: bytes ours %lu, valgrind %lu", sv[i].site,
			     o->bytes, sv[i].bytes);
		cr_expect_eq(o->blocks, sv[i].blocks, "%s: blocks ours %lu, valgrind %lu",
			     sv[i].site, o->blocks, sv[i].blocks);
	}
	cr_expect_eq(no, nv, "ours has %zu sites, valgrind %zu", no, nv);

	/* And the figures the program was written to produce. */
	for (size_t k = 0; k < sizeof(known_sites) / sizeof(known_sites[0]); k++) {
		bool found = false;

		for (size_t i = 0; i < no; i++) {
			if (strncmp(so[i].site, known_sites[k].fn, strlen(known_sites[k].fn)) ||
			    so[i].site[strlen(known_sites[k].fn)] != ' ')
				continue;
			found = true;
			cr_expect_eq(so[i].bytes, known_sites[k].bytes, "%s bytes", so[i].site);
			cr_expect_eq(so[i].blocks, known_sites[k].blocks, "%s blocks", so[i].site);
		}
		cr_expect(found, "site %s not in our profile", known_sites[k].fn);
	}
	e2e_sites_free(so, no);
	e2e_sites_free(sv, nv);
	dhat_profile__free(po);
	dhat_profile__free(pv);
	assert_dh_view_accepts(ours);
	free(dir);
}

Test(tracer_e2e, workload_scatter_gather_profile_and_report, .timeout = TEST_TIMEOUT(600))
{
	char *dir, cmd[2048], path[1024], *out = NULL;
	struct dhat_profile *p;
	const char *bad;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("workload");
	snprintf(cmd, sizeof(cmd), "KAISH_PROFILE_OUT=%s %s --workload scatter-gather 2>&1", dir,
		 TRACER_BIN);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 0, "tracer --workload failed (%d):\n%s", st, out);
	/* The seed's report, read back from the written JSON. */
	cr_expect(strstr(out, "scatter-gather"), "%s", out);
	cr_expect(strstr(out, "unit: one 8-way scatter|gather x 20"), "%s", out);
	cr_expect(strstr(out, "total allocations :"), "%s", out);
	cr_expect(strstr(out, "peak live bytes   :"), "%s", out);
	cr_expect(strstr(out, "top program points by TOTAL BYTES"), "%s", out);
	cr_expect(strstr(out, "top program points by ALLOCATION COUNT"), "%s", out);
	cr_expect(strstr(out, "dropped 0,"), "records were dropped:\n%s", out);

	snprintf(path, sizeof(path), "%s/dhat-heap-scatter-gather.json", dir);
	p = load_or_die(path);
	bad = e2e_invariants(p);
	cr_assert_null(bad, "invariant violated: %s", bad);
	cr_expect_gt(p->total_blocks, 20, "a scatter-gather iteration allocates");
	cr_expect_eq(strcmp(p->mode, "ebpf-heap"), 0);
	dhat_profile__free(p);
	free(out);
	assert_dh_view_accepts(path);
	free(dir);
}

Test(tracer_e2e, unknown_workload_exits_2)
{
	char cmd[1024], *out = NULL;

	snprintf(cmd, sizeof(cmd), "%s --workload no-such-workload 2>&1", TRACER_BIN);
	cr_assert_eq(e2e_run(cmd, &out), 2, "%s", out);
	cr_expect(strstr(out, "unknown workload: no-such-workload"), "%s", out);
	free(out);
}

/* Line n (1-based) of a source file under dir, or NULL. Static buffer. */
static const char *source_line(const char *dir, const char *file, int n)
{
	static char line[4096];
	char path[1024];
	FILE *f;
	int i = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (++i == n) {
			fclose(f);
			return line;
		}
	fclose(f);
	return NULL;
}

/*
 * For every program point whose caller frame is in the kernel-under-test or driver sources,
 * the reported caller line must contain the call of the allocator that the first frame names:
 * frames carry return address - 1, so a line off by one (or the wrong file) shows up here.
 * Returns the number of frames checked.
 */
static size_t check_caller_lines(const struct dhat_profile *p)
{
	static const char *const dirs[] = { KERNEL_SRC_DIR, WORKLOADS_SRC_DIR };
	size_t checked = 0;

	for (size_t i = 0; i < p->pp_cnt; i++) {
		const struct dhat_pp *pp = &p->pps[i];
		char alloc[64], fn[256], file[256];
		const char *f0, *f1, *line = NULL;
		int lineno;

		if (pp->fs_cnt < 2)
			continue;
		f0 = strstr(dhat_profile__pp_frame(p, pp, 0), ": ");
		f1 = strstr(dhat_profile__pp_frame(p, pp, 1), ": ");
		if (!f0 || !f1 || sscanf(f0 + 2, "%63s", alloc) != 1 ||
		    sscanf(f1 + 2, "%255s (%255[^:]:%d)", fn, file, &lineno) != 3)
			continue;
		for (size_t d = 0; d < 2 && !line; d++)
			line = source_line(dirs[d], file, lineno);
		if (!line)
			continue; /* libc, ld.so: not our sources */
		cr_expect(strstr(line, alloc), "%s calls %s at %s:%d, but that line is: %s", fn,
			  alloc, file, lineno, line);
		checked++;
	}
	return checked;
}

Test(tracer_e2e, all_workloads_zero_drops_and_correct_lines, .timeout = TEST_TIMEOUT(900))
{
	static const char *const names[] = { "kernel-construct", "execute-call", "grep-pipeline",
					     "cmdsubst", "loop-many-commands", "scatter-gather" };
	char *dir, cmd[2048], path[1024], *out = NULL;
	size_t checked = 0;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("all");
	snprintf(cmd, sizeof(cmd), "%s --workload all -o %s 2>&1", TRACER_BIN, dir);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 0, "tracer --workload all failed (%d):\n%s", st, out);
	cr_expect(strstr(out, "dropped 0,"), "records dropped at default settings:\n%s", out);
	cr_expect(strstr(out, "stack failures 0,"), "%s", out);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct dhat_profile *p;
		const char *bad;

		snprintf(path, sizeof(path), "%s/dhat-heap-%s.json", dir, names[i]);
		p = load_or_die(path);
		bad = e2e_invariants(p);
		cr_expect_null(bad, "%s: %s", path, bad);
		cr_expect_gt(p->total_blocks, 0, "%s: nothing traced", names[i]);
		checked += check_caller_lines(p);
		dhat_profile__free(p);
		assert_dh_view_accepts(path);
	}
	cr_expect_gt(checked, 100, "only %zu caller frames named kernel sources", checked);
	free(out);
	free(dir);
}

/* The whole driver process, traced and under Valgrind: the same program, the same numbers. */
Test(tracer_e2e, whole_driver_process_matches_valgrind, .timeout = TEST_TIMEOUT(900))
{
	char *dir, cmd[2048], ours[1024], vg[1024], *out = NULL;
	struct dhat_profile *po, *pv;
	struct site_total *so, *sv;
	size_t no, nv;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("whole");
	snprintf(ours, sizeof(ours), "%s/ours.json", dir);
	snprintf(vg, sizeof(vg), "%s/valgrind.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -q -o %s -- %s --quiet all 2>&1", TRACER_BIN, ours,
		 WORKLOADS_BIN);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 0, "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd),
		 "valgrind --tool=dhat --run-libc-freeres=no --dhat-out-file=%s %s --quiet all "
		 ">/dev/null 2>&1",
		 vg, WORKLOADS_BIN);
	cr_assert_eq(e2e_run(cmd, NULL), 0, "valgrind run failed");

	po = load_or_die(ours);
	pv = load_or_die(vg);
	cr_expect_eq(po->total_blocks, pv->total_blocks, "blocks: ours %lu, valgrind %lu",
		     po->total_blocks, pv->total_blocks);
	cr_expect_eq(po->total_bytes, pv->total_bytes, "bytes: ours %lu, valgrind %lu",
		     po->total_bytes, pv->total_bytes);
	cr_expect_eq(po->gmax_bytes, pv->gmax_bytes, "peak: ours %lu, valgrind %lu",
		     po->gmax_bytes, pv->gmax_bytes);
	cr_expect_eq(po->gmax_blocks, pv->gmax_blocks);
	cr_expect_eq(po->end_bytes, pv->end_bytes, "end: ours %lu, valgrind %lu", po->end_bytes,
		     pv->end_bytes);
	no = e2e_sites(po, &so);
	nv = e2e_sites(pv, &sv);
	for (size_t i = 0; i < nv; i++) {
		const struct site_total *o = e2e_site_find(so, no, sv[i].site);

		cr_expect(o && o->bytes == sv[i].bytes && o->blocks == sv[i].blocks,
			  "site '%s': valgrind %lu B in %lu, ours %lu B in %lu", sv[i].site,
			  sv[i].bytes, sv[i].blocks, o ? o->bytes : 0, o ? o->blocks : 0);
	}
	cr_expect_eq(no, nv, "ours has %zu sites, valgrind %zu", no, nv);
	e2e_sites_free(so, no);
	e2e_sites_free(sv, nv);
	dhat_profile__free(po);
	dhat_profile__free(pv);
	free(dir);
}

/* --start-at/--stop-at: the profile holds exactly the allocations between the two calls. */
Test(tracer_e2e, start_and_stop_symbols_cut_the_window, .timeout = TEST_TIMEOUT(300))
{
	char *dir, cmd[2048], path[1024], *out = NULL;
	struct dhat_profile *p;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("window");
	snprintf(path, sizeof(path), "%s/win.json", dir);
	snprintf(cmd, sizeof(cmd),
		 "%s -q -o %s --start-at site_grow_shrink --stop-at site_leak -- %s 2>&1",
		 TRACER_BIN, path, KNOWN_ALLOCS_BIN);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 3, "%s", out);
	p = load_or_die(path);
	/* site_grow_shrink .. site_strdup of known_allocs.c: not the calloc before, not the
	 * leak at the stop symbol, not the threads after. */
	cr_expect_eq(p->total_blocks, 15, "blocks %lu", p->total_blocks);
	cr_expect_eq(p->total_bytes, 2389, "bytes %lu", p->total_bytes);
	cr_expect_null(e2e_invariants(p));
	dhat_profile__free(p);
	free(out);

	snprintf(cmd, sizeof(cmd), "%s -q --start-at no_such_function -- %s 2>&1", TRACER_BIN,
		 KNOWN_ALLOCS_BIN);
	cr_expect_eq(e2e_run(cmd, &out), 2, "%s", out);
	cr_expect(strstr(out, "no_such_function"), "%s", out);
	free(out);
	free(dir);
}

/* A statically linked target has no libc to probe: the tracer finds malloc in the
 * executable itself, and every call site of the program is counted as in the dynamic build. */
Test(tracer_e2e, static_executable_allocator_detected, .timeout = TEST_TIMEOUT(300))
{
	char *dir, cmd[2048], path[1024], *out = NULL;
	struct dhat_profile *p;
	struct site_total *s;
	size_t n;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("static");
	snprintf(path, sizeof(path), "%s/static.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -o %s -- %s 2>&1 >/dev/null", TRACER_BIN, path,
		 KNOWN_ALLOCS_STATIC_BIN);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 3, "%s", out);
	cr_expect(strstr(out, "probing the allocator in"), "%s", out);
	p = load_or_die(path);
	n = e2e_sites(p, &s);
	for (size_t k = 0; k < sizeof(known_sites) / sizeof(known_sites[0]); k++) {
		bool found = false;

		for (size_t i = 0; i < n; i++)
			if (!strncmp(s[i].site, known_sites[k].fn, strlen(known_sites[k].fn)) &&
			    s[i].site[strlen(known_sites[k].fn)] == ' ') {
				found = true;
				cr_expect_eq(s[i].bytes, known_sites[k].bytes, "%s", s[i].site);
				cr_expect_eq(s[i].blocks, known_sites[k].blocks, "%s", s[i].site);
			}
		cr_expect(found, "%s missing in the static profile", known_sites[k].fn);
	}
	e2e_sites_free(s, n);
	dhat_profile__free(p);
	free(out);
	free(dir);
}

/* -v prints one "timing:" line per profile (run.sh keeps it), describing the file written. */
Test(tracer_e2e, verbose_timing_line_describes_the_profile, .timeout = TEST_TIMEOUT(300))
{
	char *dir, cmd[2048], path[1024], *out = NULL, *line;
	unsigned long long frames, bytes;
	double sym_ms, json_ms;
	struct dhat_profile *p;
	struct stat st;
	size_t npps;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("timing");
	snprintf(path, sizeof(path), "%s/out.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -v -o %s -- %s 2>&1 >/dev/null", TRACER_BIN, path,
		 KNOWN_ALLOCS_BIN);
	cr_assert_eq(e2e_run(cmd, &out), 3, "%s", out);
	line = strstr(out, "timing: ");
	cr_assert_not_null(line, "no timing line:\n%s", out);
	line += strlen("timing: ") + strlen(path) + 2;
	cr_assert_eq(sscanf(line,
			    "%zu program points, %llu frames: stacks+symbols %lf ms, JSON %lf ms, "
			    "%llu bytes",
			    &npps, &frames, &sym_ms, &json_ms, &bytes),
		     5, "unparsed timing line: %s", line);
	p = load_or_die(path);
	cr_assert_eq(stat(path, &st), 0);
	/* The line counts the collector's program points; the writer may merge those that
	 * symbolize to the same frames, so the file can have fewer, never more. */
	cr_expect_geq(npps, p->pp_cnt, "program points: line %zu, file %zu", npps, p->pp_cnt);
	cr_expect_gt(p->pp_cnt, 0);
	cr_expect_eq(bytes, (unsigned long long)st.st_size);
	cr_expect_geq(frames, npps, "each program point has at least its allocator frame");
	cr_expect(sym_ms >= 0 && json_ms >= 0, "%f %f", sym_ms, json_ms);
	dhat_profile__free(p);
	free(out);
	free(dir);
}

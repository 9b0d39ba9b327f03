// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * End-to-end (root + BTF, label bpf): --sample-bytes on a program whose heap figures are
 * known exactly (tests/data/sampling/sample_mix.c). The exact trace must give exactly those
 * figures; the sampled trace's estimates must land within 6 standard deviations of them
 * (the Horvitz-Thompson variance of Poisson sampling by bytes, plus the integer weights'
 * rounding), a window that never flakes yet excludes unweighted figures by far. Also: the
 * file says it is sampled, the closing summary says so, unsampled frees send nothing, and
 * a sampled realloc stays at its block's birth site when that block was sampled, else is
 * charged to its own call site.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dhat_reader.h"
#include "e2e_util.h"
#include "test_timeout.h"
#include "test_util.h"

/* sample_mix.c's constants. */
#define MIX_ROUNDS     20000
#define MIX_LEAK_EVERY 100
#define MIX_N	       4096 /* --sample-bytes of the sampled run */
static const struct {
	const char *fn; /* the site's function */
	double size;
} MIX[] = {{"alloc_24", 24},	 {"alloc_200", 200},	 {"alloc_1500", 1500},
	   {"alloc_9000", 9000}, {"alloc_70000", 70000}, {"grow_400", 400},
	   {"alloc_r3000", 3000}};
#define MIX_CNT (sizeof(MIX) / sizeof(MIX[0]))

/* Every block of the run, exact figures and the variances of their estimates. */
struct expect {
	double bytes, blocks, end_bytes;
	double var_bytes, var_blocks, var_end;
};

static double p_of(double s)
{
	return -expm1(-s / MIX_N);
}

static struct expect expected(void)
{
	struct expect e = {0};
	const double leaked = MIX_ROUNDS / MIX_LEAK_EVERY;

	for (size_t i = 0; i < MIX_CNT; i++) {
		double s = MIX[i].size, p = p_of(s), v = (1 - p) / p;

		e.bytes += MIX_ROUNDS * s;
		e.blocks += MIX_ROUNDS;
		e.var_bytes += MIX_ROUNDS * s * s * v;
		/* Each sampled block's weight is 1/p rounded up or down at random: <= 1/4 more
		 * variance per sampled block (MIX_ROUNDS * p of them). */
		e.var_blocks += MIX_ROUNDS * (v + p / 4);
		if (strcmp(MIX[i].fn, "alloc_200")) { /* grown to 400: not live at the end */
			e.end_bytes += leaked * s;
			e.var_end += leaked * s * s * v;
		}
	}
	return e;
}

/* Σtb of the sites whose first frame names fn, and Σ tbSe^2 (the variance the file gives
 * that estimate: 0 in an exact profile) when var is not NULL. */
static void site_of_var(const struct dhat_profile *p, const char *fn, double *bytes, double *var)
{
	struct site_total *s;
	size_t n = e2e_sites(p, &s);
	size_t len = strlen(fn);

	*bytes = 0;
	if (var)
		*var = 0;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(s[i].site, fn, len) || (s[i].site[len] != ' ' && s[i].site[len]))
			continue;
		*bytes += (double)s[i].bytes;
		if (var)
			*var += s[i].bytes_var;
	}
	e2e_sites_free(s, n);
}

/* The realloc-chain counts (tbRealloc, tbkReallocd) of the PPs with a frame in function fn
 * (the programs' site functions call the allocator, and none calls another). */
static struct dhat_pp_est site_est(const struct dhat_profile *p, const char *fn)
{
	struct dhat_pp_est sum = {0, 0, 0, 0};
	size_t len = strlen(fn);

	for (size_t i = 0; i < p->pp_cnt; i++) {
		const struct dhat_pp *pp = &p->pps[i];
		struct dhat_pp_est e = dhat_profile__pp_est(p, pp);

		for (size_t j = 0; j < pp->fs_cnt; j++) {
			const char *f = strstr(dhat_profile__pp_frame(p, pp, j), ": ");

			f = f ? f + 2 : dhat_profile__pp_frame(p, pp, j);
			if (!strncmp(f, fn, len) && (f[len] == ' ' || !f[len])) {
				sum.tb_realloc += e.tb_realloc;
				sum.tbk_reallocd += e.tbk_reallocd;
				break;
			}
		}
	}
	return sum;
}

static void site_of(const struct dhat_profile *p, const char *fn, double *bytes)
{
	site_of_var(p, fn, bytes, NULL);
}

/* The variance of a malloc site's estimate per block of size s, as the weights are drawn:
 * Var(I W) s^2 with W = 1/p rounded up with probability f = frac(1/p) (sample_weight.h). */
static double true_var(double s)
{
	double p = p_of(s), w = 1 / p, f = w - floor(w);

	return s * s * (w + p * f * (1 - f) - 1);
}

static struct dhat_profile *trace(const char *dir, const char *name, const char *env,
				  const char *opts, char **summary)
{
	char cmd[2048], path[1024], sum[1024], err[512];
	struct dhat_profile *p;

	snprintf(path, sizeof(path), "%s/%s.json", dir, name);
	snprintf(sum, sizeof(sum), "%s/%s.summary", dir, name);
	snprintf(cmd, sizeof(cmd), "%s %s %s -o %s --summary %s -- %s", env, TRACER_BIN, opts, path,
		 sum, SAMPLE_MIX_BIN);
	cr_assert_eq(e2e_run(cmd, NULL), 0, "%s", cmd);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	*summary = tu_slurp(sum, NULL);
	cr_assert_not_null(*summary);
	return p;
}

/*
 * The mean and variance, per round, of a site's sampled estimate of bytes. alloc_200's block
 * (p2 = p(200)) is grown to 400 bytes by grow_400 (p4 = p(400), decided independently): when
 * both are sampled the 400 bytes stay at alloc_200 (the birth site, known), when only the
 * new one is they go to grow_400. With B = 200/p2 I2 and X = 400/p4 I2 I4 (I: sampled):
 * alloc_200 = B + X, E = 200 + 400 p2, Var = Var B + Var X + 2 Cov(B, X), and
 * grow_400 = 400/p4 (1 - I2) I4, E = 400 (1 - p2).
 */
static void site_expect(const char *fn, double sz, double *mean, double *var)
{
	double p = p_of(sz), p2 = p_of(200), p4 = p_of(400);

	*mean = sz;
	*var = sz * sz * (1 - p) / p;
	if (!strcmp(fn, "alloc_200")) {
		*mean = 200 + 400 * p2;
		*var = 200.0 * 200 * (1 - p2) / p2 + 400.0 * 400 * (p2 / p4 - p2 * p2) +
		       2 * 200.0 * 400 * (1 - p2);
	} else if (!strcmp(fn, "grow_400")) {
		*mean = 400 * (1 - p2);
		*var = 400.0 * 400 * ((1 - p2) / p4 - (1 - p2) * (1 - p2));
	}
}

/* Within 6 sigma, plus slack: a block all but sure to be sampled (70000 B at 4 KiB: p = 1 -
 * 3.8e-8) is missed, or weighs 2 instead of 1 (its weight 1/p rounded up), with a probability
 * of ~4e-8 each, and one such block moves its site by its whole size: over the 20,000 blocks
 * of a trace that happens once in ~700 traces (a CI run makes 16), far more often than the
 * Gaussian bound (6 sigma = 11,500 bytes there) says. Two blocks of the size are allowed, on
 * each site as on the totals. */
#define EXPECT_WITHIN(got, want, var, slack, what)                                                 \
	cr_expect(fabs((double)(got) - (want)) <= 6 * sqrt(var) + (slack) + 1,                     \
		  "%s: estimate %.0f, exact %.0f, 6 sigma %.0f", what, (double)(got),              \
		  (double)(want), 6 * sqrt(var))

/* A sampled run's estimates against the exact figures e (summary: its end-of-trace text). */
static void check_sampled(const struct expect *ep, struct dhat_profile *s, const char *ssum)
{
	struct expect e = *ep;
	double got, kept_blocks = 0;

	cr_expect_eq(s->sample_bytes, MIX_N);
	EXPECT_WITHIN(s->total_bytes, e.bytes, e.var_bytes, 2 * 70000, "total bytes");
	EXPECT_WITHIN(s->total_blocks, e.blocks, e.var_blocks, 2, "total blocks");
	EXPECT_WITHIN(s->end_bytes, e.end_bytes, e.var_end, 2 * 70000, "end bytes");
	for (size_t i = 0; i < MIX_CNT; i++) {
		double sz = MIX[i].size, p = p_of(sz), mean, var;

		site_of(s, MIX[i].fn, &got);
		site_expect(MIX[i].fn, sz, &mean, &var);
		EXPECT_WITHIN(got, MIX_ROUNDS * mean, MIX_ROUNDS * var, 2 * (sz > 400 ? sz : 400),
			      MIX[i].fn);
		kept_blocks += MIX_ROUNDS * p;
	}
	/* The standard errors the file gives (tbSe): on the sites of one malloc a round, they
	 * must be the sampling's own. alloc_24 keeps the fewest, ~117 blocks (p = 0.58%): its
	 * variance estimate has a relative sd of ~1/sqrt(117) = 9%, so 40% is over 4 sd. */
	static const char *const PLAIN[] = {"alloc_24", "alloc_1500", "alloc_9000", "alloc_r3000"};

	for (size_t i = 0; i < sizeof(PLAIN) / sizeof(PLAIN[0]); i++) {
		double sz = 0, var, want;

		for (size_t j = 0; j < MIX_CNT; j++)
			if (!strcmp(MIX[j].fn, PLAIN[i]))
				sz = MIX[j].size;
		site_of_var(s, PLAIN[i], &got, &var);
		want = MIX_ROUNDS * true_var(sz);
		cr_expect(var > 0.6 * want && var < 1.4 * want,
			  "%s: tbSe^2 %.4g, its sampling variance %.4g", PLAIN[i], var, want);
	}
	/* The realloc chain is marked where sampling's rule moves bytes: grow_400's bytes all
	 * came by realloc (of alloc_200 blocks not kept), alloc_200's blocks were realloc'd,
	 * and a site of plain mallocs has neither. */
	{
		struct dhat_pp_est g = site_est(s, "grow_400"), a = site_est(s, "alloc_200");
		struct dhat_pp_est plain = site_est(s, "alloc_1500");
		struct dhat_pp_est r = site_est(s, "alloc_r3000");
		double gb, w2 = 1 / p_of(200);
		/* every alloc_200 block is realloc'd: an estimate of MIX_ROUNDS blocks, each kept
		 * one weighing ~w2 (whether its realloc was kept, EV_REALLOC, or not, EV_FREE
		 * with the new size) */
		double sd = sqrt(MIX_ROUNDS * (w2 - 1 + 0.25));

		site_of(s, "grow_400", &gb);
		cr_expect(gb > 0 && (double)g.tb_realloc == gb,
			  "grow_400: %.0f bytes, %llu by realloc", gb,
			  (unsigned long long)g.tb_realloc);
		cr_expect(fabs((double)a.tbk_reallocd - MIX_ROUNDS) < 6 * sd + 1,
			  "alloc_200: %llu blocks realloc'd, want %d (sd %.0f)",
			  (unsigned long long)a.tbk_reallocd, MIX_ROUNDS, sd);
		cr_expect_eq(a.tb_realloc, 0, "alloc_200's own chains stay at their birth site");
		cr_expect_eq(plain.tb_realloc + plain.tbk_reallocd, 0);
		cr_expect_eq(r.tb_realloc + r.tbk_reallocd, 0, "realloc(NULL, n) is a birth");
	}
	/* Unweighted, the records would count about kept_blocks blocks: far outside. */
	cr_expect_gt(fabs(kept_blocks - e.blocks), 20 * sqrt(e.var_blocks));
	/* Frees of unsampled blocks send nothing, so none is unknown. */
	cr_expect_eq(s->lost.n[DHAT_LOST_UNKNOWN_FREES], 0);
	cr_expect_eq(s->lost.n[DHAT_LOST_SAMPLE_OVERFLOW], 0);
	cr_expect(strstr(ssum, "estimates: sampled every 4.00 KiB on average (--sample-bytes 4096)"),
		  "%s", ssum);
	cr_expect(strstr(ssum, ", 0 sampled blocks dropped"), "%s", ssum);
	/* The decisions, counted per CPU in BPF and summed: each round makes 7 (5 mallocs,
	 * realloc(NULL, 3000) decided once, realloc(p, 400)); a realloc of a sampled block to
	 * an unsampled one is neither (it sends the old block's free). */
	const char *c = strstr(ssum, "(--sample-bytes 4096): ");
	unsigned long long sampled = 0, skipped = 0;

	cr_assert_not_null(c, "%s", ssum);
	cr_assert_eq(sscanf(c, "(--sample-bytes 4096): %llu blocks sampled, %llu allocator calls",
			    &sampled, &skipped), 2, "%s", c);
	cr_expect(sampled + skipped <= 7 * MIX_ROUNDS &&
		      sampled + skipped >= 7 * MIX_ROUNDS - MIX_ROUNDS,
		  "%llu sampled + %llu not: %d decisions made", sampled, skipped, 7 * MIX_ROUNDS);
}

Test(sampling_e2e, estimates_land_within_six_sigma, .timeout = TEST_TIMEOUT(300))
{
	struct expect e = expected();
	struct dhat_profile *x, *s;
	char *dir, *xsum, *ssum;
	double got;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("sampling");

	/* Exact mode: the known figures, to the byte (nothing else in the program allocates). */
	x = trace(dir, "exact", "", "", &xsum);
	cr_expect_eq(x->sample_bytes, 0);
	cr_expect_eq((double)x->total_bytes, e.bytes, "exact bytes %llu",
		     (unsigned long long)x->total_bytes);
	cr_expect_eq((double)x->total_blocks, e.blocks);
	cr_expect_eq((double)x->end_bytes, e.end_bytes);
	site_of(x, "alloc_200", &got); /* exact mode: DHAT's rule, realloc charged to p's PP */
	cr_expect_eq(got, MIX_ROUNDS * 600.0);
	cr_expect_null(strstr(xsum, "estimates"), "%s", xsum);

	/* Sampled: estimates, on session uprobes (followed: per-process links; --no-follow),
	 * where an unsampled malloc's and an unsampled glibc realloc's return traps are skipped
	 * and realloc(NULL, n) is decided by the malloc it jumps to, and on the inherited probes
	 * (no session: every return trapped, every call decided at its entry). */
	s = trace(dir, "sampled", "", "--sample-bytes 4K", &ssum);
	check_sampled(&e, s, ssum);
	free(ssum);
	dhat_profile__free(s);
	s = trace(dir, "sampled-inherited", "TRACER_NO_SESSION=1", "--sample-bytes 4K", &ssum);
	check_sampled(&e, s, ssum);
	free(ssum);
	dhat_profile__free(s);
	s = trace(dir, "sampled-nf", "", "--sample-bytes 4K --no-follow", &ssum);
	check_sampled(&e, s, ssum);

	free(xsum);
	free(ssum);
	dhat_profile__free(x);
	dhat_profile__free(s);
	free(dir);
}

/* e2e_each_profile: the program's own image (not the shell that exec'd it). */
static bool runs_sample_mix(const char *path, struct dhat_profile *p, void *what)
{
	(void)path;
	return p->cmd && strstr(p->cmd, what) && !strstr(p->cmd, "sh -c");
}

/* A traced shell (glibc) execs the program with an allocator preloaded whose realloc calls
 * neither its malloc nor its free (data/sampling/own_alloc.c): the new image's allocator is
 * probed at its exec, and realloc(NULL, n) must not be left to a malloc it does not call
 * (alloc_r3000 would be lost): the estimates stay unbiased. */
Test(sampling_e2e, an_exec_into_another_allocator, .timeout = TEST_TIMEOUT(300))
{
	struct expect e = expected();
	struct dhat_profile *s;
	char *dir, cmd[2048], *out = NULL, *sum;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("sampling-own");
	snprintf(cmd, sizeof(cmd),
		 "%s --sample-bytes 4K -o %s/mi.json --summary %s/mi.summary -- sh -c "
		 "'LD_PRELOAD=%s exec %s' 2>&1",
		 TRACER_BIN, dir, dir, OWN_ALLOC_SO, SAMPLE_MIX_BIN);
	cr_assert_eq(e2e_run(cmd, &out), 0, "%s\n%s", cmd, out);
	cr_expect(strstr(out, "probing its allocator in") && strstr(out, "own_alloc"), "%s", out);
	free(out);
	e2e_each_profile(dir, runs_sample_mix, "sample_mix", &s);
	cr_assert_not_null(s, "no profile of sample_mix in %s", dir);
	snprintf(cmd, sizeof(cmd), "%s/mi.summary", dir);
	sum = tu_slurp(cmd, NULL);
	cr_assert_not_null(sum);
	check_sampled(&e, s, sum);
	free(sum);
	dhat_profile__free(s);
	free(dir);
}

/* Realloc chains through getline (data/sampling/getline_chain.c): the helper's net effect is
 * sampled at its return (bpf/alloc.bpf.c, net_emit), so its records must carry the chain as
 * a primitive's do. Every line buffer first_line's getline makes is grown by second_line's:
 * first_line's blocks are all realloc'd (tbkReallocd, an estimate of ROUNDS blocks: a kept
 * 120-byte buffer weighs ~34), and second_line's bytes all came by reallocs of buffers that
 * were not kept or were kept into a new one that was not (tbRealloc: all of them). Exact:
 * no such counts. */
Test(sampling_e2e, realloc_chains_through_a_helper, .timeout = TEST_TIMEOUT(300))
{
	const double rounds = 20000, w = 1 / p_of(120);
	char *dir, cmd[2048], path[1024], err[512];
	struct dhat_profile *p;
	struct dhat_pp_est first, second;
	double bytes, sd = sqrt(rounds * (w - 1 + 0.25));

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("sampling-getline");
	snprintf(path, sizeof(path), "%s/sampled.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -q --sample-bytes 4K -o %s -- %s", TRACER_BIN, path,
		 GETLINE_CHAIN_BIN);
	cr_assert_eq(e2e_run(cmd, NULL), 0, "%s", cmd);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	first = site_est(p, "first_line");
	second = site_est(p, "second_line");
	site_of(p, "second_line", &bytes);
	cr_expect(fabs((double)first.tbk_reallocd - rounds) < 6 * sd + 1,
		  "first_line: %llu blocks realloc'd, want %.0f (sd %.0f)",
		  (unsigned long long)first.tbk_reallocd, rounds, sd);
	cr_expect_eq(first.tb_realloc, 0);
	cr_expect(bytes > 0 && (double)second.tb_realloc == bytes,
		  "second_line: %.0f bytes, %llu by realloc", bytes,
		  (unsigned long long)second.tb_realloc);
	dhat_profile__free(p);

	snprintf(path, sizeof(path), "%s/exact.json", dir);
	snprintf(cmd, sizeof(cmd), "%s -q -o %s -- %s", TRACER_BIN, path, GETLINE_CHAIN_BIN);
	cr_assert_eq(e2e_run(cmd, NULL), 0, "%s", cmd);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_expect_eq(p->est_cnt, 0, "an exact profile has no realloc-chain counts");
	dhat_profile__free(p);
	free(dir);
}

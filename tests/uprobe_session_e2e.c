/*
 * End-to-end: session uprobes (one program at entry and return, return traps skipped where
 * they have no work) and their fallback (entry and return programs, forced with
 * TRACER_NO_SESSION=1) give the same profile of a deterministic program: the same totals,
 * peak and end figures and the same call sites, and `-v` says which links were used.
 * The uprobe-multi path is the one under test: `--no-follow -- CMD` and `--workload`.
 * Both with `--unwind fp`: the attach modes are compared, and a frame-pointer stack depends
 * on the stack alone (the code under test keeps frame pointers). With kernel unwinding a
 * walk whose library is found by its VMA falls back to a stack copy while another thread
 * maps memory (counted: `vma_busy`), and a copy's stack may be cut where the walk's is not:
 * once on a host loaded by a CI run, the two runs then differed in program points (202, 240)
 * with the same sites, blocks and bytes.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "test_timeout.h"
#include "e2e_util.h"

#define SESSION_LINE  "allocator probes in 1 objects as session uprobe-multi links"
#define FALLBACK_LINE "allocator probes in 1 objects as uprobe-multi links (entry and return"

/* Kernel >= 6.13 has session uprobes: the default run must use them. */
static bool kernel_has_sessions(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 13);
}

/* Run cmd (a shell command writing a profile to path) with or without TRACER_NO_SESSION=1
 * (no_session 1), or with sessions refused as an older kernel refuses them (no_session 2:
 * TRACER_NO_SESSION=refused), check the exit status and the -v line naming the links, and
 * load the profile. */
static struct dhat_profile *traced_run(const char *cmd, int no_session, int want_st,
				       const char *path)
{
	const char *env[] = { "", "TRACER_NO_SESSION=1 ", "TRACER_NO_SESSION=refused " };
	char full[4096], err[512], *out = NULL;
	struct dhat_profile *p;
	int st;

	snprintf(full, sizeof(full), "%s%s 2>&1", env[no_session], cmd);
	st = e2e_run(full, &out);
	cr_assert_eq(st, want_st, "exit status %d, want %d: %s\n%s", st, want_st, full, out);
	if (no_session == 2) {
		cr_expect(strstr(out, "no session uprobe-multi links"), "%s", out);
		cr_expect(strstr(out, FALLBACK_LINE), "-v does not name the fallback:\n%s", out);
		cr_expect_null(strstr(out, SESSION_LINE), "%s", out);
	} else if (no_session) {
		cr_expect(strstr(out, "TRACER_NO_SESSION=1: no session uprobes"), "%s", out);
		cr_expect(strstr(out, FALLBACK_LINE), "-v does not name the fallback:\n%s", out);
		cr_expect_null(strstr(out, SESSION_LINE), "%s", out);
	} else if (kernel_has_sessions()) {
		cr_expect(strstr(out, SESSION_LINE), "-v does not name session links:\n%s", out);
		cr_expect_null(strstr(out, FALLBACK_LINE), "%s", out);
	} else {
		cr_expect(strstr(out, "no session uprobe-multi links"), "%s", out);
		cr_expect(strstr(out, FALLBACK_LINE), "%s", out);
	}
	cr_expect(strstr(out, "unmatched returns 0,"), "%s", out);
	cr_expect(strstr(out, "dropped 0,"), "%s", out);
	free(out);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "cannot load %s: %s", path, err);
	cr_assert_null(e2e_invariants(p), "%s: %s", path, e2e_invariants(p));
	return p;
}

/* The two profiles tell the same story, down to each call site. */
static void assert_same_profile(const struct dhat_profile *s, const struct dhat_profile *f)
{
	struct site_total *ss, *fs;
	size_t ns, nf;

	cr_expect_gt(f->total_blocks, 0, "the fallback saw no allocation");
	cr_expect_eq(s->total_blocks, f->total_blocks, "blocks: session %lu, fallback %lu",
		     s->total_blocks, f->total_blocks);
	cr_expect_eq(s->total_bytes, f->total_bytes, "bytes: session %lu, fallback %lu",
		     s->total_bytes, f->total_bytes);
	cr_expect_eq(s->gmax_bytes, f->gmax_bytes, "peak bytes: session %lu, fallback %lu",
		     s->gmax_bytes, f->gmax_bytes);
	cr_expect_eq(s->gmax_blocks, f->gmax_blocks, "peak blocks: session %lu, fallback %lu",
		     s->gmax_blocks, f->gmax_blocks);
	cr_expect_eq(s->end_bytes, f->end_bytes, "end bytes: session %lu, fallback %lu",
		     s->end_bytes, f->end_bytes);
	cr_expect_eq(s->end_blocks, f->end_blocks, "end blocks: session %lu, fallback %lu",
		     s->end_blocks, f->end_blocks);
	cr_expect_eq(s->pp_cnt, f->pp_cnt, "program points: session %zu, fallback %zu", s->pp_cnt,
		     f->pp_cnt);
	ns = e2e_sites(s, &ss);
	nf = e2e_sites(f, &fs);
	cr_expect_eq(ns, nf, "call sites: session %zu, fallback %zu", ns, nf);
	for (size_t i = 0; i < nf; i++) {
		const struct site_total *o = e2e_site_find(ss, ns, fs[i].site);

		cr_expect_not_null(o, "site %s missing with sessions", fs[i].site);
		if (!o)
			continue;
		cr_expect_eq(o->bytes, fs[i].bytes, "%s: bytes %lu vs %lu", fs[i].site, o->bytes,
			     fs[i].bytes);
		cr_expect_eq(o->blocks, fs[i].blocks, "%s: blocks %lu vs %lu", fs[i].site,
			     o->blocks, fs[i].blocks);
	}
	e2e_sites_free(ss, ns);
	e2e_sites_free(fs, nf);
}

/* known_allocs: every primitive, realloc to NULL and 0, reallocarray (a tail call into
 * realloc: nested), strdup (a helper and its top primitive) and two threads. */
Test(uprobe_session_e2e, known_program_same_profile_both_ways, .timeout = TEST_TIMEOUT(300))
{
	const char *name[3] = { "session", "fallback", "refused" };
	struct dhat_profile *p[3];
	char *dir, cmd[2048], path[1024];

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("session-known");
	for (int no_session = 0; no_session < 3; no_session++) {
		snprintf(path, sizeof(path), "%s/%s.json", dir, name[no_session]);
		snprintf(cmd, sizeof(cmd), "%s -v --no-follow --unwind fp -o %s -- %s", TRACER_BIN,
			 path, KNOWN_ALLOCS_BIN);
		p[no_session] = traced_run(cmd, no_session, 3, path);
	}
	assert_same_profile(p[0], p[1]);
	assert_same_profile(p[0], p[2]);
	for (int i = 0; i < 3; i++)
		dhat_profile__free(p[i]);
	free(dir);
}

/* A shell workload: thousands of calls of the kernel-under-test, strdup and friends. */
Test(uprobe_session_e2e, workload_same_profile_both_ways, .timeout = TEST_TIMEOUT(300))
{
	struct dhat_profile *p[2];
	char *dir[2], cmd[2048], path[1024];

	E2E_REQUIRE_ROOT();
	for (int no_session = 0; no_session < 2; no_session++) {
		dir[no_session] = e2e_tmpdir(no_session ? "session-wl-fb" : "session-wl");
		snprintf(cmd, sizeof(cmd),
			 "KAISH_PROFILE_OUT=%s %s -v --unwind fp --workload cmdsubst",
			 dir[no_session], TRACER_BIN);
		snprintf(path, sizeof(path), "%s/dhat-heap-cmdsubst.json", dir[no_session]);
		p[no_session] = traced_run(cmd, no_session, 0, path);
	}
	cr_expect_gt(p[0]->total_blocks, 1000, "cmdsubst allocates thousands of blocks");
	assert_same_profile(p[0], p[1]);
	for (int i = 0; i < 2; i++) {
		dhat_profile__free(p[i]);
		free(dir[i]);
	}
}

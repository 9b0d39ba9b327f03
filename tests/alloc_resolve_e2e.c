/*
 * End-to-end: the tracer probes the allocator the dynamic linker resolves malloc to, by
 * symbols (issue #15), and never stays silent about an empty profile.
 *  - jemalloc linked statically into the executable, and mimalloc as the first DT_NEEDED:
 *    blocks and bytes equal Valgrind DHAT's;
 *  - a Rust #[global_allocator] over mimalloc's prefixed mi_* calls (malloc left to glibc),
 *    built here with rustc: the __rust_* shims' blocks and bytes equal the program's own;
 *  - a Rust #[global_allocator] over System (glibc's malloc): the shims' figures equal the
 *    program's own, and the mallocs they make are nested, not counted a second time;
 *  - C++ operator new/delete, libstdc++'s and jemalloc's (preloaded): Valgrind's totals;
 *  - a program that allocates nothing, and one that allocates through jemalloc's mallocx only
 *    (not probed): a warning naming the process and the cause;
 *  - a library with its own malloc dlopen'd during the trace: reported.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dhat_lost.h"
#include "e2e_util.h"
#include "test_timeout.h"

#define FIXTURES TESTS_SRC_DIR "/data/alloc"

static struct dhat_profile *load_or_die(const char *path)
{
	char err[512];
	struct dhat_profile *p = dhat_profile__load(path, err, sizeof(err));

	cr_assert_not_null(p, "cannot load %s: %s", path, err);
	return p;
}

/* `tracer -o dir/ours.json -- prog`: its exit status; stdout and stderr into *out. */
static int trace(const char *dir, const char *prog, char **out)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "%s -o %s/ours.json -- %s 2>&1", TRACER_BIN, dir, prog);
	return e2e_run(cmd, out);
}

/* Blocks and bytes of a Valgrind DHAT run of prog with extra options, into *p. */
static struct dhat_profile *valgrind(const char *dir, const char *opts, const char *prog)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
		 "valgrind --tool=dhat --run-libc-freeres=no %s --dhat-out-file=%s/vg.json %s "
		 ">/dev/null 2>&1",
		 opts, dir, prog);
	cr_assert_eq(e2e_run(cmd, NULL), 0, "valgrind failed: %s", cmd);
	snprintf(cmd, sizeof(cmd), "%s/vg.json", dir);
	return load_or_die(cmd);
}

/* Our profile and Valgrind's agree on every total. */
static void expect_same_totals(const char *dir, const struct dhat_profile *vg)
{
	char path[1024];
	struct dhat_profile *po;
	const char *bad;

	snprintf(path, sizeof(path), "%s/ours.json", dir);
	po = load_or_die(path);
	bad = e2e_invariants(po);
	cr_expect_null(bad, "invariant violated: %s", bad);
	cr_expect_eq(po->total_blocks, vg->total_blocks, "blocks: ours %lu, valgrind %lu",
		     po->total_blocks, vg->total_blocks);
	cr_expect_eq(po->total_bytes, vg->total_bytes, "bytes: ours %lu, valgrind %lu",
		     po->total_bytes, vg->total_bytes);
	cr_expect_eq(po->end_blocks, vg->end_blocks, "end blocks: ours %lu, valgrind %lu",
		     po->end_blocks, vg->end_blocks);
	cr_expect_eq(po->end_bytes, vg->end_bytes, "end bytes: ours %lu, valgrind %lu",
		     po->end_bytes, vg->end_bytes);
	dhat_profile__free(po);
}

/* The figures the fixture prints about itself ("blocks N bytes M", alloc_script.h). */
static void expect_script_figures(const char *out, const char *tag)
{
	unsigned long blocks = 0, bytes = 0;
	char head[64];
	const char *line;

	snprintf(head, sizeof(head), "%s: blocks ", tag);
	line = strstr(out, head);
	cr_assert_not_null(line, "no '%s' line in:\n%s", head, out);
	cr_assert_eq(sscanf(line + strlen(head), "%lu bytes %lu", &blocks, &bytes), 2, "%s", line);
	cr_expect_eq(blocks, 22);
	cr_expect_eq(bytes, 185944);
}

Test(alloc_resolve, jemalloc_in_the_executable_matches_valgrind, .timeout = TEST_TIMEOUT(300))
{
	char *dir, *out = NULL, expect[1024];
	struct dhat_profile *vg;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("jemalloc");
	st = trace(dir, JEMALLOC_STATIC_BIN, &out);
	cr_assert_eq(st, 0, "%s", out);
	/* The executable exports malloc: probed there, not in libc (never called). */
	snprintf(expect, sizeof(expect), "probing the allocator in %s", JEMALLOC_STATIC_BIN);
	cr_expect(strstr(out, expect), "no '%s' in:\n%s", expect, out);
	expect_script_figures(out, "jemalloc_static");
	/* Valgrind replaces an allocator linked into the executable only when told to. */
	vg = valgrind(dir, "--soname-synonyms=somalloc=NONE", JEMALLOC_STATIC_BIN);
	cr_expect_eq(vg->total_blocks, 22);
	expect_same_totals(dir, vg);
	dhat_profile__free(vg);
	free(out);
	free(dir);
}

Test(alloc_resolve, mimalloc_first_needed_matches_valgrind, .timeout = TEST_TIMEOUT(300))
{
	char *dir, *out = NULL;
	struct dhat_profile *vg;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("mimalloc");
	st = trace(dir, MIMALLOC_PROG_BIN, &out);
	cr_assert_eq(st, 0, "%s", out);
	cr_expect(strstr(out, "malloc is mimalloc"), "%s", out); /* the program's own check */
	cr_expect(strstr(out, "probing the allocator in ") && strstr(out, "libmimalloc.so"), "%s",
		  out);
	expect_script_figures(out, "mimalloc_prog");
	vg = valgrind(dir, "", MIMALLOC_PROG_BIN);
	expect_same_totals(dir, vg);
	dhat_profile__free(vg);
	free(out);
	free(dir);
}

/*
 * C++: libstdc++'s operator new calls malloc (nested: counted once); jemalloc's, preloaded,
 * never does (probed itself). Both traces equal Valgrind's run of the plain program (which
 * replaces every operator new), the emergency exception pool libstdc++ keeps included.
 */
Test(alloc_resolve, cxx_operator_new_plain_and_jemalloc_preloaded, .timeout = TEST_TIMEOUT(300))
{
	const char *env[] = { "", "LD_PRELOAD=libjemalloc.so.2 " };
	char *dir = NULL, cmd[2048], *out = NULL;
	struct dhat_profile *vg;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("cxx");
	vg = valgrind(dir, "--run-cxx-freeres=no", CXX_NEW_BIN);
	for (size_t i = 0; i < 2; i++) {
		/* The tracer inherits the preload and so does the command it starts. */
		snprintf(cmd, sizeof(cmd), "%s%s -o %s/ours.json -- %s 2>&1", env[i], TRACER_BIN, dir,
			 CXX_NEW_BIN);
		cr_assert_eq(e2e_run(cmd, &out), 0, "%s", out);
		cr_expect(!i || (strstr(out, "probing the allocator in ") && strstr(out, "libjemalloc")),
			  "%s", out);
		expect_same_totals(dir, vg);
		free(out);
	}
	dhat_profile__free(vg);
	free(dir);
}

/* Blocks and bytes of the PPs whose allocator frame (the first) names a Rust shim, and of
 * those whose allocator is malloc's family but were made under the global allocator. */
struct rust_split {
	uint64_t shim_blocks, shim_bytes;
	uint64_t inner_blocks; /* malloc-family blocks with a GlobalAlloc frame: double counts */
	bool shim_in_exe;      /* every shim frame names the executable as its object */
};

static struct rust_split split_rust(const struct dhat_profile *p, const char *exe)
{
	struct rust_split r = { .shim_in_exe = true };

	for (size_t i = 0; i < p->pp_cnt; i++) {
		const struct dhat_pp *pp = &p->pps[i];
		const char *f0 = pp->fs_cnt ? dhat_profile__pp_frame(p, pp, 0) : "";
		char *callers = e2e_callers(p, pp);

		if (strstr(f0, ": __rust_")) {
			r.shim_blocks += pp->tbk;
			r.shim_bytes += pp->tb;
			r.shim_in_exe &= strstr(f0, exe) != NULL;
		} else if (callers && (strstr(callers, "GlobalAlloc") || strstr(callers, "__rg_"))) {
			r.inner_blocks += pp->tbk;
		}
		free(callers);
	}
	return r;
}

/* What a Rust fixture printed about itself, and what the trace of it shows. */
struct rust_run {
	unsigned long allocs, reallocs, bytes; /* printed: alloc + alloc_zeroed, realloc */
	struct rust_split split;
	uint64_t total_blocks; /* the whole profile's */
};

/*
 * Build fixture name.rs with rustc, trace it and read its line "name: <fmt>" (fmt scans the
 * allocs, reallocs and bytes figures, in that order, with %*lu for the others).
 */
static struct rust_run run_rust(const char *name, const char *fmt)
{
	char *dir = e2e_tmpdir(name), cmd[2048], exe[1024], head[256], *out = NULL;
	struct rust_run r = { 0 };
	struct dhat_profile *p;
	const char *line;
	int st;

	snprintf(exe, sizeof(exe), "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "%s -C opt-level=1 -g -o %s %s/%s.rs 2>&1", RUSTC_BIN, exe,
		 FIXTURES, name);
	st = e2e_run(cmd, &out);
	cr_assert_eq(st, 0, "rustc failed: %s\n%s", cmd, out);
	free(out);
	st = trace(dir, exe, &out);
	cr_assert_eq(st, 0, "%s", out);
	snprintf(head, sizeof(head), "%s: ", name);
	line = strstr(out, head);
	cr_assert_not_null(line, "%s", out);
	cr_assert_eq(sscanf(line + strlen(head), fmt, &r.allocs, &r.reallocs, &r.bytes), 3, "%s",
		     line);
	snprintf(cmd, sizeof(cmd), "%s/ours.json", dir);
	p = load_or_die(cmd);
	r.split = split_rust(p, exe);
	r.total_blocks = p->total_blocks;
	/* The shims' blocks are exactly the program's own. */
	cr_expect_eq(r.split.shim_blocks, r.allocs + r.reallocs, "shim blocks %lu, the program's %lu",
		     r.split.shim_blocks, r.allocs + r.reallocs);
	cr_expect_eq(r.split.shim_bytes, r.bytes, "shim bytes %lu, the program's %lu",
		     r.split.shim_bytes, r.bytes);
	cr_expect(r.split.shim_in_exe, "a shim frame names another object than %s", exe);
	dhat_profile__free(p);
	free(out);
	free(dir);
	return r;
}

/* mi_malloc never goes through a probed malloc: only the shims see these blocks. */
Test(alloc_resolve, rust_prefixed_global_allocator_counts, .timeout = TEST_TIMEOUT(600))
{
	E2E_REQUIRE_ROOT();
	run_rust("rust_prefixed_alloc", "allocs %lu zeroed %*lu reallocs %lu deallocs %*lu bytes %lu");
}

Test(alloc_resolve, rust_over_system_malloc_nested_not_doubled, .timeout = TEST_TIMEOUT(600))
{
	struct rust_run r;

	E2E_REQUIRE_ROOT();
	r = run_rust("rust_system_counted", "allocs %lu reallocs %lu bytes %lu");
	/* Every malloc the shims made was nested inside them. */
	cr_expect_eq(r.split.inner_blocks, 0, "%lu malloc blocks counted under the global allocator",
		     r.split.inner_blocks);
	/* The profile holds more than the shims' blocks only by the runtime's own mallocs. */
	cr_expect_lt(r.total_blocks - r.split.shim_blocks, r.allocs, "total %lu, shims %lu",
		     r.total_blocks, r.split.shim_blocks);
}

/* Programs whose trace is empty, and what the tracer must say about each. */
static const struct {
	const char *bin;
	const char *says[3]; /* the program's output and the warning's parts */
} empty_traces[] = {
	{ NOALLOC_BIN,
	  { "noalloc: nothing allocated", "(" NOALLOC_BIN ") made no call to the probed allocator in",
	    "the profile is empty" } },
	/* jemalloc's mallocx is not malloc's family, hence not probed. */
	{ MALLOCX_ONLY_BIN,
	  { "mallocx only: 10 blocks", "made no call to the probed allocator in " MALLOCX_ONLY_BIN,
	    "defines mallocx" } },
};

Test(alloc_resolve, empty_trace_warns, .timeout = TEST_TIMEOUT(120))
{
	E2E_REQUIRE_ROOT();
	for (size_t i = 0; i < sizeof(empty_traces) / sizeof(empty_traces[0]); i++) {
		char *dir = e2e_tmpdir("empty"), *out = NULL;
		int st = trace(dir, empty_traces[i].bin, &out);

		char path[1100], err[512];
		struct dhat_profile *p;

		cr_assert_eq(st, 0, "%s", out);
		cr_expect(strstr(out, "tracer: warning: pid "), "%s", out);
		for (size_t k = 0; k < 3; k++)
			cr_expect(strstr(out, empty_traces[i].says[k]), "no '%s' in:\n%s",
				  empty_traces[i].says[k], out);
		/* The file records it too: a report of it later says it is incomplete. */
		snprintf(path, sizeof(path), "%s/ours.json", dir);
		p = dhat_profile__load(path, err, sizeof(err));
		cr_assert_not_null(p, "%s", err);
		cr_expect(p->has_lost && p->lost.n[DHAT_LOST_NO_ALLOC_CALLS] == 1,
			  "%s: no noAllocatorCalls in its \"lost\" object", path);
		dhat_profile__free(p);
		free(out);
		free(dir);
	}
}

/* A library defining its own malloc, dlopen'd while traced: reported once the maps are
 * read again. The program waits on a FIFO, opened for writing once the warning is out. */
Test(alloc_resolve, dlopened_allocator_reported, .timeout = TEST_TIMEOUT(120))
{
	char *dir, cmd[2048], fifo[1024], log[1024], *out = NULL;
	bool seen;
	int fd;
	pid_t pid;
	int st;

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("dlopen");
	snprintf(fifo, sizeof(fifo), "%s/go", dir);
	snprintf(log, sizeof(log), "%s/tracer.log", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		snprintf(cmd, sizeof(cmd), "%s -o %s/ours.json -- %s %s > %s 2>&1", TRACER_BIN, dir,
			 DLOPEN_ALLOC_BIN, fifo, log);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	seen = e2e_wait_for_text(log, "which defines its own malloc", 60);
	/* Releases the program whenever it opens the FIFO: the warning can come before it got
	 * there, and an O_NONBLOCK writer's open then failed (ENXIO), leaving it blocked for
	 * good. O_RDWR (Linux) opens at once, as a writer for the program's open to meet. */
	fd = open(fifo, O_RDWR);
	cr_assert_geq(fd, 0, "%s: %s", fifo, strerror(errno));
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	close(fd);
	e2e_run(strcat(strcpy(cmd, "cat "), log), &out);
	cr_expect(seen && strstr(out, "loaded ") && strstr(out, "/libmimalloc.so.2"),
		  "no dlopen warning in:\n%s", out);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d:\n%s", st, out);
	free(out);
	free(dir);
}

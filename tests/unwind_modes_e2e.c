/*
 * End-to-end: `tracer --unwind kernel` (DWARF unwinding in BPF from the modules' CFI tables)
 * gives the program points and stacks `--unwind dwarf` (stack copies unwound in userspace
 * with libdw) gives, on the same deterministic programs:
 *  - the C fixtures without frame pointers of dwarf_e2e (levels, libc_paths: a qsort
 *    comparator called from libc, strdup, getline; threads: three threads under recursion);
 *  - Debian's own programs, built without frame pointers: sed -E, jq, sqlite3 (deps/);
 *  - C++ around exceptions (a throw, a destructor and a catch handler that allocate), Rust
 *    (dwarf_e2e's rs_allocs, when rustc is installed) and python3;
 *  - a process that execs a program whose code lies at the first one's addresses with other
 *    CFI rows (exec_chain, two builds without PIE).
 * Each program is traced once per mode. After symbolization, every program point (its
 * frames without addresses, and its allocator function) must have the same bytes and
 * blocks in both profiles. The one difference allowed: a stack DWARF mode cut short (its
 * copy of the stack ended, a sparse copy missed a word) is a strict prefix of the stack the
 * kernel unwound; those pairs are matched and their bytes and blocks must balance (never a
 * kernel stack shorter than dwarf mode's: tests/unwind_compare.c).
 * A third run, kernel mode without the memo (TRACER_NO_MEMO=1: every stack walked through
 * the tables), must give exactly the stacks of the kernel run with it, which must have used
 * it. And the kernel run must really unwind in the kernel: at most 2 or 0.1% of its stacks may fall
 * back to a snapshot (a wrong table or a wrong step falls back or gives other frames: both
 * fail; checked by breaking the RBP rule and the RBP-based CFA in bpf/unwind.bpf.h).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e_util.h"
#include "report.h"
#include "test_timeout.h"
#include "unwind_compare.h"

/* Trace cmd (run in dir) with --unwind mode and opts, the tracer's environment env ("" for
 * none), into dir/NAME-MODE[-ENV].json. */
static struct dhat_profile *trace(const char *dir, const char *name, const char *mode,
				  const char *env, const char *opts, const char *cmd, char **log)
{
	char line[4096], path[1024], err[512];
	struct dhat_profile *p;
	int st;

	snprintf(path, sizeof(path), "%s/%s-%s%s%.*s.json", dir, name, mode, *env ? "-" : "",
		 (int)strcspn(env, "="), env);
	snprintf(line, sizeof(line),
		 "cd %s && env %s %s -v --unwind %s %s -o %s -- %s 2>&1 >/dev/null", dir, env,
		 TRACER_BIN, mode, opts, path, cmd);
	st = e2e_run(line, log);
	cr_assert_eq(st, 0, "tracer --unwind %s -- %s exited %d:\n%s", mode, cmd, st, *log);
	cr_expect(strstr(*log, "dropped 0,"), "%s: records dropped:\n%s", mode, *log);
	cr_expect(strstr(*log, "stack failures 0,"), "%s: stack failures:\n%s", mode, *log);
	p = dhat_profile__load(path, err, sizeof(err));
	cr_assert_not_null(p, "cannot load %s: %s", path, err);
	return p;
}

/*
 * The memo (bpf/unwind_memo.bpf.h) finishes most walks from the thread's last stack: the
 * kernel run pk (log klog) must have used it, and a run without it (TRACER_NO_MEMO=1: every
 * stack walked through the tables) must give the same stacks. The one difference allowed: a
 * stack one run sent as a snapshot (a PC in no mapping yet: a timing the runs do not share)
 * and libdw cut short, at most one program point per snapshot that run sent.
 */
static void compare_memo(const char *dir, const char *name, const char *opts, const char *cmd,
			 const struct dhat_profile *pk, const char *klog)
{
	unsigned long long kfall, nfall;
	struct dhat_profile *pn;
	char *nlog = NULL;
	size_t cut;

	pn = trace(dir, name, "kernel", "TRACER_NO_MEMO=1", opts, cmd, &nlog);
	cr_expect_gt(uc_counter(klog, "kernel unwind memo: "), 0,
		     "%s: no stack was finished from the memo:\n%s", name, klog);
	cr_expect_eq(uc_counter(nlog, "kernel unwind memo: "), 0,
		     "%s: TRACER_NO_MEMO=1 used the memo:\n%s", name, nlog);
	kfall = uc_expect_kernel_did_the_work(name, klog, 0);
	nfall = uc_expect_kernel_did_the_work(name, nlog, 0);
	/* from the run with more snapshots (its stacks may be the shorter) to the other */
	cut = nfall > kfall ? uc_expect_same_stacks(name, pn, pk) :
			      uc_expect_same_stacks(name, pk, pn);
	cr_expect_leq(cut, nfall > kfall ? nfall : kfall,
		      "%s: %zu stacks differ between the memo and the tables alone (snapshots: %llu "
		      "with the memo, %llu without)\n%s\n%s",
		      name, cut, kfall, nfall, klog, nlog);
	dhat_profile__free(pn);
	free(nlog);
}

/* The comparison for one program. */
static void compare(const char *name, const char *opts, const char *cmd)
{
	char *dir = e2e_tmpdir("unwind-modes"), *dlog = NULL, *klog = NULL;
	struct dhat_profile *pd, *pk;

	pd = trace(dir, name, "dwarf", "", opts, cmd, &dlog);
	pk = trace(dir, name, "kernel", "", opts, cmd, &klog);
	uc_expect_kernel_did_the_work(name, klog, 0);
	compare_memo(dir, name, opts, cmd, pk, klog);
	cr_expect_leq(uc_counter(klog, "stacks cut short "), uc_counter(dlog, "stacks cut short "),
		      "%s: the kernel cut more stacks short than dwarf mode:\n%s\n%s", name, klog,
		      dlog);
	uc_expect_same_stacks(name, pd, pk);
	dhat_profile__free(pd);
	dhat_profile__free(pk);
	free(dlog);
	free(klog);
	free(dir);
}

/* Debian's program bin, or a skip (a failure under CI: ./build.sh deps installs it). */
static bool have(const char *bin)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null", bin);
	if (!e2e_run(cmd, NULL))
		return true;
	cr_assert_not(e2e_in_ci(), "%s is not installed (deps/debian-packages.txt)", bin);
	cr_log_warn("%s is not installed: not compared", bin);
	return false;
}

TestSuite(unwind_modes_e2e, .timeout = TEST_TIMEOUT(600));

Test(unwind_modes_e2e, c_fixtures_without_frame_pointers)
{
	E2E_REQUIRE_ROOT();
	compare("levels", "", DWARF_LEVELS_BIN);
	compare("libc_paths", "", DWARF_LIBC_PATHS_BIN);
	compare("threads", "", DWARF_THREADS_BIN " 200");
}

/* An exec in the same process onto code at the same addresses with other CFI rows
 * (exec_chain.c): the profile of the image exec'd (-o's) must be unwound with its own rows,
 * never the first image's (the kernel's row cache is invalidated at the exec). */
Test(unwind_modes_e2e, exec_onto_the_same_addresses)
{
	E2E_REQUIRE_ROOT();
	compare("exec_chain", "", EXEC_CHAIN_A " " EXEC_CHAIN_B);
}

/* C++ around exceptions (cxx_throw.cc), Rust (dwarf_e2e's rs_allocs) and Python. */
Test(unwind_modes_e2e, cxx_rust_python)
{
	E2E_REQUIRE_ROOT();
	compare("cxx_throw", "", CXX_THROW_BIN);
#ifdef RS_ALLOCS_BIN
	compare("rs_allocs", "", RS_ALLOCS_BIN);
#else
	cr_assert_not(e2e_in_ci(), "rustc was not found at configure time");
	cr_log_warn("rustc not found at configure time: Rust not compared");
#endif
	/* The same allocations every run: hash randomization off, and the interpreter's native
	 * stacks only (--no-python): which code objects pymalloc's requests come from shifts
	 * by a block or two between runs; Python frames are python_e2e's. */
	if (have("python3"))
		compare("python3", "--no-python", "env PYTHONHASHSEED=0 python3 -S -c 'import json; x = "
				   "[json.dumps({\"k\": i, \"v\": [i] * (i % 7)}) for i in "
				   "range(3000)]; print(len(x))'");
}

Test(unwind_modes_e2e, debian_programs)
{
	char *dir, cmd[2048];

	E2E_REQUIRE_ROOT();
	dir = e2e_tmpdir("unwind-modes-input");
	/* Inputs generated with fixed seeds, as workloads/bench/run.sh does, but smaller. */
	snprintf(
	    cmd, sizeof(cmd),
	    "cd %s && awk 'BEGIN { srand(42); for (i = 0; i < 1500; i++) { printf \"id%%d\", i;"
	    " for (j = 0; j < 6; j++) printf \" k%%c%%c=%%d\", 97 + int(rand() * 26), 97 +"
	    " int(rand() * 26), int(rand() * 100000); print \"\" } }' > sed.txt && awk 'BEGIN {"
	    " srand(42); printf \"[\"; for (i = 0; i < 2000; i++) { if (i) printf \",\";"
	    " printf \"{\\\"id\\\":%%d,\\\"name\\\":\\\"n%%x\\\",\\\"tags\\\":[\\\"t%%d\\\"]}\","
	    " i, int(rand() * 1e6), int(rand() * 50) } print \"]\" }' > in.json",
	    dir);
	cr_assert_eq(e2e_run(cmd, NULL), 0, "cannot write the inputs: %s", cmd);
	e2e_write_file(dir, "sed.script", "s/([a-z]+)=([0-9]+)/\\2:\\1/g\n", 0644);
	e2e_write_file(dir, "prog.jq",
		       "group_by(.tags[0]) | map({tag: .[0].tags[0], n: length, names: (map(.name) "
		       "| join(\",\"))})\n",
		       0644);
	e2e_write_file(
	    dir, "ins.sql",
	    "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, grp INTEGER);\n"
	    "CREATE INDEX t_name ON t(name);\n"
	    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5000)\n"
	    "INSERT INTO t SELECT i, printf('n%08x', (i * 2654435761) % 4294967296), i % 97 "
	    "FROM c;\n"
	    "SELECT grp, count(*), group_concat(substr(name, 1, 4)) FROM t GROUP BY grp "
	    "LIMIT 3;\n",
	    0644);
	if (have("sed")) {
		snprintf(cmd, sizeof(cmd), "sed -E -f %s/sed.script %s/sed.txt", dir, dir);
		compare("sed", "", cmd);
	}
	if (have("jq")) {
		snprintf(cmd, sizeof(cmd), "jq -c -f %s/prog.jq %s/in.json", dir, dir);
		compare("jq", "", cmd);
	}
	if (have("sqlite3")) {
		snprintf(cmd, sizeof(cmd), "sqlite3 -batch -init %s/ins.sql :memory: .quit", dir);
		compare("sqlite3", "", cmd);
	}
	free(dir);
}

/* SPDX-License-Identifier: MIT */
/*
 * kernel_hardening_unit.c - the shell kernel under hostile input:
 *  - limits: recursion, deep nesting (parser, $( ), [[ ]], arithmetic), huge scripts, words,
 *    heredocs and outputs, runaway loops under a request timeout. One test per case (a
 *    LIMIT_TEST line): each ends with its documented status and exit code, never a crash;
 *  - the sandbox against a racing attacker: a directory inside the root is swapped for a
 *    symlink to the outside (renameat2 RENAME_EXCHANGE, in a loop on another thread) while
 *    the kernel reads, lists, writes and creates through it. Outside content must never
 *    appear in any output, and nothing outside may ever be written.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kaish.h"
#include "test_timeout.h"

/* kernel_harness.c */
char *kh_mkfixture(bool with_files);
void kh_rmtree(const char *dir);
kaish_kernel *kh_kernel(const char *root);
enum kaish_status kh_exec(kaish_kernel *k, const char *script, kaish_result *r);
int kh_write(const char *dir, const char *rel, const char *text);

/* prefix + unit*n + middle + unit2*n + suffix, malloc'd. */
static char *rep(const char *prefix, const char *unit, size_t n, const char *middle,
		 const char *unit2, const char *suffix)
{
	size_t lu = strlen(unit), lu2 = strlen(unit2);
	size_t len = strlen(prefix) + n * (lu + lu2) + strlen(middle) + strlen(suffix) + 1;
	char *s = malloc(len), *p = s;

	cr_assert_not_null(s);
	p = stpcpy(p, prefix);
	for (size_t i = 0; i < n; i++)
		p = stpcpy(p, unit);
	p = stpcpy(p, middle);
	for (size_t i = 0; i < n; i++)
		p = stpcpy(p, unit2);
	stpcpy(p, suffix);
	return s;
}

struct limit_case {
	const char *name;
	char *script;	  /* built by the test (rep) */
	unsigned long timeout_ms;
	int status;	  /* enum kaish_status */
	int code;	  /* exit code */
	const char *out;  /* prefix of out, or NULL */
	const char *err;  /* substring of err, or NULL */
	bool spill;	  /* did_spill expected */
};

/* One case: a fresh sandbox and kernel, the script run once, every expectation checked. */
static void run_limit_case(const struct limit_case *c)
{
	char *dir = kh_mkfixture(false);
	kaish_config *cfg = kaish_config_agent_with_root(dir);
	kaish_kernel *k;
	kaish_result r;
	enum kaish_status st;

	cr_assert_not_null(cfg);
	kaish_config_set_trash(cfg, false);
	kaish_config_set_request_timeout(cfg, c->timeout_ms);
	k = kaish_kernel_new(cfg, NULL);
	kaish_config_free(cfg);
	cr_assert_not_null(k);
	st = kh_exec(k, c->script, &r);
	cr_expect_eq(st, c->status, "%s: status %d, want %d (err=%.200s)", c->name, st, c->status,
		     r.err);
	cr_expect_eq(r.code, c->code, "%s: code %d, want %d (err=%.200s)", c->name, r.code,
		     c->code, r.err);
	if (c->out)
		cr_expect(!strncmp(r.out, c->out, strlen(c->out)), "%s: out [%.100s]", c->name,
			  r.out);
	if (c->err)
		cr_expect(strstr(r.err, c->err), "%s: err [%.200s] lacks [%s]", c->name, r.err,
			  c->err);
	cr_expect_eq(r.did_spill, c->spill, "%s: did_spill %d", c->name, r.did_spill);
	if (c->spill)
		cr_expect_eq(r.original_code, 0, "%s: original_code %d", c->name, r.original_code);
	kaish_result_free(&r);
	kaish_kernel_free(k);
	kh_rmtree(dir);
	free(dir);
	free(c->script);
}

#define OK KAISH_OK
#define PARSE KAISH_ERR_PARSE
#define VALID KAISH_ERR_VALIDATION

/*
 * One Criterion test per case, so a slow or failing case names itself. The input sizes are
 * the point of these cases (each once overflowed a stack or ran away), so they stay; the
 * timeout only guards against a hang (tests/test_timeout.h).
 */
#define LIMIT_TEST(id, desc, script_expr, tmo_ms, st, cd, out_, err_, spill_)                 \
	Test(limits, id, .description = desc, .timeout = TEST_TIMEOUT(30))                   \
	{                                                                                     \
		struct limit_case c = { desc, script_expr, tmo_ms, st, cd, out_, err_, spill_ }; \
		run_limit_case(&c);                                                           \
	}

LIMIT_TEST(function_recursion, "function recursion", strdup("f() { f; }; f"), 0, OK, 1, "",
	   "maximum recursion depth (48) exceeded in function 'f'", false)
LIMIT_TEST(mutual_recursion, "mutual recursion", strdup("a() { b; }; b() { a; }; a; echo never"),
	   0, OK, 1, "", "maximum recursion depth (48) exceeded", false)
LIMIT_TEST(recursion_through_subst, "recursion through $( )",
	   strdup("g() { echo $(g); }; g; echo after"), 0, OK, 0, "after", NULL, false)
LIMIT_TEST(nested_braces_300, "300 nested braces", rep("", "{ ", 300, "echo x", "; }", ""), 0,
	   PARSE, 2, "", "nesting too deep", false)
LIMIT_TEST(nested_ifs_150_run, "150 nested ifs run",
	   rep("", "if true; then ", 150, "echo deep", "; fi", ""), 0, OK, 0, "deep\n", "", false)
LIMIT_TEST(nested_subst_300, "300 nested $( )", rep("echo ", "$(", 300, "echo x", ")", ""), 0,
	   PARSE, 2, "", "too deeply nested", false)
LIMIT_TEST(nested_subst_in_quotes_300, "300 nested $( ) in quotes",
	   rep("echo \"", "$(echo \"", 300, "x", "\")", "\""), 0, PARSE, 2, "",
	   "nesting too deep", false)
LIMIT_TEST(nested_parens_in_word_10000, "10000 nested parens in a word",
	   rep("echo ", "(", 10000, "x", ")", ""), 0, PARSE, 2, "", NULL, false)
LIMIT_TEST(nested_parens_in_arith_5000, "5000 nested parens in $(( ))",
	   rep("echo $((", "(", 5000, "1", ")", "))"), 0, PARSE, 2, "", NULL, false)
LIMIT_TEST(unary_minus_100000, "100000 unary minus in $(( ))",
	   rep("X=$((", "-", 100000, "1", "", ")); echo $X"), 0, OK, 0, NULL,
	   "expression too deep", false)
LIMIT_TEST(nested_parens_in_test_5000, "5000 nested ( ) in [[ ]]",
	   rep("[[ ", "( ", 5000, "a == a", " )", " ]]"), 0, OK, 2, "", "expression too deep",
	   false)
LIMIT_TEST(and_chain_100000, "100000-long && chain (was a stack overflow)",
	   rep("", "true && ", 100000, "echo x", "", ""), 0, OK, 0, "x\n", "", false)
LIMIT_TEST(or_chain_100000, "100000-long || chain",
	   rep("", "false || ", 100000, "echo y", "", ""), 0, OK, 0, "y\n", "", false)
LIMIT_TEST(mixed_chain_left_associative, "mixed chain keeps left associativity",
	   strdup("false && echo no || echo yes && false || echo again"), 0, OK, 0,
	   "yes\nagain\n", "", false)
/* As before the iterative rewrite: a failing && / || list never triggers set -e, even
 * through its last operand (bash would exit there). */
LIMIT_TEST(set_e_and_or_lists_do_not_exit, "set -e: && / || lists do not exit",
	   strdup("set -e; false && true; false || true; echo reached; false && true || false; "
		  "echo after"),
	   0, OK, 0, "reached\nafter\n", "", false)
LIMIT_TEST(elif_100000, "100000 elif branches (was a stack overflow)",
	   rep("if false; then :; ", "elif false; then :; ", 100000,
	       "elif true; then echo z; fi", "", ""),
	   0, OK, 0, "z\n", "", false)
LIMIT_TEST(elif_100000_else, "100000 elif branches, else",
	   rep("if false; then :; ", "elif false; then :; ", 100000, "else echo e; fi", "", ""),
	   0, OK, 0, "e\n", "", false)
LIMIT_TEST(pipeline_2000_stages, "2000-stage pipeline", rep("", "true | ", 2000, "echo x", "", ""),
	   0, OK, 0, "x\n", "", false)
LIMIT_TEST(case_20000_arms, "20000-arm case",
	   rep("case x in ", "y) echo;; ", 20000, "x) echo hit;; esac", "", ""), 0, OK, 0,
	   "hit\n", "", false)
LIMIT_TEST(statements_100000_over_output_limit, "100000 statements, the limit per statement",
	   rep("", "echo x; ", 100000, "", "", ""), 0, OK, 0, "x\nx\n", "", false)
LIMIT_TEST(word_1mb, "1 MB word", rep("echo ", "x", 1 << 20, "", "", ""), 0, OK, 3, "xxxx", "",
	   true)
LIMIT_TEST(quoted_string_4mb_through_pipe, "4 MB quoted string through a pipe",
	   rep("echo \"", "a", 4 << 20, "\" | wc -c", "", ""), 0, OK, 0, "4194305", "", false)
LIMIT_TEST(heredoc_200000_lines, "200000-line heredoc",
	   rep("cat <<EOF\n", "line\n", 200000, "EOF\n", "", ""), 0, OK, 3, "line\n", "", true)
LIMIT_TEST(variable_100000_chars, "100000-char variable",
	   rep("X=", "a", 100000, "; echo ${#X}", "", ""), 0, OK, 0, "100000\n", "", false)
LIMIT_TEST(seq_over_output_limit, "seq over the output limit", strdup("seq 1 100000"), 0, OK, 3,
	   "1\n2\n", "", true)
LIMIT_TEST(scatter_gather_no_segment, "scatter | gather, no segment (fuzz)",
	   strdup("seq 1 2 | scatter --as N | gather"), 0, OK, 2, "",
	   "no command between scatter and gather", false)
LIMIT_TEST(scatter_as_then_bad_option, "scatter --as then a bad option (fuzz)",
	   strdup("seq 1 2 | scatter --as X --bogus | echo $X | gather"), 0, OK, 2, "",
	   "unknown option", false)
LIMIT_TEST(endless_seq_request_timeout, "endless seq, request timeout (fuzz)",
	   strdup("seq 1 1e57 | wc -l"), 200, OK, 124, "", "kaish: timed out", false)
LIMIT_TEST(stacked_quantifiers_literal, "stacked quantifiers, literal: validation error "
	   "(fuzz: 2.9 GB regcomp)", rep("echo a | grep -E 'a", "+", 80, "'", "", ""), 0, VALID, 2,
	   "", "regex too complex", false)
LIMIT_TEST(nested_repetition_bounds_literal, "nested repetition bounds, literal",
	   strdup("echo x | sed -E 's/((a{1,1000}){1,1000})/y/'"), 0, VALID, 2, "",
	   "regex too complex", false)
LIMIT_TEST(stacked_quantifiers_at_run_time, "stacked quantifiers at run time",
	   strdup("P='x**'; echo a | grep -E \"$P\""), 0, OK, 2, "", "regex too complex", false)
LIMIT_TEST(ordinary_bounds_still_work, "ordinary bounds still work",
	   strdup("echo aab | grep -E '(a|b){2}b'; echo aaa | grep -E 'a{1,3}'"), 0, OK, 0,
	   "aab\naaa\n", "", false)
LIMIT_TEST(runaway_loop_request_timeout, "runaway loop, request timeout",
	   strdup("while true; do :; done"), 200, OK, 124, "", "kaish: timed out", false)
LIMIT_TEST(runaway_subst_in_loop_timeout, "runaway $( ) in a loop, timeout",
	   strdup("while true; do X=$(echo y); done"), 200, OK, 124, NULL, "kaish: timed out",
	   false)

/* --- the symlink-swap race ------------------------------------------------------------- */

#define SECRET "OUTSIDE-SECRET-CONTENT"

struct swapper {
	char dir[4200];	 /* root/d: the directory the kernel uses */
	char link[4200]; /* root/x: a symlink to the outside directory */
	atomic_bool stop;
	atomic_long swaps;
};

static void *swap_loop(void *arg)
{
	struct swapper *s = arg;

	while (!atomic_load(&s->stop)) {
		/* Atomically exchange the real directory and the symlink, back and forth. */
		if (renameat2(AT_FDCWD, s->dir, AT_FDCWD, s->link, RENAME_EXCHANGE) == 0)
			atomic_fetch_add(&s->swaps, 1);
	}
	return NULL;
}

/* Start the swapper and return once it has swapped: the rounds race a running thread, not
 * one a loaded host has yet to schedule. */
static void start_swapper(pthread_t *tid, struct swapper *s)
{
	cr_assert_eq(pthread_create(tid, NULL, swap_loop, s), 0);
	for (int i = 0; i < TEST_TIMEOUT(60) * 1000 && atomic_load(&s->swaps) == 0; i++)
		usleep(1000);
	cr_assert_gt(atomic_load(&s->swaps), 0, "the swapper never swapped");
}

/* The rounds: at least ROUNDS_MIN, and on until the race was seen both ways (seen) and the
 * swapper ran a while, bounded: how rounds and swaps interleave is the scheduler's. */
#define ROUNDS_MIN 400
#define ROUNDS_MAX 4000
#define RACE_RAN(s) (atomic_load(&(s)->swaps) > 100)

static bool file_exists(const char *dir, const char *name)
{
	char p[4300];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

/* base/root (the sandbox) with root/d a directory and root/x a symlink to base/outside,
 * which holds f with the secret: the swapper exchanges d and x. */
static void race_fixture(const char *base, char *root, char *outside, struct swapper *s)
{
	snprintf(root, 4096, "%s/root", base);
	snprintf(outside, 4096, "%s/outside", base);
	cr_assert_eq(mkdir(root, 0755), 0);
	cr_assert_eq(mkdir(outside, 0755), 0);
	snprintf(s->dir, sizeof(s->dir), "%s/d", root);
	cr_assert_eq(mkdir(s->dir, 0755), 0);
	cr_assert_eq(kh_write(outside, "f", SECRET "\n"), 0);
	snprintf(s->link, sizeof(s->link), "%s/x", root);
	cr_assert_eq(symlink(outside, s->link), 0);
}

/* An agent kernel on root with no output limit (the race scripts print a lot). */
static kaish_kernel *race_kernel(const char *root, bool trash)
{
	kaish_config *cfg = kaish_config_agent_with_root(root);
	kaish_kernel *k;

	kaish_config_set_trash(cfg, trash);
	kaish_config_set_output_limit(cfg, 0);
	k = kaish_kernel_new(cfg, NULL);
	kaish_config_free(cfg);
	cr_assert_not_null(k);
	return k;
}

Test(sandbox_race, symlink_swap_never_reaches_outside, .timeout = TEST_TIMEOUT(300))
{
	char *base = kh_mkfixture(false), root[4096], outside[4096], p[4300];
	struct swapper s = { 0 };
	kaish_kernel *k;
	pthread_t tid;
	long inside_seen = 0, refused = 0;

	race_fixture(base, root, outside, &s);
	cr_assert_eq(kh_write(root, "d/f", "inside\n"), 0);
	cr_assert_eq(kh_write(outside, "only-outside", SECRET "\n"), 0);

	k = race_kernel(root, false);
	start_swapper(&tid, &s);

	/* Each round: read, list, grep, redirect in and out, create, make a directory. */
	static const char script[] =
		"cat d/f; ls d; grep -r SECRET d; cat < d/f; echo pwned > d/f; echo new > d/planted;"
		" touch d/touched; mkdir d/newdir; cat d/only-outside; head -n 1 d/f; echo done";
	for (int round = 0; round < ROUNDS_MIN || ((!inside_seen || !refused || !RACE_RAN(&s)) &&
						   round < ROUNDS_MAX);
	     round++) {
		kaish_result r;

		cr_assert_eq(kh_exec(k, script, &r), KAISH_OK, "%s", r.err);
		cr_assert(!strstr(r.out, "SECRET") && !strstr(r.out, "only-outside"),
			  "round %d: outside content leaked into the sandbox:\n%s", round, r.out);
		cr_assert(!strstr(r.err, "SECRET"), "round %d: %s", round, r.err);
		if (strstr(r.out, "inside") || strstr(r.out, "pwned"))
			inside_seen++;
		if (strstr(r.err, "path escapes root"))
			refused++;
		kaish_result_free(&r);
		/* Nothing written outside: the secret intact, no new entry. */
		cr_assert(!file_exists(outside, "planted") && !file_exists(outside, "touched") &&
				  !file_exists(outside, "newdir"),
			  "round %d: the kernel wrote outside the root", round);
		snprintf(p, sizeof(p), "%s/f", outside);
		{
			char buf[128] = { 0 };
			FILE *f = fopen(p, "r");

			cr_assert_not_null(f);
			fread(buf, 1, sizeof(buf) - 1, f);
			fclose(f);
			cr_assert_str_eq(buf, SECRET "\n", "round %d: outside file overwritten",
					 round);
		}
	}
	atomic_store(&s.stop, true);
	pthread_join(tid, NULL);
	kaish_kernel_free(k);
	cr_log_info("%ld swaps, %ld rounds saw the inside, %ld refused", (long)s.swaps,
		    inside_seen, refused);
	cr_expect_gt(atomic_load(&s.swaps), 100, "the race did not run");
	cr_expect_gt(inside_seen, 0, "the inside directory was never used");
	cr_expect_gt(refused, 0, "a swapped-in symlink was never refused");
	kh_rmtree(base);
	free(base);
}

/* The trash move, raced the same way: `rm` with trash on renames through descriptors opened
 * beneath the root, so a directory swapped for a symlink to the outside after the check
 * never lets it move an outside file into .Trash (README: Sandbox / VFS, Trash). */
Test(sandbox_race, trash_move_never_takes_outside_files, .timeout = TEST_TIMEOUT(300))
{
	char *base = kh_mkfixture(false), root[4096], outside[4096];
	struct swapper s = { 0 };
	kaish_kernel *k;
	pthread_t tid;
	long trashed = 0, refused = 0;

	race_fixture(base, root, outside, &s);
	k = race_kernel(root, true);
	start_swapper(&tid, &s);
	for (int round = 0; round < ROUNDS_MIN || ((!trashed || !RACE_RAN(&s)) && round < ROUNDS_MAX);
	     round++) {
		kaish_result r;

		cr_assert_eq(kh_exec(k, "echo inside > d/f; rm d/f; x=$?; echo rm=$x", &r),
			     KAISH_OK, "%s", r.err);
		trashed += strstr(r.out, "rm=0") != NULL;
		refused += strstr(r.err, "path escapes root") != NULL;
		kaish_result_free(&r);
		cr_assert(file_exists(outside, "f"), "round %d: the outside file was moved", round);
		cr_assert_eq(kh_exec(k, "grep -rl SECRET .Trash/files; echo", &r), KAISH_OK);
		cr_assert(!strstr(r.out, "/"), "round %d: outside content in the trash: %s", round,
			  r.out);
		kaish_result_free(&r);
	}
	atomic_store(&s.stop, true);
	pthread_join(tid, NULL);
	kaish_kernel_free(k);
	cr_log_info("%ld swaps, %ld trashed, %ld refused", (long)s.swaps, trashed, refused);
	cr_expect_gt(atomic_load(&s.swaps), 100, "the race did not run");
	cr_expect_gt(trashed, 0, "rm never moved a file to the trash");
	kh_rmtree(base);
	free(base);
}

/* Scatter workers share the parsed tree read-only. Globbing a word used to cut the word's
 * part list in place for a moment, and concurrent workers restored each other's cuts: parts
 * were lost (wrong matches, failed workers) and leaked (found by fuzzing under ASan). */
Test(sandbox_race, scatter_workers_glob_the_same_word, .timeout = TEST_TIMEOUT(300))
{
	char *dir = kh_mkfixture(false), name[64];
	struct { char *s; size_t len; } want = { NULL, 0 };
	FILE *m = open_memstream(&want.s, &want.len);
	kaish_kernel *k;

	for (int i = 1; i <= 64; i++) {
		snprintf(name, sizeof(name), "a%dx", i);
		cr_assert_eq(kh_write(dir, name, ""), 0);
		fprintf(m, "a%dx\n", i);
	}
	fclose(m);
	want.s[--want.len] = '\0'; /* gather --lines: no newline after the last row */
	k = kh_kernel(dir);
	cr_assert_not_null(k);
	for (int round = 0; round < 40; round++) {
		kaish_result r;

		cr_assert_eq(kh_exec(k, "seq 1 64 | scatter --limit 16 | echo ?\"$ITEM\"x | "
					"gather --lines", &r), KAISH_OK);
		cr_assert_eq(r.code, 0, "round %d: code %d: %s", round, r.code, r.err);
		cr_assert(!strncmp(r.out, want.s, want.len), "round %d: out [%.200s]", round, r.out);
		kaish_result_free(&r);
	}
	free(want.s);
	kaish_kernel_free(k);
	kh_rmtree(dir);
	free(dir);
}


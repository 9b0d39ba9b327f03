/* SPDX-License-Identifier: MIT */
/*
 * kernel_workloads_unit.c - the six alloc_profile.rs workloads on an agent kernel
 * (agent_with_root(fixture) + trash off), with their exact expected results (doc §3.2).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_harness.h"


static char *fixture;
static kaish_kernel *kern;

static void setup(void)
{
	fixture = kh_mkfixture(true);
	cr_assert_not_null(fixture);
	kern = kh_kernel(fixture);
	cr_assert_not_null(kern);
}

static void teardown(void)
{
	kaish_kernel_free(kern);
	kh_rmtree(fixture);
	free(fixture);
}

/* Run twice, as the profile does (warm-up + measured): the kernel must be reusable. */
static void expect(const char *script, const char *out, int code)
{
	for (int iter = 0; iter < 2; iter++) {
		kaish_result r;
		enum kaish_status st = kh_exec(kern, script, &r);
		cr_assert_eq(st, KAISH_OK, "status %d err=%s", st, r.err);
		cr_expect_eq(r.code, code, "code %d err=%s", r.code, r.err);
		cr_expect_str_eq(r.out, out);
		cr_expect_eq(r.out_len, strlen(out));
		cr_expect_str_eq(r.err, "");
		kaish_result_free(&r);
	}
}

TestSuite(workloads, .init = setup, .fini = teardown);

Test(workloads, kernel_construct_true)
{
	/* kernel-construct: a fresh kernel per iteration, then `true`. */
	for (int i = 0; i < 3; i++) {
		kaish_kernel *k = kh_kernel(fixture);
		cr_assert_not_null(k);
		kaish_result r;
		cr_assert_eq(kh_exec(k, "true", &r), KAISH_OK);
		cr_expect_eq(r.code, 0);
		cr_expect_str_eq(r.out, "");
		kaish_result_free(&r);
		kaish_kernel_free(k);
	}
}

Test(workloads, execute_call)
{
	expect("echo hello world", "hello world\n", 0);
}

Test(workloads, grep_pipeline)
{
	expect("grep -rn needle . | sed 's/needle/found/' | wc -l", "148\n", 0);
}

Test(workloads, cmdsubst)
{
	expect("echo $(echo $(echo $(echo $(echo $(echo $(echo $(echo deep)))))))\n"
	       "echo $(echo a) $(echo b) $(echo c) $(echo d)",
	       "deep\na b c d\n", 0);
}

Test(workloads, loop_many_commands)
{
	char buf[1024];
	size_t n = 0;
	for (int i = 1; i <= 200; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%d\n", i);
	cr_assert_eq(n, 692);
	expect("for i in $(seq 1 200); do echo $i; done", buf, 0);
}

Test(workloads, scatter_gather)
{
	char buf[1024];
	size_t n = 0;
	for (int k = 0; k < 8; k++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
				      "%s{\"i\":%d,\"item\":%d,\"ok\":true,\"code\":0,\"out\":\"%d\",\"err\":\"\"}",
				      k ? "\n" : "", k, k + 1, k + 1);
	expect("seq 1 8 | scatter --as N | echo $N | gather", buf, 0);
}

Test(workloads, grep_lines_shape)
{
	/* The 148 lines themselves: ./pkgN/fileM.txt:LINE:text, 1-based line numbers. */
	kaish_result r;
	cr_assert_eq(kh_exec(kern, "grep -rn needle ./pkg0/file0.txt .", &r), KAISH_OK);
	cr_expect(strstr(r.out, "./pkg0/file0.txt:1:line 0: the needle is here\n") != NULL, "%s", r.out);
	kaish_result_free(&r);
	cr_assert_eq(kh_exec(kern, "grep -rn needle . | head -n 1", &r), KAISH_OK);
	cr_expect_str_eq(r.out, "./pkg0/file0.txt:1:line 0: the needle is here\n");
	kaish_result_free(&r);
}

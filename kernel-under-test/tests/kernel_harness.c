/* SPDX-License-Identifier: MIT */
/*
 * kernel_harness.c - shared helpers for the kernel test binaries: build the alloc_profile
 * fixture in a mkdtemp dir, build agent kernels on it, and run kaish_execute on a thread
 * with KAISH_RECOMMENDED_STACK_SIZE of stack (as every embedder must).
 */
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "kernel_harness.h"


int kh_write(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	FILE *f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) == 0 ? 0 : -errno;
}

/* 64 files pkg{f%8}/file{f}.txt of 40 lines, as alloc_profile.rs's build_fixture(). */
char *kh_mkfixture(bool with_files)
{
	char tmpl[] = "/tmp/kaish-test-XXXXXX";
	if (!mkdtemp(tmpl))
		return NULL;
	char *dir = strdup(tmpl);
	for (int f = 0; with_files && f < 64; f++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/pkg%d", dir, f % 8);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/pkg%d/file%d.txt", dir, f % 8, f);
		FILE *fp = fopen(path, "w");
		if (!fp)
			continue;
		for (int l = 0; l < 40; l++) {
			if ((f + l) % 17 == 0)
				fprintf(fp, "line %d: the needle is here\n", l);
			else
				fprintf(fp, "line %d: ordinary content for file %d\n", l, f);
		}
		fclose(fp);
	}
	return dir;
}

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

void kh_rmtree(const char *dir)
{
	if (dir)
		nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

kaish_kernel *kh_kernel(const char *root)
{
	kaish_config *cfg = kaish_config_agent_with_root(root);
	if (!cfg)
		return NULL;
	kaish_config_set_trash(cfg, false);
	kaish_kernel *k = kaish_kernel_new(cfg, NULL);
	kaish_config_free(cfg);
	return k;
}

struct exec_job {
	kaish_kernel *k;
	const char *script;
	kaish_result *r;
	enum kaish_status st;
};

static void *exec_thread(void *arg)
{
	struct exec_job *j = arg;
	j->st = kaish_execute(j->k, j->script, j->r);
	return NULL;
}

enum kaish_status kh_exec(kaish_kernel *k, const char *script, kaish_result *r)
{
	struct exec_job j = { .k = k, .script = script, .r = r, .st = KAISH_ERR_EXECUTION };
	pthread_attr_t attr;
	pthread_t tid;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, KAISH_RECOMMENDED_STACK_SIZE);
	if (pthread_create(&tid, &attr, exec_thread, &j) == 0)
		pthread_join(tid, NULL);
	pthread_attr_destroy(&attr);
	return j.st;
}

void kh_run_cases(const struct kcase *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct kcase *c = &cases[i];
		char *dir = kh_mkfixture(false);
		cr_assert_not_null(dir);
		kaish_kernel *k = kh_kernel(dir);
		cr_assert_not_null(k);
		kaish_result r;
		if (c->setup) {
			cr_assert_eq(kh_exec(k, c->setup, &r), KAISH_OK, "%s: setup", c->name);
			cr_assert_eq(r.code, 0, "%s: setup failed: %s", c->name, r.err);
			kaish_result_free(&r);
		}
		enum kaish_status st = kh_exec(k, c->script, &r);
		cr_expect_eq(st, c->status, "%s: status %d, want %d (err=%s)", c->name, st, c->status, r.err);
		cr_expect_eq(r.code, c->code, "%s: code %d, want %d (err=%s)", c->name, r.code, c->code, r.err);
		cr_expect_str_eq(r.out, c->out, "%s: out [%s], want [%s]", c->name, r.out, c->out);
		if (c->err && !*c->err)
			cr_expect_str_eq(r.err, "", "%s: unexpected err [%s]", c->name, r.err);
		else if (c->err)
			cr_expect(strstr(r.err, c->err) != NULL, "%s: err [%s] lacks [%s]", c->name, r.err, c->err);
		size_t el = strlen(r.err);
		cr_expect(el == 0 || (r.err[el - 1] == '\n' && (el < 2 || r.err[el - 2] != '\n')),
			  "%s: err must be empty or end in exactly one newline", c->name);
		kaish_result_free(&r);
		kaish_kernel_free(k);
		kh_rmtree(dir);
		free(dir);
	}
}

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

#include "kaish.h"

char *kh_mkfixture(bool with_files);
void kh_rmtree(const char *dir);
kaish_kernel *kh_kernel(const char *root);
enum kaish_status kh_exec(kaish_kernel *k, const char *script, kaish_result *r);
int kh_write(const char *dir, const char *rel, const char *text);

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

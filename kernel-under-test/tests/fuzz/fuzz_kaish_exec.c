/* SPDX-License-Identifier: MIT */
/*
 * fuzz_kaish_exec.c - libFuzzer target for the whole kernel: kaish_execute() on an agent
 * kernel sandboxed to a scratch directory, with a small output limit (2 KiB) and a request
 * timeout (200 ms), so runaway loops end with code 124 instead of stalling the fuzzer.
 *
 * Besides crashes, sanitizer reports and leaks, it checks the contract of every result:
 * out/err never NULL, err empty or ending in exactly one '\n', out_len == strlen(out) when the
 * output has no NUL, a result that says it spilled shows the truncation marker in its output
 * (its code is the last statement's: 3, or 124 when the request timed out after the spill;
 * kaish ORs did_spill across statements, §2.3), and the sandbox held: a file next to the
 * root ("outside/secret") is never modified, and nothing new appears next to the root.
 *
 * Run on a thread with KAISH_RECOMMENDED_STACK_SIZE, as every embedder must.
 * Also built without libFuzzer (KAISH_FUZZ_NO_MAIN) into the unit-test replayer.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kaish.h"

#define FUZZ_OUTPUT_LIMIT 2048
#define FUZZ_TIMEOUT_MS 200
#define SECRET_TEXT "kaish-fuzz outside secret\n"

int kaish_fuzz_exec_one(const uint8_t *data, size_t size);

static char base[64];	  /* /tmp/kaish-fuzz-XXXXXX */
static char root[128];	  /* base/root: the sandbox */
static char outside[128]; /* base/outside: must never change */
static char secret[160];
static int runs;

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	/* Make read-only directories removable again (chmod is not a builtin, but be safe). */
	if (flag == FTW_DP)
		return rmdir(p);
	return unlink(p);
}

static void rmtree(const char *dir)
{
	nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static void cleanup_base(void)
{
	if (base[0])
		rmtree(base);
}

/* A fresh sandbox with a few files, and a secret next to it. */
static void make_root(void)
{
	char p[256];
	FILE *f;

	rmtree(root);
	if (mkdir(root, 0755) && errno != EEXIST)
		abort();
	snprintf(p, sizeof(p), "%s/sub", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/a.txt", root);
	if ((f = fopen(p, "w"))) {
		fputs("alpha\nbeta\ngamma needle\n", f);
		fclose(f);
	}
	snprintf(p, sizeof(p), "%s/sub/b.txt", root);
	if ((f = fopen(p, "w"))) {
		fputs("one\ntwo needle\n", f);
		fclose(f);
	}
	/* Planted symlinks pointing out of the root: following them must be refused. */
	snprintf(p, sizeof(p), "%s/out", root);
	(void)!symlink(outside, p);
	snprintf(p, sizeof(p), "%s/sec", root);
	(void)!symlink(secret, p);
}

static void setup_once(void)
{
	FILE *f;

	if (base[0])
		return;
	snprintf(base, sizeof(base), "/tmp/kaish-fuzz-XXXXXX");
	if (!mkdtemp(base))
		abort();
	snprintf(root, sizeof(root), "%s/root", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	snprintf(secret, sizeof(secret), "%s/secret", outside);
	if (mkdir(outside, 0755))
		abort();
	f = fopen(secret, "w");
	if (!f)
		abort();
	fputs(SECRET_TEXT, f);
	fclose(f);
	make_root();
	atexit(cleanup_base);
}

/* The sandbox held: outside/ has exactly the secret, unchanged; base/ has root and outside. */
static void check_outside(const char *script)
{
	char buf[256];
	FILE *f = fopen(secret, "r");
	size_t n;
	DIR *d;
	struct dirent *de;
	int entries = 0;

	if (!f) {
		fprintf(stderr, "sandbox escape: %s removed by [%s]\n", secret, script);
		abort();
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (strcmp(buf, SECRET_TEXT)) {
		fprintf(stderr, "sandbox escape: %s modified by [%s]\n", secret, script);
		abort();
	}
	for (int pass = 0; pass < 2; pass++) {
		d = opendir(pass ? base : outside);
		if (!d)
			abort();
		entries = 0;
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				entries++;
		closedir(d);
		if (entries != 1 + pass) {
			fprintf(stderr, "sandbox escape: %d entries in %s after [%s]\n", entries,
				pass ? base : outside, script);
			abort();
		}
	}
}

struct job {
	kaish_kernel *k;
	const char *script;
	kaish_result r;
	enum kaish_status st;
};

static void *run(void *arg)
{
	struct job *j = arg;

	j->st = kaish_execute(j->k, j->script, &j->r);
	return NULL;
}

static void check_result(const struct job *j)
{
	const kaish_result *r = &j->r;
	size_t el;

	if (!r->out || !r->err)
		abort(); /* out and err are never NULL after a call */
	el = strlen(r->err);
	if (el && (r->err[el - 1] != '\n' || (el >= 2 && r->err[el - 2] == '\n'))) {
		fprintf(stderr, "err must be empty or end in exactly one newline: [%s] for [%s]\n",
			r->err, j->script);
		abort();
	}
	if (r->out_len < strlen(r->out))
		abort();
	if (j->st == KAISH_OK && r->did_spill && !strstr(r->out, "[output truncated: ")) {
		fprintf(stderr, "did_spill without a truncation marker (code %d) for [%s]\n", r->code,
			j->script);
		abort();
	}
	if (j->st != KAISH_OK && r->code != 2) {
		fprintf(stderr, "status %d with code %d for [%s]\n", j->st, r->code, j->script);
		abort();
	}
}

static kaish_kernel *new_kernel(void)
{
	kaish_config *cfg = kaish_config_agent_with_root(root);
	kaish_kernel *k;

	if (!cfg)
		abort();
	kaish_config_set_trash(cfg, false);
	kaish_config_set_output_limit(cfg, FUZZ_OUTPUT_LIMIT);
	kaish_config_set_request_timeout(cfg, FUZZ_TIMEOUT_MS);
	k = kaish_kernel_new(cfg, NULL);
	kaish_config_free(cfg);
	return k;
}

int kaish_fuzz_exec_one(const uint8_t *data, size_t size)
{
	struct job j = { 0 };
	char *script;
	pthread_attr_t attr;
	pthread_t tid;

	setup_once();
	/* Scripts may delete or fill the sandbox: start from a fresh one now and then. */
	if (++runs % 64 == 0)
		make_root();
	/* A C string of the input (the API stops at its first NUL). Not strndup: the input is
	 * not NUL-terminated, and ASan's strict_string_checks reads strndup's source whole. */
	script = malloc(size + 1);
	if (!script)
		abort();
	memcpy(script, data, size);
	script[size] = '\0';
	if (!(j.k = new_kernel())) {
		make_root(); /* the previous input may have emptied or broken the sandbox */
		if (!(j.k = new_kernel()))
			abort();
	}
	j.script = script;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, KAISH_RECOMMENDED_STACK_SIZE);
	if (pthread_create(&tid, &attr, run, &j))
		abort();
	pthread_join(tid, NULL);
	pthread_attr_destroy(&attr);
	check_result(&j);
	kaish_result_free(&j.r);
	kaish_kernel_free(j.k);
	check_outside(script);
	free(script);
	return 0;
}

#ifndef KAISH_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return kaish_fuzz_exec_one(data, size);
}
#endif

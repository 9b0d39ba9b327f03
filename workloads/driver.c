// SPDX-License-Identifier: MIT
/*
 * kaish-workloads - the seed's six embedder workloads (../shared/seed/alloc_profile.rs)
 * run against the C shell kernel, with USDT marks around each measurement window.
 *
 * For every workload: build the fixture and the kernel, run the script once unmeasured
 * (warm-up), then open the window, run the measured iterations, close the window.
 * `kernel-construct` measures construction itself: each iteration builds a kernel, runs
 * `true` and frees it. Every run's exit code and stdout are checked against the output
 * kaish gives, derived here from the fixture rather than written down.
 *
 * The window marks are USDT probes (provider kaish_workload), so a tracer attached from
 * outside measures exactly what dhat measured in-process:
 *	kaish_workload:window_begin(const char *name, long iterations)
 *	kaish_workload:window_end(const char *name, long iterations)
 * Nothing else in the process knows it is being traced.
 */
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kaish.h"

#define FIXTURE_FILES 64
#define FIXTURE_LINES 40
#define FIXTURE_DIRS 8
#define SCATTER_ITEMS 8
#define LOOP_COUNT 200

struct workload {
	const char *name;      /* CLI selector and output file stem */
	const char *rationale; /* why this shape is representative of embedders */
	const char *unit;      /* what one iteration means */
	long iterations;
	const char *script;    /* NULL: kernel-construct (build a kernel per iteration) */
};

static const struct workload workloads[] = {
	{ "kernel-construct",
	  "an agent embedder builds a fresh kernel per request; the fixed cost of showing up",
	  "one kaish_kernel_new + one trivial execute", 20, NULL },
	{ "execute-call",
	  "one execute() per tool call on an already-built kernel: per-call fixed cost",
	  "one kaish_execute(\"echo ...\")", 200, "echo hello world" },
	{ "grep-pipeline", "builtin-heavy pipeline over many files: read-only codebase analysis",
	  "one grep|sed|wc pipeline over the fixture tree", 20,
	  "grep -rn needle . | sed 's/needle/found/' | wc -l" },
	{ "cmdsubst", "command substitution re-enters the statement engine",
	  "one script with 8 nested + 4 sibling $( )", 20,
	  "echo $(echo $(echo $(echo $(echo $(echo $(echo $(echo deep)))))))\n"
	  "echo $(echo a) $(echo b) $(echo c) $(echo d)" },
	{ "loop-many-commands", "many small commands in one script: per-command dispatch cost",
	  "one 200-iteration for loop (200 dispatches)", 10,
	  "for i in $(seq 1 200); do echo $i; done" },
	{ "scatter-gather", "scatter forks a kernel per worker: the widest fork path",
	  "one 8-way scatter|gather", 20, "seq 1 8 | scatter --as N | echo $N | gather" },
};
#define WORKLOAD_CNT (sizeof(workloads) / sizeof(workloads[0]))

struct driver {
	const struct workload *selected[WORKLOAD_CNT];
	size_t selected_cnt;
	char root[64];	/* fixture directory */
	bool progress;	/* iteration progress on stderr */
	bool quiet;	/* no per-workload line on stdout */
	int status;	/* 0, or 1 when a workload failed */
};

static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("kaish-workloads: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* --- fixture ----------------------------------------------------------------------------- */

static bool line_has_needle(int f, int l)
{
	return (f + l) % 17 == 0;
}

/* 64 files of 40 lines in 8 subdirectories, as alloc_profile.rs's build_fixture(). */
static int build_fixture(char *root, size_t root_sz)
{
	char path[256];

	snprintf(root, root_sz, "/tmp/kaish-fixture-XXXXXX");
	if (!mkdtemp(root))
		return -errno;
	for (int f = 0; f < FIXTURE_FILES; f++) {
		FILE *fp;

		snprintf(path, sizeof(path), "%s/pkg%d", root, f % FIXTURE_DIRS);
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		snprintf(path, sizeof(path), "%s/pkg%d/file%d.txt", root, f % FIXTURE_DIRS, f);
		fp = fopen(path, "w");
		if (!fp)
			return -errno;
		for (int l = 0; l < FIXTURE_LINES; l++) {
			if (line_has_needle(f, l))
				fprintf(fp, "line %d: the needle is here\n", l);
			else
				fprintf(fp, "line %d: ordinary content for file %d\n", l, f);
		}
		if (fclose(fp))
			return -errno;
	}
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void remove_fixture(const char *root)
{
	if (root[0])
		nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* --- expected outputs, derived from the fixture and the scripts ----------------------------- */

/* The stdout kaish gives for w's script, malloc'd. Computed before the window opens. */
static char *expected_output(const struct workload *w)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);

	if (!out)
		return NULL;
	if (!w->script) {
		/* `true`: no output */
	} else if (!strcmp(w->name, "execute-call")) {
		fputs("hello world\n", out);
	} else if (!strcmp(w->name, "grep-pipeline")) {
		int matches = 0;

		for (int f = 0; f < FIXTURE_FILES; f++)
			for (int l = 0; l < FIXTURE_LINES; l++)
				matches += line_has_needle(f, l);
		fprintf(out, "%d\n", matches);
	} else if (!strcmp(w->name, "cmdsubst")) {
		fputs("deep\na b c d\n", out);
	} else if (!strcmp(w->name, "loop-many-commands")) {
		for (int i = 1; i <= LOOP_COUNT; i++)
			fprintf(out, "%d\n", i);
	} else if (!strcmp(w->name, "scatter-gather")) {
		/* JSONL rows in item order, joined by '\n', no newline after the last. */
		for (int i = 0; i < SCATTER_ITEMS; i++)
			fprintf(out, "%s{\"i\":%d,\"item\":%d,\"ok\":true,\"code\":0,\"out\":\"%d\",\"err\":\"\"}",
				i ? "\n" : "", i, i + 1, i + 1);
	}
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* --- running ----------------------------------------------------------------------------- */

static kaish_kernel *build_kernel(const char *root)
{
	kaish_config *cfg = kaish_config_agent_with_root(root);
	kaish_kernel *k;
	char *err = NULL;

	if (!cfg) {
		fail("config for %s: %s", root, strerror(errno));
		return NULL;
	}
	/* Trash forced off so the measurement never depends on KAISH_TRASH. */
	kaish_config_set_trash(cfg, false);
	k = kaish_kernel_new(cfg, &err);
	if (!k) {
		fail("build kernel: %s", err ? err : strerror(errno));
		free(err);
	}
	kaish_config_free(cfg);
	return k;
}

/* Run script once; 0 if it exits 0 with exactly the expected stdout. */
static int run_checked(kaish_kernel *k, const struct workload *w, const char *script,
		       const char *expect)
{
	kaish_result r = { 0 };
	enum kaish_status st = kaish_execute(k, script, &r);
	int ret = 0;

	if (st != KAISH_OK || r.code != 0) {
		fail("%s: script failed (status %d, code %d): %s", w->name, st, r.code,
		     r.err && r.err[0] ? r.err : "(no message)\n");
		ret = -1;
	} else if (strcmp(r.out, expect)) {
		fail("%s: unexpected output (%zu bytes, expected %zu)", w->name, r.out_len,
		     strlen(expect));
		ret = -1;
	}
	kaish_result_free(&r);
	return ret;
}

/* One iteration of kernel-construct: build, run `true`, free. */
static int construct_once(const struct workload *w, const char *root)
{
	kaish_kernel *k = build_kernel(root);
	int ret;

	if (!k)
		return -1;
	ret = run_checked(k, w, "true", "");
	kaish_kernel_free(k);
	return ret;
}

static void show_progress(const struct driver *d, const struct workload *w, long i)
{
	if (d->progress)
		fprintf(stderr, "\r  %-20s %4ld/%ld%s", w->name, i, w->iterations,
			i == w->iterations ? "\n" : "");
}

static int run_workload(struct driver *d, const struct workload *w)
{
	char *expect = expected_output(w);
	kaish_kernel *k = NULL;
	int ret = -1;
	long i = 0;

	if (!expect) {
		fail("%s: out of memory", w->name);
		return -1;
	}
	/* Warm-up, outside the window: lazily built state is not charged to the workload. */
	if (!w->script) {
		if (construct_once(w, d->root))
			goto cleanup;
	} else {
		k = build_kernel(d->root);
		if (!k || run_checked(k, w, w->script, expect))
			goto cleanup;
	}

	DTRACE_PROBE2(kaish_workload, window_begin, w->name, w->iterations);
	for (i = 0; i < w->iterations; i++) {
		if (w->script ? run_checked(k, w, w->script, expect) : construct_once(w, d->root))
			break;
		show_progress(d, w, i + 1);
	}
	DTRACE_PROBE2(kaish_workload, window_end, w->name, i);
	if (i == w->iterations)
		ret = 0;
	if (!d->quiet)
		printf("%-20s %4ld iterations %s\n", w->name, i, ret ? "FAILED" : "ok");
cleanup:
	kaish_kernel_free(k);
	free(expect);
	return ret;
}

static void *driver_thread(void *arg)
{
	struct driver *d = arg;
	int err = build_fixture(d->root, sizeof(d->root));

	if (err) {
		fail("fixture in %s: %s", d->root, strerror(-err));
		d->status = 1;
		goto cleanup;
	}
	for (size_t i = 0; i < d->selected_cnt; i++)
		if (run_workload(d, d->selected[i]))
			d->status = 1;
cleanup:
	remove_fixture(d->root);
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: kaish-workloads [--progress] [--quiet] <workload|all|list>\n\n");
	for (size_t i = 0; i < WORKLOAD_CNT; i++)
		fprintf(out, "  %-20s %s\n", workloads[i].name, workloads[i].rationale);
	fprintf(out, "\nExit status: 0 all workloads ran and gave kaish's output; 1 a workload "
		     "failed; 2 usage error.\n");
}

/* Describe one workload as "name<TAB>iterations<TAB>unit" lines, for the tracer. */
static void describe(void)
{
	for (size_t i = 0; i < WORKLOAD_CNT; i++)
		printf("%s\t%ld\t%s\n", workloads[i].name, workloads[i].iterations,
		       workloads[i].unit);
}

int main(int argc, char **argv)
{
	struct driver d = { 0 };
	const char *arg = "all";
	pthread_attr_t attr;
	pthread_t tid;
	int err;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--progress"))
			d.progress = true;
		else if (!strcmp(argv[i], "--quiet"))
			d.quiet = true;
		else
			arg = argv[i];
	}
	if (!strcmp(arg, "list") || !strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(arg, "--describe")) {
		describe();
		return 0;
	}
	for (size_t i = 0; i < WORKLOAD_CNT; i++)
		if (!strcmp(arg, "all") || !strcmp(arg, workloads[i].name))
			d.selected[d.selected_cnt++] = &workloads[i];
	if (!d.selected_cnt) {
		fprintf(stderr, "unknown workload: %s\n\n", arg);
		usage(stderr);
		return 2;
	}

	/* The interpreter recurses on the native stack: size the driver thread the way
	 * embedders are told to. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, KAISH_RECOMMENDED_STACK_SIZE);
	err = pthread_create(&tid, &attr, driver_thread, &d);
	pthread_attr_destroy(&attr);
	if (err) {
		fail("driver thread: %s", strerror(err));
		return 1;
	}
	pthread_join(tid, NULL);
	return d.status;
}

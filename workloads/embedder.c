// SPDX-License-Identifier: MIT
/*
 * kaish-embedder - a long-lived program that embeds the shell kernel the way agent hosts do:
 * worker threads take "requests", build a fresh kernel per request, run a tool call on it
 * and free it. It is the target for `tracer --pid` and an example of embedding kaish.h.
 *
 *	kaish-embedder [--threads N] [--requests N] [--seconds S] [--exit-code N]
 *	               [--ready-file PATH]
 *
 * --requests N: each thread serves N requests then the program exits (0: until SIGINT or
 * SIGTERM). --seconds S: stop after S seconds. --exit-code: the status to exit with (tests check it is passed through).
 * --ready-file: created once every worker has served its first request; then a line is
 * appended for every request served, so a test can tell requests ran after some moment.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kaish.h"

#define MAX_THREADS 16

static const char *const requests[] = {
	"echo hello world",
	"seq 1 20 | wc -l",
	"for i in $(seq 1 5); do echo $i; done | sort -r | head -n 2",
	"x=$(echo deep); echo ${x:-none}",
};

struct embedder {
	int threads;
	long requests; /* per thread; 0 = until stopped */
	double seconds; /* run time limit; 0 = none */
	struct timespec start;
	const char *ready_file;
	char root[64];
	atomic_int ready;
	atomic_int ready_fd; /* the ready file, open once every worker is ready; else -1 */
	atomic_long served;
	atomic_int failures;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

/* One request: a fresh kernel, one tool call, checked, freed. */
static int serve(struct embedder *e, long n)
{
	kaish_config *cfg = kaish_config_agent_with_root(e->root);
	kaish_kernel *k;
	kaish_result r = { 0 };
	int ret = -1;

	if (!cfg)
		return -1;
	kaish_config_set_trash(cfg, false);
	k = kaish_kernel_new(cfg, NULL);
	kaish_config_free(cfg);
	if (!k)
		return -1;
	if (kaish_execute(k, requests[n % (sizeof(requests) / sizeof(requests[0]))], &r) ==
		    KAISH_OK &&
	    r.code == 0)
		ret = 0;
	kaish_result_free(&r);
	kaish_kernel_free(k);
	return ret;
}

static bool time_is_up(const struct embedder *e)
{
	struct timespec now;

	if (e->seconds <= 0)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - e->start.tv_sec) + (now.tv_nsec - e->start.tv_nsec) / 1e9 >=
	       e->seconds;
}

static void *worker(void *arg)
{
	struct embedder *e = arg;

	for (long n = 0; !stop && !time_is_up(e) && (!e->requests || n < e->requests); n++) {
		if (serve(e, n))
			atomic_fetch_add(&e->failures, 1);
		atomic_fetch_add(&e->served, 1);
		if (n == 0 && atomic_fetch_add(&e->ready, 1) + 1 == e->threads && e->ready_file)
			atomic_store(&e->ready_fd, open(e->ready_file,
							 O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0644));
		else if (atomic_load(&e->ready_fd) >= 0 &&
			 write(atomic_load(&e->ready_fd), "\n", 1) != 1)
			atomic_store(&e->ready_fd, -1); /* a full disk: no more progress lines */
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct embedder e = { .threads = 2, .requests = 0, .ready_fd = -1 };
	pthread_t tids[MAX_THREADS];
	pthread_attr_t attr;
	struct sigaction sa = { .sa_handler = on_signal };
	int exit_code = 0, started = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			e.threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--requests") && i + 1 < argc)
			e.requests = atol(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			e.seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--exit-code") && i + 1 < argc)
			exit_code = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ready-file") && i + 1 < argc)
			e.ready_file = argv[++i];
		else {
			fprintf(stderr, "usage: kaish-embedder [--threads N] [--requests N] "
					"[--seconds S] [--exit-code N] [--ready-file PATH]\n");
			return 2;
		}
	}
	if (e.threads < 1 || e.threads > MAX_THREADS || e.requests < 0) {
		fprintf(stderr, "kaish-embedder: --threads 1..%d, --requests >= 0\n", MAX_THREADS);
		return 2;
	}
	snprintf(e.root, sizeof(e.root), "/tmp/kaish-embedder-XXXXXX");
	if (!mkdtemp(e.root)) {
		perror("kaish-embedder: mkdtemp");
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &e.start);

	/* Every thread that drives kaish_execute() gets the recommended stack. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, KAISH_RECOMMENDED_STACK_SIZE);
	for (; started < e.threads; started++)
		if (pthread_create(&tids[started], &attr, worker, &e))
			break;
	pthread_attr_destroy(&attr);
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	rmdir(e.root);
	fprintf(stderr, "kaish-embedder: %ld requests, %d failed\n", atomic_load(&e.served),
		atomic_load(&e.failures));
	if (started < e.threads || atomic_load(&e.failures))
		return 1;
	return exit_code;
}

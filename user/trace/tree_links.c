// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The link sets of a followed tree's processes, closed in the background (tree_links.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tree_links.h"
#include "grow.h"

struct proc_set {
	pid_t pid;
	int fd[TREE_LINKS_PER_PROC];
	size_t n;
	unsigned objs;
};

/* Closer threads at most (see struct tree_links). */
#define CLOSERS 8

struct tree_links {
	struct proc_set *procs;
	size_t cnt, cap;
	/* The closers: fds waiting to be closed, and the threads closing them, side by side
	 * (a close waits for RCU grace periods, which concurrent closes share: one thread
	 * closing 60 links of a 30-fork loop took 2.6 s after the loop had ended). */
	pthread_mutex_t lock;
	pthread_cond_t more, idle;
	int *queue;
	size_t qlen, qcap;
	unsigned active; /* closes under way */
	bool quit;
	pthread_t threads[CLOSERS];
	int nthreads;
};

static void *closer(void *arg)
{
	struct tree_links *t = arg;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		while (!t->qlen && !t->quit) {
			if (!t->active)
				pthread_cond_broadcast(&t->idle);
			pthread_cond_wait(&t->more, &t->lock);
		}
		if (!t->qlen)
			break;
		int fd = t->queue[--t->qlen];

		t->active++;
		pthread_mutex_unlock(&t->lock);
		close(fd); /* waits for the grace periods of the link's uprobes */
		pthread_mutex_lock(&t->lock);
		t->active--;
	}
	if (!t->active)
		pthread_cond_broadcast(&t->idle);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* Hand fds to the closer; closed here at once when it cannot run. */
static void close_later(struct tree_links *t, const int *fds, size_t n)
{
	pthread_mutex_lock(&t->lock);
	/* One more closer while there are more fds waiting than closers, up to CLOSERS. */
	if (!t->quit && t->nthreads < CLOSERS && (size_t)t->nthreads < t->qlen + n &&
	    !pthread_create(&t->threads[t->nthreads], NULL, closer, t))
		t->nthreads++;
	if (t->nthreads && t->qlen + n > t->qcap) {
		size_t cap = (t->qlen + n) * 2;
		int *q = realloc(t->queue, cap * sizeof(*q));

		if (q) {
			t->queue = q;
			t->qcap = cap;
		}
	}
	if (!t->nthreads || t->qlen + n > t->qcap) {
		pthread_mutex_unlock(&t->lock);
		for (size_t i = 0; i < n; i++)
			close(fds[i]);
		return;
	}
	memcpy(t->queue + t->qlen, fds, n * sizeof(*fds));
	t->qlen += n;
	pthread_cond_broadcast(&t->more);
	pthread_mutex_unlock(&t->lock);
}

struct tree_links *tree_links__new(void)
{
	struct tree_links *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->more, NULL);
	pthread_cond_init(&t->idle, NULL);
	return t;
}

static struct proc_set *find(const struct tree_links *t, pid_t pid)
{
	for (size_t i = 0; i < t->cnt; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	return NULL;
}

int tree_links__add(struct tree_links *t, pid_t pid, const int *fds, size_t n, unsigned objs)
{
	struct proc_set *p = find(t, pid);

	if (!p && grow__array(&t->procs, &t->cap, t->cnt + 1, sizeof(*t->procs))) {
		for (size_t i = 0; i < n; i++)
			close(fds[i]);
		return -ENOMEM;
	}
	if (!p) {
		p = &t->procs[t->cnt++];
		p->pid = pid;
		p->n = 0;
		p->objs = 0;
	}
	if (p->n + n > TREE_LINKS_PER_PROC) {
		for (size_t i = 0; i < n; i++)
			close(fds[i]);
		return -E2BIG;
	}
	if (n)
		memcpy(p->fd + p->n, fds, n * sizeof(*fds));
	p->n += n;
	p->objs |= objs;
	return 0;
}

unsigned tree_links__objs(const struct tree_links *t, pid_t pid)
{
	const struct proc_set *p = t ? find(t, pid) : NULL;

	return p ? p->objs : 0;
}

bool tree_links__has(const struct tree_links *t, pid_t pid)
{
	return t && find(t, pid);
}

size_t tree_links__count(const struct tree_links *t)
{
	return t ? t->cnt : 0;
}

void tree_links__drop(struct tree_links *t, pid_t pid)
{
	struct proc_set *p = t ? find(t, pid) : NULL;

	if (!p)
		return;
	close_later(t, p->fd, p->n);
	*p = t->procs[--t->cnt];
}

void tree_links__close_all(struct tree_links *t)
{
	if (!t)
		return;
	while (t->cnt)
		tree_links__drop(t, t->procs[t->cnt - 1].pid);
	pthread_mutex_lock(&t->lock);
	while (t->active || t->qlen)
		pthread_cond_wait(&t->idle, &t->lock);
	pthread_mutex_unlock(&t->lock);
}

void tree_links__free(struct tree_links *t)
{
	if (!t)
		return;
	tree_links__close_all(t);
	pthread_mutex_lock(&t->lock);
	t->quit = true;
	pthread_cond_broadcast(&t->more);
	pthread_mutex_unlock(&t->lock);
	for (int i = 0; i < t->nthreads; i++)
		pthread_join(t->threads[i], NULL);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->more);
	pthread_cond_destroy(&t->idle);
	free(t->queue);
	free(t->procs);
	free(t);
}

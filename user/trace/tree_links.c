// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The link sets of a followed tree's processes, closed in the background (tree_links.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tree_links.h"

struct proc_set {
	pid_t pid;
	int fd[TREE_LINKS_PER_PROC];
	size_t n;
	unsigned objs;
};

struct tree_links {
	struct proc_set *procs;
	size_t cnt, cap;
	/* The closer: fds waiting to be closed, and the thread closing them. */
	pthread_mutex_t lock;
	pthread_cond_t more, idle;
	int *queue;
	size_t qlen, qcap;
	bool busy, quit, started;
	pthread_t thread;
};

static void *closer(void *arg)
{
	struct tree_links *t = arg;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		while (!t->qlen && !t->quit) {
			t->busy = false;
			pthread_cond_broadcast(&t->idle);
			pthread_cond_wait(&t->more, &t->lock);
		}
		if (!t->qlen)
			break;
		int fd = t->queue[--t->qlen];

		t->busy = true;
		pthread_mutex_unlock(&t->lock);
		close(fd); /* waits for the grace periods of the link's uprobes */
		pthread_mutex_lock(&t->lock);
	}
	t->busy = false;
	pthread_cond_broadcast(&t->idle);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* Hand fds to the closer; closed here at once when it cannot run. */
static void close_later(struct tree_links *t, const int *fds, size_t n)
{
	pthread_mutex_lock(&t->lock);
	if (!t->started && !t->quit)
		t->started = !pthread_create(&t->thread, NULL, closer, t);
	if (t->started && t->qlen + n > t->qcap) {
		size_t cap = (t->qlen + n) * 2;
		int *q = realloc(t->queue, cap * sizeof(*q));

		if (q) {
			t->queue = q;
			t->qcap = cap;
		}
	}
	if (!t->started || t->qlen + n > t->qcap) {
		pthread_mutex_unlock(&t->lock);
		for (size_t i = 0; i < n; i++)
			close(fds[i]);
		return;
	}
	memcpy(t->queue + t->qlen, fds, n * sizeof(*fds));
	t->qlen += n;
	t->busy = true;
	pthread_cond_signal(&t->more);
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

	if (!p && t->cnt == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		struct proc_set *v = realloc(t->procs, cap * sizeof(*v));

		if (!v) {
			for (size_t i = 0; i < n; i++)
				close(fds[i]);
			return -ENOMEM;
		}
		t->procs = v;
		t->cap = cap;
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
	while (t->busy || t->qlen)
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
	pthread_cond_signal(&t->more);
	pthread_mutex_unlock(&t->lock);
	if (t->started)
		pthread_join(t->thread, NULL);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->more);
	pthread_cond_destroy(&t->idle);
	free(t->queue);
	free(t->procs);
	free(t);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "tree" attach mode (loader_attach.h): a followed process tree whose every new process
 * the caller holds at its birth (loader_opts.hold_children: a spawned command under ptrace)
 * gets session links per process (loader_multi__session_obj()), made before its first
 * instruction and closed once it is reaped (tree_links.h). The target's own links are made
 * at attach; a fork gets links on the objects its parent has them on, an exec'd image on
 * its own objects (loader__attach_image), and every object any process was probed in is
 * kept for the processes to come. When the kernel refuses sessions the tree falls back to
 * inherited probes, not to multi links.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "loader_attach.h"
#include "tree_links.h"

#define LOG_TAG "loader: "
#include "log.h"

/* One object probed for the tree: every new process gets it. */
struct tree_obj {
	char *path;
	struct probe_plan *plan;
};

#define TREE_OBJS_MAX (TREE_LINKS_PER_PROC / 2) /* a session and an entry-only link each */

struct tree_state {
	int root_fd[2 * ALLOC_OBJ_MAX]; /* the target's own links (attach) */
	size_t root_cnt;
	struct tree_links *tree;	/* every other process's links */
	struct tree_obj objs[TREE_OBJS_MAX]; /* every object some process has links on */
	size_t obj_cnt;
	unsigned first_objs; /* the target's first objects (bits of objs) */
};

/* Per-process links hold two fds per process and object (and more wait to be closed): a
 * wide tree (make -j, a parallel test runner) would pass the usual soft limit of 1024. A
 * process whose links cannot be made is reported and stays unprobed. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		vlog("cannot raise the open-file limit: %s\n", strerror(errno));
}

static void *tree_new(void)
{
	struct tree_state *s = calloc(1, sizeof(*s));

	if (!s || !(s->tree = tree_links__new())) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	raise_fd_limit();
	return s;
}

/* An object some process of the tree gets links on, added once: its index in objs, or
 * -errno. */
static int tree_obj_add(struct tree_state *s, const char *path, const struct probe_plan *p)
{
	struct tree_obj *o;

	for (size_t i = 0; i < s->obj_cnt; i++)
		if (!strcmp(s->objs[i].path, path))
			return (int)i;
	if (s->obj_cnt == TREE_OBJS_MAX)
		return -E2BIG;
	o = &s->objs[s->obj_cnt];
	o->path = strdup(path);
	o->plan = malloc(sizeof(*p));
	if (!o->path || !o->plan) {
		free(o->path);
		free(o->plan);
		return -ENOMEM;
	}
	*o->plan = *p;
	return (int)s->obj_cnt++;
}

/* The target's session links per object (root_fd), its objects kept for the processes to
 * come. The loader attached the process tracepoints before. */
static int tree_attach(struct attach *a, const struct probe_plans *plans, pid_t pid,
		       bool no_ret)
{
	struct tree_state *s = a->state;
	int err = 0;

	(void)no_ret; /* sessions: one probe a function */
	for (size_t i = 0; i < plans->cnt && !err; i++) {
		err = loader_multi__session_obj(a, a->syms->objs[i], &plans->obj[i], pid,
						 s->root_fd, &s->root_cnt);
		if (!err) {
			int idx = tree_obj_add(s, a->syms->objs[i], &plans->obj[i]);

			if (idx < 0)
				err = idx;
			else
				s->first_objs |= 1u << idx;
		}
	}
	/* The target's own links are root_fd; the tree knows which objects they cover. */
	if (!err)
		err = tree_links__add(s->tree, pid, NULL, 0, s->first_objs);
	return err;
}

/* Session links for pid on the objects of want it has none on. */
static int proc_attach(struct attach *a, pid_t pid, unsigned want)
{
	struct tree_state *s = a->state;
	unsigned have = tree_links__objs(s->tree, pid), objs = 0;
	int fds[TREE_LINKS_PER_PROC];
	size_t n = 0;
	int err = 0;

	for (size_t k = 0; k < s->obj_cnt && !err; k++)
		if ((want & (1u << k)) && !(have & (1u << k))) {
			err = loader_multi__session_obj(a, s->objs[k].path, s->objs[k].plan, pid,
							 fds, &n);
			objs |= 1u << k;
		}
	if (err) {
		for (size_t i = 0; i < n; i++)
			close(fds[i]);
		return err;
	}
	return n ? tree_links__add(s->tree, pid, fds, n, objs) : 0;
}

static int tree_add_child(struct attach *a, pid_t pid, pid_t parent)
{
	struct tree_state *s = a->state;
	unsigned want;
	int err;

	if (tree_links__has(s->tree, pid))
		return 0;
	/* A fork runs its parent's image: the parent's objects (the target's first ones when
	 * the parent is unknown, e.g. reparented). */
	want = tree_links__objs(s->tree, parent);
	if (!want)
		want = s->first_objs;
	double t0 = loader__mono_ms();

	err = proc_attach(a, pid, want);
	dlog("pid %d: its probes attached in %.2f ms\n", (int)pid, loader__mono_ms() - t0);
	if (err && err != -ESRCH)
		elog("cannot attach the allocator probes to pid %d: %s\n", (int)pid,
		     strerror(-err));
	return err;
}

static void tree_process_gone(struct attach *a, pid_t pid)
{
	struct tree_state *s = a->state;

	tree_links__drop(s->tree, pid);
}

/* The image's objects join the tree's list (once): pid gets links on those it lacks, and
 * its forks inherit them. */
static int tree_attach_image(struct attach *a, pid_t pid, const struct alloc_symbols *syms,
			     const struct probe_plans *plans)
{
	struct tree_state *s = a->state;
	unsigned want = 0;
	int err = 0;

	for (size_t k = 0; !err && k < plans->cnt; k++) {
		int idx = tree_obj_add(s, syms->objs[k], &plans->obj[k]);

		if (idx < 0)
			err = idx;
		else
			want |= 1u << idx;
	}
	if (!err)
		err = proc_attach(a, pid, want);
	return err;
}

/* The target's links one job each, every other process's links one job. */
static size_t tree_detach(struct attach *a, struct detach_job *jobs)
{
	struct tree_state *s = a->state;
	size_t n = detach_jobs__fds(s->root_fd, &s->root_cnt, jobs);

	if (tree_links__count(s->tree))
		jobs[n++] = (struct detach_job){ .fd = -1, .tree = s->tree };
	return n;
}

static void tree_free(void *state)
{
	struct tree_state *s = state;

	if (!s)
		return;
	tree_links__free(s->tree);
	for (size_t i = 0; i < s->obj_cnt; i++) {
		free(s->objs[i].path);
		free(s->objs[i].plan);
	}
	free(s);
}

const struct attach_ops loader_tree__ops = {
	.name = "session uprobe-multi links (entry and return in one program)",
	.session = true,
	.multi = true,
	.follows = true,
	.fallback = &loader_inherit__ops,
	.new = tree_new,
	.attach = tree_attach,
	.add_child = tree_add_child,
	.process_gone = tree_process_gone,
	.attach_image = tree_attach_image,
	.detach = tree_detach,
	.free = tree_free,
};

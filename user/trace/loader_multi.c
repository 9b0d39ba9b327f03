// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The two attach modes made of uprobe-multi links on the target alone (loader_attach.h):
 *   session  alloc_session on every function with a return probe as ONE session link per
 *            object (kernel >= 6.13): entry and return in one program, which skips the
 *            return trap of calls that need none; plus alloc_entry on free as a uprobe-multi
 *            link.
 *   multi    alloc_entry and alloc_return as TWO uprobe-multi links per object (kernel
 *            >= 6.6), the returns first.
 * Their state: the link fds. Tearing one down waits for RCU grace periods (50-80 ms): the
 * loader closes them in parallel.
 */
#include <errno.h>
#include <stdlib.h>

#include <bpf/libbpf.h>

#include "loader_attach.h"
#include "uprobe_multi.h"

_Static_assert(PLAN_ENTRIES_MAX <= UPROBE_MULTI_MAX, "one uprobe-multi link per object and kind");

/* The links: a return (session) and an entry (entry-only) link per probed object. */
struct multi_links {
	int fd[2 * ALLOC_OBJ_MAX]; /* -1: none */
	size_t cnt;
};

static void *multi_new(void)
{
	struct multi_links *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	for (int i = 0; i < 2 * ALLOC_OBJ_MAX; i++)
		s->fd[i] = -1;
	return s;
}

int loader_multi__session_obj(const struct attach *a, const char *path,
			      const struct probe_plan *p, pid_t pid, int *fds, size_t *n)
{
	int sess = bpf_program__fd(a->session);
	int ent = bpf_program__fd(a->entry);
	int fd;

	for (int eonly = 0; eonly < 2; eonly++) {
		if (eonly ? !p->eonly_cnt : !p->ret_cnt)
			continue;
		fd = eonly ? uprobe_multi__link(ent, BPF_TRACE_UPROBE_MULTI, path, p->eonly_off,
					       p->eonly_cookie, p->eonly_cnt, false, pid)
			   : uprobe_multi__link(sess, TRACE_UPROBE_SESSION, path, p->ret_off,
					       p->ret_cookie, p->ret_cnt, false, pid);
		if (fd < 0)
			return fd;
		fds[(*n)++] = fd;
	}
	return 0;
}

/* Per object, loader_multi__session_obj() for the target. A session is one probe a
 * function: no_ret has nothing to leave out. */
static int session_attach(struct attach *a, const struct probe_plans *plans, pid_t pid,
			  bool no_ret)
{
	struct multi_links *s = a->state;
	int err = 0;

	(void)no_ret;
	for (size_t i = 0; i < plans->cnt && !err; i++)
		err = loader_multi__session_obj(a, a->syms->objs[i], &plans->obj[i], pid, s->fd,
						 &s->cnt);
	return err;
}

/* Two uprobe-multi links per object: all returns, then all entries (no_ret: no return link,
 * the entry-only no-op floor). -errno when the kernel refuses. */
static int multi_attach(struct attach *a, const struct probe_plans *plans, pid_t pid,
			bool no_ret)
{
	struct multi_links *s = a->state;
	int ent = bpf_program__fd(a->entry);
	int ret = bpf_program__fd(a->ret);
	int fd;

	for (int entries = no_ret; entries < 2; entries++)
		for (size_t i = 0; i < plans->cnt; i++) {
			const struct probe_plan *p = &plans->obj[i];
			const char *path = a->syms->objs[i];

			if (entries ? !p->entry_cnt : !p->ret_cnt)
				continue;
			fd = entries ? uprobe_multi__link(ent, BPF_TRACE_UPROBE_MULTI, path,
							 p->entry_off, p->entry_cookie,
							 p->entry_cnt, false, pid)
				     : uprobe_multi__link(ret, BPF_TRACE_UPROBE_MULTI, path,
							 p->ret_off, p->ret_cookie, p->ret_cnt,
							 true, pid);
			if (fd < 0)
				return fd;
			s->fd[s->cnt++] = fd;
		}
	return 0;
}

static size_t multi_detach(struct attach *a, struct detach_job *jobs)
{
	struct multi_links *s = a->state;

	return detach_jobs__fds(s->fd, &s->cnt, jobs);
}

static void multi_free(void *state)
{
	free(state);
}

const struct attach_ops loader_session__ops = {
	.name = "session uprobe-multi links (entry and return in one program)",
	.session = true,
	.multi = true,
	.fallback = &loader_multi__ops,
	.new = multi_new,
	.attach = session_attach,
	.detach = multi_detach,
	.free = multi_free,
};

const struct attach_ops loader_multi__ops = {
	.name = "uprobe-multi links (entry and return programs)",
	.multi = true,
	.fallback = &loader_each__ops,
	.new = multi_new,
	.attach = multi_attach,
	.detach = multi_detach,
	.free = multi_free,
};

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "each" attach mode (loader_attach.h): one libbpf uprobe link per probe, the programs
 * loaded as plain uprobes, for kernels without uprobe-multi links (before 6.6) and
 * loader_opts.per_probe_links. The last resort of the fallbacks. Tearing down a uprobe link
 * waits for RCU grace periods: 33 of them took 3.5 s one after the other, so the loader
 * closes them in parallel.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "loader_attach.h"

#define LOG_TAG "loader: "
#include "log.h"

/* The links: a return and an entry probe a function at most. */
struct each_links {
	struct bpf_link *link[FN_COUNT + PLAN_ENTRIES_MAX];
	size_t cnt;
};

static void *each_new(void)
{
	return calloc(1, sizeof(struct each_links));
}

static int attach_one(struct bpf_program *prog, struct bpf_link **link, bool retprobe, pid_t pid,
		      const char *path, size_t off, __u64 cookie, __u32 fn)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .retprobe = retprobe, .bpf_cookie = cookie);
	int err;

	*link = bpf_program__attach_uprobe_opts(prog, pid, path, off, &o);
	if (*link)
		return 0;
	err = -errno;
	if (err == -ESRCH || (err == -ENOENT && kill(pid, 0) && errno == ESRCH)) {
		elog("process %d is gone\n", (int)pid);
		return -ESRCH;
	}
	elog("cannot attach %s to %s:%s (offset 0x%zx): %s\n", retprobe ? "uretprobe" : "uprobe",
	     path, alloc_fn_name(fn), off, strerror(-err));
	return err;
}

/* One link per probe: returns first (none with no_ret), then entries. */
static int each_attach(struct attach *a, const struct probe_plans *plans, pid_t pid,
		       bool no_ret)
{
	struct each_links *s = a->state;
	int err;

	for (int entries = no_ret; entries < 2; entries++)
		for (size_t o = 0; o < plans->cnt; o++) {
			const struct probe_plan *p = &plans->obj[o];
			size_t cnt = entries ? p->entry_cnt : p->ret_cnt;

			for (size_t i = 0; i < cnt; i++) {
				err = attach_one(entries ? a->entry : a->ret, &s->link[s->cnt++],
						 !entries, pid, a->syms->objs[o],
						 entries ? p->entry_off[i] : p->ret_off[i],
						 entries ? p->entry_cookie[i] : p->ret_cookie[i],
						 entries ? p->fns[i] : p->ret_fns[i]);
				if (err)
					return err;
			}
		}
	return 0;
}

static size_t each_detach(struct attach *a, struct detach_job *jobs)
{
	struct each_links *s = a->state;
	size_t n = 0;

	for (size_t i = 0; i < s->cnt; i++)
		jobs[n++] = (struct detach_job){ .fd = -1, .link = s->link[i] };
	s->cnt = 0;
	return n;
}

static void each_free(void *state)
{
	free(state);
}

const struct attach_ops loader_each__ops = {
	.name = "one link each",
	.new = each_new,
	.attach = each_attach,
	.detach = each_detach,
	.free = each_free,
};

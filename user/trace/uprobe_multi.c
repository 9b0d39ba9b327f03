// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Raw uprobe-multi links: see uprobe_multi.h. */
#include "uprobe_multi.h"

#include "environment.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>

#define UPROBE_MULTI_RETURN 1u /* BPF_F_UPROBE_MULTI_RETURN */

/* BPF_LINK_CREATE's attr for uprobe-multi: link_create's common head, then uprobe_multi. */
struct uprobe_multi_attr {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 path;
	__u64 offsets;
	__u64 ref_ctr_offsets;
	__u64 cookies;
	__u32 cnt;
	__u32 multi_flags;
	__u32 pid;
	__u32 pad;
};

int uprobe_multi__link(int prog_fd, __u32 attach_type, const char *path, const size_t *offs,
		       const __u64 *cookies, size_t cnt, bool retprobe, pid_t pid)
{
	unsigned long offsets[UPROBE_MULTI_MAX];
	struct uprobe_multi_attr a;
	int fd;

	if (cnt > UPROBE_MULTI_MAX)
		return -E2BIG;
	/* TRACER_REFUSE=multi (session): as a kernel before 6.6 (6.13) answers. */
	if (env_refuses("multi") || (attach_type == TRACE_UPROBE_SESSION && env_refuses("session")))
		return -EINVAL;
	for (size_t i = 0; i < cnt; i++)
		offsets[i] = offs[i];
	memset(&a, 0, sizeof(a));
	a.prog_fd = (__u32)prog_fd;
	a.attach_type = attach_type;
	a.path = (__u64)(unsigned long)path;
	a.offsets = (__u64)(unsigned long)offsets;
	a.cookies = (__u64)(unsigned long)cookies;
	a.cnt = (__u32)cnt;
	a.multi_flags = retprobe ? UPROBE_MULTI_RETURN : 0;
	a.pid = pid > 0 ? (__u32)pid : 0;
	fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : fd;
}

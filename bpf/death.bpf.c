// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * death.bpf.c - how a traced process ended. The kernel's own events, filtered on the traced
 * processes (the `traced` map, filled by userspace):
 *   tp_btf/mark_victim          the OOM killer chose this process: which cgroup's limit
 *   tp_btf/signal_deliver       a signal is delivered: kept per process with its si_addr
 *   tp_btf/sched_process_exit   the last thread exits: one EV_DEATH record with all of it
 *   tp_btf/sched_process_fork   with `follow`, a traced process's child is traced too
 * Records go into the allocation probes' ring buffer (bpf_map__reuse_fd before load), so the
 * death comes after every allocation record of the process, in order.
 *
 * No vmlinux.h: the few kernel fields read are declared below with a ___death flavour and
 * relocated against the running kernel's BTF (CO-RE), so layouts are the kernel's own.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "alloc_events.h"
#include "traced.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct kernfs_node___death {
	const char *name;
} __attribute__((preserve_access_index));

struct cgroup___death {
	struct kernfs_node___death *kn;
} __attribute__((preserve_access_index));

struct cgroup_subsys_state___death {
	struct cgroup___death *cgroup;
	struct cgroup_subsys_state___death *parent;
} __attribute__((preserve_access_index));

struct css_set___death {
	struct cgroup_subsys_state___death *subsys[16];
} __attribute__((preserve_access_index));

enum cgroup_subsys_id___death {
	memory_cgrp_id = 4, /* the value is relocated: the running kernel's */
};

struct page_counter___death {
	struct {
		long counter;
	} usage;	   /* atomic_long_t, pages */
	unsigned long max; /* pages */
} __attribute__((preserve_access_index));

struct mem_cgroup___death {
	struct cgroup_subsys_state___death css;
	struct page_counter___death memory;
} __attribute__((preserve_access_index));

struct percpu_counter___death {
	long long count; /* the summed value, behind the per-CPU deltas by a batch at most */
} __attribute__((preserve_access_index));

/* mm->rss_stat[] by enum: MM_FILEPAGES, MM_ANONPAGES, MM_SWAPENTS, MM_SHMEMPAGES (6.2+). */
struct mm_struct___death {
	struct percpu_counter___death rss_stat[4];
} __attribute__((preserve_access_index));

struct task_struct___death {
	int exit_code;
	int tgid;
	struct css_set___death *cgroups;
	struct mm_struct___death *mm;
} __attribute__((preserve_access_index));

/* A page_counter without a limit has max = PAGE_COUNTER_MAX (LONG_MAX / PAGE_SIZE). */
#define PAGE_COUNTER_MAX (0x7fffffffffffffffull / page_size)

const volatile __u64 page_size = 4096; /* set by userspace (sysconf) */
/* Process trees are followed: a traced process's forks are traced from the fork on. Done
 * here, in the fork itself, and not by userspace on the EV_PROC_FORK record: a child that
 * dies before the collector reads that record would otherwise end without a death. */
const volatile __u32 follow = 0;

/* What was seen of a traced process on its way out, until its last thread exits. A record
 * is built here and sent whole at exit; the per-tgid value is that record. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct death_event);
} pending SEC(".maps");

__u64 deaths_dropped = 0; /* reserve failures (ring buffer full) */

static const struct death_event zero_death;

/* Bytes of mm->rss_stat[i]: a constant i, so that CO-RE relocates the element's offset with
 * the kernel's struct percpu_counter size (a variable index would use ours). */
#define RSS_BYTES(mm, i)                                                                           \
	({                                                                                         \
		long long n_ = BPF_CORE_READ(mm, rss_stat[i].count);                               \
		n_ > 0 ? (__u64)n_ *page_size : 0;                                                 \
	})

/* The RSS of tsk now, if its memory is still there (before exit_mm, before the OOM reaper). */
static __always_inline void read_rss(struct death_event *d, struct task_struct___death *tsk)
{
	struct mm_struct___death *mm = NULL;

	if (!bpf_core_field_exists(mm->rss_stat))
		return; /* before 6.2, rss_stat was atomic counters: not read */
	mm = BPF_CORE_READ(tsk, mm);
	if (!mm)
		return;
	d->rss_file = RSS_BYTES(mm, 0);
	d->rss_anon = RSS_BYTES(mm, 1);
	d->swap = RSS_BYTES(mm, 2);
	d->rss_shmem = RSS_BYTES(mm, 3);
	d->flags |= DEATH_F_RSS;
}

/* The pending record of tgid, created on first use; NULL if tgid is not traced. */
static __always_inline struct death_event *pending_of(__u32 tgid)
{
	struct death_event *d;

	if (!bpf_map_lookup_elem(&traced, &tgid))
		return NULL;
	d = bpf_map_lookup_elem(&pending, &tgid);
	if (d)
		return d;
	bpf_map_update_elem(&pending, &tgid, &zero_death, BPF_NOEXIST);
	return bpf_map_lookup_elem(&pending, &tgid);
}

/*
 * The OOM killer marks its victim. Which limit was hit is not an argument of the tracepoint
 * (and oom_kill_process, which knows, cannot be probed where kprobes and fentry are not
 * available): walk the victim's memory cgroups upwards and take the first whose usage is
 * within 1/16 of its limit, the one the kill freed memory for; none: a system-wide OOM.
 */
SEC("tp_btf/mark_victim")
int BPF_PROG(death_mark_victim, struct task_struct___death *tsk)
{
	struct death_event *d = pending_of((__u32)BPF_CORE_READ(tsk, tgid));
	struct cgroup_subsys_state___death *css;
	int id = bpf_core_enum_value(enum cgroup_subsys_id___death, memory_cgrp_id);

	if (!d)
		return 0;
	d->flags |= DEATH_F_OOM | DEATH_F_OOM_GLOBAL;
	read_rss(d, tsk); /* at the kill: the reaper may free the memory before the exit */
	if (id < 0 || id >= 16)
		return 0;
	css = BPF_CORE_READ(tsk, cgroups, subsys[id]);
	for (int depth = 0; css && depth < 16; depth++) {
		/* css is the first member of struct mem_cgroup */
		struct mem_cgroup___death *memcg = (void *)css;
		__u64 max = BPF_CORE_READ(memcg, memory.max);
		__u64 usage = (__u64)BPF_CORE_READ(memcg, memory.usage.counter);
		const char *name;

		if (max < PAGE_COUNTER_MAX && usage * 16 >= max * 15) {
			d->flags = (d->flags & ~DEATH_F_OOM_GLOBAL) | DEATH_F_OOM_MEMCG;
			d->oom_limit = max * page_size;
			d->oom_usage = usage * page_size;
			name = BPF_CORE_READ(css, cgroup, kn, name);
			if (name)
				bpf_probe_read_kernel_str(d->oom_cgroup, sizeof(d->oom_cgroup),
							  name);
			return 0;
		}
		css = BPF_CORE_READ(css, parent);
	}
	return 0;
}

/* Runs in the receiving task. info is NULL for a group exit's SIGKILL. The union of
 * kernel_siginfo starts at byte 16 and _sigfault._addr is its first member (uapi layout). */
SEC("tp_btf/signal_deliver")
int BPF_PROG(death_signal, int sig, void *info)
{
	struct death_event *d = pending_of((__u32)(bpf_get_current_pid_tgid() >> 32));

	if (!d)
		return 0;
	d->flags = (d->flags | DEATH_F_SIGNAL) & ~DEATH_F_FAULT_ADDR;
	d->signo = sig;
	d->si_code = 0;
	d->fault_addr = 0;
	if (!info)
		return 0;
	bpf_probe_read_kernel(&d->si_code, sizeof(d->si_code), info + 8);
	/* SIGILL 4, SIGBUS 7, SIGFPE 8, SIGSEGV 11 carry the faulting address; a user's kill()
	 * (si_code <= 0) does not. */
	if ((sig == 4 || sig == 7 || sig == 8 || sig == 11) && d->si_code > 0 &&
	    !bpf_probe_read_kernel(&d->fault_addr, sizeof(d->fault_addr), info + 16))
		d->flags |= DEATH_F_FAULT_ADDR;
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(death_fork, struct task_struct___death *parent, struct task_struct___death *child)
{
	__u32 ptgid = (__u32)BPF_CORE_READ(parent, tgid), ctgid = (__u32)BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	/* A new thread is the same process; only a new thread group is a new process. */
	if (!follow || ptgid == ctgid || !bpf_map_lookup_elem(&traced, &ptgid))
		return 0;
	bpf_map_update_elem(&traced, &ctgid, &one, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(death_exit, struct task_struct___death *p, int group_dead)
{
	__u32 tgid = (__u32)BPF_CORE_READ(p, tgid);
	struct death_event *d, *e;

	if (!group_dead)
		return 0; /* other threads: the process lives on */
	d = pending_of(tgid);
	if (!d)
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&deaths_dropped, 1);
	} else {
		__builtin_memcpy(e, d, sizeof(*e));
		e->type = EV_DEATH;
		e->tgid = tgid;
		e->ts_ns = bpf_ktime_get_ns();
		e->exit_code = BPF_CORE_READ(p, exit_code);
		/* sched_process_exit runs before exit_mm: the memory is still there. */
		if (!(e->flags & DEATH_F_RSS))
			read_rss(e, p);
		/* The collector closes the profile on it: wake it now. */
		bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	}
	bpf_map_delete_elem(&pending, &tgid);
	bpf_map_delete_elem(&traced, &tgid);
	return 0;
}

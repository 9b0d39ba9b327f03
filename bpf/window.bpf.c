// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * window.bpf.c - measurement windows for any program: `--start-at SYMBOL` and
 * `--stop-at SYMBOL` attach these uprobes to a function of the target. A hit emits a window
 * mark into the allocation probes' ring buffer (shared with bpf_map__reuse_fd before load),
 * so marks and allocation records stay in one order. Userspace keeps one window per run.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "alloc_events.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 target_tgid = 0;	       /* only this process's hits count */
const volatile char start_name[WINDOW_NAME_LEN]; /* shown as the window's name */
const volatile char stop_name[WINDOW_NAME_LEN];

#include "events.bpf.h"

__u64 marks_dropped = 0; /* reserve failures (ring buffer full) */

static __always_inline int emit(__u32 type, const volatile char *name)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct window_event *e;

	if ((__u32)(id >> 32) != target_tgid)
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&marks_dropped, 1);
		return 0;
	}
	e->type = type;
	e->tid = (__u32)id;
	e->tgid = (__u32)(id >> 32); /* the profile it belongs to */
	e->pad = 0;
	e->ts_ns = bpf_ktime_get_ns();
	e->iterations = 0;
	for (int i = 0; i < WINDOW_NAME_LEN; i++)
		e->name[i] = name[i];
	/* Marks are rare and the collector acts on them: wake it now. */
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(window_start)
{
	return emit(EV_WINDOW_BEGIN, start_name);
}

SEC("uprobe")
int BPF_KPROBE(window_stop)
{
	return emit(EV_WINDOW_END, stop_name);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * mappings.bpf.c - memory a traced process maps outside the heap's blocks: anonymous mmap,
 * munmap, mremap and brk, at the system call's return (successful calls only), each with
 * the user registers and a copy of the user stack, so that userspace unwinds who made the
 * mapping with the modules' CFI (libc's wrappers keep no frame pointers). Filtered on the
 * traced processes: the `traced` map is the death probes' (shared with bpf_map__reuse_fd).
 * Records go into the allocation probes' ring buffer, in order with the allocations.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "alloc_events.h"
#include "traced.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define MAP_ANONYMOUS 0x20
#define PAGE_SLICE    4096u

struct mm_struct___maps {
	unsigned long brk;
} __attribute__((preserve_access_index));

struct task_struct___maps {
	struct mm_struct___maps *mm;
} __attribute__((preserve_access_index));

/* The syscalls tracepoints' records (see /sys/kernel/tracing/events/syscalls/.../format). */
struct sys_enter_rec {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__u64 args[6];
};

struct sys_exit_rec {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__s64 ret;
};

/* A call in flight, by thread: what the entry saw, for the return. */
struct call {
	__u32 op;
	__u32 pad;
	__u64 a0, a1, a2; /* MMAP: len, flags; MREMAP: old_addr, old_len, new_len; BRK: old brk */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct call);
} calls SEC(".maps");

/* The record under construction, contiguous: header, snapshot, stack bytes. */
struct slot {
	struct mapping_event ev;
	struct stack_snapshot snap;
	__u8 stack[MAPPING_STACK_COPY + PAGE_SLICE]; /* + a page: lets the verifier bound a copy */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct slot);
} scratch SEC(".maps");

__u64 mappings_dropped = 0; /* records lost: ring buffer full */

static __always_inline int remember(__u32 op, __u64 a0, __u64 a1, __u64 a2)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct call c = {.op = op, .a0 = a0, .a1 = a1, .a2 = a2};

	if (current_is_traced())
		bpf_map_update_elem(&calls, &tid, &c, BPF_ANY);
	return 0;
}

/* Copy the user stack from sp into s->stack: the whole copy at once, else page by page up to
 * the end of the readable stack. Returns the bytes copied. */
static __always_inline __u32 copy_stack(struct slot *s, __u64 sp)
{
	__u64 len = 0;

	if (!bpf_probe_read_user(s->stack, MAPPING_STACK_COPY, (void *)sp))
		return MAPPING_STACK_COPY;
	s->snap.flags |= SNAP_F_SHORT;
	for (int i = 0; i < MAPPING_STACK_COPY / PAGE_SLICE + 1; i++) {
		__u64 chunk = PAGE_SLICE - ((sp + len) & (PAGE_SLICE - 1));

		if (len >= MAPPING_STACK_COPY)
			break;
		if (chunk > MAPPING_STACK_COPY - len)
			chunk = MAPPING_STACK_COPY - len;
		if (chunk > PAGE_SLICE || len > MAPPING_STACK_COPY)
			break;
		if (bpf_probe_read_user(s->stack + len, chunk, (void *)(sp + len)))
			break;
		len += chunk;
	}
	return (__u32)len;
}

/* Send one record for the returning call; with_stack: registers and stack copy too. */
static __always_inline int emit(__u32 op, __u64 addr, __u64 len, __u64 old_addr, __u64 old_len,
				__u64 flags, int with_stack)
{
	void *regs = (void *)bpf_task_pt_regs(bpf_get_current_task_btf());
	struct pt_regs r; /* the uapi layout is the kernel's on x86-64 */
	__u64 id = bpf_get_current_pid_tgid();
	__u32 zero = 0, n = 0;
	struct slot *s = bpf_map_lookup_elem(&scratch, &zero);

	if (!s)
		return 0;
	s->ev.type = EV_MAPPING;
	s->ev.tid = (__u32)id;
	s->ev.tgid = (__u32)(id >> 32);
	s->ev.ts_ns = bpf_ktime_get_ns();
	s->ev.op = op;
	s->ev.addr = addr;
	s->ev.len = len;
	s->ev.old_addr = old_addr;
	s->ev.old_len = old_len;
	s->ev.flags = flags;
	__builtin_memset(&s->snap, 0, sizeof(s->snap));
	s->snap.ev_type = EV_MAPPING;
	if (with_stack && regs && !bpf_probe_read_kernel(&r, sizeof(r), regs)) {
		/* The user registers saved at the system call: ip is in libc's wrapper. */
		s->snap.ip = r.rip;
		s->snap.sp = r.rsp;
		s->snap.bp = r.rbp;
		s->snap.rbx = r.rbx;
		s->snap.r12 = r.r12;
		s->snap.r13 = r.r13;
		s->snap.r14 = r.r14;
		s->snap.r15 = r.r15;
		s->snap.flags = SNAP_F_CALLEE_SAVED;
		n = copy_stack(s, s->snap.sp);
	}
	s->snap.stack_len = n;
	if (n > MAPPING_STACK_COPY)
		return 0;
	if (bpf_ringbuf_output(&events, s, sizeof(s->ev) + sizeof(s->snap) + n, 0))
		__sync_fetch_and_add(&mappings_dropped, 1);
	return 0;
}

/* The call of this thread, removed from the table; NULL when none (not traced, or the entry
 * came before the attach): 0. */
static __always_inline int take_call(__u32 op, struct call *out)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct call *c = bpf_map_lookup_elem(&calls, &tid);

	if (!c || c->op != op)
		return 0;
	*out = *c;
	bpf_map_delete_elem(&calls, &tid);
	return 1;
}

static __always_inline int failed(__s64 ret)
{
	return ret < 0 && ret > -4096;
}

SEC("tracepoint/syscalls/sys_enter_mmap")
int mappings_mmap_enter(struct sys_enter_rec *ctx)
{
	if (!(ctx->args[3] & MAP_ANONYMOUS))
		return 0; /* file mappings: counted as file-backed RSS, not attributed */
	return remember(MAP_OP_MMAP, ctx->args[1], ctx->args[3], 0);
}

SEC("tracepoint/syscalls/sys_exit_mmap")
int mappings_mmap_exit(struct sys_exit_rec *ctx)
{
	struct call c;

	if (!take_call(MAP_OP_MMAP, &c) || failed(ctx->ret))
		return 0;
	return emit(MAP_OP_MMAP, (__u64)ctx->ret, c.a0, 0, 0, c.a1, 1);
}

SEC("tracepoint/syscalls/sys_enter_munmap")
int mappings_munmap_enter(struct sys_enter_rec *ctx)
{
	return remember(MAP_OP_MUNMAP, ctx->args[0], ctx->args[1], 0);
}

SEC("tracepoint/syscalls/sys_exit_munmap")
int mappings_munmap_exit(struct sys_exit_rec *ctx)
{
	struct call c;

	if (!take_call(MAP_OP_MUNMAP, &c) || ctx->ret)
		return 0;
	return emit(MAP_OP_MUNMAP, c.a0, c.a1, 0, 0, 0, 0);
}

SEC("tracepoint/syscalls/sys_enter_mremap")
int mappings_mremap_enter(struct sys_enter_rec *ctx)
{
	return remember(MAP_OP_MREMAP, ctx->args[0], ctx->args[1], ctx->args[2]);
}

SEC("tracepoint/syscalls/sys_exit_mremap")
int mappings_mremap_exit(struct sys_exit_rec *ctx)
{
	struct call c;

	if (!take_call(MAP_OP_MREMAP, &c) || failed(ctx->ret))
		return 0;
	return emit(MAP_OP_MREMAP, (__u64)ctx->ret, c.a2, c.a0, c.a1, 0, 1);
}

SEC("tracepoint/syscalls/sys_enter_brk")
int mappings_brk_enter(struct sys_enter_rec *ctx)
{
	struct task_struct___maps *task = (void *)bpf_get_current_task();

	return remember(MAP_OP_BRK, BPF_CORE_READ(task, mm, brk), 0, 0);
}

SEC("tracepoint/syscalls/sys_exit_brk")
int mappings_brk_exit(struct sys_exit_rec *ctx)
{
	struct call c;

	if (!take_call(MAP_OP_BRK, &c) || (__u64)ctx->ret == c.a0)
		return 0; /* a query (brk(0)) or a refused move: nothing changed */
	return emit(MAP_OP_BRK, (__u64)ctx->ret, 0, c.a0, 0, 0, (__u64)ctx->ret > c.a0);
}

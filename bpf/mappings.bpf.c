// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * mappings.bpf.c - memory a traced process maps outside the heap's blocks: anonymous mmap,
 * munmap, mremap and brk, at the system call's return (successful calls only; the raw
 * sys_enter/sys_exit tracepoints, which need no tracefs), each with
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

#define RETURNS_MAX 16 /* pending uretprobe returns looked at per record (see below) */

struct xol_area___maps {
	unsigned long vaddr; /* the uretprobe trampoline's address (the [uprobes] page) */
} __attribute__((preserve_access_index));

struct uprobes_state___maps {
	struct xol_area___maps *xol_area;
} __attribute__((preserve_access_index));

struct mm_struct___maps {
	unsigned long brk;
	struct uprobes_state___maps uprobes_state;
} __attribute__((preserve_access_index));

/* One pending uretprobe return of the thread, newest (deepest) first. */
struct return_instance___maps {
	unsigned long stack;	      /* user SP at the hijack: the return-address slot */
	unsigned long orig_ret_vaddr; /* the return address the trampoline replaced */
	struct return_instance___maps *next;
} __attribute__((preserve_access_index));

struct uprobe_task___maps {
	struct return_instance___maps *return_instances;
} __attribute__((preserve_access_index));

struct task_struct___maps {
	struct mm_struct___maps *mm;
	struct uprobe_task___maps *utask;
} __attribute__((preserve_access_index));

/* brk's old end, by thread, from its entry to its return (the others read their arguments
 * from the user registers at the return). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u64);
} brk_calls SEC(".maps");

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

/*
 * Put back the return addresses that uretprobes hijacked in the copy of n bytes. A mapping
 * made inside a function with a pending return probe (malloc, PyObject_Malloc: the
 * allocation probes') has that call's return address replaced on the user stack by the
 * uprobe trampoline, and the unwinder would stop there ("???" in the [uprobes] page) and
 * lose every caller. The kernel keeps the originals in the thread's return_instances: each
 * one whose slot lies in the copy gets its orig_ret_vaddr back, provided the word still
 * reads as the trampoline (an instance abandoned by a longjmp may point at a slot the
 * stack has reused since). A slot below sp is such an abandoned one; a slot past the copy
 * is never read (the unwind stops at the copy's end before it), so neither is counted.
 * The list is deepest first and at most RETURNS_MAX are looked at: nested probed calls
 * are a few deep (realloc -> malloc), so the slots within 8 KiB of sp come first.
 */
static __always_inline void restore_returns(struct slot *s, __u32 n)
{
	struct task_struct___maps *task = (void *)bpf_get_current_task();
	struct return_instance___maps *ri;
	__u64 tramp, sp = s->snap.sp;

	if (!bpf_core_field_exists(task->utask))
		return;
	ri = BPF_CORE_READ(task, utask, return_instances);
	if (!ri)
		return; /* the common case: no probed call pending */
	tramp = BPF_CORE_READ(task, mm, uprobes_state.xol_area, vaddr);
	if (!tramp)
		return;
	for (int i = 0; i < RETURNS_MAX && ri; i++) {
		__u64 slot = BPF_CORE_READ(ri, stack), off = slot - sp;
		__u64 orig = BPF_CORE_READ(ri, orig_ret_vaddr);
		__u64 *word;

		ri = BPF_CORE_READ(ri, next);
		/* off > MAPPING_STACK_COPY - 8 also bounds the write for the verifier. */
		if (slot < sp || off + 8 > n || off > MAPPING_STACK_COPY - 8)
			continue;
		word = (__u64 *)(s->stack + off);
		if (*word == tramp)
			*word = orig;
	}
}

/* Send one record for the returning call; with_stack: registers and stack copy too. */
static __always_inline int emit(const struct pt_regs *r, __u32 op, __u64 addr, __u64 len,
				__u64 old_addr, __u64 old_len, __u64 flags, int with_stack)
{
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
	if (with_stack) {
		/* ip is in libc's wrapper: userspace unwinds from there. */
		s->snap.ip = r->rip;
		s->snap.sp = r->rsp;
		s->snap.bp = r->rbp;
		s->snap.rbx = r->rbx;
		s->snap.r12 = r->r12;
		s->snap.r13 = r->r13;
		s->snap.r14 = r->r14;
		s->snap.r15 = r->r15;
		s->snap.flags = SNAP_F_CALLEE_SAVED;
		n = copy_stack(s, s->snap.sp);
		restore_returns(s, n);
	}
	s->snap.stack_len = n;
	if (n > MAPPING_STACK_COPY)
		return 0;
	if (bpf_ringbuf_output(&events, s, sizeof(s->ev) + sizeof(s->snap) + n, 0))
		__sync_fetch_and_add(&mappings_dropped, 1);
	return 0;
}

static __always_inline int failed(__s64 ret)
{
	return ret < 0 && ret > -4096;
}

/* What each call did, at its return (successful calls of traced processes only); r: the
 * user registers, the call's arguments in rdi, rsi, rdx, r10. */
static __always_inline int mmap_done(const struct pt_regs *r, __s64 ret)
{
	/* mmap(addr, len, prot, flags, fd, off): file mappings are counted as file-backed
	 * RSS, not attributed. */
	if (failed(ret) || !(r->r10 & MAP_ANONYMOUS) || !current_is_traced())
		return 0;
	return emit(r, MAP_OP_MMAP, (__u64)ret, r->rsi, 0, 0, r->r10, 1);
}

static __always_inline int munmap_done(const struct pt_regs *r, __s64 ret)
{
	/* munmap(addr, len) */
	if (ret || !current_is_traced())
		return 0;
	return emit(r, MAP_OP_MUNMAP, r->rdi, r->rsi, 0, 0, 0, 0);
}

static __always_inline int mremap_done(const struct pt_regs *r, __s64 ret)
{
	/* mremap(old_addr, old_len, new_len, flags, new_addr) */
	if (failed(ret) || !current_is_traced())
		return 0;
	return emit(r, MAP_OP_MREMAP, (__u64)ret, r->rdx, r->rdi, r->rsi, 0, 1);
}

static __always_inline int brk_start(void)
{
	struct task_struct___maps *task = (void *)bpf_get_current_task();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 old = BPF_CORE_READ(task, mm, brk);

	if (current_is_traced())
		bpf_map_update_elem(&brk_calls, &tid, &old, BPF_ANY);
	return 0;
}

static __always_inline int brk_done(const struct pt_regs *r, __s64 ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 *p = bpf_map_lookup_elem(&brk_calls, &tid), old;

	if (!p)
		return 0; /* not traced, or the entry came before the attach */
	old = *p;
	bpf_map_delete_elem(&brk_calls, &tid);
	if ((__u64)ret == old)
		return 0; /* a query (brk(0)) or a refused move: nothing changed */
	return emit(r, MAP_OP_BRK, (__u64)ret, 0, old, 0, 0, (__u64)ret > old);
}

/*
 * The raw system-call tracepoints, BTF-typed: attached with no tracefs (the syscalls/
 * tracepoints need their ids from it). They run for every system call while attached, so
 * each returns at once unless the call is one of these four (x86-64 numbers).
 */
#define NR_MMAP	  9
#define NR_MUNMAP 11
#define NR_BRK	  12
#define NR_MREMAP 25
/* A 32-bit (compat) system call numbers its calls otherwise (12 is chdir there): only the
 * 64-bit code segment's are ours. */
#define USER_CS64 0x33

static __always_inline int is_64bit_call(struct pt_regs *regs)
{
	__u64 cs = 0;

	return !bpf_probe_read_kernel(&cs, sizeof(cs), &regs->cs) && cs == USER_CS64;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(mappings_sys_enter, struct pt_regs *regs, long id)
{
	return id == NR_BRK && is_64bit_call(regs) ? brk_start() : 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(mappings_sys_exit, struct pt_regs *regs, long ret)
{
	/* A BTF-typed load (no helper call): this runs on every system call, uretprobe
	 * returns included, and returns here on nearly all of them. */
	__u64 nr = regs->orig_rax;
	struct pt_regs r;

	if (nr != NR_MMAP && nr != NR_MUNMAP && nr != NR_MREMAP && nr != NR_BRK)
		return 0;
	if (bpf_probe_read_kernel(&r, sizeof(r), regs) || r.cs != USER_CS64)
		return 0;
	switch (nr) {
	case NR_MMAP:
		return mmap_done(&r, ret);
	case NR_MUNMAP:
		return munmap_done(&r, ret);
	case NR_MREMAP:
		return mremap_done(&r, ret);
	default:
		return brk_done(&r, ret);
	}
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * alloc.bpf.c - heap allocation probes for ONE target process.
 *
 * Uprobes on the entry and uretprobes on the return of every allocator entry point of the
 * target's libc (free: entry only), plus USDT window marks. Everything the collector needs
 * goes through one ring buffer, so allocation, free, realloc and window records keep the
 * order in which they were reserved.
 *
 * Pairing and the outermost-call rule
 * -----------------------------------
 * Entry arguments wait for the return in `inflight`, the thread's task-local storage. Allocator
 * functions call each other (realloc(NULL, n) -> malloc, realloc(p, 0) -> free, reallocarray ->
 * realloc, strdup -> malloc, getline -> getdelim -> malloc/realloc, ...). Only the OUTERMOST call
 * of a thread produces records; every call made while one is active is "nested"
 * (counters.nested_calls) and only updates the thread's state. A nested call is one whose
 * entry stack pointer is <= the outer entry's (same stack, deeper or tail-called:
 * getline and reallocarray tail-jump into getdelim and realloc, same SP). A state whose
 * outer call is found to be abandoned (new entry with a higher SP: a thread that longjmp'ed
 * out of an allocator) is replaced and counted in
 * counters.unmatched_returns, like a return without an entry.
 *
 * Primitive allocators (malloc .. pvalloc, incl. free, Rust's __rust_* shims, C++'s
 * operator new/delete) called outermost: the record follows from the entry arguments and the return value:
 *   malloc/valloc/pvalloc/memalign/aligned_alloc   EV_ALLOC(ret, size)          ret != NULL
 *   calloc                                         EV_ALLOC(ret, nmemb * size)  ret != NULL
 *   posix_memalign(memptr, align, size)            EV_ALLOC(*memptr, size)      ret == 0
 *   realloc(NULL, n) / reallocarray(NULL, m, s)    EV_ALLOC(ret, n), fn = REALLOC(ARRAY)
 *   realloc(p, 0), p != NULL                       EV_FREE(p) (glibc frees, returns NULL)
 *   realloc(p, n) / reallocarray(p, m, s)          EV_REALLOC(p -> ret, n)      ret != NULL
 *   free(p), p != NULL                             EV_FREE(p) at the entry (no return probe)
 *   __rust_alloc(_zeroed)(n, align)                EV_ALLOC(ret, n)             ret != NULL
 *   __rust_realloc(p, old, align, n)               EV_REALLOC(p -> ret, n)      ret != NULL
 *   __rust_dealloc(p, size, align)                 EV_FREE(p) at its return (its free nests)
 *   operator new(n, ...)                           EV_ALLOC(ret, n)             ret != NULL
 *   operator delete(p, ...), p != NULL             EV_FREE(p) at its return (its free nests)
 *   a NULL return (failed allocation)              nothing
 *
 * libc helpers (strdup, strndup, asprintf, vasprintf, getline, getdelim, open_memstream)
 * are built without frame pointers, so they are probed as allocation entry points and their
 * blocks are charged to THEIR caller, with the stack taken at the helper's return. What the
 * helper did to the heap is reconstructed from the primitive calls it made directly (the
 * "top" primitives: not inside another primitive; helpers nested in helpers, like
 * getline -> getdelim, are transparent). Each top primitive updates a small per-call table
 * holding the NET effect of the helper on the heap:
 *   NEW(addr, size)          malloc/calloc/realloc(NULL, n)/memalign... returned addr
 *   RESIZE(old -> addr, n)   realloc(old, n) succeeded
 *   FREE(p)                  free(p) or realloc(p, 0)
 * A block born inside the helper and freed or resized inside it stays a single BORN entry
 * (updated address and size) or disappears; a block from before the helper becomes RESIZED
 * (orig -> addr, size) or FREED. At the helper's return the table is emitted as FREED ->
 * EV_FREE, RESIZED -> EV_REALLOC, BORN -> EV_ALLOC, all with fn = the helper. Sizes are the
 * sizes the last inner malloc/realloc of that block asked for. So:
 *   strdup/strndup           EV_ALLOC(ret, the inner malloc's size)
 *   asprintf/vasprintf       EV_ALLOC(*strp, size of the last inner malloc/realloc of it);
 *                            glibc's 100-byte scratch buffer and its growth copies are born
 *                            and freed inside, so they vanish
 *   getline/getdelim         *lineptr NULL before: EV_ALLOC(line, last inner size);
 *                            buffer grown: EV_REALLOC(old -> new, last realloc size); no
 *                            growth: nothing. Emitted whatever getline returns (at EOF the
 *                            buffer may still have been malloc'd). A stdio buffer the stream
 *                            allocates on its first read inside getline is an extra
 *                            EV_ALLOC charged to the getline caller (it is a real block,
 *                            freed later by fclose).
 *   open_memstream           EV_ALLOC(FILE, sizeof its locked FILE) then EV_ALLOC(buffer,
 *                            BUFSIZ) (glibc calloc's it here; later growth happens in stdio
 *                            under the user's fprintf/fflush/fclose and is traced as plain
 *                            malloc/realloc/free)
 * A table overflow (more than NET_SLOTS live entries) loses the extra entry and counts
 * counters.entry_overflow.
 *
 * Session uprobes (kernel >= 6.13, the loader's first choice for uprobe-multi links): ONE
 * program, alloc_session, serves the entry and the return of every function with a return
 * probe, and its entry decides whether the return probe runs at all for this call (return
 * RET_SKIP). Returns with no work are skipped: calls of untraced processes, nested calls
 * except a helper's top primitives (whose return commits to the helper's table), a thread
 * without a state slot, the entry-only no-op floor. A skipped nested call does not count in
 * the thread's depth, so the outermost return still finds depth 1. The per-call session
 * cookie is not used: the return needs up to three arguments (24 bytes), and the nesting
 * test at an inner call's entry needs the outer call's state per thread anyway. Without
 * sessions (older kernels, TRACER_NO_SESSION=1, inherited perf events) alloc_entry and
 * alloc_return run the same on_entry()/on_return(), every return probe fires, and the
 * records are the same.
 *
 * Stacks are captured by a frame-pointer walk (fp_walk()) at the outermost RETURN: there
 * the registers are the caller's, so the walk is complete (at a malloc entry
 * the immediate caller is missing because Debian's malloc starts with push %r12, not
 * push %rbp). EV_FREE records carry no stack (DHAT does not use one, and a stack walk per
 * free would double its cost): their stack_id is -ENOENT and they are not stack failures.
 * stack_id is a key of the `stacks` hash map below (deduplicated by content), read back by
 * loader__stack(); it is not a BPF_MAP_TYPE_STACK_TRACE id.
 *
 * With the rodata flag unwind_kernel (tracer --unwind kernel) the walk is a DWARF unwind with
 * the modules' CFI tables, in BPF (bpf/unwind.bpf.h); its stacks go into the same `stacks`
 * map, and a stack the tables cannot serve is sent as a snapshot (below) instead.
 *
 * With the rodata flag unwind_dwarf (tracer --unwind dwarf) the same return path sends a
 * stack SNAPSHOT instead (see "DWARF snapshots" below): the caller's registers and a copy
 * of the user stack from SP, unwound by userspace with the modules' CFI, so frames of code
 * without frame pointers (libc's qsort, -O2 C, Rust) are not lost.
 *
 * What glibc 2.36 itself makes visible (not bugs here, the collector must tolerate them):
 *  - memalign and aligned_alloc are one function: the loader attaches one probe pair and
 *    both report FN_ALIGNED_ALLOC (loader__fn_owner());
 *  - a thread's exit runs tcache_thread_shutdown(), which free()s every chunk still cached
 *    in its tcache (blocks the program had already freed) and the tcache itself (allocated
 *    inside malloc): a handful of EV_FREE of dead or never-seen addresses per exiting thread;
 *  - stdio calls the allocator itself (fclose of a memstream: realloc + free): those are
 *    plain outermost calls whose first stack frame is in libc.
 */
#include <stdbool.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <linux/errno.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "alloc_events.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define NET_SLOTS 4 /* live net-effect entries per helper call (getline uses 2) */

/* Configuration, set by the loader before load. */
const volatile __u32 target_tgid = 0;	   /* the first target: always traced (fast path) */
/* Follow process trees: a traced process's forks become traced (the `traced` map), and
 * fork/exec/exit are announced in the ring (struct proc_event). */
const volatile __u32 follow = 0;
const volatile __u32 window_gated = 0;	   /* drop allocator records while no window is open */
const volatile __u64 wakeup_threshold = 0; /* unconsumed bytes above which records wake up */
/* Benchmark only: enum bench_noop. Every allocator program returns at once (the verifier
 * prunes the rest), giving the cost floor of the probe sites themselves; BENCH_NOOP_ENTRY
 * also skips every session return probe (the loader attaches no fallback return probe). */
const volatile __u32 noop = BENCH_NOOP_OFF;
/* Benchmark only: enum bench_cut, the parts of the work left out (bench-trace --cut). */
const volatile __u32 bench_cut = BENCH_CUT_NONE;

/* Shared with userspace through the skeleton's mmap'ed .bss. */
struct probe_counters counters = {};
__u64 fn_addrs[FN_COUNT] = {}; /* runtime entry address of each probed function */
__u32 window_open = 0;	       /* set/cleared by the USDT window programs */
/* Set by the loader once EVERY link is attached, cleared by loader__stop() before it
 * detaches; while 0, every program returns at once. Links go live one by one (and are closed
 * in parallel, in no order): an entry link live without its return link would leave thread
 * states waiting for a return that never comes (the next call at the same SP then looks
 * nested and is dropped), a return link without its entry link counts unmatched returns,
 * and at the end frees of blocks whose allocation was never sent. So the stream starts and
 * ends as if the target had started and stopped at those two moments. */
__u32 probes_live = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20); /* resized by the loader */
} events SEC(".maps");

/*
 * The traced processes besides target_tgid (tgid -> 1): the other --pid targets and the
 * cgroup's processes, added by userspace, and with `follow` every process a traced one
 * forks, added by the fork tracepoint before the child runs (so its first call is seen).
 * The exit tracepoint removes them. The probes themselves reach a child through inherited
 * perf events (user/loader_inherit.c); this map only says whose calls are records.
 */
#define TRACED_MAX 16384

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TRACED_MAX);
	__type(key, __u32);
	__type(value, __u32);
} traced SEC(".maps");

static __always_inline bool is_traced(__u32 tgid)
{
	return tgid == target_tgid || bpf_map_lookup_elem(&traced, &tgid);
}

/*
 * User stacks, deduplicated by content. Not a BPF_MAP_TYPE_STACK_TRACE: that map keeps one
 * stack per bucket (hash & (n - 1)) and fails a second stack in a taken bucket with -EEXIST
 * unless told to overwrite (which would re-point ids already sent). With a few thousand
 * distinct stacks that is hundreds of lost stacks per run even at 64k buckets (the shell
 * workloads lost 216 of 65k). Here the id is a 31-bit hash of the frames, a hash collision
 * between different stacks probes the next ids, and memory grows with the distinct stacks
 * only (no preallocation). loader__stack() reads it (struct stack_val: alloc_events.h).
 */
#define STACK_PROBES 4 /* ids tried for one stack before giving up (-EEXIST) */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256 << 10); /* distinct stacks; memory is per stack (~1 KiB) */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct stack_val);
} stacks SEC(".maps");

/* Scratch for the stack being captured: 1 KiB does not fit the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_val);
} stack_scratch SEC(".maps");

enum net_kind {
	NET_EMPTY = 0,
	NET_BORN,    /* allocated inside the helper: addr, size */
	NET_RESIZED, /* pre-existing block orig resized inside: orig -> addr, size */
	NET_FREED,   /* pre-existing block orig freed inside */
};

enum pend_op {
	PEND_NONE = 0,
	PEND_NEW,    /* allocation of pend_size bytes: NEW(ret) when ret != NULL */
	PEND_RESIZE, /* realloc(pend_old, pend_size): RESIZE(pend_old -> ret) when ret != NULL */
	PEND_FREE,   /* realloc(pend_old, 0): FREE(pend_old) whatever it returns */
};

struct net_slot {
	__u64 orig; /* RESIZED/FREED: the block as it was before the helper */
	__u64 addr; /* BORN/RESIZED: the block now */
	__u64 size; /* BORN/RESIZED: bytes asked by the last inner malloc/realloc */
	__u32 kind; /* enum net_kind */
	__u32 pad;
};

/* One per thread inside an allocator call. */
struct call_state {
	__u64 args[3];	   /* outermost call's first three arguments */
	__u64 entry_sp;	   /* outermost call's SP at entry: nested calls have SP <= this */
	__u32 fn;	   /* outermost enum alloc_fn */
	__u32 depth;	   /* active probed calls whose return probe runs (outermost included) */
	__u32 prim_active; /* active primitive allocator calls (outermost included) */
	__u32 pend_op;	   /* enum pend_op of the active top primitive inside a helper */
	__u64 pend_old;	   /* its old pointer (realloc) */
	__u64 pend_size;   /* its requested size */
	struct net_slot net[NET_SLOTS]; /* helpers: net effect on the heap so far */
	__u32 sampled; /* --sample-bytes: SAMPLE_* of the outermost call (sampling.bpf.h) */
	/* pymalloc's inlined copies (py_sites.bpf.h) */
	__u64 py_site_freed; /* the last pointer an inlined free took: its free() is dropped */
	__u64 py_pend_size;  /* n of an inlined malloc whose pool was empty, 0: none */
	__u64 py_pend_sp;    /* that site's SP: allocate_from_new_pool is called below it */
};

#include "alloc_request.h"
#include "sampling.bpf.h"
#include "python.bpf.h"

/* Task-local storage: one slot per thread, found without hashing or a bucket lock, and
 * freed with the thread (a tid-keyed hash map cost ~0.5 us more per malloc/free pair here). A slot
 * with depth 0 is a thread outside any allocator call. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct call_state);
} inflight SEC(".maps");

/* malloc .. pvalloc (free included), Rust's shims and C++'s new/delete are primitives;
 * strdup .. open_memstream are helpers. */
static __always_inline bool is_prim(__u32 fn)
{
	return fn <= FN_PVALLOC || fn >= FN_RUST_ALLOC;
}

/* Primitives that call no probed function (glibc's malloc .. pvalloc, realloc aside: its
 * realloc(NULL, n) and realloc(p, 0) call malloc and free through their probed addresses). */
static __always_inline bool is_leaf_prim(__u32 fn)
{
	return fn == FN_MALLOC || fn == FN_CALLOC || fn == FN_POSIX_MEMALIGN ||
	       fn == FN_ALIGNED_ALLOC || fn == FN_MEMALIGN || fn == FN_VALLOC || fn == FN_PVALLOC;
}

static __always_inline void count(__u64 *c)
{
	__sync_fetch_and_add(c, 1);
}

/* Wake the consumer only when the ring is filling up: userspace polls on a short timer,
 * and a wakeup per record doubles the per-event cost. */
static __always_inline __u64 submit_flags(void)
{
	if (wakeup_threshold && bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) > wakeup_threshold)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/* Just the fields read, relocated by libbpf against the kernel's BTF (CO-RE). The task
 * pointer from bpf_get_current_task_btf() is trusted, so these are plain loads, not helper
 * calls: main_stack_top() is read on every stack capture. */
struct mm_struct {
	unsigned long start_stack;
} __attribute__((preserve_access_index));

typedef struct {
	int counter;
} atomic_t;

struct signal_struct {
	atomic_t live; /* threads not yet past exit: 0 once the whole group is exiting */
} __attribute__((preserve_access_index));

struct task_struct {
	struct mm_struct *mm;
	__u64 start_time; /* a thread's identity with its pid (--unwind kernel's memo) */
	int pid;
	int tgid;
	struct signal_struct *signal;
} __attribute__((preserve_access_index));

struct linux_binprm {
	const char *filename;
} __attribute__((preserve_access_index));

/* mm->start_stack: where _start found argc, the top of the main thread's stack (every frame
 * of the main thread lies below it), or 0 for a task without an mm. */
static __always_inline __u64 main_stack_top(void)
{
	struct mm_struct *mm = bpf_get_current_task_btf()->mm;

	return mm ? mm->start_stack : 0;
}

/* ---- DWARF snapshots (unwind_dwarf) -------------------------------------------------------
 *
 * take_stack() hands over to take_snapshot(): it stores the caller's registers and a copy of
 * the user stack in this CPU's slot of snap_scratch and returns STACK_ID_SNAPSHOT; emit()
 * sees that id and sends the slot with emit_snapshot() (bpf_ringbuf_output of the header
 * plus the bytes actually copied, so records are as long as the stack that was there, not
 * stack_copy_sz). A helper's several records (open_memstream) reuse one copy.
 *
 * How much is copied: stack_copy_sz bytes from SP, but never past the main thread's stack
 * origin (mm->start_stack, where _start found argc): every frame lies below it and above it
 * are only argv/envp strings, so allocations near main() copy a few hundred bytes. A thread
 * stack (or any SP outside the main stack) gets the full size; when that runs past the end
 * of the mapping (a shallow thread near the top of its stack), the copy goes page by page
 * and stops at the first unreadable page (SNAP_F_SHORT).
 *
 * The slot is per CPU (uprobe programs run with migration disabled) and owned by one thread
 * (its tid in `owner`) from take_snapshot() to the end of that thread's on_return(): a
 * probe preempted there and a second one on the same CPU would otherwise mix two stacks.
 * The second one then sends its records with stack_id -EBUSY (counted) and leaves the slot
 * alone. The mark is a plain store (BPF v1 has no xchg): only a preemption between its load
 * and store could slip through.
 */
const volatile __u32 unwind_dwarf = 0;	   /* send snapshots instead of BPF stack ids */
const volatile __u32 snap_hints_on = 0;	   /* send a hinted key's snapshots sparse */
const volatile __u32 stack_copy_sz = 8192; /* bytes of stack copied from SP (<= STACK_COPY_MAX) */

#define STACK_COPY_MAX	SNAPSHOT_STACK_MAX
#define SNAP_PAGE	4096u
#define SNAP_MAIN_SLACK 64u /* copied above mm->start_stack: argc and argv[0..6] */

struct snapshot_counters snap_counters = {};

struct snap_slot {
	/* The record, contiguous: header, snapshot, bytes. */
	struct alloc_event ev;
	struct stack_snapshot snap;
	__u8 stack[STACK_COPY_MAX + SNAP_PAGE]; /* + a page: lets the verifier bound a copy */
	__u32 owner;				/* tid using the slot, 0 when free */
	__u32 pad;
};

/* Filled by userspace (user/stacks/dwarf_stacks.c), read here: see "Stack hints" in
 * alloc_events.h. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SNAP_HINTS_MAX);
	__type(key, struct snap_hint_key);
	__type(value, struct snap_hint);
} snap_hints SEC(".maps");

/* A sparse snapshot as reserved in the ring (only its first SNAP_SPARSE_BYTES(n) payload
 * bytes are written; userspace reads no further). */
struct sparse_record {
	struct alloc_event ev;
	struct stack_snapshot snap;
	__u8 payload[SNAP_SPARSE_BYTES(SNAP_HINT_MAX)];
};

/* One slot per possible CPU, indexed by CPU (a per-CPU array's values are capped at 32 KiB). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* set to the number of possible CPUs by the loader */
	__type(key, __u32);
	__type(value, struct snap_slot);
} snap_scratch SEC(".maps");

static __always_inline struct snap_slot *snap_slot(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&snap_scratch, &cpu);
}

/* Registers and stack into this CPU's slot: STACK_ID_SNAPSHOT, or -errno (counted). */
__noinline int take_snapshot(struct pt_regs *ctx)
{
	struct snap_slot *s = snap_slot();
	__u64 sp = PT_REGS_SP(ctx), want = stack_copy_sz, top, len = 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	if (!s) {
		count(&snap_counters.copy_failures);
		return -ENOENT;
	}
	if (s->owner && s->owner != tid) {
		count(&snap_counters.scratch_busy);
		return -EBUSY;
	}
	s->owner = tid;

	s->snap.ip = PT_REGS_IP(ctx);
	s->snap.sp = sp;
	s->snap.bp = ctx->rbp;
	s->snap.rbx = ctx->rbx;
	s->snap.r12 = ctx->r12;
	s->snap.r13 = ctx->r13;
	s->snap.r14 = ctx->r14;
	s->snap.r15 = ctx->r15;
	s->snap.flags = SNAP_F_CALLEE_SAVED;
	s->snap.pad = 0;
	s->snap.n_words = 0;
	s->snap.pad2 = 0;

	if (want > STACK_COPY_MAX)
		want = STACK_COPY_MAX;
	top = main_stack_top();
	s->snap.hint_dist = top ? top - sp : 0;
	if (top > sp && top - sp + SNAP_MAIN_SLACK < want)
		want = top - sp + SNAP_MAIN_SLACK;
	if (!want || !bpf_probe_read_user(s->stack, want, (void *)sp)) {
		len = want;
	} else {
		/* Past the end of the mapping: page by page up to the first hole. */
		for (int i = 0; i < STACK_COPY_MAX / SNAP_PAGE + 1; i++) {
			__u64 chunk = SNAP_PAGE - ((sp + len) & (SNAP_PAGE - 1));

			if (len >= want || len >= STACK_COPY_MAX)
				break;
			if (chunk > want - len)
				chunk = want - len;
			if (chunk > SNAP_PAGE)
				break;
			if (bpf_probe_read_user(s->stack + len, chunk, (void *)(sp + len)))
				break;
			len += chunk;
		}
		s->snap.flags |= SNAP_F_SHORT;
		count(&snap_counters.short_copies);
		if (!len) {
			count(&snap_counters.copy_failures);
			s->owner = 0;
			return -EFAULT;
		}
	}
	s->snap.stack_len = (__u32)len;
	return STACK_ID_SNAPSHOT;
}

/*
 * The slot's copy sent sparse with hint h (the header already filled): the hinted words
 * only, picked from the copy in this CPU's slot (a read of the whole stack into a hot buffer
 * costs far less than writing it to the ring). Returns 0 or -errno.
 */
static __always_inline int emit_sparse(struct snap_slot *s, const struct snap_hint *h, __u64 len)
{
	struct sparse_record *r;
	__u32 n = h->n, avail = (__u32)(len >> 3);

	if (n > SNAP_HINT_MAX) /* never set so, unless torn: the caller sends it dense */
		return -E2BIG;
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(&counters.dropped);
		return -ENOSPC;
	}
	r->ev = s->ev;
	r->snap = s->snap;
	r->snap.flags |= SNAP_F_SPARSE;
	r->snap.n_words = n;
	for (__u32 i = 0; i < SNAP_HINT_MAX; i++) {
		__u32 w, at = i & (SNAP_HINT_MAX - 1);
		__u64 v = 0;

		if (i >= n)
			break;
		w = h->off[i];
		if (w < avail)
			v = *(__u64 *)(s->stack + ((w & 0x1fff) << 3));
		else
			w = SNAP_WORD_ABSENT;
		*(__u16 *)(r->payload + (at << 1)) = (__u16)w;
		*(__u64 *)(r->payload + SNAP_SPARSE_WORDS_AT + (at << 3)) = v;
	}
	bpf_ringbuf_submit(r, submit_flags());
	count(&counters.events);
	count(&snap_counters.snapshots);
	count(&snap_counters.sparse);
	__sync_fetch_and_add(&snap_counters.copied_bytes, n * 8);
	return 0;
}

/* Whether the copy in s takes the path hint h was learnt from: its steering words (and rbp
 * where it was a CFA base) hold the same values (alloc_events.h, "Stack hints"). */
static __always_inline bool hint_holds(const struct snap_slot *s, const struct snap_hint *h,
				       __u64 len)
{
	__u32 n = h->n_ctl, avail = (__u32)(len >> 3);

	if (n > SNAP_CTL_MAX || (h->check_bp && s->snap.bp != h->bp))
		return false;
	for (__u32 j = 0; j < SNAP_CTL_MAX; j++) {
		__u32 w;

		if (j >= n)
			break;
		w = h->ctl[j];
		if (w >= avail || *(__u64 *)(s->stack + ((w & 0x1fff) << 3)) != h->expect[j])
			return false;
	}
	return true;
}

/* Send the slot filled by take_snapshot() as one EV_STACK_SNAPSHOT standing for
 * EV_ALLOC/EV_REALLOC type: sparse when its key has a hint. Returns 0 or -errno. */
__noinline int emit_snapshot(__u32 type, __u32 fn, __u64 addr, __u64 old_addr, __u64 size)
{
	struct snap_slot *s = snap_slot();
	struct snap_hint_key key;
	const struct snap_hint *h;
	__u64 len, wake = 0;
	long err;

	if (!s)
		return -ENOENT;
	len = s->snap.stack_len;
	if (len > STACK_COPY_MAX)
		return -EINVAL;
	s->ev.type = EV_STACK_SNAPSHOT;
	s->ev.tid = (__u32)bpf_get_current_pid_tgid();
	s->ev.tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	s->ev.py_stack = py_any ? py_last_stack(&wake) : 0; /* take_stack() took it */
	s->ev.ts_ns = bpf_ktime_get_ns();
	s->ev.addr = addr;
	s->ev.old_addr = old_addr;
	s->ev.size = size;
	s->ev.stack_id = STACK_ID_SNAPSHOT;
	s->ev.fn = fn;
	s->snap.ev_type = type;
	/* A short copy (a thread near the top of its stack) is as long every time at one
	 * key (one thread, one SP): hinted like the others. */
	if (snap_hints_on && len >= SNAP_SPARSE_MIN) {
		key.ip = s->snap.ip;
		key.dist = s->snap.hint_dist;
		key.tgid = s->ev.tgid;
		for (__u32 v = 0; v < SNAP_HINT_VARIANTS; v++) {
			key.variant = v;
			h = bpf_map_lookup_elem(&snap_hints, &key);
			if (!h)
				break;
			/* -E2BIG: more words than a record holds: dense */
			if (hint_holds(s, h, len) && emit_sparse(s, h, len) != -E2BIG)
				return 0; /* sent, or dropped and counted */
		}
		/* another path from the same place: dense, and it becomes a hint */
		if (key.variant)
			count(&snap_counters.hint_mismatches);
	}
	err = bpf_ringbuf_output(&events, s, sizeof(s->ev) + sizeof(s->snap) + len,
				 wake ?: submit_flags());
	if (err) {
		count(&counters.dropped);
		return (int)err;
	}
	count(&counters.events);
	count(&snap_counters.snapshots);
	__sync_fetch_and_add(&snap_counters.copied_bytes, len);
	return 0;
}

/* --unwind kernel: the tables' walk, with take_snapshot() where they cannot serve. */
#include "unwind.bpf.h"

/* The probe is done with its snapshot, if it took one (end of on_return). */
static __always_inline void snapshot_release(__u32 tid)
{
	struct snap_slot *s;

	if (!unwind_dwarf && !unwind_kernel)
		return;
	s = snap_slot();
	if (s && s->owner == tid)
		s->owner = 0;
}

/* Benchmark only (BENCH_CUT_RING): this CPU's records waiting to be sent as one. */
struct ring_batch {
	__u32 n;
	__u32 pad;
	struct alloc_event ev[BENCH_RING_BATCH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ring_batch);
} ring_batch SEC(".maps");

/* BENCH_CUT_RING: the record's slot in this CPU's batch (sending a full batch first), or
 * NULL. No reservation, no commit, no lock: a store into a hot per-CPU buffer. For counting
 * only: a task preempted here by another on the same CPU may share a slot with it, and the
 * last partial batch of each CPU is never sent. */
static __always_inline struct alloc_event *batch_slot(void)
{
	struct ring_batch *b;
	__u32 zero = 0, i;

	b = bpf_map_lookup_elem(&ring_batch, &zero);
	if (!b)
		return NULL;
	i = b->n;
	if (i >= BENCH_RING_BATCH) {
		if (bpf_ringbuf_output(&events, b->ev, sizeof(b->ev), submit_flags()))
			count(&counters.dropped);
		i = 0;
	}
	b->n = i + 1;
	return &b->ev[i];
}

static __always_inline void emit(__u32 type, __u32 fn, __u32 tid, __u64 addr, __u64 old_addr,
				 __u64 size, __s32 stack_id)
{
	struct alloc_event *e;
	__u64 wake = 0;

	if (bench_cut == BENCH_CUT_RECORDS)
		return;
	if (stack_id == STACK_ID_SNAPSHOT) { /* take_snapshot() filled this CPU's slot */
		emit_snapshot(type, fn, addr, old_addr, size);
		return;
	}
	if (bench_cut == BENCH_CUT_RING)
		e = batch_slot();
	else
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(&counters.dropped);
		return;
	}
	e->type = type;
	e->tid = tid;
	e->tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	/* The Python stack take_stack() took for this record (frees have none). */
	e->py_stack = py_any && type != EV_FREE ? py_last_stack(&wake) : 0;
	e->ts_ns = bpf_ktime_get_ns();
	e->addr = addr;
	e->old_addr = old_addr;
	e->size = size;
	e->stack_id = stack_id;
	e->fn = fn;
	if (bench_cut != BENCH_CUT_RING)
		bpf_ringbuf_submit(e, wake ?: submit_flags());
	count(&counters.events);
}

static __always_inline bool same_stack(const struct stack_val *a, const struct stack_val *b)
{
	if (a->depth != b->depth)
		return false;
	for (int i = 0; i < STACK_MAX_DEPTH; i++) {
		if (i >= a->depth)
			break;
		if (a->ips[i] != b->ips[i])
			return false;
	}
	return true;
}

/*
 * The frame-pointer walk, done here rather than by bpf_get_stack(BPF_F_USER_STACK). The
 * kernel's walk (perf_callchain_user) follows the chain until a read FAILS: the last saved
 * %rbp is whatever the frame-pointer-less code below main (__libc_start_call_main,
 * start_thread) left in it, often NULL or a small number, and reading there takes a page
 * fault with fixup: ~0.65 us per allocation on this machine, a third of the tracer's cost
 * on a malloc/free pair. This walk stops first at a frame pointer that cannot be a caller's
 * frame: not above the previous frame, not 8-byte aligned, or past the top of the stack
 * (the main thread's stack top; other threads, whose stacks lie below it, get the same
 * bound, or SP + 64 MiB if SP is above it). Where the chain ends in a saved %rbp that
 * cannot be read (NULL, a small number), the frames are the kernel's: ips[0] is the
 * caller's PC (this runs at the outermost return), then the return address of each frame.
 * Where it is readable but fails a test above (a frame-pointer-less caller's %rbp holding
 * a heap address), the kernel goes on and records junk; this walk stops there.
 *
 * bpf_loop, not an unrolled loop: the verifier checks the step once (an open-coded
 * 127-frame loop took attach from 0.07 s to 0.25 s). The depth lives in the map value, not
 * in the loop's context on the stack, so the verifier's states converge across iterations.
 */
struct fp_walk_ctx {
	struct stack_val *s;
	__u64 fp;  /* frame to read: [fp] = caller's %rbp, [fp + 8] = return address */
	__u64 low; /* lowest address the next frame may start at */
	__u64 top; /* end of the stack */
};

static long fp_walk_step(__u64 i, void *data)
{
	struct fp_walk_ctx *w = data;
	struct stack_val *s = w->s;
	struct {
		__u64 next;
		__u64 ret;
	} frame;
	__u64 fp = w->fp;
	__u32 d = s->depth;

	if (fp < w->low || fp + sizeof(frame) > w->top || (fp & 7) || d >= STACK_MAX_DEPTH)
		return 1;
	if (bpf_probe_read_user(&frame, sizeof(frame), (void *)fp))
		return 1;
	s->ips[d] = frame.ret;
	s->depth = d + 1;
	w->low = fp + sizeof(frame);
	w->fp = frame.next;
	return 0;
}

/* The current user stack into s: at least ips[0], the PC. */
static __always_inline void fp_walk(struct pt_regs *ctx, struct stack_val *s)
{
	struct fp_walk_ctx w = {
		.s = s,
		.fp = PT_REGS_FP(ctx),
		.low = PT_REGS_SP(ctx),
		.top = main_stack_top(),
	};

	if (w.top <= w.low)
		w.top = w.low + (64ull << 20);
	s->ips[0] = PT_REGS_IP(ctx);
	s->depth = 1;
	bpf_loop(STACK_MAX_DEPTH - 1, fp_walk_step, &w, 0);
}

/* s's id in `stacks` (>= 0: inserted now or already there), or -errno (counted as a stack
 * failure). */
static __always_inline __s32 intern_stack(struct stack_val *s)
{
	struct stack_val *have;
	__u32 id;
	__u64 h;
	long n;

	s->pad = 0;
	/* 64-bit multiply-xorshift over the frames, folded to a non-negative s32. */
	h = 0x9e3779b97f4a7c15ull ^ s->depth;
	for (int i = 0; i < STACK_MAX_DEPTH; i++) {
		if (i >= s->depth)
			break;
		h = (h ^ s->ips[i]) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	id = (__u32)(h ^ (h >> 31)) & STACK_ID_BPF_MASK;

	for (int p = 0; p < STACK_PROBES; p++, id = (id + 1) & STACK_ID_BPF_MASK) {
		have = bpf_map_lookup_elem(&stacks, &id);
		if (have) {
			if (same_stack(have, s))
				return (__s32)id;
			continue; /* another stack has this hash: next id */
		}
		n = bpf_map_update_elem(&stacks, &id, s, BPF_NOEXIST);
		if (!n)
			return (__s32)id;
		if (n != -EEXIST) { /* map full (-E2BIG) or out of memory */
			count(&counters.stack_failures);
			return (__s32)n;
		}
		/* Another CPU inserted this id just now: it may be this very stack. */
		have = bpf_map_lookup_elem(&stacks, &id);
		if (have && same_stack(have, s))
			return (__s32)id;
	}
	count(&counters.stack_failures);
	return -EEXIST;
}

/* The stack id (>= 0) of the current user stack, or -errno (counted as a stack failure).
 * A global function: the verifier checks it once, not inlined in each of the 16 return
 * programs (that took load time from 0.08 s to 0.9 s). */
__noinline int take_stack(struct pt_regs *ctx)
{
	struct stack_val *s;
	__u32 zero = 0, cpu;
	__s32 id;

	/* First: its id (or 0) must be this record's, whatever the native stack does. Not
	 * called while no process has a Python layout: nothing reads the id then (py_any). */
	if (py_any)
		take_py_stack();
	if (bench_cut == BENCH_CUT_STACKS || bench_cut == BENCH_CUT_RECORDS)
		return -ENOENT;
	if (unwind_dwarf)
		return take_snapshot(ctx);
	s = bpf_map_lookup_elem(&stack_scratch, &zero);
	if (!s) {
		count(&counters.stack_failures);
		return -ENOENT;
	}
	if (bench_cut == BENCH_CUT_WALK) {
		s->ips[0] = PT_REGS_IP(ctx);
		s->depth = 1;
	} else if (unwind_kernel) {
		cpu = bpf_get_smp_processor_id(); /* uprobe programs run with migration disabled */
		if (!ku_walk(ctx, s, cpu, &id))
			return take_snapshot(ctx); /* the tables cannot serve this stack */
		if (id >= 0)
			return id; /* the thread's last stack, whole: its id */
		id = intern_stack(s);
		ku_memo_commit(cpu, id, s->depth);
		return id;
	} else {
		fp_walk(ctx, s);
	}
	return intern_stack(s);
}

static __always_inline bool records_allowed(void)
{
	return !window_gated || window_open;
}

/* ---- helpers' net-effect table -------------------------------------------------------- */

static __always_inline void net_new(struct call_state *st, __u64 addr, __u64 size)
{
	for (int i = 0; i < NET_SLOTS; i++) {
		if (st->net[i].kind == NET_EMPTY) {
			st->net[i].kind = NET_BORN;
			st->net[i].orig = 0;
			st->net[i].addr = addr;
			st->net[i].size = size;
			return;
		}
	}
	count(&counters.entry_overflow);
}

static __always_inline void net_resize(struct call_state *st, __u64 old, __u64 addr, __u64 size)
{
	/* A block born or already resized inside the helper: follow it. */
	for (int i = 0; i < NET_SLOTS; i++) {
		__u32 kind = st->net[i].kind;

		if ((kind == NET_BORN || kind == NET_RESIZED) && st->net[i].addr == old) {
			st->net[i].addr = addr;
			st->net[i].size = size;
			return;
		}
	}
	/* A block from before the helper (getline's *lineptr). */
	for (int i = 0; i < NET_SLOTS; i++) {
		if (st->net[i].kind == NET_EMPTY) {
			st->net[i].kind = NET_RESIZED;
			st->net[i].orig = old;
			st->net[i].addr = addr;
			st->net[i].size = size;
			return;
		}
	}
	count(&counters.entry_overflow);
}

static __always_inline void net_free(struct call_state *st, __u64 p)
{
	for (int i = 0; i < NET_SLOTS; i++) {
		__u32 kind = st->net[i].kind;

		if (kind == NET_BORN && st->net[i].addr == p) {
			st->net[i].kind = NET_EMPTY; /* born and died inside: invisible */
			return;
		}
		if (kind == NET_RESIZED && st->net[i].addr == p) {
			st->net[i].kind = NET_FREED; /* the original block is gone */
			return;
		}
	}
	for (int i = 0; i < NET_SLOTS; i++) {
		if (st->net[i].kind == NET_EMPTY) {
			st->net[i].kind = NET_FREED;
			st->net[i].orig = p;
			return;
		}
	}
	count(&counters.entry_overflow);
}

/* The top primitive inside a helper returned: apply what it did. */
static __always_inline void net_commit(struct call_state *st, __u64 ret)
{
	switch (st->pend_op) {
	case PEND_NEW:
		if (ret)
			net_new(st, ret, st->pend_size);
		break;
	case PEND_RESIZE:
		if (ret)
			net_resize(st, st->pend_old, ret, st->pend_size);
		break;
	case PEND_FREE:
		net_free(st, st->pend_old);
		break;
	}
	st->pend_op = PEND_NONE;
}

/* Emit a helper's table: frees, then resizes, then new blocks (an address freed inside may
 * be reused by a block born later, never the other way round). */
static __always_inline void net_emit(struct pt_regs *ctx, struct call_state *st, __u32 tid)
{
	bool any_alloc = false;
	__s32 stack_id = -ENOENT;

	for (int i = 0; i < NET_SLOTS; i++) {
		/* a resize that sampling turns into a free sends its size, a born one its orig,
		 * as prim_emit does: the collector's realloc-chain counts */
		__u64 grown = st->net[i].kind == NET_RESIZED ? st->net[i].size : 0;

		st->net[i].kind = sample__net(st->net[i].kind, st->net[i].orig, st->net[i].addr,
					      st->net[i].size);
		if (st->net[i].kind == NET_FREED)
			emit(EV_FREE, st->fn, tid, st->net[i].orig, 0, grown, -ENOENT);
		else if (st->net[i].kind != NET_EMPTY)
			any_alloc = true;
	}
	if (!any_alloc)
		return;
	stack_id = take_stack(ctx);
	for (int i = 0; i < NET_SLOTS; i++) {
		if (st->net[i].kind == NET_RESIZED)
			emit(EV_REALLOC, st->fn, tid, st->net[i].addr, st->net[i].orig,
			     st->net[i].size, stack_id);
	}
	for (int i = 0; i < NET_SLOTS; i++) {
		if (st->net[i].kind == NET_BORN) /* orig: as prim_emit's old */
			emit(EV_ALLOC, st->fn, tid, st->net[i].addr, st->net[i].orig,
			     st->net[i].size, stack_id);
	}
}

/* ---- entry / return ------------------------------------------------------------------- */

/* What primitive fn(a0, a1, a2) is asked to do, for the helper table. */
static __always_inline void set_pending(struct call_state *st, __u32 fn, __u64 a0, __u64 a1,
					__u64 a2)
{
	__u64 old, size;

	/* posix_memalign inside a libc helper: not done by glibc */
	if (!fn_request(fn, a0, a1, a2, &old, &size) || fn == FN_POSIX_MEMALIGN) {
		st->pend_op = PEND_NONE;
		return;
	}
	st->pend_old = old;
	st->pend_size = size;
	if (!old)
		st->pend_op = PEND_NEW;
	else if (!size)
		st->pend_op = PEND_FREE;
	else
		st->pend_op = PEND_RESIZE;
}

/* glibc's chunk header: the size word before the block, IS_MMAPPED its bit 1. */
#define GLIBC_IS_MMAPPED 0x2

/*
 * Sampled mode, glibc (the realloc probe's cookie says the loader checked this object's code:
 * realloc(NULL, n) is a tail jump to the probed malloc, and realloc(p, n) calls the probed
 * malloc or free only for a chunk of its own mmap, or for n == 0). An outermost
 * realloc(p, n) decided unsampled (p not sampled, the new block not drawn) has no work at
 * its return, and its trap can be skipped like a leaf primitive's, provided it makes no probed call that would then look outermost: glibc's
 * realloc calls malloc only to move a chunk of its own mmap (or when its arena is out of
 * memory: a rare extra draw, see docs/DESIGN.md) and free only for n == 0, where the free
 * of an unsampled block sends nothing anyway. A header that cannot be read keeps the trap.
 */
static __always_inline bool glibc_realloc_skippable(__u64 cookie, __u64 old)
{
	__u64 size_word;

	if (!COOKIE_GLIBC_REALLOC(cookie) || !old)
		return false;
	if (bpf_probe_read_user(&size_word, sizeof(size_word), (void *)(old - 8)))
		return false;
	return !(size_word & GLIBC_IS_MMAPPED);
}

/*
 * Sampled mode, CPython's domains: an unsampled call whose return has no work and which makes
 * no probed call that could then look outermost. pymalloc serves requests of up to 512
 * bytes from its pools (a new pool's arena is mmap'ed, not malloc'ed); the one malloc it may
 * make meanwhile, growing its arena table (new_arena: PyMem_RawRealloc, once per 16 new
 * arenas), would then draw for itself: a rare extra draw of a few hundred bytes. A free of
 * a block sampling did not keep sends nothing, nor does the free() it may make. Python is
 * then traced at one trap per unsampled call instead of two.
 */
#define PY_SMALL_REQUEST 512

static __always_inline bool py_skippable(__u32 fn, __u64 a0, __u64 a1)
{
	if (FN_IS_PY_FREE(fn))
		return true;
	if (FN_IS_PY_MALLOC(fn))
		return a0 <= PY_SMALL_REQUEST;
	/* calloc(m, s): the product as pymalloc computes it, overflow refused by CPython */
	return FN_IS_PY_CALLOC(fn) && a0 <= PY_SMALL_REQUEST && a1 <= PY_SMALL_REQUEST &&
	       a0 * a1 <= PY_SMALL_REQUEST;
}

/* What a session's entry program returns: run this call's return probe, or skip it. The
 * kernel ignores what a plain uprobe's program returns. */
#define RET_WANTED 0
#define RET_SKIP   1

#include "py_sites.bpf.h"

/* The entry of fn (cookie) with its first arguments. session: the return probe of this call
 * runs only if RET_WANTED is returned (alloc_session); otherwise every return probe runs
 * and the result is ignored. */
static __always_inline int on_entry(struct pt_regs *ctx, __u64 cookie, __u64 a0, __u64 a1, __u64 a2,
				    bool session)
{
	/* ids by loads from the task, which the call state needs anyway: on this path every
	 * helper call counts (docs/BENCHMARKS.md, "Helper calls on the entry path") */
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tid = (__u32)task->pid, fn = COOKIE_FN(cookie);
	__u64 sp, ip;
	struct call_state *st;
	bool idle = false; /* a call with nothing to record, whose return probe still runs */

	if (!is_traced((__u32)task->tgid))
		return RET_SKIP;
	if (FN_IS_PY_SITE(fn)) /* an entry-only probe inside a function, its own cookie */
		return py_site(ctx, cookie, fn, tid);

	/* IP is the probe site; minus its offset, the function's runtime address. Write only
	 * on change: a store per call would bounce the cache line between CPUs. */
	ip = PT_REGS_IP(ctx) - COOKIE_SITE_OFF(cookie);
	if (fn < FN_COUNT && fn_addrs[fn] != ip)
		fn_addrs[fn] = ip;

	/* The SP the function had at its entry (a site after pushes sees it lower): nesting
	 * is decided on entry SPs, tail calls included. */
	sp = PT_REGS_SP(ctx) + COOKIE_SP_ADJ(cookie);
	st = bpf_task_storage_get(&inflight, task, 0,
				  fn == FN_FREE ? 0 : BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (st && st->depth && sp <= st->entry_sp) {
		/* Nested inside the thread's outermost allocator call: not a user call. */
		count(&counters.nested_calls);
		if (fn == FN_FREE) {
			/* Entry-only: does not change depth. A free made by a helper itself
			 * (vasprintf dropping its scratch buffer) goes into its table; a free
			 * inside a primitive (realloc(p, 0)) is part of that primitive. */
			if (a0 && !st->prim_active)
				net_free(st, a0);
			return RET_SKIP;
		}
		/* Only a helper's top primitive has work at its return. */
		if (session && (!is_prim(fn) || st->prim_active))
			return RET_SKIP;
		st->depth++;
		if (is_prim(fn)) {
			if (!st->prim_active)
				set_pending(st, fn, a0, a1, a2);
			st->prim_active++;
		}
		return RET_WANTED;
	}
	if (st && st->depth) {
		/* The previous outermost call never returned (see the header comment). */
		count(&counters.unmatched_returns);
		st->depth = 0;
	}

	/* Sampled mode, glibc: realloc(NULL, n) jumps to malloc with the caller's frame, so the
	 * malloc decides, records and walks the same stack as the outermost call (one trap
	 * less, and no second draw for one block). */
	if (session && sample_bytes && COOKIE_GLIBC_REALLOC(cookie) && !a0)
		return RET_SKIP;
	/* allocate_from_new_pool: a malloc(n) only for the inlined site that left n pending */
	if (fn == FN_PY_NEW_POOL && !py_new_pool_entry(st, sp, &a0)) {
		if (session || !st)
			return RET_SKIP;
		idle = true;
	}
	if (fn == FN_FREE) {
		/* The free() of a block an inlined pymalloc free just recorded (not pymalloc's:
		 * handed on to libc with the same pointer): the same free, once. */
		if (st && a0 && st->py_site_freed == a0) {
			st->py_site_freed = 0;
			count(&counters.nested_calls);
			return RET_SKIP;
		}
		/* free(NULL) is a no-op: dropped; sampled mode: only sampled blocks' frees. */
		if (a0 && sample__untrack(a0) && records_allowed())
			emit(EV_FREE, FN_FREE, tid, a0, 0, 0, -ENOENT);
		return RET_SKIP;
	}
	if (!st) { /* no memory for the thread's slot */
		count(&counters.entry_overflow);
		return RET_SKIP;
	}
	st->args[0] = a0;
	st->args[1] = a1;
	st->args[2] = a2;
	st->entry_sp = sp;
	st->fn = fn;
	st->depth = 1;
	st->prim_active = is_prim(fn) ? 1 : 0;
	st->pend_op = PEND_NONE;
	for (int i = 0; i < NET_SLOTS; i++)
		st->net[i].kind = NET_EMPTY;
	st->sampled = idle ? 0 : sample__entry(fn, a0, a1, a2);
	/* Sampled mode with session uprobes: an unsampled call of a primitive that makes no
	 * probed call of its own has no work at its return, so its trap is skipped, as if it
	 * never entered (depth 0: the next call from this frame is outermost again). realloc
	 * (malloc/free inside), Rust's shims and C++'s new/delete do call probed functions:
	 * their returns stay, or a nested call would be taken for an outermost one. */
	if (session && !st->sampled &&
	    (is_leaf_prim(fn) || glibc_realloc_skippable(cookie, a0) || py_skippable(fn, a0, a1))) {
		st->depth = 0;
		return RET_SKIP;
	}
	return RET_WANTED;
}

/* The outermost primitive returned ret: emit its record (see the table in the header). */
static __always_inline void prim_emit(struct pt_regs *ctx, struct call_state *st, __u32 tid,
				      __u64 ret)
{
	__u64 a0 = st->args[0], a1 = st->args[1], a2 = st->args[2];
	__u64 old, size;
	__u32 fn = st->fn, type;

	if (FN_IS_FREE_AT_RETURN(fn)) {
		/* Emitted at its return, not its entry like free: the free it makes is then
		 * nested, not a second record of the same block. delete(NULL) is a no-op. */
		if (a0 && sample__record(st->sampled, a0, 0))
			emit(EV_FREE, fn, tid, a0, 0, 0, -ENOENT);
		return;
	}
	if (!fn_request(fn, a0, a1, a2, &old, &size))
		return;
	/* posix_memalign returns 0 on success and the block through its first argument. */
	if (fn == FN_POSIX_MEMALIGN &&
	    ((int)ret != 0 || bpf_probe_read_user(&ret, sizeof(ret), (void *)a0)))
		return;

	if (old && !size) {
		/* realloc(p, 0): glibc frees p and returns NULL. */
		if (sample__record(st->sampled, old, 0))
			emit(EV_FREE, fn, tid, old, 0, 0, -ENOENT);
		return;
	}
	if (!ret)
		return; /* failed allocation: the heap did not change */
	type = sample__record(st->sampled, old, ret); /* exact mode: REALLOC iff old */
	/* Sampled, the record tells the collector where a realloc chain leaves sampling's
	 * sight: an EV_FREE of a kept old block with the new size is a realloc into a block not
	 * kept (the old one's site counts it, tbkReallocd); an EV_ALLOC with old is a realloc
	 * of a block not kept, whose birth site is not known (tbRealloc). Exact mode: old is 0
	 * on every EV_ALLOC, and no EV_FREE comes from here. */
	if (type == EV_FREE)
		emit(EV_FREE, fn, tid, old, 0, size, -ENOENT);
	else if (type)
		emit(type, fn, tid, ret, old, size, take_stack(ctx));
}

static __always_inline int on_return(struct pt_regs *ctx, __u32 fn)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tid = (__u32)task->pid;
	__u64 ret = PT_REGS_RC(ctx);
	struct call_state *st;

	if (!is_traced((__u32)task->tgid))
		return 0;

	st = bpf_task_storage_get(&inflight, task, 0, 0);
	if (!st || !st->depth) {
		count(&counters.unmatched_returns);
		return 0;
	}
	st->depth--;
	if (st->depth) {
		/* A nested call returned. */
		if (is_prim(fn) && st->prim_active) {
			st->prim_active--;
			if (!st->prim_active) /* a helper's top primitive */
				net_commit(st, ret);
		}
		return 0;
	}

	/* The outermost call returned: the stack walk from here is complete. */
	if (records_allowed() && st->sampled) { /* 0: an unsampled call, nothing to send */
		if (is_prim(st->fn))
			prim_emit(ctx, st, tid, ret);
		else
			net_emit(ctx, st, tid);
	}
	snapshot_release(tid);
	st->depth = 0;
	return 0;
}

/* ---- the programs: entry + return, or one session program ---------------------------- */

/*
 * Arguments are read for every function: helpers ignore theirs. __rust_realloc(ptr,
 * old_size, align, new_size) passes its new size as the second: every realloc then reads
 * (old, size).
 */
static __always_inline int entry_args(struct pt_regs *ctx, __u64 cookie, bool session)
{
	__u64 a1, a3;

	/* Both loaded, then chosen: a ctx pointer moved by a variable offset (what clang makes
	 * of a conditional field) is refused by the verifier. */
	a1 = PT_REGS_PARM2(ctx);
	a3 = PT_REGS_PARM4(ctx);
	barrier_var(a3);
	if (COOKIE_FN(cookie) == FN_RUST_REALLOC)
		a1 = a3;
	return on_entry(ctx, cookie, PT_REGS_PARM1(ctx), a1, PT_REGS_PARM3(ctx), session);
}

/*
 * The loader attaches alloc_entry to each function's probe site and alloc_return to each
 * function's entry as a uretprobe (free: no return probe), either as ONE uprobe-multi link
 * each (kernel >= 6.6: a single detach instead of one per probe) or one link per function.
 * The attach cookie says which function fired and where the site is (COOKIE_*, alloc_events.h).
 * With session uprobes, alloc_entry serves only the entry-only probe (free).
 */
SEC("uprobe")
int BPF_KPROBE(alloc_entry)
{
	if (noop || !probes_live)
		return 0;
	entry_args(ctx, bpf_get_attach_cookie(ctx), false);
	return 0;
}

SEC("uprobe")
int BPF_KRETPROBE(alloc_return)
{
	if (noop || !probes_live)
		return 0;
	return on_return(ctx, COOKIE_FN(bpf_get_attach_cookie(ctx)));
}

/* Session kfunc (kernel >= 6.13 for uprobes; weak: an older kernel refuses the program at
 * load, and the loader falls back to alloc_entry + alloc_return). */
extern bool bpf_session_is_return(void) __ksym __weak;

/*
 * Entry and return of every function with a return probe, as ONE session uprobe-multi link
 * (BPF_TRACE_UPROBE_SESSION): the entry's RET_SKIP spares the return trap of calls whose
 * return has no work (see "Session uprobes" in the header).
 */
SEC("uprobe")
int BPF_KPROBE(alloc_session)
{
	__u64 cookie;

	if (!probes_live)
		return RET_SKIP;
	if (noop)
		return noop == BENCH_NOOP_ENTRY ? RET_SKIP : RET_WANTED;
	cookie = bpf_get_attach_cookie(ctx);
	if (bpf_session_is_return())
		return on_return(ctx, COOKIE_FN(cookie));
	return entry_args(ctx, cookie, true);
}

/* ---- measurement window: DTRACE_PROBE2(kaish_workload, window_begin|end, name, iters) --- */

static __always_inline int window_mark(__u32 type, __u64 name, __u64 iterations)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct window_event *e;

	if (noop || !probes_live || !is_traced((__u32)(id >> 32)))
		return 0;
	if (type == EV_WINDOW_BEGIN)
		window_open = 1;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (e) {
		e->type = type;
		e->tid = (__u32)id;
		e->tgid = (__u32)(id >> 32);
		e->pad = 0;
		e->ts_ns = bpf_ktime_get_ns();
		e->iterations = iterations;
		if (bpf_probe_read_user_str(e->name, sizeof(e->name), (void *)name) < 0)
			e->name[0] = '\0';
		/* Window marks are rare and the collector acts on them: wake it now. */
		bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
		count(&counters.events);
	} else {
		count(&counters.dropped);
	}
	if (type == EV_WINDOW_END)
		window_open = 0;
	return 0;
}

SEC("usdt")
int BPF_USDT(window_begin, void *name, long iterations)
{
	return window_mark(EV_WINDOW_BEGIN, (__u64)name, (__u64)iterations);
}

SEC("usdt")
int BPF_USDT(window_end, void *name, long iterations)
{
	return window_mark(EV_WINDOW_END, (__u64)name, (__u64)iterations);
}

/* ---- process trees (follow): fork, exec, exit ------------------------------------------
 *
 * tp_btf programs: the arguments are the kernel's own typed pointers, read with plain loads.
 * They run in the context of the process concerned (fork: the parent, exec and exit: the
 * process itself), so each event is reserved in the ring after every record that process
 * made before it, and before any it makes after. They ignore probes_live: a fork or exit
 * during the attach must still update `traced`, and userspace drops what it does not want.
 */
static __always_inline void proc_event(__u32 type, __u32 tgid, __u32 parent, const char *file)
{
	struct proc_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		count(&counters.dropped);
		return;
	}
	e->type = type;
	e->tgid = tgid;
	e->ts_ns = bpf_ktime_get_ns();
	e->parent_tgid = parent;
	e->pad = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->filename[0] = '\0';
	if (file && bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), file) < 0)
		e->filename[0] = '\0';
	/* Rare, and userspace acts on them (hold points, new profiles): wake it now. */
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	count(&counters.events);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(proc_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid, one = 1;

	/* A new thread is the same process; only a new thread group is a new process. */
	if (!follow || noop || ptgid == ctgid || !is_traced(ptgid))
		return 0;
	if (bpf_map_update_elem(&traced, &ctgid, &one, BPF_ANY)) {
		count(&counters.untraced_procs);
		return 0;
	}
	proc_event(EV_PROC_FORK, ctgid, ptgid, NULL);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(proc_exec, struct task_struct *p, int old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid;

	if (!follow || noop || !is_traced(tgid))
		return 0;
	/* --unwind kernel: the old image's mappings are gone; its stacks go as snapshots
	 * until userspace describes the new one (on this EV_PROC_EXEC) */
	if (unwind_kernel) {
		bpf_map_delete_elem(&unwind_maps, &tgid);
		__sync_fetch_and_add(&ku_gen, 1); /* its cached rows are the old image's */
	}
	proc_event(EV_PROC_EXEC, tgid, 0, bprm->filename);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(proc_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid;

	/* Once per thread: the group is gone when no thread is left alive (signal->live,
	 * decremented before this tracepoint). */
	if (!follow || noop || !is_traced(tgid) || p->signal->live.counter)
		return 0;
	proc_event(EV_PROC_EXIT, tgid, 0, NULL);
	if (tgid != target_tgid)
		bpf_map_delete_elem(&traced, &tgid);
	return 0;
}

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_sites.bpf.h - pymalloc copied into its callers (issue #32), included by alloc.bpf.c
 * after the record and call-state helpers it uses.
 *
 * An LTO build (Debian's python3.11) never calls a probed function for most of its objects:
 * the allocator's body is inlined at ~240 call sites. The loader puts one entry-only probe
 * at the first instruction of each inlined copy (user/trace/py_sites.h finds them and where
 * the size or the pointer is; the cookie carries it, PY_SITE_COOKIE). There:
 *
 *   malloc(n), n in 1..512: pymalloc is about to pop the first free block of the pool of
 *     n's size class, pool = usedpools[2 * ((n - 1) >> 4)] (usedpools holds pairs of list
 *     pointers; a pool header's freeblock is at +8, nextpool at +16). That block is read
 *     now and recorded as the allocation: the thread holds the GIL, and nothing runs
 *     between this instruction and the pop. An empty pool (pool == nextpool) is served by
 *     the out-of-line allocate_from_new_pool: the size is left pending in the thread's
 *     call state, and that function's probe (FN_PY_NEW_POOL, entry and return) records its
 *     result as malloc(n) would. Any other n is pymalloc's fallback to malloc, probed.
 *   free(p): recorded as a free (the collector counts a pointer it never saw as an
 *     unknown free, as for any free). A p that is not pymalloc's goes on to libc's free
 *     with the same pointer: that one free() is dropped (py_site_freed), not counted twice.
 *
 * A site reached inside a probed allocator call (PyObject_Realloc's inlined copies) is
 * nested, as any allocator call there: the outer call's record covers it.
 */
#ifndef PY_SITES_BPF_H
#define PY_SITES_BPF_H

/* Where register reg (x86 encoding) is saved in struct pt_regs. */
static __always_inline __u32 py_site_reg_off(__u32 reg)
{
	switch (reg) {
	case 0: return offsetof(struct pt_regs, rax);
	case 1: return offsetof(struct pt_regs, rcx);
	case 2: return offsetof(struct pt_regs, rdx);
	case 3: return offsetof(struct pt_regs, rbx);
	case 4: return offsetof(struct pt_regs, rsp);
	case 5: return offsetof(struct pt_regs, rbp);
	case 6: return offsetof(struct pt_regs, rsi);
	case 7: return offsetof(struct pt_regs, rdi);
	case 8: return offsetof(struct pt_regs, r8);
	case 9: return offsetof(struct pt_regs, r9);
	case 10: return offsetof(struct pt_regs, r10);
	case 11: return offsetof(struct pt_regs, r11);
	case 12: return offsetof(struct pt_regs, r12);
	case 13: return offsetof(struct pt_regs, r13);
	case 14: return offsetof(struct pt_regs, r14);
	default: return offsetof(struct pt_regs, r15);
	}
}

/* The value of register reg at the probe. A read, not a ctx access: the verifier refuses a
 * ctx pointer moved by a variable offset (what any indexing of the registers becomes). */
static __always_inline __u64 py_site_reg(struct pt_regs *ctx, __u32 reg)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)ctx + py_site_reg_off(reg));
	return v;
}

/* pymalloc's pool header, the two words read (3.8 to 3.13 alike). */
struct py_pool_words {
	__u64 freeblock; /* +8: the next block handed out */
	__u64 nextpool;	 /* +16: == the pool itself when the size class has no pool */
};

#define PY_POOL_FREEBLOCK_OFF 8
#define PY_SIZE_CLASS_SHIFT   4 /* ALIGNMENT_SHIFT: 16-byte size classes on 64-bit */

/* The block an inlined pymalloc serves n bytes from, 0 when its pool is empty (then
 * allocate_from_new_pool serves it), or -1 when pymalloc's memory could not be read. */
static __always_inline __s64 py_site_block(__u64 usedpools, __u64 n)
{
	struct py_pool_words w;
	__u64 pool;

	if (bpf_probe_read_user(&pool, sizeof(pool),
				(void *)(usedpools + ((n - 1) >> PY_SIZE_CLASS_SHIFT) * 16)) ||
	    bpf_probe_read_user(&w, sizeof(w), (void *)(pool + PY_POOL_FREEBLOCK_OFF)))
		return -1;
	if (w.nextpool == pool)
		return 0;
	return w.freeblock ? (__s64)w.freeblock : -1;
}

/* The probe of an inlined copy (on_entry's caller passes the cookie's fn). */
static __always_inline int py_site(struct pt_regs *ctx, __u64 cookie, __u32 fn, __u32 tid)
{
	__u64 v, sp = PT_REGS_SP(ctx);
	struct call_state *st;
	__s64 block;
	__u32 d, type;

	v = PY_SITE_IS_IMM(cookie) ? PY_SITE_IMM(cookie) : py_site_reg(ctx, PY_SITE_REG(cookie));
	if (PY_SITE_LOW32(cookie))
		v = (__u32)v;
	st = bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (st && st->depth && sp <= st->entry_sp) {
		count(&counters.nested_calls);
		return RET_SKIP;
	}
	if (fn == FN_PY_SITE_FREE) {
		if (!v)
			return RET_SKIP; /* free(NULL): a no-op */
		if (st)
			st->py_site_freed = v;
		if (sample__untrack(v) && records_allowed())
			emit(EV_FREE, fn, tid, v, 0, 0, -ENOENT);
		return RET_SKIP;
	}
	if (v - 1 >= PY_SMALL_REQUEST) /* 0 or > 512: malloc's, probed there */
		return RET_SKIP;
	block = py_site_block(PY_SITE_USEDPOOLS(cookie), v);
	if (block < 0) {
		__sync_fetch_and_add(&py_counters.site_lost, 1);
		return RET_SKIP;
	}
	if (!block) {
		if (st) {
			st->py_pend_size = v;
			st->py_pend_sp = sp;
		}
		__sync_fetch_and_add(&py_counters.site_new_pool, 1);
		return RET_SKIP;
	}
	__sync_fetch_and_add(&py_counters.site_allocs, 1);
	d = sample__entry(fn, v, 0, 0);
	type = d ? sample__record(d, 0, (__u64)block) : 0;
	if (type && records_allowed()) {
		emit(type, fn, tid, (__u64)block, 0, v, take_stack(ctx));
		snapshot_release(tid);
	}
	return RET_SKIP;
}

/*
 * allocate_from_new_pool(size_index) at its entry: the call an inlined site left pending
 * on this thread (its SP above ours) becomes an outermost malloc of the pending size,
 * recorded at the return like any. Anything else (pymalloc's own out-of-line copy inside a
 * probed PyObject_Malloc: nested, handled before) has no work: *a0 is not touched, false.
 */
static __always_inline bool py_new_pool_entry(struct call_state *st, __u64 sp, __u64 *a0)
{
	__u64 n;

	if (!st || !st->py_pend_size || sp >= st->py_pend_sp)
		return false;
	n = st->py_pend_size;
	st->py_pend_size = 0;
	*a0 = n;
	return true;
}

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * unwind.bpf.h - DWARF unwinding inside BPF (--unwind kernel, issue #33), included by
 * alloc.bpf.c after the DWARF snapshot code (a stack the tables cannot serve is sent as a
 * snapshot instead).
 *
 * At the outermost allocator return, take_stack() calls ku_walk() instead of fp_walk(): the
 * registers are the caller's (the return probe fires after the ret), so the first frame is
 * the allocator's caller at the instruction after its call, like ips[0] of a frame-pointer
 * stack. Each step:
 *   1. the mapping of the PC: the previous frame's if it holds it, else a binary search over
 *      the process's executable mappings (`unwind_maps`, tgid -> struct unwind_proc, sorted
 *      by start; filled by the loader from /proc/PID/maps, user/trace/kunwind.c), else the
 *      PC's VMA (bpf_find_vma) and its file's table in `unwind_modules` (by device and
 *      inode: a library ld.so or dlopen mapped since the loader read the maps, a process
 *      forked or exec'd but not described yet; the loader loads the tables of an exec'd
 *      image's whole lookup scope before it maps them);
 *   2. its module's row covering PC - bias: binary search over the module's rows in the
 *      `unwind_rows` array ([first_row, first_row + n_rows), one copy per build-id);
 *   3. CFA by the row's rule, the return address at CFA - 8, the caller's RBP by the RBP rule,
 *      SP = CFA.
 * Like libdw (what --unwind dwarf unwinds with, user/stacks/unwind.c), the first frame is an
 * activation (looked up at its PC), every later one at its return address minus one (the
 * call instruction's row: a call can be the last instruction of a function); a zero return
 * address ends the stack; a saved RBP that cannot be read leaves RBP unknown, which stops
 * the walk only if a later CFA needs it.
 *
 * Where it stops, and what happens then (unwind_counters, printed in the closing summary):
 *   - the outermost frame (an END row, RA 0): done (`ends`);
 *   - STACK_MAX_DEPTH frames: cut, as every mode cuts (`depth_cuts`);
 *   - a stack word that cannot be read: cut there (`read_failures`);
 *   - anything the tables cannot serve: a PC in no mapping with a table (neither described
 *     nor found by its VMA's file), a module without a table, a gap between FDEs (NONE row), a rule BPF does not follow
 *     (UNSUPPORTED; an RBP-based CFA with RBP unknown): the record goes out as a stack
 *     snapshot instead, unwound in userspace exactly as --unwind dwarf would (`fallbacks`).
 *     At ANY frame, not only the first: a stack cut in the middle by a library the loader
 *     has no table for yet (dlopen'd) would otherwise be a shorter stack than DWARF mode
 *     gives, and a different program point.
 *
 * Before each step, the thread's kept stacks (unwind_memo.bpf.h): when the registers match a
 * kept frame's and the stack words that walk read from there on still hold, the rest of the
 * stack is the kept one's, copied, not stepped.
 *
 * Verifier: bpf_loop, one step verified once (as fp_walk). Everything that changes from step
 * to step lives in map values (the stack being built, this CPU's walk state), never in the
 * loop's context on the BPF stack, so the verifier's states converge. The binary searches
 * are bounded loops (9 and 32 steps).
 */
#ifndef UNWIND_BPF_H
#define UNWIND_BPF_H

#include "unwind_abi.h"

const volatile __u32 unwind_kernel = 0; /* --unwind kernel: ku_walk() instead of fp_walk() */

struct unwind_counters unwind_counters = {};

/* Every module's rows, back to back; resized by the loader (bpf_map__set_max_entries) and
 * written through its mmap (no syscall per row). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unwind_row);
} unwind_rows SEC(".maps");

/* tgid -> its executable mappings (8 KiB each: not preallocated). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, UNWIND_PROCS_MAX);
	__type(key, __u32);
	__type(value, struct unwind_proc);
} unwind_maps SEC(".maps");

/* Why a walk stopped (ku_state.stop). */
enum ku_stop {
	KU_GOING = 0,
	KU_END,		/* outermost frame */
	KU_DEPTH,	/* STACK_MAX_DEPTH frames */
	KU_READ,	/* a stack word unreadable */
	KU_NO_MAPPING,	/* PC in no described mapping */
	KU_NO_TABLE,	/* its module has no rows */
	KU_NONE_ROW,	/* no FDE covers the PC */
	KU_UNSUPPORTED, /* a rule BPF does not follow */
};

/* Tables by file identity, for PCs in no described mapping (unwind_abi.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, UNWIND_MODULES_MAX);
	__type(key, struct unwind_module_key);
	__type(value, struct unwind_module);
} unwind_modules SEC(".maps");

/* This CPU's walk: the registers of the frame being stepped, and the mapping of the last
 * PC (consecutive frames are mostly in one module: no search then). */
struct ku_state {
	__u64 pc, sp, bp;
	__u32 bp_ok; /* RBP is known (0: unknown since a saved RBP was unreadable) */
	/* RBP is the word saved at bp_at, read only if a CFA needs it (most frames of code
	 * without frame pointers never do: a read per frame saved); 0: bp holds it */
	__u64 bp_at;
	__u32 stop;  /* enum ku_stop */
	__u64 m_start, m_end, m_bias; /* [m_start, m_end): ELF address = PC - m_bias */
	__u32 m_first, m_rows;	      /* its module's rows */
	__u32 tgid, gen;	      /* the walk's process, ku_gen at its start */
	__u32 proc_missed;	      /* its description was not there (counted once a walk) */
	/* the binary searches (bpf_loop steps): [s_lo, s_hi), s_best = the index found + 1 */
	__u32 s_lo, s_hi, s_pc, s_best;
	__u64 s_addr;
	/* the memo (unwind_memo.bpf.h): the thread, the memo frame compared next, the record */
	__u64 start_time;
	__u32 tid, mk;
	__u32 memo_on, prefix_same; /* the memo may still match; the frames so far are its */
	__u32 memo_slot, memo_alt;  /* its slot; the one to try after a first frame's miss */
	__u32 rec_ok, nw;	    /* the record is whole; words in it */
	__u32 reg_origin;	    /* the first frame the register RBP holds its value in */
	__u32 dep_lo, dep_hi;	    /* see ku_memo.dep_lo */
	__u32 rec_slot;		   /* the record's memo slot */
	__u32 w_shift;		   /* memo word i is the record's i + w_shift */
	__u64 tag;		   /* the record's ku_memo_tag() */
	__s32 reuse_id;		    /* >= 0: the stack is the memo's, this its id */
	__u32 v_i, v_ok, v_copy, c_from, c_to; /* the memo's check and copy (bpf_loop steps) */
	__u64 v_lo, v_len, whi;
};

/* Just the fields read of a VMA and its file, relocated against the kernel's BTF (CO-RE). */
struct super_block {
	__u32 s_dev;
} __attribute__((preserve_access_index));

struct inode {
	unsigned long i_ino;
	struct super_block *i_sb;
} __attribute__((preserve_access_index));

struct file {
	struct inode *f_inode;
} __attribute__((preserve_access_index));

struct vm_area_struct {
	unsigned long vm_start, vm_end, vm_pgoff;
	struct file *vm_file;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ku_state);
} ku_scratch SEC(".maps");

/*
 * The walks' own figures (how each ended, its frames, the memo's), per CPU and added to with
 * plain stores: an atomic add is a locked instruction, and a walk made seven of them, ~10%
 * of the BPF time per record on sed (bpf_stats, 2026-12-07). Exact under the assumption the
 * walk's state in ku_scratch already makes: a walk is not preempted by another on its CPU.
 * The misses userspace's refresh watches (no_proc, no_mapping, vma_lookups) and the
 * fallbacks stay in the global unwind_counters, atomic; loader__unwind_counters adds the two.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unwind_counters);
} ku_stats SEC(".maps");

/*
 * This CPU's rows by (tgid, lookup PC): an allocation site's stack repeats, so most steps
 * take their row here, without the two binary searches. An entry is valid for ku_gen, which
 * moves whenever a PC could come to mean other code in a process: userspace rewrote a
 * description or a module (loader.c), or a process exec'd (proc_exec below).
 */
#define KU_CACHE_SLOTS 4096 /* sed's ~150 stacks hold ~1,500 PCs: 512 slots thrashed */

struct ku_cache_ent {
	__u64 lpc;
	__u32 tgid;
	__u32 gen;
	struct unwind_row row;
	__u32 pad;
};

struct ku_cache {
	struct ku_cache_ent e[KU_CACHE_SLOTS];
};

/* One cache per possible CPU, indexed by CPU (128 KiB: above a per-CPU array's 32 KiB). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* set to the number of possible CPUs by the loader */
	__type(key, __u32);
	__type(value, struct ku_cache);
} ku_rows_cache SEC(".maps");

__u32 ku_gen = 0; /* see ku_cache; bumped by userspace through the skeleton's .bss too */

struct ku_memo_cpu;
struct ku_memo;

struct ku_walk_ctx {
	struct stack_val *s;
	struct ku_state *st;
	struct ku_cache *cache; /* NULL: no cache */
	struct ku_memo_cpu *mc; /* this CPU's memos (NULL: none) */
	struct ku_memo *rec;	/* where this walk is recorded, or NULL */
	struct unwind_counters *stats; /* this CPU's ku_stats */
};

#include "unwind_memo.bpf.h"

struct ku_map_ctx {
	struct ku_state *st;
	const struct unwind_proc *proc;
};

/* One step of the mapping search (bpf_loop, as the row search): [s_lo, s_hi) of proc's
 * mappings, s_best = the last one starting at or below s_addr, + 1. */
static long ku_map_step(__u64 i, void *data)
{
	struct ku_map_ctx *w = data;
	struct ku_state *st = w->st;
	__u32 lo = st->s_lo, hi = st->s_hi, mid;

	if (lo >= hi)
		return 1;
	/* mid < hi <= UNWIND_MAPPINGS_MAX, a power of two: the mask changes nothing but shows
	 * the verifier the bound (a compare is reordered away by clang) */
	mid = ((lo + hi) >> 1) & (UNWIND_MAPPINGS_MAX - 1);
	if (w->proc->m[mid].start <= st->s_addr) {
		st->s_best = mid + 1;
		st->s_lo = mid + 1;
	} else {
		st->s_hi = mid;
	}
	return 0;
}

/* The mapping of the walk's process holding pc, or NULL: the last one starting at or below
 * it, if pc < its end, in the process's description p. */
static __always_inline const struct unwind_mapping *ku_mapping(struct ku_state *st,
							       const struct unwind_proc *p, __u64 pc)
{
	struct ku_map_ctx w = { .st = st, .proc = p };
	__u32 mid;

	st->s_lo = 0;
	st->s_hi = p->n <= UNWIND_MAPPINGS_MAX ? p->n : 0;
	st->s_addr = pc;
	st->s_best = 0;
	bpf_loop(9, ku_map_step, &w, 0); /* log2(UNWIND_MAPPINGS_MAX) + 1 */
	if (!st->s_best)
		return NULL;
	mid = (st->s_best - 1) & (UNWIND_MAPPINGS_MAX - 1);
	if (pc >= p->m[mid].end)
		return NULL;
	return &p->m[mid];
}

/*
 * The VMAs bpf_find_vma found (libraries ld.so or dlopen mapped since the process was
 * described), by process, ku_gen and 2 MiB granule of the PC: a later walk through the same
 * code takes the mapping from here. bpf_find_vma only try-locks mmap_lock, so a lookup
 * fails while another thread of the process maps or unmaps (a new thread's stack or malloc
 * arena); with this, one lookup per granule is exposed to that, not one per PC the row
 * cache does not hold. Valid for one ku_gen, as the row cache: every description write
 * moves it. Each entry is written whole (a hash map's update replaces the element).
 */
#define KU_VMA_GRANULE_SHIFT 21

struct ku_vma_key {
	__u32 tgid, gen;
	__u64 granule; /* pc >> KU_VMA_GRANULE_SHIFT */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct ku_vma_key);
	__type(value, struct unwind_mapping);
} ku_vmas SEC(".maps");

/* bpf_find_vma's callback (its context on the stack): the VMA of the PC as a mapping, with
 * its file's table, if userspace loaded one; untouched otherwise. */
static long ku_vma_found(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct unwind_mapping *found = data;
	struct unwind_module_key key = {};
	const struct unwind_module *mod;
	struct file *f = vma->vm_file;
	struct inode *ino;

	if (!f)
		return 0; /* anonymous: JIT code, or no code at all */
	ino = f->f_inode;
	key.dev = ino->i_sb->s_dev;
	key.ino = ino->i_ino;
	mod = bpf_map_lookup_elem(&unwind_modules, &key);
	if (!mod)
		return 0;
	found->start = vma->vm_start;
	found->end = vma->vm_end;
	found->bias = vma->vm_start - (vma->vm_pgoff << 12) - mod->vaddr_off;
	found->first_row = mod->first_row;
	found->n_rows = mod->n_rows;
	return 0;
}

/* The walk is in mapping m from here (st->m_*). */
static __always_inline bool ku_use_mapping(struct ku_state *st, const struct unwind_mapping *m)
{
	st->m_start = m->start;
	st->m_end = m->end;
	st->m_bias = m->bias;
	st->m_first = m->first_row;
	st->m_rows = m->n_rows;
	return true;
}

/* The mapping of pc into st (m_*): the process's description, else a VMA found before
 * (ku_vmas), else its VMA's file. False when none knows it. */
static __always_inline bool ku_locate(struct ku_walk_ctx *w, __u64 pc)
{
	struct ku_state *st = w->st;
	struct ku_vma_key key = {};
	struct unwind_mapping found = {};
	const struct unwind_mapping *m;

	/* the description, looked up here, by each PC that needs it (a few a walk: a stack the
	 * memo serves needs none) */
	const struct unwind_proc *p = bpf_map_lookup_elem(&unwind_maps, &st->tgid);

	if (!p && !st->proc_missed) { /* not described yet (a fork, an exec): modules by VMA */
		st->proc_missed = 1;
		count(&unwind_counters.no_proc);
	}
	m = p ? ku_mapping(st, p, pc) : NULL;
	if (m)
		return ku_use_mapping(st, m);
	key.tgid = st->tgid;
	key.gen = st->gen;
	key.granule = pc >> KU_VMA_GRANULE_SHIFT;
	m = bpf_map_lookup_elem(&ku_vmas, &key);
	if (m && pc >= m->start && pc < m->end) {
		count(&unwind_counters.vma_reused);
		return ku_use_mapping(st, m);
	}
	st->m_start = st->m_end = 0; /* none: no later PC takes this one's */
	if (bpf_find_vma(bpf_get_current_task_btf(), pc, ku_vma_found, &found, 0) == -EBUSY)
		count(&unwind_counters.vma_busy); /* another thread mapping: counted apart */
	if (pc < found.start || pc >= found.end)
		return false;
	count(&unwind_counters.vma_lookups);
	bpf_map_update_elem(&ku_vmas, &key, &found, BPF_ANY);
	return ku_use_mapping(st, &found);
}

/* One step of the row search (bpf_loop: verified once; unrolled as a bounded loop, the search
 * took the programs' load from 0.2 s to 1.3 s). State in the map value st, as ku_step's. */
static long ku_search_step(__u64 i, void *data)
{
	struct ku_state *st = ((struct ku_walk_ctx *)data)->st;
	const struct unwind_row *r;
	__u32 lo = st->s_lo, hi = st->s_hi, idx;

	if (lo >= hi)
		return 1;
	idx = st->m_first + lo + ((hi - lo) >> 1);
	r = bpf_map_lookup_elem(&unwind_rows, &idx);
	if (!r) { /* past the array: a mapping the loader got wrong */
		st->s_best = 0;
		return 1;
	}
	if (r->pc <= st->s_pc) {
		st->s_best = idx + 1;
		st->s_lo = idx - st->m_first + 1;
	} else {
		st->s_hi = idx - st->m_first;
	}
	return 0;
}

/* The row covering the ELF address pc among st's module's rows (the last one starting at or
 * below it), or NULL (before the first row). */
static __always_inline const struct unwind_row *ku_row(struct ku_walk_ctx *w, __u32 pc)
{
	struct ku_state *st = w->st;
	__u32 idx;

	st->s_lo = 0;
	st->s_hi = st->m_rows;
	st->s_pc = pc;
	st->s_best = 0;
	bpf_loop(32, ku_search_step, w, 0); /* log2 of 2^32 rows */
	if (!st->s_best)
		return NULL;
	idx = st->s_best - 1;
	return bpf_map_lookup_elem(&unwind_rows, &idx);
}

/* One frame: from st's registers to its caller's, its return address into s. */
static long ku_step(__u64 i, void *data)
{
	struct ku_walk_ctx *w = data;
	struct stack_val *s = w->s;
	struct ku_state *st = w->st;
	const struct unwind_row *found;
	const struct ku_memo *m;
	struct ku_cache_ent *ce = NULL;
	struct unwind_row row;
	__u64 lpc, elf_pc, cfa, ra, bp;
	__u32 d = s->depth;

	if (d >= STACK_MAX_DEPTH) {
		st->stop = KU_DEPTH;
		return 1;
	}
	if (d > 1 && st->memo_on && ku_memo_try_step(d - 1)) /* the first: ku_walk's */
		return 1;
	ku_memo_frame(w, d - 1);
	/* ips[0] is the activation, the others return addresses (see the header). */
	lpc = d == 1 ? st->pc : st->pc - 1;
	if (w->cache) {
		ce = &w->cache->e[((lpc * 0x9e3779b97f4a7c15ull) >> 40) & (KU_CACHE_SLOTS - 1)];
		if (ce->lpc == lpc && ce->tgid == st->tgid && ce->gen == st->gen) {
			row = ce->row;
			goto have_row;
		}
	}
	if ((lpc < st->m_start || lpc >= st->m_end) && !ku_locate(w, lpc)) {
		st->stop = KU_NO_MAPPING;
		return 1;
	}
	elf_pc = lpc - st->m_bias;
	if (!st->m_rows || elf_pc > 0xffffffffull) {
		st->stop = KU_NO_TABLE;
		return 1;
	}
	found = ku_row(w, (__u32)elf_pc);
	if (!found || found->cfa_rule == UNWIND_CFA_NONE) {
		st->stop = KU_NONE_ROW;
		return 1;
	}
	row = *found;
	if (ce) {
		ce->lpc = lpc;
		ce->tgid = st->tgid;
		ce->gen = st->gen;
		ce->row = row;
	}
have_row:
	switch (row.cfa_rule) {
	case UNWIND_CFA_RSP:
		cfa = st->sp + (__s64)row.cfa_off;
		break;
	case UNWIND_CFA_RBP:
		if (st->bp_at) {
			if (bpf_probe_read_user(&bp, sizeof(bp), (void *)st->bp_at)) {
				st->bp_ok = 0; /* libdw: the register is then unknown, not an error */
				st->rec_ok = 0;
			} else {
				ku_memo_word(w, st->bp_at, bp);
				st->bp = bp;
				st->reg_origin = d; /* the caller's frame on holds the value read */
			}
			st->bp_at = 0;
		} else if (st->bp_ok) { /* the register's value, held since frame reg_origin */
			if (st->reg_origin < st->dep_lo)
				st->dep_lo = st->reg_origin;
			if (d - 1 > st->dep_hi)
				st->dep_hi = d - 1;
		}
		if (!st->bp_ok) {
			st->stop = KU_UNSUPPORTED;
			return 1;
		}
		cfa = st->bp + (__s64)row.cfa_off;
		break;
	case UNWIND_CFA_PLT: /* the PLT's expression, on the real RIP */
		cfa = st->sp + (__s64)row.cfa_off + ((st->pc & 15) >= row.plt_ge ? 8 : 0);
		break;
	case UNWIND_CFA_END:
		st->stop = KU_END;
		return 1;
	default:
		st->stop = KU_UNSUPPORTED;
		return 1;
	}
	if (bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8))) {
		st->stop = KU_READ;
		return 1;
	}
	ku_memo_word(w, cfa - 8, ra);
	if (row.rbp_rule == UNWIND_RBP_CFA_OFF) {
		st->bp_at = cfa + (__s64)row.rbp_off;
		st->bp_ok = 1;
	} else if (row.rbp_rule != UNWIND_RBP_SAME) {
		st->bp_ok = 0;
		st->bp_at = 0;
	}
	if (!ra) { /* libdw: a zero return address ends the stack */
		st->stop = KU_END;
		return 1;
	}
	st->sp = cfa;
	st->pc = ra;
	s->ips[d] = ra; /* d < STACK_MAX_DEPTH, checked above */
	s->depth = d + 1;
	if (st->prefix_same && (m = ku_memo_at(w)))
		st->prefix_same = d < m->depth && m->ips[d & (KU_MEMO_FRAMES - 1)] == ra;
	return 0;
}

/*
 * The current user stack into s, unwound with the tables. True when s holds the stack (ended
 * at the outermost frame, cut at the depth or at an unreadable word); false when the tables
 * could not serve it (the caller sends a snapshot instead). Counted either way.
 */
static __always_inline bool ku_walk(struct pt_regs *ctx, struct stack_val *s, __u32 cpu,
				    __s32 *memo_id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = (__u32)(pid_tgid >> 32), zero = 0;
	struct ku_walk_ctx w = { .s = s };
	__u64 *why = &unwind_counters.unsupported;

	*memo_id = -1;
	w.st = bpf_map_lookup_elem(&ku_scratch, &zero);
	w.cache = bpf_map_lookup_elem(&ku_rows_cache, &cpu);
	w.stats = bpf_map_lookup_elem(&ku_stats, &zero);
	if (!w.st || !w.stats) {
		count(&unwind_counters.fallbacks);
		return false;
	}
	w.st->proc_missed = 0;
	w.st->m_start = w.st->m_end = 0;
	w.st->tgid = tgid;
	w.st->gen = ku_gen;
	w.st->pc = PT_REGS_IP(ctx);
	w.st->sp = PT_REGS_SP(ctx);
	w.st->bp = ctx->rbp;
	w.st->bp_ok = 1;
	w.st->bp_at = 0;
	w.st->stop = KU_GOING;
	w.st->tid = (__u32)pid_tgid;
	w.st->start_time = bpf_get_current_task_btf()->start_time;
	s->ips[0] = w.st->pc;
	s->depth = 1;
	ku_memo_begin(&w, cpu);
	ku_memo_choose(&w);
	/* the first frame against the memo here: a whole stack kept needs no loop at all */
	if (!w.st->memo_on || !ku_memo_try_step(0))
		bpf_loop(STACK_MAX_DEPTH, ku_step, &w, 0);

	switch (w.st->stop) {
	case KU_END:
		w.stats->ends++;
		break;
	case KU_GOING: /* bpf_loop ran out: only at the depth */
	case KU_DEPTH:
		w.stats->depth_cuts++;
		break;
	case KU_READ:
		w.stats->read_failures++;
		break;
	case KU_NO_MAPPING:
		why = &unwind_counters.no_mapping;
		break;
	case KU_NO_TABLE:
		why = &unwind_counters.no_table;
		break;
	case KU_NONE_ROW:
		why = &unwind_counters.none_row;
		break;
	default:
		why = &unwind_counters.unsupported;
		break;
	}
	if (w.st->stop >= KU_NO_MAPPING) { /* rare, and watched by userspace: atomic */
		count(why);
		count(&unwind_counters.fallbacks);
		return false;
	}
	w.stats->unwinds++;
	w.stats->frames += s->depth;
	*memo_id = w.st->reuse_id;
	return true;
}

#endif /* UNWIND_BPF_H */

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * unwind_memo.bpf.h - the thread's last stacks, reused when the stack above the new
 * allocation is provably the same (--unwind kernel, issue #33). Included by unwind.bpf.h:
 * ku_walk() picks a memo (ku_memo_choose), ku_step() tries it before each table step
 * (ku_memo_try), take_stack() keeps the walk as the newest memo (ku_memo_commit).
 *
 * Why: an allocation site's stack repeats, and its deep part (main, the interpreter's loop,
 * regexec's caller) is shared by many sites. Stepping it through the tables costs ~30 ns a
 * frame and its stack id a hash and a `stacks` lookup; checking the few words it depends on
 * after one read of that part of the stack costs far less (bpf_stats: 19-48% less BPF time
 * per record on pairs, sed, jq and sqlite3; docs/BENCHMARKS.md).
 *
 * Why it is exact: a walk is a deterministic function of the registers of the frame it
 * starts from (PC, SP, and RBP or where RBP is saved), the tables (valid for ku_gen) and the
 * stack words it reads (each return address at CFA - 8, each saved RBP a CFA needs). A memo
 * keeps, for each frame of a walk, the registers it was stepped from and how many words the
 * walk had read before it; and every word read, with its address and value. When a new walk
 * reaches a frame whose registers equal a memo frame's, and every word the memo read from
 * that frame on still holds the value read, the rest of the walk would read the same words,
 * follow the same rows and give the memo's remaining frames: they are copied instead. The
 * register RBP is compared only for frames whose value a later step used as a CFA base
 * (dep_lo..dep_hi; code without frame pointers rarely does), so a function's scratch use of
 * RBP does not defeat the memo. unwind_modes_e2e compares every stack with the tables'
 * alone (TRACER_NO_MEMO=1); with the word check left out, 12 of sed's 155 program points and
 * most of jq's came out wrong.
 *
 * Which memo: KU_MEMOS stacks per CPU, of one thread (tid and start time: a tid reused is
 * another thread; two threads taking turns on a CPU push each other's out). First the one
 * whose first frame has the walk's PC and SP: when it holds, the stack is that memo's whole,
 * its stack id too (no copy, no hash, no lookup). Else, or when a word of it changed (two
 * paths to one call site at the same depth), the thread's newest memo, for a match further
 * up. A walk that reached the outermost frame, through the tables or partly from a memo
 * (then the record is the merged stack), becomes the newest memo, in the oldest slot; one
 * that was a memo's whole stack changes nothing. The slots are found by a scan of one tag
 * word each (a scan of the slots' fields cost ~40 ns a record); a direct-mapped choice, one
 * slot per first frame, kept far fewer stacks on sed (232,000 of 408,000 walks served
 * instead of 392,000). Stacks deeper than KU_MEMO_FRAMES are
 * walked but not kept.
 */
#ifndef UNWIND_MEMO_BPF_H
#define UNWIND_MEMO_BPF_H

#define KU_MEMO_FRAMES 64 /* deepest stack kept (a power of two: indexes are masked) */
#define KU_MEMO_WORDS 128 /* words a kept walk may have read (two per frame at most) */
#define KU_MEMO_SPAN  16384 /* stack bytes checked with one read; words outside: one each */

/* The registers a frame was stepped from, and the words read before it. */
struct ku_memo_frame {
	__u64 pc, sp, bp, bp_at;
	__u32 bp_ok;
	__u32 word; /* words[word..] are the ones read from this frame on */
};

struct ku_memo {
	__u64 start_time; /* the thread's: a tid reused is another thread */
	__u32 tid, gen;	  /* gen: ku_gen of the walk (the tables it followed) */
	__u32 depth;	  /* frames; 0: no memo */
	__u32 words;
	__s32 stack_id;	  /* its id in `stacks` */
	__u32 dep_lo, dep_hi; /* frames whose register RBP a later step used as CFA base
			       * (an interval over all of them; empty if dep_lo > dep_hi) */
	__u32 pad;
	__u64 whi; /* highest word address read */
	__u64 ips[KU_MEMO_FRAMES];
	struct ku_memo_frame f[KU_MEMO_FRAMES];
	__u64 waddr[KU_MEMO_WORDS];
	__u64 wval[KU_MEMO_WORDS];
};

#define KU_MEMOS 16 /* the thread's last stacks kept per CPU (a power of two) */

struct ku_memo_cpu {
	__u32 cur; /* memo[cur]: the last one recorded */
	__u32 pad;
	__u64 tag[KU_MEMOS]; /* ku_memo_tag() of each memo's thread and first frame: the scan */
	struct ku_memo memo[KU_MEMOS];
	__u64 span[KU_MEMO_SPAN / 8]; /* the stack, read once to check the words */
};

const volatile __u32 unwind_memo = 1; /* 0: TRACER_NO_MEMO (loader.c) */

/* One per possible CPU, indexed by CPU (above a per-CPU array's 32 KiB). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* set to the number of possible CPUs by the loader */
	__type(key, __u32);
	__type(value, struct ku_memo_cpu);
} ku_memos SEC(".maps");

static __always_inline bool ku_memo_valid(const struct ku_memo *m, const struct ku_state *st)
{
	return m->depth && m->tid == st->tid && m->start_time == st->start_time &&
	       m->gen == st->gen;
}

/* The memo the walk is compared with (slot st->memo_slot), or NULL. */
static __always_inline const struct ku_memo *ku_memo_at(const struct ku_walk_ctx *w)
{
	if (!w->mc || !w->st->memo_on)
		return NULL;
	return &w->mc->memo[w->st->memo_slot & (KU_MEMOS - 1)];
}

/* A memo's tag: its thread and first frame's PC and SP, hashed (0 for none). Scanning the
 * tags, one word a slot, is cheap; the slot found is then checked field by field. */
static __always_inline __u64 ku_memo_tag(const struct ku_state *st)
{
	return ((st->pc ^ (st->sp << 17) ^ ((__u64)st->tid << 40)) * 0x9e3779b97f4a7c15ull) | 1;
}

/* Start of a walk: the record (w->rec, the oldest slot), no memo chosen yet. */
static __always_inline void ku_memo_begin(struct ku_walk_ctx *w, __u32 cpu)
{
	struct ku_memo_cpu *mc = unwind_memo ? bpf_map_lookup_elem(&ku_memos, &cpu) : NULL;
	struct ku_state *st = w->st;

	st->mk = 0;
	st->nw = 0;
	st->reg_origin = 0;
	st->dep_lo = STACK_MAX_DEPTH;
	st->dep_hi = 0;
	st->whi = 0;
	st->reuse_id = -1;
	st->memo_on = 0;
	st->prefix_same = 0;
	st->rec_ok = 0;
	w->rec = NULL;
	w->mc = mc;
	if (!mc)
		return;
	st->rec_slot = (mc->cur + 1) & (KU_MEMOS - 1); /* the oldest */
	st->tag = ku_memo_tag(st);
	mc->tag[st->rec_slot] = 0; /* being rewritten: found by no scan until committed */
	w->rec = &mc->memo[st->rec_slot];
	st->rec_ok = 1;
}

/* Compare the walk with memo slot j from the walk's current frame on. */
static __always_inline void ku_memo_use(struct ku_walk_ctx *w, __u32 j)
{
	struct ku_state *st = w->st;

	st->memo_slot = j & (KU_MEMOS - 1);
	st->memo_on = 1;
	st->mk = 0;
	st->prefix_same = w->mc->memo[st->memo_slot].ips[0] == st->pc;
}

/* The slot holding one of the thread's stacks with the walk's first PC and SP (never the
 * record's), or KU_MEMOS. */
static __always_inline __u32 ku_memo_find(struct ku_walk_ctx *w)
{
	const struct ku_state *st = w->st;
	__u64 tag = ku_memo_tag(st);
	const struct ku_memo *m;
	__u32 j;

	for (j = 0; j < KU_MEMOS; j++)
		if (w->mc->tag[j] == tag && j != st->rec_slot)
			break;
	if (j >= KU_MEMOS)
		return KU_MEMOS;
	m = &w->mc->memo[j];
	if (!ku_memo_valid(m, st) || m->f[0].pc != st->pc || m->f[0].sp != st->sp)
		return KU_MEMOS;
	return j;
}

/* The walk read word val at addr: into the record. */
static __always_inline void ku_memo_word(struct ku_walk_ctx *w, __u64 addr, __u64 val)
{
	struct ku_state *st = w->st;
	__u32 n = st->nw;

	if (!w->rec || n >= KU_MEMO_WORDS) {
		st->rec_ok = 0;
		return;
	}
	w->rec->waddr[n] = addr;
	w->rec->wval[n] = val;
	st->nw = n + 1;
	if (addr > st->whi)
		st->whi = addr;
}

/* Frame i is about to be stepped from st's registers: into the record. */
static __always_inline void ku_memo_frame(struct ku_walk_ctx *w, __u32 i)
{
	struct ku_state *st = w->st;
	struct ku_memo_frame *f;

	if (!w->rec || i >= KU_MEMO_FRAMES) { /* too deep to keep */
		st->rec_ok = 0;
		return;
	}
	barrier_var(i); /* else clang drops the mask the verifier needs */
	i &= KU_MEMO_FRAMES - 1;
	f = &w->rec->f[i];
	f->pc = st->pc;
	f->sp = st->sp;
	f->bp = st->bp;
	f->bp_at = st->bp_at;
	f->bp_ok = st->bp_ok;
	f->word = st->nw;
	w->rec->ips[i] = st->pc;
}

/* Memo word st->v_i against the stack, and into the record if st->v_copy. 0: the next one;
 * 1: all checked, or one differs (st->v_ok 0). */
static __always_inline long ku_memo_check_word(struct ku_walk_ctx *w, struct ku_state *st,
					       const struct ku_memo *m)
{
	__u32 i = st->v_i, to;
	__u64 addr, off, val;

	if (i >= m->words)
		return 1; /* all checked */
	i &= KU_MEMO_WORDS - 1;
	addr = m->waddr[i];
	off = addr - st->v_lo;
	if (st->v_len >= 8 && off <= st->v_len - 8 && !(off & 7) && w->mc) {
		val = w->mc->span[(off / 8) & (KU_MEMO_SPAN / 8 - 1)];
	} else if (bpf_probe_read_user(&val, sizeof(val), (void *)addr)) {
		return st->v_ok = 0, 1;
	}
	if (val != m->wval[i])
		return st->v_ok = 0, 1;
	st->v_i = i + 1;
	if (!st->v_copy)
		return 0;
	/* into the record after the words the walk read itself (the merged stack) */
	to = i + st->w_shift;
	if (to < KU_MEMO_WORDS && w->rec) {
		barrier_var(to); /* else clang drops the mask the verifier needs */
		to &= KU_MEMO_WORDS - 1;
		w->rec->waddr[to] = addr;
		w->rec->wval[to] = val;
	} else {
		st->rec_ok = 0;
	}
	return 0;
}

/* Four memo words (bpf_loop step: a callback per word cost as much as a table step). */
static long ku_memo_check_step(__u64 j, void *data)
{
	struct ku_walk_ctx *w = data;
	struct ku_state *st = w->st;
	const struct ku_memo *m = ku_memo_at(w);

	if (!m)
		return 1;
	for (int n = 0; n < 4; n++)
		if (ku_memo_check_word(w, st, m))
			return 1;
	return 0;
}

/* Memo frame from as the record's frame to (the merged stack: the walk's own frames below,
 * the memo's from the match up), its words' index moved as ku_memo_check_step moved them. */
static __always_inline void ku_memo_merge_frame(struct ku_walk_ctx *w, __u32 from, __u32 to)
{
	const struct ku_memo *m = ku_memo_at(w);
	struct ku_memo_frame *rf;

	if (!m || !w->rec)
		return;
	if (to >= KU_MEMO_FRAMES) { /* the merged stack is too deep to keep */
		w->st->rec_ok = 0;
		return;
	}
	barrier_var(from); /* else clang drops the masks the verifier needs */
	barrier_var(to);
	from &= KU_MEMO_FRAMES - 1;
	to &= KU_MEMO_FRAMES - 1;
	rf = &w->rec->f[to];
	*rf = m->f[from];
	rf->word += w->st->w_shift;
	w->rec->ips[to] = m->ips[from];
}

/* One memo frame into the stack (bpf_loop step): memo frame st->c_from into s->ips[c_to]. */
static long ku_memo_copy_step(__u64 j, void *data)
{
	struct ku_walk_ctx *w = data;
	struct ku_state *st = w->st;
	const struct ku_memo *m = ku_memo_at(w);
	__u32 from = st->c_from, to = st->c_to;

	if (!m || from >= m->depth || from >= STACK_MAX_DEPTH)
		return 1;
	if (to >= STACK_MAX_DEPTH) {
		st->stop = KU_DEPTH;
		return 1;
	}
	w->s->ips[to] = m->ips[from & (KU_MEMO_FRAMES - 1)];
	w->s->depth = to + 1;
	ku_memo_merge_frame(w, from, to);
	st->c_from = from + 1;
	st->c_to = to + 1;
	return 0;
}

/*
 * Before stepping frame i (st's registers): if they are the registers of a memo frame and the
 * memo's words from there on still hold, the stack's remaining frames are the memo's: into
 * s, and true (st->stop set). False: step on with the tables.
 */
static __always_inline bool ku_memo_try(struct ku_walk_ctx *w, __u32 i)
{
	const struct ku_memo *m = ku_memo_at(w);
	struct ku_state *st = w->st;
	const struct ku_memo_frame *f;
	__u64 lo, len;
	__u32 k;

	if (!m) /* none chosen, or it failed */
		return false;
	/* the memo's frames and the walk's both go up the stack: skip the memo frames below */
	for (int n = 0; n < 4; n++) {
		k = st->mk;
		if (k >= m->depth || k >= STACK_MAX_DEPTH) {
			st->memo_on = 0;
			return false;
		}
		if (m->f[k & (KU_MEMO_FRAMES - 1)].sp >= st->sp)
			break;
		st->mk = k + 1;
	}
	k = st->mk;
	if (k >= m->depth || k >= STACK_MAX_DEPTH)
		return false;
	f = &m->f[k & (KU_MEMO_FRAMES - 1)];
	if (f->sp != st->sp || f->pc != st->pc || (k == 0) != (i == 0) || f->bp_ok != st->bp_ok ||
	    f->bp_at != st->bp_at)
		return false;
	if (st->bp_ok && !st->bp_at && k >= m->dep_lo && k <= m->dep_hi && f->bp != st->bp)
		return false;

	/* the words the memo read from frame k on: one read of the stack span holding them
	 * (cheaper than a read per word once there are two) */
	lo = st->bp_at && st->bp_at < st->sp ? st->bp_at : st->sp;
	len = m->whi + 8 > lo ? m->whi + 8 - lo : 0;
	if (len > KU_MEMO_SPAN || !w->mc ||
	    bpf_probe_read_user(w->mc->span, len & (KU_MEMO_SPAN - 1) ?: KU_MEMO_SPAN,
				(void *)lo))
		len = 0; /* each word read by itself */
	w->stats->memo_span += len;
	st->v_lo = lo;
	st->v_len = len;
	st->v_i = f->word;
	st->v_ok = 1;
	st->w_shift = st->nw - f->word;
	/* the very stack of the memo: nothing to record (it is kept already) */
	st->v_copy = !(st->prefix_same && k == i && m->stack_id >= 0);
	bpf_loop(KU_MEMO_WORDS / 4, ku_memo_check_step, w, 0);
	if (!st->v_ok) {
		w->stats->memo_stale++;
		st->memo_on = 0; /* the stack below changed: walk the rest */
		if (i == 0 && st->memo_alt < KU_MEMOS) /* or match the last stack further up */
			ku_memo_use(w, st->memo_alt);
		return false;
	}
	/* The record becomes the merged stack: the walk's frames, then the memo's from k. A memo
	 * whose register RBP fed a CFA is not merged (its interval would need moving). */
	st->nw += m->words - f->word;
	if (m->whi > st->whi)
		st->whi = m->whi;
	if (m->dep_lo <= m->dep_hi)
		st->rec_ok = 0;
	w->stats->memo_hits++;
	w->stats->memo_frames += m->depth - k;
	st->stop = KU_END;
	if (!st->v_copy) {
		st->reuse_id = m->stack_id; /* the very stack of the memo */
		w->stats->memo_whole++;
		w->s->depth = m->depth;
		return true;
	}
	ku_memo_merge_frame(w, k, i);
	st->c_from = k + 1;
	st->c_to = i + 1;
	bpf_loop(STACK_MAX_DEPTH, ku_memo_copy_step, w, 0);
	return true;
}

/*
 * The memo a walk is compared with: the thread's stack that starts at the same PC and SP (then
 * the first frame matches and the walk is one check), else the thread's last stack (a match
 * further up), which is also the one tried after a first that no longer holds.
 */
static __always_inline void ku_memo_choose(struct ku_walk_ctx *w)
{
	struct ku_memo_cpu *mc = w->mc;
	struct ku_state *st = w->st;
	__u32 j, cur;

	st->memo_alt = KU_MEMOS;
	if (!mc)
		return;
	cur = mc->cur & (KU_MEMOS - 1);
	if (cur == st->rec_slot || !ku_memo_valid(&mc->memo[cur], st))
		cur = KU_MEMOS;
	j = ku_memo_find(w);
	if (j < KU_MEMOS) {
		ku_memo_use(w, j);
		if (cur != j)
			st->memo_alt = cur;
	} else if (cur < KU_MEMOS) {
		ku_memo_use(w, cur);
	}
}

/*
 * ku_memo_try() for ku_step(), as a global function: the verifier checks it once, alone,
 * instead of along every path through the step (inlined there, it made the programs' load
 * take ~0.25 s longer). A global function sees no map pointers of its caller: it looks up
 * this CPU's walk state, stack and memos again (array lookups, a few ns).
 */
__noinline int ku_memo_try_step(__u32 i)
{
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	struct ku_walk_ctx w = {};

	w.s = bpf_map_lookup_elem(&stack_scratch, &zero);
	w.st = bpf_map_lookup_elem(&ku_scratch, &zero);
	w.mc = bpf_map_lookup_elem(&ku_memos, &cpu);
	w.stats = bpf_map_lookup_elem(&ku_stats, &zero);
	if (!w.s || !w.st || !w.mc || !w.stats)
		return 0;
	w.rec = &w.mc->memo[w.st->rec_slot & (KU_MEMOS - 1)];
	return ku_memo_try(&w, i);
}

/* A walk reached the outermost frame (through the tables, or partly from a memo): its record
 * of depth frames is the thread's newest memo now, with id, its stack's id in `stacks`. */
static __always_inline void ku_memo_commit(__u32 cpu, __s32 id, __u32 depth)
{
	__u32 zero = 0;
	struct ku_state *st = bpf_map_lookup_elem(&ku_scratch, &zero);
	struct ku_memo_cpu *mc = bpf_map_lookup_elem(&ku_memos, &cpu);
	struct ku_memo *rec;

	if (!st || !mc || !st->rec_ok || st->stop != KU_END || st->reuse_id >= 0 || id < 0 ||
	    depth > KU_MEMO_FRAMES || st->nw > KU_MEMO_WORDS)
		return;
	rec = &mc->memo[st->rec_slot & (KU_MEMOS - 1)];
	rec->start_time = st->start_time;
	rec->tid = st->tid;
	rec->gen = st->gen;
	rec->depth = depth;
	rec->words = st->nw;
	rec->stack_id = id;
	rec->dep_lo = st->dep_lo;
	rec->dep_hi = st->dep_hi;
	rec->whi = st->whi;
	mc->tag[st->rec_slot & (KU_MEMOS - 1)] = st->tag;
	mc->cur = st->rec_slot;
}

#endif /* UNWIND_MEMO_BPF_H */

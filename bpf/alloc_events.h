/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one header shared by the BPF programs (bpf/alloc.bpf.c) and userspace (user/).
 *
 * Rules (see STYLE.md, "The BPF/user ABI"):
 *  - fixed-width types only, no pointers, no bool/long, explicit padding;
 *  - every ring-buffer record begins with a __u32 `type` (enum event_type);
 *  - userspace _Static_asserts each record's size (user/util/events.h).
 *
 * Records arrive in one ring buffer, so the collector sees them in the order they were
 * reserved: allocations, frees, reallocs and window marks interleave exactly as they happened.
 */
#ifndef ALLOC_EVENTS_H
#define ALLOC_EVENTS_H

#ifdef __BPF__
/* BPF side: the types come from linux/types.h via the BPF program's includes. */
#else
#include <linux/types.h>
#endif

#include "python_abi.h"

#define WINDOW_NAME_LEN 32

/*
 * The attach cookie of every allocator probe, set by the loader and read by the programs:
 *   bits  0..7   enum alloc_fn
 *   bits  8..15  bytes the function pushed before the probe site (entry SP = SP + this)
 *   bits 16..31  offset of the probe site from the function's entry
 *   bit  32      realloc of a glibc whose code the loader checked (COOKIE_GLIBC_REALLOC:
 *                bpf/alloc.bpf.c's glibc_realloc_skippable())
 * Entry probes of functions without a return probe (free) sit on the first instruction the
 * kernel emulates rather than single-steps, after the prologue's NULL test (user/x86_prologue.h).
 */
#define COOKIE_SP_ADJ_MAX   0xffu
#define COOKIE_SITE_OFF_MAX 0xffffu
#define COOKIE_ENCODE(fn, sp_adj, site_off)                                                        \
	((__u64)((fn)&0xff) | (__u64)((sp_adj)&COOKIE_SP_ADJ_MAX) << 8 |                           \
	 (__u64)((site_off)&COOKIE_SITE_OFF_MAX) << 16)
#define COOKIE_FN(c)	   ((__u32)(c)&0xff)
#define COOKIE_SP_ADJ(c)   (((c) >> 8) & COOKIE_SP_ADJ_MAX)
#define COOKIE_SITE_OFF(c) (((c) >> 16) & COOKIE_SITE_OFF_MAX)
#define COOKIE_GLIBC_REALLOC_BIT (1ull << 32)
/* A pymalloc site's cookie (FN_PY_SITE_*, user/trace/py_sites.h) instead:
 *   bits  0..7   enum alloc_fn
 *   bits  8..11  the register holding the value (x86 encoding: 0 rax .. 15 r15)
 *   bit  12      its low 32 bits only;  bit 13: the value is the immediate instead
 *   bits 16..31  the immediate (a constant request size)
 *   bits 32..63  usedpools' address (a non-PIE executable's: below 4 GiB) */
#define PY_SITE_COOKIE(fn, reg, low32, is_imm, imm, usedpools)                                   \
	((__u64)((fn)&0xff) | (__u64)((reg)&0xf) << 8 | (__u64)((low32) ? 1 : 0) << 12 |          \
	 (__u64)((is_imm) ? 1 : 0) << 13 | (__u64)((imm)&0xffff) << 16 | (__u64)(usedpools) << 32)
#define PY_SITE_REG(c)	     (((c) >> 8) & 0xf)
#define PY_SITE_LOW32(c)     (((c) >> 12) & 1)
#define PY_SITE_IS_IMM(c)    (((c) >> 13) & 1)
#define PY_SITE_IMM(c)	     (((c) >> 16) & 0xffff)
#define PY_SITE_USEDPOOLS(c) ((c) >> 32)
#define COOKIE_GLIBC_REALLOC(c)	 (((c)&COOKIE_GLIBC_REALLOC_BIT) != 0)

/*
 * Frames kept per user stack, PC included: the BPF frame-pointer walk, the DWARF unwinder
 * and every userspace stack buffer stop here (deeper stacks are cut, counted as truncated).
 */
#define STACK_MAX_DEPTH 127

/*
 * A value of the BPF `stacks` hash map (frame-pointer mode), keyed by alloc_event.stack_id
 * and read back by loader__stack(). 1 KiB: memory is paid per distinct stack.
 */
struct stack_val {
	__u32 depth; /* frames in ips */
	__u32 pad;
	__u64 ips[STACK_MAX_DEPTH]; /* return addresses, innermost first */
};

/*
 * The ids of `stacks` are hashes masked to 30 bits. With --unwind kernel the records that
 * went as snapshots (tables that could not serve) get userspace-interned ids, told apart by
 * STACK_ID_USER_TAG (user/run/run_output.c's stack source): one run, two id spaces.
 */
#define STACK_ID_BPF_MASK  0x3fffffff
#define STACK_ID_USER_TAG  0x40000000

/* Which allocator entry point produced a record (named by alloc_fn_name(), user/util/events.h). */
enum alloc_fn {
	FN_MALLOC = 0,
	FN_CALLOC,
	FN_REALLOC,
	FN_REALLOCARRAY,
	FN_FREE,
	FN_POSIX_MEMALIGN,
	FN_ALIGNED_ALLOC,
	FN_MEMALIGN,
	FN_VALLOC,
	FN_PVALLOC,
	/* libc helpers built without frame pointers: probed as allocation entry points so the
	 * block is charged to *their* caller with a complete stack (outermost-call rule). */
	FN_STRDUP,
	FN_STRNDUP,
	FN_ASPRINTF,
	FN_VASPRINTF,
	FN_GETLINE,
	FN_GETDELIM,
	FN_OPEN_MEMSTREAM,
	/* Rust's allocator shims (the executable's #[global_allocator] or System), probed when
	 * the executable defines them: primitives whose block is the shim's, so a prefixed
	 * allocator behind them (mi_malloc, _rjem_mallocx) is traced too. Arguments:
	 *   __rust_alloc(size, align), __rust_alloc_zeroed(size, align)   like malloc
	 *   __rust_dealloc(ptr, size, align)                              like free, with a return
	 *   __rust_realloc(ptr, old_size, align, new_size)                like realloc(ptr, new_size)
	 * A malloc/free made by the shim is nested (outermost-call rule): counted once. */
	FN_RUST_ALLOC,
	FN_RUST_DEALLOC,
	FN_RUST_REALLOC,
	FN_RUST_ALLOC_ZEROED,
	/* C++'s replaceable operator new/delete (Itanium names), probed where they resolve:
	 * libstdc++'s call malloc/free (nested then), jemalloc's, mimalloc's and tcmalloc's do
	 * not. new(size, ...): like malloc. delete(ptr, ...): like __rust_dealloc (a return probe,
	 * the free record at the return, so a free it makes is nested); delete(NULL) is dropped. */
	FN_CXX_NEW,			    /* _Znwm */
	FN_CXX_NEW_ARRAY,		    /* _Znam */
	FN_CXX_NEW_NOTHROW,		    /* _ZnwmRKSt9nothrow_t */
	FN_CXX_NEW_ARRAY_NOTHROW,	    /* _ZnamRKSt9nothrow_t */
	FN_CXX_NEW_ALIGNED,		    /* _ZnwmSt11align_val_t */
	FN_CXX_NEW_ARRAY_ALIGNED,	    /* _ZnamSt11align_val_t */
	FN_CXX_NEW_ALIGNED_NOTHROW,	    /* _ZnwmSt11align_val_tRKSt9nothrow_t */
	FN_CXX_NEW_ARRAY_ALIGNED_NOTHROW,   /* _ZnamSt11align_val_tRKSt9nothrow_t */
	FN_CXX_DELETE,			    /* _ZdlPv */
	FN_CXX_DELETE_ARRAY,		    /* _ZdaPv */
	FN_CXX_DELETE_SIZED,		    /* _ZdlPvm */
	FN_CXX_DELETE_ARRAY_SIZED,	    /* _ZdaPvm */
	FN_CXX_DELETE_ALIGNED,		    /* _ZdlPvSt11align_val_t */
	FN_CXX_DELETE_ARRAY_ALIGNED,	    /* _ZdaPvSt11align_val_t */
	FN_CXX_DELETE_SIZED_ALIGNED,	    /* _ZdlPvmSt11align_val_t */
	FN_CXX_DELETE_ARRAY_SIZED_ALIGNED,  /* _ZdaPvmSt11align_val_t */
	FN_CXX_DELETE_NOTHROW,		    /* _ZdlPvRKSt9nothrow_t */
	FN_CXX_DELETE_ARRAY_NOTHROW,	    /* _ZdaPvRKSt9nothrow_t */
	FN_CXX_DELETE_ALIGNED_NOTHROW,	    /* _ZdlPvSt11align_val_tRKSt9nothrow_t */
	FN_CXX_DELETE_ARRAY_ALIGNED_NOTHROW, /* _ZdaPvSt11align_val_tRKSt9nothrow_t */
	/* CPython's allocator domains (issue #32), probed in the interpreter's image (the
	 * python3.N executable or libpython3.N.so) unless --no-python. Primitives: pymalloc
	 * serves small requests from its arenas without calling malloc, and hands larger ones
	 * to malloc, which is then nested (outermost-call rule): each block counted once.
	 *   Py*_Malloc(n), Py*_Calloc(m, s)   like malloc, calloc
	 *   Py*_Realloc(p, n)                 like realloc, but n == 0 keeps a block (CPython
	 *                                     asks for 1 byte): recorded as a 1-byte realloc
	 *   Py*_Free(p)                       like __rust_dealloc: the free at its return */
	FN_PY_OBJ_MALLOC,	/* PyObject_Malloc */
	FN_PY_OBJ_CALLOC,	/* PyObject_Calloc */
	FN_PY_OBJ_REALLOC,	/* PyObject_Realloc */
	FN_PY_OBJ_FREE,		/* PyObject_Free */
	FN_PY_MEM_MALLOC,	/* PyMem_Malloc */
	FN_PY_MEM_CALLOC,	/* PyMem_Calloc */
	FN_PY_MEM_REALLOC,	/* PyMem_Realloc */
	FN_PY_MEM_FREE,		/* PyMem_Free */
	/* pymalloc copied into its callers by an LTO build (user/trace/py_sites.h): one
	 * entry-only probe per inlined copy, no symbol of its own. The site's cookie says where
	 * the size or pointer is (PY_SITE_COOKIE); the block is read from pymalloc's pools.
	 * An empty pool's block comes from allocate_from_new_pool, probed like malloc(n) with
	 * the n the site left pending (bpf/py_sites.bpf.h). */
	FN_PY_SITE_MALLOC,	/* an inlined _PyObject_Malloc */
	FN_PY_SITE_FREE,	/* an inlined _PyObject_Free */
	FN_PY_NEW_POOL,		/* allocate_from_new_pool (static, found by py_sites) */
	FN_COUNT,
};

/* Groups of enum alloc_fn with one argument layout (see above). */
#define FN_IS_CXX_NEW(fn)    ((fn) >= FN_CXX_NEW && (fn) <= FN_CXX_NEW_ARRAY_ALIGNED_NOTHROW)
#define FN_IS_CXX_DELETE(fn) ((fn) >= FN_CXX_DELETE && (fn) <= FN_CXX_DELETE_ARRAY_ALIGNED_NOTHROW)
#define FN_IS_PY(fn)	     ((fn) >= FN_PY_OBJ_MALLOC && (fn) <= FN_PY_NEW_POOL)
#define FN_IS_PY_SITE(fn)    ((fn) == FN_PY_SITE_MALLOC || (fn) == FN_PY_SITE_FREE)
#define FN_IS_PY_MALLOC(fn)  ((fn) == FN_PY_OBJ_MALLOC || (fn) == FN_PY_MEM_MALLOC)
#define FN_IS_PY_CALLOC(fn)  ((fn) == FN_PY_OBJ_CALLOC || (fn) == FN_PY_MEM_CALLOC)
#define FN_IS_PY_REALLOC(fn) ((fn) == FN_PY_OBJ_REALLOC || (fn) == FN_PY_MEM_REALLOC)
#define FN_IS_PY_FREE(fn)    ((fn) == FN_PY_OBJ_FREE || (fn) == FN_PY_MEM_FREE)
/* Frees recorded at their return (the free they make is nested). */
#define FN_IS_FREE_AT_RETURN(fn) ((fn) == FN_RUST_DEALLOC || FN_IS_CXX_DELETE(fn) || FN_IS_PY_FREE(fn))

enum event_type {
	EV_ALLOC = 1,	     /* a new block: addr, size, stack_id (sampled: old_addr, below) */
	EV_FREE = 2,	     /* addr freed (never NULL: free(NULL) is dropped in BPF) */
	EV_REALLOC = 3,	     /* old_addr -> addr, new size; old_addr != 0 and size != 0 */
	EV_WINDOW_BEGIN = 4, /* struct window_event: the measurement window opens */
	EV_WINDOW_END = 5,   /* struct window_event: the measurement window closes */
	EV_STACK_SNAPSHOT = 6, /* --unwind dwarf: an EV_ALLOC/EV_REALLOC carrying a stack copy
				* to unwind in userspace (struct stack_snapshot, below) */
	EV_PROC_FORK = 7,  /* struct proc_event: a traced process forked a new traced one */
	EV_PROC_EXEC = 8,  /* struct proc_event: a traced process exec'd a new image */
	EV_PROC_EXIT = 9,  /* struct proc_event: the last thread of a traced process exited */
	EV_DEATH = 10,	       /* struct death_event: a traced process ended (bpf/death.bpf.c) */
	EV_MAPPING = 11,       /* struct mapping_event + stack: mmap/munmap/mremap/brk of a
				* traced process (bpf/mappings.bpf.c) */
};

/* EV_ALLOC, EV_FREE, EV_REALLOC. */
struct alloc_event {
	__u32 type;	 /* enum event_type */
	__u32 tid;	 /* kernel thread id of the caller */
	__u64 ts_ns;	 /* bpf_ktime_get_ns() at the probe (CLOCK_MONOTONIC) */
	__u64 addr;	 /* block address: new block (ALLOC/REALLOC) or freed block (FREE) */
	__u64 old_addr;	 /* REALLOC: the block that was resized; ALLOC with --sample-bytes:
			  * the block a realloc grew it from, one sampling did not keep;
			  * 0 otherwise */
	__u64 size;	 /* requested bytes (calloc: nmemb*size); 0 for FREE, but with
			  * --sample-bytes the new size of a realloc that ended the block into
			  * one sampling did not keep */
	__s32 stack_id;	 /* `stacks` map key (struct stack_val), STACK_ID_SNAPSHOT, or -errno */
	__u32 fn;	 /* enum alloc_fn: the outermost allocator function called */
	__u32 tgid;	 /* process (thread group) of the caller: which profile it goes to */
	__u32 py_stack;	 /* EV_ALLOC/EV_REALLOC of a CPython process: `py_stacks` map key of
			  * the thread's Python frames at the allocation (python.bpf.h), 0 for
			  * none; 0 on every other record */
};

/*
 * EV_STACK_SNAPSHOT (only with the rodata flag unwind_dwarf): one variable-length record,
 *
 *	struct alloc_event	type = EV_STACK_SNAPSHOT, stack_id = STACK_ID_SNAPSHOT,
 *				every other field as in the EV_ALLOC/EV_REALLOC it stands for
 *	struct stack_snapshot	the real type, the user registers at the return probe
 *	__u8 stack[stack_len]	a copy of the user stack from sp upwards
 *
 * sent with bpf_ringbuf_output() of exactly that length (never a fixed maximum). Userspace
 * unwinds the copy with the modules' CFI (user/stacks/unwind.h), interns the PC list and hands the
 * collector a plain alloc_event of type ev_type whose stack_id is the interned id, so
 * nothing after the record callback knows how the stack was taken.
 *
 * The registers are the CALLER's (the probe is the allocator's return): ip is the return
 * address into the caller, like ips[0] of a frame-pointer stack.
 */
#define STACK_ID_SNAPSHOT  (-0x7ffffff0) /* alloc_event.stack_id of an EV_STACK_SNAPSHOT */
#define SNAPSHOT_STACK_MAX (64u << 10)	 /* largest stack copy (tracer --stack-size) */

/* stack_snapshot.flags. SNAP_F_SHORT: the copy stopped at the end of the readable stack
 * (a thread stack's mapping) before the requested size. */
#define SNAP_F_SHORT	    0x1
#define SNAP_F_CALLEE_SAVED 0x2 /* rbx and r12-r15 hold the probe's values */
#define SNAP_F_SPARSE	    0x4 /* the record carries only the hinted words (below) */

struct stack_snapshot {
	__u32 ev_type;	 /* EV_ALLOC or EV_REALLOC: the record's type once unwound */
	__u32 stack_len; /* bytes of stack following this header, copied from sp */
	__u32 flags;	 /* SNAP_F_* */
	__u32 pad;
	__u64 ip;		       /* pt_regs ip: return address into the allocator's caller */
	__u64 sp;		       /* pt_regs sp: address of the first copied byte */
	__u64 bp;		       /* rbp (frame pointer or plain register) */
	__u64 rbx, r12, r13, r14, r15; /* callee-saved registers (SNAP_F_CALLEE_SAVED) */
	__u64 hint_dist; /* mm->start_stack - sp (0 without an mm): with ip, the hint's key */
	__u32 n_words;	 /* SNAP_F_SPARSE: words in the record */
	__u32 pad2;
};

/*
 * Stack hints (issue #18: the stack copy dominated --unwind dwarf's cost per allocation: a
 * 6 KiB copy into the ring buffer took ~0.7 us of the target's time per malloc in sed).
 *
 * The unwinder reads only a few words of a copy: each frame's return address and saved
 * registers. Once userspace has unwound a dense copy taken at a call site, it stores in
 * snap_hints, under (tgid, ip, hint_dist), the offsets of the words it read, and among
 * them the words that steered the unwind (return addresses and CFA bases loaded from the
 * stack) with the values they had. A later snapshot with that key whose steering words
 * (and rbp, if it was a CFA base) hold those values takes the same path through the same
 * frames, so it reads exactly the hinted words: it is sent sparse, after the header
 * __u16 offs[n_words] (word indexes from sp, SNAP_WORD_ABSENT past the copy) and at
 * SNAP_SPARSE_WORDS_AT __u64 words[n_words]; stack_len still says how many bytes were
 * copied. Any other value and the snapshot is sent dense, as without hints
 * (snapshot_counters.hint_mismatches), and its unwind becomes one of the key's hints.
 *
 * The check makes a sparse copy unwind to the very stack the dense one would; exactness
 * rests on what follows it: a read that still falls on a word not sent fails, the stack is
 * cut before the frame that needed it (a prefix of the dense stack), and the miss is counted
 * (dwarf_stacks_stats.hint_misses). docs/DESIGN.md, "Stack hints", has the argument.
 */
/* Copies shorter than this go dense: picking ~60 words out of a hint costs the target
 * ~200 ns, what writing ~1.7 KiB to the ring costs (jq, whose copies average 1.1 KiB, was
 * 11% slower with every copy hinted; sed's 6 KiB ones 20% faster). */
#define SNAP_SPARSE_MIN	 2048
#define SNAP_HINT_MAX	 128	/* words per hint */
#define SNAP_CTL_MAX	 64	/* steering words per hint */
#define SNAP_WORD_ABSENT 0xffff /* offs[] entry of a hinted word past the copy */
#define SNAP_HINTS_MAX	 16384	/* keys in snap_hints */

/* Paths kept per (tgid, ip, dist), tried in turn: a function called from a few places at
 * one depth (a regex matcher under several callers) keeps a hint for each. */
#define SNAP_HINT_VARIANTS 4

struct snap_hint_key {
	__u64 ip;   /* stack_snapshot.ip: the return address into the allocator's caller */
	__u64 dist; /* stack_snapshot.hint_dist */
	__u32 tgid;
	__u32 variant; /* 0 .. SNAP_HINT_VARIANTS - 1, filled from 0 without gaps */
};

struct snap_hint {
	__u32 n;		   /* words, <= SNAP_HINT_MAX */
	__u32 n_ctl;		   /* steering words, <= SNAP_CTL_MAX */
	__u32 check_bp;		   /* rbp must equal bp */
	__u32 pad;
	__u64 bp;
	__u16 off[SNAP_HINT_MAX]; /* word indexes from sp, ascending */
	__u16 ctl[SNAP_CTL_MAX];  /* steering word indexes from sp */
	__u64 expect[SNAP_CTL_MAX]; /* their values */
};

/* A sparse snapshot's payload: offs at 0, words at SNAP_SPARSE_WORDS_AT (a fixed place:
 * the record is reserved at its largest size, 1432 bytes of ring whatever n is; the bytes
 * not written cost no copying, only ring space). */
#define SNAP_SPARSE_WORDS_AT (SNAP_HINT_MAX * 2u)
#define SNAP_SPARSE_BYTES(n) (SNAP_SPARSE_WORDS_AT + (n) * 8u)

/* EV_WINDOW_BEGIN, EV_WINDOW_END: from the workload driver's USDT probes or from
 * --start-at/--stop-at uprobes. */
struct window_event {
	__u32 type;			/* enum event_type */
	__u32 tid;			/* thread that crossed the mark */
	__u64 ts_ns;			/* bpf_ktime_get_ns() */
	__u64 iterations;		/* measured iterations announced by the driver (0 if none) */
	char name[WINDOW_NAME_LEN];	/* workload name, NUL-terminated (may be truncated) */
	__u32 tgid;			/* process that crossed the mark */
	__u32 pad;
};

/*
 * EV_PROC_FORK, EV_PROC_EXEC, EV_PROC_EXIT: the life of the traced processes, from the
 * sched_process_{fork,exec,exit} tracepoints (only when following process trees). They go
 * through the same ring as the allocator records, so a process's records all lie between
 * its FORK (or EXEC) and its next EXEC or EXIT: userspace opens and closes one profile per
 * process image at exactly those points of the stream.
 *   FORK  tgid = the child, parent_tgid = the traced parent (the child runs its image)
 *   EXEC  tgid = the process, filename = the path given to execve (bprm->filename)
 *   EXIT  tgid = the process; its last thread is gone, no record of it follows
 */
#define PROC_FILENAME_LEN 256
#define PROC_COMM_LEN	  16

struct proc_event {
	__u32 type;	   /* enum event_type */
	__u32 tgid;	   /* the process */
	__u64 ts_ns;	   /* bpf_ktime_get_ns() */
	__u32 parent_tgid; /* FORK: the process that forked; 0 otherwise */
	__u32 pad;
	char comm[PROC_COMM_LEN];	  /* the task's comm at the event, NUL-terminated */
	char filename[PROC_FILENAME_LEN]; /* EXEC: the new image's path; "" otherwise */
};

/*
 * Counters kept by BPF in a global (.bss) and read by userspace during the run and at exit.
 * Every event that does not reach the collector intact is counted here.
 */
struct probe_counters {
	__u64 events;		  /* records submitted to the ring buffer */
	__u64 dropped;		  /* ring buffer full: record lost */
	__u64 stack_failures;	  /* no stack id (stacks map full, 4 ids taken by other stacks,
				   * scratch missing): stack_id < 0 */
	__u64 unmatched_returns;  /* a uretprobe fired with no entry recorded for its thread */
	__u64 entry_overflow;	  /* entry could not be stored (inflight map full) */
	__u64 nested_calls;	  /* allocator calls made by another allocator call: not counted */
	__u64 untraced_procs;	  /* a traced process forked one that could not be followed
				   * (process table map full) */
};

/*
 * Python frames (bpf/python.bpf.h, issue #32): a value of the `py_stacks` hash map, keyed
 * by alloc_event.py_stack (a hash of the frames, never 0), read back by loader__py_stack().
 */
struct py_stack_val {
	__u32 depth; /* frames in f, innermost first */
	__u32 flags; /* PY_STACK_F_* */
	struct py_frame f[PY_FRAMES_MAX];
};

#define PY_STACK_F_CUT 1u /* deeper than PY_FRAMES_MAX: the outermost frames are missing */

/* Every Python stack BPF could not take, by cause (a separate BPF global, like
 * snapshot_counters): the record then has native frames only (py_stack 0). */
struct py_counters {
	__u64 stacks;	     /* allocations of a CPython thread with Python frames recorded */
	__u64 no_tstate;     /* the thread's PyThreadState not found (not a Python thread,
			      * interpreter not initialised or finalising, > PY_THREADS_MAX) */
	__u64 read_failed;   /* a read of the interpreter's memory failed mid-walk */
	__u64 cut;	     /* stacks cut at PY_FRAMES_MAX (recorded, PY_STACK_F_CUT) */
	__u64 map_full;	     /* py_stacks full (or 4 ids taken by other stacks) */
	__u64 no_frame;	     /* a Python thread with no frame running (C code only) */
	/* pymalloc's inlined copies (FN_PY_SITE_*, bpf/py_sites.bpf.h) */
	__u64 site_allocs;   /* blocks read from a pool at an inlined site */
	__u64 site_new_pool; /* ... from an empty pool: left to allocate_from_new_pool */
	__u64 site_lost;     /* a pool that could not be read: the block is not seen */
};

/*
 * Benchmark only (bench-trace --cut): parts of the probes' work left out, to measure what
 * each costs against the no-op floor (workloads/bench/run.sh, "Where the time goes").
 */
enum bench_cut {
	BENCH_CUT_NONE = 0,    /* the tracer's full work */
	BENCH_CUT_STACKS = 1,  /* records sent without a stack walk (stack_id -ENOENT) */
	BENCH_CUT_RECORDS = 2, /* per-thread call state only: no stack, no record */
	BENCH_CUT_WALK = 3,    /* full work, but the stack is the PC alone: no frame walk */
	/* Full work, but records are staged per CPU and sent BENCH_RING_BATCH to one ring
	 * record: what the ring's per-record reservation costs. The stream is for counting
	 * only (a batch has no order across CPUs and no reader). */
	BENCH_CUT_RING = 4,
};

#define BENCH_RING_BATCH 32

/*
 * Benchmark only (bench-trace --noop, --noop-entry): the probe floors. SITES: the tracer's
 * own probe sites, links and mode, every program returning at once. ENTRY: entry probes
 * only, no return probe at all (session uprobes skip it, the fallback attaches none): what
 * a malloc/free pair costs when only its entry and free trap, the limit of uprobes.
 */
enum bench_noop {
	BENCH_NOOP_OFF = 0,
	BENCH_NOOP_SITES = 1,
	BENCH_NOOP_ENTRY = 2,
};

/*
 * --unwind dwarf counters, a separate BPF global so struct probe_counters stays as it is.
 */
struct snapshot_counters {
	__u64 snapshots;     /* EV_STACK_SNAPSHOT records submitted */
	__u64 copy_failures; /* no byte of the stack could be read: sent with stack_id < 0 */
	__u64 short_copies;  /* copies cut by the end of the readable stack (SNAP_F_SHORT) */
	__u64 scratch_busy;  /* per-CPU scratch in use by a preempted probe: stack_id < 0 */
	__u64 copied_bytes;  /* stack bytes sent, summed (a sparse record: its words) */
	__u64 sparse;	     /* snapshots sent sparse (SNAP_F_SPARSE) */
	__u64 hint_mismatches; /* snapshots with a hint whose steering words differed: dense */
};

/*
 * --sample-bytes counters (bpf/sampling.bpf.h), a separate BPF global like snapshot_counters.
 */
struct sample_counters {
	__u64 sampled;	/* blocks sampled (their address kept until their free) */
	__u64 skipped;	/* outermost allocator calls that sent nothing: not sampled */
	__u64 overflow; /* sampled blocks dropped: the sampled_blocks map was full */
};
/* sampled and skipped are counted per CPU, in the BPF map sample_percpu at these keys. */
#define SAMPLE_PERCPU_SAMPLED 0
#define SAMPLE_PERCPU_SKIPPED 1

/*
 * EV_DEATH: the last thread of a traced process (tgid) ran do_exit. Sent by bpf/death.bpf.c
 * from sched_process_exit, with what the kernel said on the way there: the fatal signal
 * (signal_deliver, with the faulting address of SIGSEGV/SIGBUS/SIGILL/SIGFPE) and an OOM kill
 * (mark_victim, with the memory cgroup whose limit was reached, its limit and usage).
 * Userspace decides the cause (user/dhat/dhat_death.h) from exit_code and the flags.
 */
#define DEATH_CGROUP_LEN 64

#define DEATH_F_SIGNAL	    0x1 /* signo/si_code/fault_addr: the last signal delivered */
#define DEATH_F_OOM	    0x2 /* oom:mark_victim: the OOM killer chose this process */
#define DEATH_F_OOM_MEMCG   0x4 /* the kill was a memory cgroup's: oom_cgroup, limit, usage */
#define DEATH_F_OOM_GLOBAL  0x8 /* no cgroup was at its limit: a system-wide OOM */
#define DEATH_F_FAULT_ADDR 0x10 /* fault_addr is the signal's si_addr */
#define DEATH_F_RSS	   0x20 /* rss_*: the process's RSS when it died (the OOM kill's
				 * moment for an OOM kill, before the reaper freed anything) */

struct death_event {
	__u32 type;	  /* EV_DEATH */
	__u32 tgid;	  /* the process that ended */
	__u64 ts_ns;	  /* bpf_ktime_get_ns() at sched_process_exit of its last thread */
	__s32 exit_code;  /* task exit_code, a wait status: signal in bits 0..6, 0x80 core
			   * dumped, exit status in bits 8..15 */
	__u32 flags;	  /* DEATH_F_* */
	__s32 signo;	  /* DEATH_F_SIGNAL: the signal */
	__s32 si_code;	  /* DEATH_F_SIGNAL: its si_code (SEGV_MAPERR, SI_KERNEL, ...) */
	__u64 fault_addr; /* DEATH_F_FAULT_ADDR: si_addr */
	__u64 oom_limit;  /* DEATH_F_OOM_MEMCG: the cgroup's limit, bytes */
	__u64 oom_usage;  /* DEATH_F_OOM_MEMCG: the cgroup's usage at the kill, bytes */
	char oom_cgroup[DEATH_CGROUP_LEN]; /* DEATH_F_OOM_MEMCG: the cgroup's name (last path
					    * component), NUL-terminated, may be cut */
	__u64 rss_anon;	 /* DEATH_F_RSS: bytes, from mm->rss_stat (per-CPU counters summed
			  * lazily by the kernel: off by a few pages at most) */
	__u64 rss_file;
	__u64 rss_shmem;
	__u64 swap;	 /* DEATH_F_RSS: swap entries, bytes */
};

/*
 * EV_MAPPING: a traced process changed its anonymous memory map with a system call (at the
 * call's return, successful calls only), from bpf/mappings.bpf.c. One variable-length record:
 *
 *	struct mapping_event	what changed
 *	struct stack_snapshot	the user registers at the system call (ev_type = EV_MAPPING)
 *	__u8 stack[stack_len]	a copy of the user stack from sp upwards (0 bytes for munmap)
 *
 * unwound in userspace like an --unwind dwarf allocation (user/stacks/unwind.h). Brk moves
 * are written as mappings: a growth maps [old break, new break), a shrink unmaps the tail.
 */
enum mapping_op {
	MAP_OP_MMAP = 1,   /* addr, len: a new anonymous mapping */
	MAP_OP_MUNMAP = 2, /* addr, len: unmapped (any part of any mappings) */
	MAP_OP_MREMAP = 3, /* old_addr, old_len -> addr, len */
	MAP_OP_BRK = 4,	   /* old_addr (the break before) -> addr (the break after) */
};

#define MAPPING_STACK_COPY 8192u /* bytes of user stack copied per mapping record */

struct mapping_event {
	__u32 type;	 /* EV_MAPPING */
	__u32 tid;	 /* the calling thread */
	__u64 ts_ns;	 /* bpf_ktime_get_ns() at the system call's return */
	__u32 tgid;	 /* its process */
	__u32 op;	 /* enum mapping_op */
	__u64 addr;	 /* see enum mapping_op */
	__u64 len;
	__u64 old_addr;
	__u64 old_len;
	__u64 flags;	 /* MMAP: the mmap flags (MAP_STACK for thread stacks, ...) */
};

#endif /* ALLOC_EVENTS_H */

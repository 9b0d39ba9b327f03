/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The BPF/user ABI of in-kernel unwinding (--unwind kernel, issue #33).
 *
 * user/stacks/cfi_table.c compiles a module's .eh_frame (or .debug_frame) into rows sorted by
 * PC; the loader copies each module's rows once into the `unwind_rows` array map (shared by
 * every process that maps the same build-id) and describes each traced process's executable
 * mappings in `unwind_maps` (sorted by start, binary-searched in BPF). BPF then unwinds at the
 * allocation: find the mapping of the PC, the row covering (PC - bias), compute the CFA, read
 * the return address at CFA - 8 and the caller's RBP by the row's rule, repeat.
 *
 * A row covers [pc, next row's pc). x86_64 only: the return address is always at CFA - 8
 * (the compiler's rule; an FDE with another RA rule compiles to UNWIND_CFA_UNSUPPORTED).
 * Fixed-width types only, explicit padding (STYLE.md, "The BPF/user ABI").
 */
#ifndef UNWIND_ABI_H
#define UNWIND_ABI_H

#ifdef __BPF__
#else
#include <linux/types.h>
#endif

enum unwind_cfa_rule {
	UNWIND_CFA_NONE = 0,	    /* no FDE covers this PC (a gap between FDEs): stop */
	UNWIND_CFA_RSP = 1,	    /* CFA = RSP + cfa_off */
	UNWIND_CFA_RBP = 2,	    /* CFA = RBP + cfa_off */
	UNWIND_CFA_PLT = 3,	    /* the PLT expression: CFA = RSP + cfa_off + ((RIP & 15) >= plt_ge ? 8 : 0) */
	UNWIND_CFA_END = 4,	    /* outermost frame (RA undefined, e.g. _start): the stack ends here */
	UNWIND_CFA_UNSUPPORTED = 5, /* a rule BPF cannot follow (other expressions, signal frames) */
};

enum unwind_rbp_rule {
	UNWIND_RBP_SAME = 0,	    /* RBP is unchanged in the caller */
	UNWIND_RBP_CFA_OFF = 1,	    /* the caller's RBP is saved at CFA + rbp_off */
	UNWIND_RBP_UNSUPPORTED = 2, /* any other rule: unwinding past this frame stops (counted) */
};

struct unwind_row {
	__u32 pc;      /* first PC covered, relative to the module's ELF virtual addresses */
	__u8 cfa_rule; /* enum unwind_cfa_rule */
	__u8 rbp_rule; /* enum unwind_rbp_rule */
	__s16 cfa_off;
	__s16 rbp_off;
	__u16 plt_ge;  /* UNWIND_CFA_PLT: the expression's threshold, 11 (lazy .plt) or 9 (IBT .plt,
			* -z ibtplt); 0 for other rules */
};

/* One executable mapping of a traced process, in `unwind_maps`' value (sorted by start). */
struct unwind_mapping {
	__u64 start, end; /* [start, end) in the process */
	__u64 bias;	  /* runtime address - ELF virtual address for this module */
	__u32 first_row;  /* the module's first row in `unwind_rows` */
	__u32 n_rows;	  /* 0: no table (unwinding stops there, counted) */
};

#define UNWIND_MAPPINGS_MAX 256 /* executable mappings described per process */

struct unwind_proc {
	__u32 n;   /* mappings in use */
	__u32 pad;
	struct unwind_mapping m[UNWIND_MAPPINGS_MAX];
};

/*
 * A module's table by file identity, for a PC in no described mapping (a library mapped
 * since userspace last read the maps: the ones ld.so maps after exec, dlopen): BPF finds the
 * PC's VMA (bpf_find_vma), keys `unwind_modules` with its file's device and inode, and the
 * ELF address is pc - vm_start + vm_pgoff * 4096 + vaddr_off. Userspace fills it for every
 * module it loads (at exec: the new image's whole lookup scope), before the process maps it.
 */
struct unwind_module_key {
	__u64 dev; /* the kernel's encoding (super_block.s_dev: major << 20 | minor) */
	__u64 ino;
};

struct unwind_module {
	__s64 vaddr_off;  /* p_vaddr - p_offset of the executable PT_LOAD segment */
	__u32 first_row;
	__u32 n_rows;	  /* 0: no table */
};

#define UNWIND_MODULES_MAX 8192 /* files in `unwind_modules` */

#define UNWIND_PROCS_MAX 4096 /* processes with an unwind_proc at once (`unwind_maps`) */

/*
 * --unwind kernel counters (bpf/unwind.bpf.h), a BPF global like snapshot_counters. Each
 * walk ends for exactly one reason (ends .. unsupported, no_proc aside); the last four send
 * the record as a snapshot instead.
 */
struct unwind_counters {
	__u64 unwinds;	     /* stacks unwound in BPF (stored in `stacks`) */
	__u64 frames;	     /* their frames, summed (PC included) */
	__u64 ends;	     /* walks that reached the outermost frame */
	__u64 depth_cuts;    /* walks cut at STACK_MAX_DEPTH */
	__u64 read_failures; /* walks cut at a stack word that could not be read */
	__u64 no_proc;	     /* walks of a process not described (yet): every module looked
			      * up through its VMA (not a stop) */
	__u64 no_mapping;    /* a PC in no described executable mapping */
	__u64 no_table;	     /* a PC in a module without rows */
	__u64 none_row;	     /* a PC no FDE covers */
	__u64 unsupported;   /* an UNSUPPORTED rule, or an RBP-based CFA with RBP unknown */
	__u64 fallbacks;     /* records sent as snapshots because of the four above */
	__u64 vma_lookups;   /* PCs in no described mapping found through their VMA's file */
	__u64 memo_hits;     /* walks finished from the thread's last walk (unwind_memo.bpf.h) */
	__u64 memo_frames;   /* the frames they took from it */
	__u64 memo_whole;    /* of memo_hits, the very stack of the memo (its id reused) */
	__u64 memo_span;     /* stack bytes read to check the memo's words, summed */
	__u64 memo_stale;    /* walks whose registers matched the memo's but a word it read
			      * had changed: walked on with the tables */
	__u64 vma_busy;	     /* of no_mapping: the PC's VMA not looked at, the memory map
			      * being changed (bpf_find_vma's trylock of mmap_lock failed) */
	__u64 vma_reused;    /* PCs in no described mapping served by a VMA found before
			      * (ku_vmas: no VMA lookup) */
};

#endif /* UNWIND_ABI_H */

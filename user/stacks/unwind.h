/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * unwind - DWARF CFI unwinding of user stacks captured by BPF, out of process.
 *
 * The frame-pointer walk in BPF (fp_walk() in alloc.bpf.c) loses every caller of code built
 * without frame pointers (Rust release builds, Debian's libc). Instead the probe captures the user
 * registers and a bounded copy of the user stack starting at SP; this module unwinds that
 * snapshot later with the .eh_frame / .debug_frame of each mapped module, through libdw's
 * dwfl frame API (dwfl_attach_state + dwfl_getthread_frames), the way perf does.
 *
 * Independent of the live process: /proc/PID/maps is read and every executable module is
 * opened when the unwinder is created (and on refresh), so unwinding works after the
 * target exited; memory reads are served from the copied stack only, never from the target.
 *
 * What the probe must capture (x86_64), per event:
 *	- pt_regs ip, sp, bp (required); rbx, r12-r15 (optional, has_callee_saved)
 *	- bpf_probe_read_user() of stack_len bytes from sp. 8 KiB covers typical allocation
 *	  paths (frames of tens to hundreds of bytes); deeper recursion or big stack buffers
 *	  give a shorter, still correct, list. Less than what was asked may be readable near
 *	  the top of the stack: send the length actually copied.
 *	- the tgid, to pick the unwinder (one per traced process).
 *
 * x86_64 only. Not thread-safe: one unwinder per thread.
 *
 * stack_table - hash-consing of PC lists into stable 32-bit ids, so the collector keys
 * program points by id exactly as it does with BPF stack ids.
 */
#ifndef TRACER_UNWIND_H
#define TRACER_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

/*
 * User registers at the probe (x86_64, from struct pt_regs of the uprobe).
 * ip, sp and bp are required. rbx and r12-r15 are callee-saved: they only matter when CFI
 * computes a CFA or a saved value from one of them (rare), so capture them when cheap and
 * set has_callee_saved; otherwise they are left undefined for libdw.
 */
struct unwind_regs {
	__u64 ip;		       /* instruction pointer at the probe (pt_regs->ip) */
	__u64 sp;		       /* stack pointer; the stack copy starts here */
	__u64 bp;		       /* rbp (a frame pointer or a plain register) */
	__u64 rbx, r12, r13, r14, r15; /* callee-saved, valid iff has_callee_saved */
	bool has_callee_saved;	       /* rbx, r12-r15 hold the probe's values */
};

struct unwinder;

/*
 * The load bias (runtime address - ELF virtual address) of the ELF file open at fd, mapped at
 * start from file offset off: from the PT_LOAD segment holding that offset (an executable one
 * starting there wins). Also the in-kernel unwinder's (user/trace/kunwind.c). 0 or -ENOEXEC.
 */
int unwind__load_bias(int fd, __u64 start, __u64 off, __u64 *bias);

/*
 * Unwinder for process pid: reads /proc/PID/maps now and opens every executable module
 * (through /proc/PID/root, or /proc/PID/map_files for deleted files; the vdso is copied).
 * NULL + errno on failure (ESRCH: no such process).
 */
struct unwinder *unwinder__new(pid_t pid);

/* Accepts NULL. Closes every module file. */
void unwinder__free(struct unwinder *u);

/*
 * Re-read /proc/PID/maps (after a dlopen). New mappings win; old ones that nothing replaced
 * stay known (dlclose'd libraries, exited process). Cheap when nothing changed.
 * 0 or -errno (-ESRCH once the process is gone; what was known still unwinds).
 */
int unwinder__refresh_maps(struct unwinder *u);

/*
 * Unwind one snapshot. regs are the registers at the probe; stack holds stack_len bytes
 * copied from [regs->sp, regs->sp + stack_len). Reads outside that copy fail, so a short
 * copy yields a shorter (partial) list, never a crash nor a read of the live process.
 *
 * Writes up to max PCs to ips, innermost first. ips[0] is regs->ip itself; every later
 * entry is a caller's RETURN ADDRESS exactly as found on the stack (not minus one): pass
 * them to symbolizer__frames() with is_return = true, which looks up ip - 1.
 * Stops at the outermost frame (return address undefined, e.g. below _start), at max, at a
 * memory read outside the copy, or at a PC outside every known module (reported as the last
 * entry; libdw's frame-pointer fallback is not used there, it yields garbage in code without
 * frame pointers). Such a PC first triggers a maps refresh (a dlopen since the last read;
 * throttled like the symbolizer's) and, if the maps changed, one more try.
 * Signal frames: a handler's return address is the first byte of the restorer
 * (__restore_rt), which symbolizes as "???" with is_return; the entry after it is the
 * interrupted PC itself, exact rather than a return address (the list does not say which).
 *
 * Returns the number of PCs written (>= 1 when max >= 1) or -errno (-EINVAL: bad args).
 */
int unwinder__unwind(struct unwinder *u, const struct unwind_regs *regs, const void *stack,
		     size_t stack_len, __u64 *ips, size_t max);

/* Reads of a dense unwind remembered for unwinder__last_reads, and steering words. */
#define UNWIND_READS_MAX 512
#define UNWIND_CTL_MAX	 64

/* A sparse stack copy: the words at sp + 8 * offs[i] of [sp, sp + stack_len), offs
 * strictly ascending (bpf/alloc_events.h, "Stack hints"). */
struct unwind_sparse {
	const __u16 *offs;
	const __u64 *words;
	size_t n;
};

/*
 * unwinder__unwind on a sparse copy. A read of a word inside [sp, sp + stack_len) that was
 * not sent fails; the list is then cut before the frame that read it (*missed = true):
 * what is returned is exactly a prefix of what the dense copy would have given.
 */
int unwinder__unwind_sparse(struct unwinder *u, const struct unwind_regs *regs,
			    size_t stack_len, const struct unwind_sparse *sparse, __u64 *ips,
			    size_t max, bool *missed);

/* What the last dense unwind read (word indexes from sp, unsorted, may repeat). */
struct unwind_reads {
	const __u16 *words; /* every word read successfully */
	size_t n;
	/* The words that steered it: return addresses and CFA bases, loaded from the stack.
	 * Another snapshot with the same ip and sp, the same values in these words (and the
	 * same rbp if need_bp) takes exactly the same path, so it reads exactly `words`. */
	const __u16 *steering;
	size_t n_steering;
	bool need_bp; /* the probe's rbp was a CFA base */
};

/*
 * The reads of the last unwinder__unwind (dense), borrowed until the next unwind: what a
 * sparse copy of the same path must carry (bpf/alloc_events.h, "Stack hints"). false when
 * the path cannot be vouched for by words (a read not a whole aligned word, too many reads
 * or steering words, a frame stepped by libdw, a probe register other than sp and rbp
 * steering it, an end at a PC in no known module) or after a sparse unwind.
 */
bool unwinder__last_reads(const struct unwinder *u, struct unwind_reads *out);

/*
 * Enable or disable the per-PC frame-rule cache (on by default). With it, a frame whose
 * libdw rule is the common "CFA = rsp/rbp + N, return address at CFA - 8" form is stepped
 * from the cached rule; anything else goes through libdw's full unwinder. Results are the
 * same either way; the switch exists for measuring and debugging.
 */
void unwinder__set_cache(struct unwinder *u, bool enabled);

/* Counters for reports and benchmarks. */
struct unwind_stats {
	__u64 unwind_cnt;    /* unwinder__unwind calls */
	__u64 frame_cnt;     /* PCs produced */
	__u64 cache_hit_cnt; /* frames stepped from the rule cache */
	__u64 libdw_cnt;     /* frames stepped by libdw */
	__u64 partial_cnt;   /* unwinds that stopped on an error (short copy, no CFI, ...) */
};

/* Copy the counters to *st. */
void unwinder__stats(const struct unwinder *u, struct unwind_stats *st);

struct stack_table;

/* Empty table. NULL + errno (ENOMEM) on failure. */
struct stack_table *stack_table__new(void);

/* Accepts NULL. */
void stack_table__free(struct stack_table *t);

/*
 * The id of the PC list ips[0..n): equal lists get the same id, different lists different
 * ids (hash collisions are resolved by comparing the lists). Ids count up from 0 in order
 * of first sight and stay valid until the table is freed. n may be 0.
 * Returns the id (>= 0) or -errno (-EINVAL, -ENOMEM, -E2BIG when ids run out).
 */
__s32 stack_table__intern(struct stack_table *t, const __u64 *ips, size_t n);

/*
 * The list of id: *ips (borrowed, valid until the next intern or free) and *n.
 * 0 or -ENOENT for an unknown id.
 */
int stack_table__get(const struct stack_table *t, __s32 id, const __u64 **ips, size_t *n);

/* Number of distinct lists interned. */
size_t stack_table__cnt(const struct stack_table *t);

#endif

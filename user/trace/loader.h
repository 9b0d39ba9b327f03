/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * loader - the only user of the BPF skeleton: opens alloc.bpf.o, sets rodata, loads it,
 * attaches the allocator uprobes/uretprobes (and the workload driver's USDT window probes)
 * to ONE target process, and hands ring-buffer records to a callback.
 */
#ifndef TRACER_LOADER_H
#define TRACER_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "alloc_symbols.h"
#include "events.h"
#include "kunwind.h"
#include "unwind_abi.h" /* the skeleton's .bss holds struct unwind_counters */

struct loader_opts {
	pid_t pid;		 /* target process (tgid); all of its threads are traced */
	const char *libc_path;	 /* allocator library (--lib); NULL: resolved (alloc_symbols.h) */
	const struct alloc_symbols *syms; /* resolved already (a command not exec'd yet);
					   * NULL: from pid and libc_path. Copied */
	const char *usdt_binary; /* binary carrying kaish_workload:window_* USDT probes, or NULL */
	bool window_gated;	 /* BPF drops allocator events while no window is open */
	size_t ringbuf_sz;	 /* ring buffer bytes (power of two, >= page size); 0: default */
	bool unwind_dwarf;	 /* send EV_STACK_SNAPSHOT records instead of BPF stack ids */
	__u32 stack_copy_sz;	 /* unwind_dwarf: stack bytes copied per event; 0: default */
	bool dense_stacks;	 /* unwind_dwarf: never sparse, whatever snap_hints holds */
	/* --unwind kernel: BPF unwinds with the modules' CFI tables (kunwind.h) into stack
	 * ids; a stack the tables cannot serve goes as an EV_STACK_SNAPSHOT (stack_copy_sz,
	 * dense_stacks apply to those). Not with unwind_dwarf. */
	bool unwind_kernel;
	const char *unwind_cache_dir; /* unwind_kernel: the tables' cache; NULL: none */
	bool unwind_held; /* unwind_kernel: pid has not exec'd yet (a held command): described
			   * at loader__unwind_add, not at attach (its maps are the tracer's) */
	bool noop;		 /* benchmark only: same probes, programs that only return 0 */
	bool noop_entry;	 /* with noop: entry probes only, no return probe (the floor
				  * of an allocation that needs no return; not with inherit) */
	__u32 bench_cut;	 /* benchmark only: enum bench_cut (alloc_events.h) */
	bool per_probe_links;	 /* one link per probe even where uprobe-multi links exist */
	bool paused;		 /* the programs stay silent until loader__resume (more probes
				  * sharing the ring are loaded meanwhile, nobody reads it yet) */
	/* Follow the process tree: every thread, fork, vfork and exec'd image of pid is
	 * traced, and the fork/exec/exit tracepoints announce them in the ring (struct
	 * proc_event). The probes: session links per process with hold_children, else
	 * inherited perf events (loader_inherit.h). */
	bool follow;
	/* Probes as inherited perf events even without follow: needed for more than one
	 * target (loader__add_process). */
	bool inherit;
	/* follow: the caller holds every process the tree creates at its birth, before its
	 * first instruction, and calls loader__add_child then (a spawned command under
	 * ptrace). The tree then gets session links per process instead of inherited probes. */
	bool hold_children;
	__u64 sample_bytes; /* --sample-bytes: mean bytes between sampled blocks; 0: every one */
	bool no_python;	    /* --no-python: CPython's allocator domains are not probed */
};

#define LOADER_DEFAULT_RINGBUF_SZ (16u << 20)
/* unwind_dwarf: records carry stack copies (hundreds of bytes to stack_copy_sz each). */
#define LOADER_DEFAULT_DWARF_RINGBUF_SZ (64u << 20)
#define LOADER_DEFAULT_STACK_COPY_SZ	8192u

/* Called for every ring-buffer record; data is borrowed for the call only.
 * A negative return stops the current poll and is returned by loader__poll(). */
typedef int (*loader_record_fn)(void *ctx, const void *data, size_t sz);

/* The smallest ring buffer opts can work with (dwarf: room for the largest stack copies);
 * 0 when any will do. Checked by loader__new too; callers check first to refuse it as a
 * usage error before anything is loaded. */
size_t loader__ringbuf_min(const struct loader_opts *opts);

/* Open, configure, load and attach. NULL + errno on failure, with the reason logged. */
struct loader *loader__new(const struct loader_opts *opts);
/*
 * Trace process pid too (another --pid target, a process of the cgroup): its calls become
 * records, and with follow what it creates too. The probes are the first target's
 * allocator's. Needs opts.inherit or opts.follow. Returns 0 or -errno (-ESRCH: gone).
 */
int loader__add_process(struct loader *l, pid_t pid);

/*
 * follow with opts.hold_children: pid was just born in the tree (a fork of parent) and waits
 * before its first instruction: it gets probes of its own, on the objects its parent is
 * probed in (the target's first objects if parent is unknown). 0 and nothing to do with
 * inherited probes, or when it has them already. Returns 0 or -errno.
 */
int loader__add_child(struct loader *l, pid_t pid, pid_t parent);

/* A process of the tree is gone (reaped): its own probes are closed (in the background). */
void loader__process_gone(struct loader *l, pid_t pid);

/* True if BPF traces process pid (a target, or followed from one). */
bool loader__is_traced(struct loader *l, pid_t pid);

/*
 * A process image whose allocator resolves to other objects than the probed ones (syms, as
 * alloc_symbols__for_exec gives them): probes on syms' objects, attached to process pid only
 * (and inherited by what it creates). Records name the functions the same way. Needs
 * opts.inherit or opts.follow. Returns 0 or -errno.
 */
int loader__attach_image(struct loader *l, pid_t pid, const struct alloc_symbols *syms);

/* Detach everything and free. Accepts NULL. */
void loader__free(struct loader *l);

/* Let the programs of a loader made with opts.paused work. */
void loader__resume(struct loader *l);

/* End of tracing: stop every program (from then on they return at once, so the stream and
 * the counters end consistently), detach every probe (the target stops paying for them),
 * hand the records submitted before that to fn, and unmap the ring buffer. The stacks map,
 * counters and function addresses stay readable for symbolization; loader__poll then
 * returns 0.
 * Records emitted into the ring by other objects (window_probes) must be stopped first.
 * Returns the number of records consumed, or -errno. Idempotent. */
int loader__stop(struct loader *l, loader_record_fn fn, void *ctx);

/* Wait up to timeout_ms for records, then consume every available record in order.
 * Returns the number of records consumed (0 after loader__stop), or -errno. */
int loader__poll(struct loader *l, int timeout_ms, loader_record_fn fn, void *ctx);

/* Snapshot of the BPF-side counters. */
void loader__counters(struct loader *l, struct probe_counters *out);

/* Snapshot of the --sample-bytes counters (all zero in exact mode). */
void loader__sample_counters(struct loader *l, struct sample_counters *out);

/*
 * --unwind kernel: describe process pid's executable mappings to BPF now (its modules'
 * tables loaded as needed), and keep it current through loader__unwind_refresh. At attach
 * for the first target; call it for every process traced later (fork, exec, --pid). 0,
 * -EOPNOTSUPP without unwind_kernel, -ESRCH (gone), or -errno.
 */
int loader__unwind_add(struct loader *l, pid_t pid);

/* pid exited: its description goes. */
void loader__unwind_forget(struct loader *l, pid_t pid);

/* Re-read the maps of every described process (a library mapped since: dlopen, or the ones
 * ld.so maps after exec). Also done by loader__poll when BPF met a PC in no described
 * mapping since the last look. */
void loader__unwind_refresh(struct loader *l);

/* Snapshot of the --unwind kernel counters: BPF's and the tables' (all zero otherwise). */
void loader__unwind_counters(struct loader *l, struct unwind_counters *bpf,
			     struct kunwind_stats *tables);

/* Snapshot of the unwind_dwarf counters (all zero in frame-pointer mode). */
void loader__snapshot_counters(struct loader *l, struct snapshot_counters *out);

/*
 * Stack hints (alloc_events.h): after this, snapshots with key k are sent with only the
 * words h names (h NULL: dense again). 0 or -errno (-E2BIG: the map is full; -EOPNOTSUPP
 * without unwind_dwarf or with dense_stacks).
 */
int loader__set_snap_hint(struct loader *l, const struct snap_hint_key *k,
			  const struct snap_hint *h);

/* Copy the user stack of stack_id (innermost first: raw return addresses) into ips.
 * Returns the number of frames, or -errno (-ENOENT: unknown id). */
int loader__stack(struct loader *l, __s32 stack_id, __u64 *ips, size_t max);

/* Python frames (bpf/python.bpf.h): the layout BPF walks process tgid's frames with (NULL:
 * forget it). 0 or -errno. */
int loader__set_py_layout(struct loader *l, pid_t tgid, const struct py_layout *layout);
/* The Python stack py_stack (alloc_event.py_stack) into *out. 0 or -errno. */
int loader__py_stack(struct loader *l, __u32 py_stack, struct py_stack_val *out);
/* BPF's Python-walk counters (zeros without a loader). */
void loader__py_counters(struct loader *l, struct py_counters *out);

/* Runtime entry address of allocator function fn in the target, as seen by its probe;
 * 0 when the function was never hit. Used to name the allocator frame of a stack. */
__u64 loader__fn_addr(struct loader *l, __u32 fn);

/* The object malloc's probes are on (e.g. /usr/lib/x86_64-linux-gnu/libc.so.6). */
const char *loader__libc_path(struct loader *l);

/* Every probed entry point and its object. Valid until loader__free. */
const struct alloc_symbols *loader__alloc_symbols(struct loader *l);

/* The enum alloc_fn that records of fn carry: fn itself, or the first function (in enum order)
 * at the same address when the library aliases them (glibc 2.36: memalign and aligned_alloc
 * are one function, traced as FN_ALIGNED_ALLOC). */
__u32 loader__fn_owner(struct loader *l, __u32 fn);

/* The ring buffer map's fd, for other BPF objects that emit records into the same stream
 * (bpf_map__reuse_fd before their load). Borrowed: valid until loader__free. */
int loader__ringbuf_fd(struct loader *l);

#endif

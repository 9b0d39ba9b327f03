// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * loader - open -> configure rodata/map sizes -> load -> attach, for one target process.
 *
 * The probed object and offsets come from alloc_symbols.h; aliased functions share one
 * probe pair, and loader__fn_addr() answers for every name.
 *
 * The functions are told apart by the attach cookie (function, probe-site offset, SP
 * adjustment: COOKIE_* in alloc_events.h). The links, best first, each mode tried when the
 * kernel refuses the one before (the programs are reloaded for it); each mode is a struct
 * attach_ops with its own state (loader_attach.h), this file picks and sequences them:
 *   session  (loader_multi.c) alloc_session on every function with a return probe as ONE
 *            session uprobe-multi link (BPF_TRACE_UPROBE_SESSION, kernel >= 6.13): entry
 *            and return in one program, which skips the return trap of calls that need
 *            none; plus alloc_entry on free as a uprobe-multi link. TRACER_NO_SESSION=1
 *            skips this mode (to measure or test the fallback).
 *   multi    (loader_multi.c) alloc_entry and alloc_return as TWO uprobe-multi links
 *            (BPF_TRACE_UPROBE_MULTI, kernel >= 6.6).
 *   each     (loader_each.c) one link per probe, the programs loaded as plain uprobes.
 * Both multi kinds are made with a raw BPF_LINK_CREATE: libbpf 1.1 has no API for them.
 * Followed process trees (follow): when the caller holds every new process of the tree at
 * its birth (opts.hold_children: a spawned command under ptrace), each process gets session
 * links of its own, made before its first instruction and closed once it is reaped
 * (the tree mode: loader_tree.c, tree_links.h); otherwise (--pid, --cgroup, no ptrace, no
 * session uprobes) inherited perf events (the inherit mode: loader_inherit.c), which carry
 * no session: the multi mode's two programs, every return trapped. The per-process links'
 * limit, a kernel one: a uprobe-multi program runs only for its own process, but a session
 * consumer whose program did not run still asks for the return trap (6.18's
 * uprobe_prog_run() returns 0 for another process), so while two processes of a tree are
 * alive, each one's calls pay the return trap the other's link asks for, as inherited
 * probes do. A single process, and each exec'd command of a shell whose parent has exited,
 * keep every saving. Tearing down a uprobe link waits for RCU grace periods: 33 per-probe
 * links took 3.5 s to detach, the two multi links take 50-80 ms, closed in parallel.
 *
 * free has no return probe, so its entry probe moves to the first instruction past its NULL
 * test that the kernel emulates (x86_prologue__probe_site()): free+9 on glibc 2.36. A
 * function with a return probe has both at its first emulated instruction reached with the
 * entry SP (x86_prologue__return_site()): PyObject_Malloc+6 on CPython 3.12.
 *
 * Return probes are attached before entry probes: a call entering between the two would
 * otherwise leave an entry that never sees its return.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "loader.h" /* first: the skeleton's .bss refers to struct probe_counters */
#include "alloc.skel.h"
#include "alloc_symbols.h"
#include "clock.h"
#include "environment.h"
#include "loader_attach.h"
#include "py_sites.h"
#include "sampling.h"
#include "tree_links.h"
#include "uprobe_multi.h"
#include "x86_prologue.h"

#define LOG_TAG "loader: "
#include "log.h"
#include "safe_open.h"
#include "safe_text.h"

#define USDT_PROVIDER "kaish_workload"

struct loader {
	struct alloc_bpf *skel;
	struct ring_buffer *rb;
	loader_record_fn cb; /* the current loader__poll() callback */
	void *cb_ctx;
	struct alloc_symbols syms; /* the probed object, offsets and aliases */
	struct attach attach;	  /* the allocator probes: their mode and its links */
	struct bpf_link *proc_links[3]; /* follow: fork, exec, exit tracepoints */
	bool no_python;			/* --no-python: CPython's domains never probed */
	/* --unwind kernel: the tables and process descriptions, the mmap'ed rows array */
	struct kunwind *ku;
	void *ku_rows;
	size_t ku_rows_sz;
	__u64 ku_misses; /* unwind_counters.no_mapping + no_proc at the last refresh */
	__u64 ku_refresh_ns; /* when */
	pid_t ku_pid;	     /* the first target, until it is described (held: after its exec) */
};

/* libbpf's own log: warnings at -v, info at -vv, debug (verifier logs) only at -vvv. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if ((level == LIBBPF_WARN && tracer_verbosity < 1) ||
	    (level == LIBBPF_INFO && tracer_verbosity < 2) ||
	    (level == LIBBPF_DEBUG && tracer_verbosity < 3))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* --- probes ------------------------------------------------------------------------------ */


/*
 * glibc's realloc as bpf/alloc.bpf.c's glibc_realloc_skippable() needs it (the cookie bit
 * COOKIE_GLIBC_REALLOC, on this object's realloc probe only): malloc, free and realloc in
 * one libc.so.6, and realloc(NULL, n) a tail jump (jmp rel32) to malloc within its first
 * 128 bytes, read from the code itself (glibc 2.36: realloc+0x40). Anything else (another
 * allocator, another build) keeps every realloc's return probe. free_fd: free's object,
 * open (plan_probes reads free's prologue from it), which must then be realloc's too.
 */
static bool glibc_realloc_jumps_to_malloc(const struct alloc_symbols *syms, int free_fd)
{
	size_t off = syms->off[FN_REALLOC], to = syms->off[FN_MALLOC];
	__u8 code[128];
	ssize_t n;

	if (!off || !to || !alloc_symbols__glibc_malloc(syms) ||
	    syms->obj[FN_REALLOC] != syms->obj[FN_MALLOC] ||
	    syms->obj[FN_FREE] != syms->obj[FN_MALLOC])
		return false;
	n = pread(free_fd, code, sizeof(code), (off_t)off);
	for (ssize_t i = 0; i + 5 <= n; i++) {
		__s32 rel;

		if (code[i] != 0xe9)
			continue;
		memcpy(&rel, code + i + 1, sizeof(rel));
		if ((__s64)off + i + 5 + rel == (__s64)to)
			return true;
	}
	return false;
}

/*
 * The integer arguments the BPF entry reads from fn's registers (SysV: rdi, rsi, rdx, rcx),
 * for the functions whose probes may move off their entry (x86_prologue__return_site()):
 * the malloc family, whichever allocator defines it (glibc's code is in
 * tests/x86_prologue_unit.c's fixtures), and CPython's domains (issue #32). 0: the probes
 * stay at the entry (strdup and the other helpers, the C++ and Rust shims: not measured).
 */
static unsigned moved_site_args(__u32 fn)
{
	switch (fn) {
	case FN_MALLOC:
	case FN_VALLOC:
	case FN_PVALLOC:
	case FN_PY_OBJ_MALLOC:
	case FN_PY_MEM_MALLOC:
	case FN_PY_OBJ_FREE:
	case FN_PY_MEM_FREE:
		return 1;
	case FN_CALLOC:
	case FN_REALLOC:
	case FN_ALIGNED_ALLOC:
	case FN_MEMALIGN:
	case FN_PY_OBJ_CALLOC:
	case FN_PY_MEM_CALLOC:
	case FN_PY_OBJ_REALLOC:
	case FN_PY_MEM_REALLOC:
		return 2;
	case FN_REALLOCARRAY:
	case FN_POSIX_MEMALIGN:
		return 3;
	default:
		return 0;
	}
}

/* Bytes of a function read for its probe site: the prologue and, for a return-probed one,
 * the code after the site searched for branches back into the prologue. */
#define SITE_SCAN_SZ 256

/*
 * pymalloc copied into the callers of an LTO interpreter's image at path (py_sites.h): an
 * entry-only probe on each inlined copy, and allocate_from_new_pool's entry and return (the
 * blocks of empty pools). Nothing added for a plain build; a build whose copies cannot be
 * probed is what py_inline's warning (tracee.c) tells the user about.
 */
static void plan_py_sites(struct probe_plan *p, const char *path)
{
	struct py_sites *ps = calloc(1, sizeof(*ps));
	size_t added = 0;

	if (!ps)
		return;
	if (py_sites__find(path, ps) || !ps->cnt)
		goto out;
	for (size_t i = 0; i < ps->cnt && p->entry_cnt < PLAN_ENTRIES_MAX; i++) {
		const struct py_site *site = &ps->site[i];
		__u32 fn = site->kind == PY_SITE_FREE ? FN_PY_SITE_FREE : FN_PY_SITE_MALLOC;
		__u64 cookie = PY_SITE_COOKIE(fn, site->reg, site->low32, site->is_imm, site->imm,
					      ps->usedpools);

		p->fns[p->entry_cnt] = fn;
		p->entry_off[p->entry_cnt] = site->off;
		p->entry_cookie[p->entry_cnt++] = cookie;
		p->eonly_off[p->eonly_cnt] = site->off;
		p->eonly_cookie[p->eonly_cnt++] = cookie;
		added++;
	}
	if (ps->new_pool_off && p->entry_cnt < PLAN_ENTRIES_MAX && p->ret_cnt < FN_COUNT) {
		__u64 cookie = COOKIE_ENCODE(FN_PY_NEW_POOL, 0, 0);

		p->fns[p->entry_cnt] = FN_PY_NEW_POOL;
		p->entry_off[p->entry_cnt] = ps->new_pool_off;
		p->entry_cookie[p->entry_cnt++] = cookie;
		p->ret_fns[p->ret_cnt] = FN_PY_NEW_POOL;
		p->ret_off[p->ret_cnt] = ps->new_pool_off;
		p->ret_cookie[p->ret_cnt++] = cookie;
	}
	vlog("%s: pymalloc inlined at %zu call sites: %zu probed, %zu not resolved; "
	     "usedpools at 0x%llx, allocate_from_new_pool at +0x%zx\n",
	     path, ps->found, added, ps->unresolved, (unsigned long long)ps->usedpools,
	     ps->new_pool_off);
out:
	free(ps);
}

/*
 * Where each function is probed and the cookies the programs decode (COOKIE_* in
 * alloc_events.h), one plan per probed object of syms. free (entry-only): its entry probe at
 * x86_prologue__probe_site(). The others: entry and return probe together at
 * x86_prologue__return_site() (SP still the entry's, so the return hijack finds the return
 * address; the entry cookie's site offset gives the BPF the function's address), e.g.
 * CPython 3.12's PyObject_Malloc at its `js` (+6) instead of its single-stepped
 * `mov %rdi,%rsi`. The return cookie carries the site too: the session program reads
 * its entry from it.
 */
static int plan_probes(const struct alloc_symbols *syms, struct probe_plans *plans)
{
	const size_t *offs = syms->off;
	int fds[ALLOC_OBJ_MAX], free_fd, err = 0;
	__u64 glibc_realloc = 0;

	for (__u32 i = 0; i < ALLOC_OBJ_MAX; i++)
		fds[i] = -1;
	/* Each probed object once: the prologues are read from the files. */
	for (__u32 i = 0; i < syms->obj_cnt && i < ALLOC_OBJ_MAX; i++) {
		fds[i] = safe_open__read(AT_FDCWD, syms->objs[i], 0, SAFE_OPEN_ELF_MAX);
		if (fds[i] < 0) {
			err = fds[i];
			elog("cannot open %s: %s\n", safe_text__term(syms->objs[i]),
			     safe_open__strerror(err));
			goto cleanup;
		}
	}
	free_fd = offs[FN_FREE] ? fds[syms->obj[FN_FREE]] : -1;
	if (free_fd >= 0 && glibc_realloc_jumps_to_malloc(syms, free_fd))
		glibc_realloc = COOKIE_GLIBC_REALLOC_BIT;
	memset(plans, 0, sizeof(*plans));
	plans->cnt = syms->obj_cnt;
	for (__u32 fn = 0; fn < FN_COUNT; fn++) {
		struct probe_plan *p = &plans->obj[syms->obj[fn]];
		__u64 realloc_bit = fn == FN_REALLOC ? glibc_realloc : 0;
		__u32 sp_adj = 0;
		size_t site = 0;
		__u8 code[SITE_SCAN_SZ];
		ssize_t n;

		if (!offs[fn] || syms->owner[fn] != fn)
			continue;
		if (fn == FN_FREE || moved_site_args(fn)) {
			n = pread(fds[syms->obj[fn]], code, sizeof(code), (off_t)offs[fn]);
			/* free(NULL) is a no-op: its NULL test may be stepped over. */
			if (n > 0 && fn == FN_FREE)
				site = x86_prologue__probe_site(code, (size_t)n, 1, true, &sp_adj);
			else if (n > 0)
				site =
				    x86_prologue__return_site(code, (size_t)n, moved_site_args(fn));
		}
		dlog("%s: %s probe at +%zu (sp +%u)\n", alloc_fn_name(fn),
		     fn == FN_FREE ? "entry" : "entry and return", site, sp_adj);
		p->fns[p->entry_cnt] = fn;
		p->entry_off[p->entry_cnt] = offs[fn] + site;
		p->entry_cookie[p->entry_cnt++] = COOKIE_ENCODE(fn, sp_adj, site) | realloc_bit;
		if (fn != FN_FREE) {
			p->ret_fns[p->ret_cnt] = fn;
			p->ret_off[p->ret_cnt] = offs[fn] + site;
			p->ret_cookie[p->ret_cnt++] = COOKIE_ENCODE(fn, 0, site) | realloc_bit;
		} else {
			p->eonly_off[p->eonly_cnt] = offs[fn] + site;
			p->eonly_cookie[p->eonly_cnt++] = COOKIE_ENCODE(fn, sp_adj, site);
		}
	}
	if (glibc_realloc)
		dlog("%s: glibc's realloc: an unsampled one skips its return trap\n",
		     alloc_symbols__obj(syms, FN_REALLOC));
	if (alloc_symbols__has_python(syms))
		plan_py_sites(&plans->obj[syms->obj[FN_PY_OBJ_MALLOC]],
			      alloc_symbols__obj(syms, FN_PY_OBJ_MALLOC));
cleanup:
	for (__u32 i = 0; i < ALLOC_OBJ_MAX; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return err;
}

/* follow: the fork, exec and exit tracepoints (the traced map, struct proc_event). */
static int attach_proc_tracepoints(struct loader *l)
{
	struct bpf_program *tps[3] = { l->skel->progs.proc_fork, l->skel->progs.proc_exec,
				       l->skel->progs.proc_exit };
	int err;

	for (int i = 0; i < 3; i++) {
		l->proc_links[i] = bpf_program__attach(tps[i]);
		if (!l->proc_links[i]) {
			err = -errno;
			elog("cannot attach %s: %s\n", bpf_program__name(tps[i]), strerror(-err));
			return err;
		}
	}
	return 0;
}

/*
 * The window marks. The binary may not be exec'd yet (the tracer attaches to a held child
 * before exec, when a PIE driver is not in /proc/PID/maps yet), so a per-pid attach that
 * fails is retried for all processes: BPF's tgid filter still keeps other processes out,
 * and only processes running that binary take the (rare) breakpoint.
 */
static int attach_usdt(struct loader *l, pid_t pid, const char *binary)
{
	struct alloc_bpf *s = l->skel;
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
		const char *name;
	} marks[] = {
	    {s->progs.window_begin, &s->links.window_begin, "window_begin"},
	    {s->progs.window_end, &s->links.window_end, "window_end"},
	};
	int err;

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		*marks[i].link = bpf_program__attach_usdt(marks[i].prog, pid, binary, USDT_PROVIDER,
							  marks[i].name, NULL);
		if (!*marks[i].link) {
			dlog("USDT %s:%s for pid %d: %s; retrying for any process\n", binary,
			     marks[i].name, (int)pid, strerror(errno));
			*marks[i].link = bpf_program__attach_usdt(
			    marks[i].prog, -1, binary, USDT_PROVIDER, marks[i].name, NULL);
		}
		if (!*marks[i].link) {
			err = -errno;
			elog("cannot attach USDT %s:%s:%s: %s\n", binary, USDT_PROVIDER,
			     marks[i].name, strerror(-err));
			return err;
		}
	}
	return 0;
}

/* --- in-kernel unwinding ------------------------------------------------------------------ */

/* Rows for modules that appear after load (other libraries, execs in a tree): on top of
 * twice what the first process needs. */
#define KU_ROWS_MIN (512u << 10)
#define KU_ROWS_MAX (64u << 20)
#define KU_REFRESH_NS 50000000ull /* a refresh on misses at most every 50 ms */

/* Bytes of the rows array's memory: values are 8-byte aligned in an array map. */
#define KU_ROW_STRIDE ((sizeof(struct unwind_row) + 7) & ~(size_t)7)

static size_t ku_rows_len(const struct loader *l)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (l->ku_rows_sz * KU_ROW_STRIDE + page - 1) / page * page;
}

/* kunwind_sink.set_proc: one process's description into unwind_maps. */
static int ku_set_proc(void *ctx, pid_t pid, const struct unwind_proc *p)
{
	struct loader *l = ctx;
	__u32 tgid = (__u32)pid;
	int fd = bpf_map__fd(l->skel->maps.unwind_maps);

	/* BPF's cached rows may be the old mappings' (ku_cache in bpf/unwind.bpf.h) */
	__sync_fetch_and_add(&l->skel->bss->ku_gen, 1);
	if (!p)
		return bpf_map_delete_elem(fd, &tgid) && errno != ENOENT ? -errno : 0;
	return bpf_map_update_elem(fd, &tgid, p, BPF_ANY) ? -errno : 0;
}

/* kunwind_sink.set_module: one module's table by file into unwind_modules. */
static int ku_set_module(void *ctx, const struct unwind_module_key *k,
			 const struct unwind_module *m)
{
	struct loader *l = ctx;

	return bpf_map_update_elem(bpf_map__fd(l->skel->maps.unwind_modules), k, m, BPF_ANY) ?
		       -errno :
		       0;
}

/* Before load: the tables of the target's modules (a held command: the tracer's own,
 * mostly the same libc), and the rows array's size from them. */
static int ku_prepare(struct loader *l, const struct loader_opts *opts)
{
	const char *no_memo;
	int cpus, err;
	__u64 rows;

	if (!opts->unwind_kernel)
		return 0;
	if (!l->ku) {
		l->ku = kunwind__new(opts->unwind_cache_dir);
		if (!l->ku)
			return -ENOMEM;
		rows = kunwind__prepare(l->ku, opts->pid);
		rows = rows * 2 + KU_ROWS_MIN;
		l->ku_rows_sz = (size_t)(rows < KU_ROWS_MAX ? rows : KU_ROWS_MAX);
	}
	l->skel->rodata->unwind_kernel = 1;
	/* TRACER_NO_MEMO=1 (hidden, for the test comparing and the benchmarks): every stack
	 * walked with the tables, none finished from the thread's last walk */
	no_memo = getenv("TRACER_NO_MEMO");
	l->skel->rodata->unwind_memo = !no_memo || !*no_memo || !strcmp(no_memo, "0");
	cpus = libbpf_num_possible_cpus();
	if (cpus <= 0)
		return cpus ? cpus : -EINVAL;
	err = bpf_map__set_max_entries(l->skel->maps.ku_rows_cache, (__u32)cpus);
	err = err ?: bpf_map__set_max_entries(l->skel->maps.ku_memos, (__u32)cpus);
	return err ? err : bpf_map__set_max_entries(l->skel->maps.unwind_rows, (__u32)l->ku_rows_sz);
}

/* After load: the rows array mapped here, the prepared tables into it, the target described. */
static int ku_attach(struct loader *l, const struct loader_opts *opts)
{
	struct kunwind_sink sink = { .row_stride = KU_ROW_STRIDE, .rows_cap = (__u32)l->ku_rows_sz,
				     .set_proc = ku_set_proc, .set_module = ku_set_module,
				     .ctx = l };
	int err;

	if (!opts->unwind_kernel)
		return 0;
	l->ku_rows = mmap(NULL, ku_rows_len(l), PROT_READ | PROT_WRITE, MAP_SHARED,
			  bpf_map__fd(l->skel->maps.unwind_rows), 0);
	if (l->ku_rows == MAP_FAILED) {
		err = -errno;
		l->ku_rows = NULL;
		elog("cannot map the unwind rows: %s\n", strerror(-err));
		return err;
	}
	sink.rows = l->ku_rows;
	err = kunwind__attach(l->ku, &sink);
	if (!err && !opts->unwind_held)
		err = kunwind__update(l->ku, opts->pid, true);
	else
		l->ku_pid = opts->pid; /* described at loader__unwind_add, or at the first misses */
	if (err == -ESRCH)
		err = 0; /* a held command's first exec describes it (loader__unwind_add) */
	if (err)
		elog("cannot describe pid %d to the in-kernel unwinder: %s\n", (int)opts->pid,
		     strerror(-err));
	return err;
}

int loader__unwind_add(struct loader *l, pid_t pid)
{
	if (!l || !l->ku || !l->ku_rows)
		return -EOPNOTSUPP;
	if (pid == l->ku_pid)
		l->ku_pid = 0;
	/* An image described at its exec or fork has not mapped its libraries yet (ld.so does
	 * that next): until a refresh describes them, its walks find them by VMA, which fails
	 * while another thread changes the memory map (a new thread's malloc arena). The first
	 * miss after this refreshes at once, not up to KU_REFRESH_NS later. */
	l->ku_refresh_ns = 0;
	return kunwind__update(l->ku, pid, true);
}

void loader__unwind_forget(struct loader *l, pid_t pid)
{
	if (l && l->ku_rows)
		kunwind__forget(l->ku, pid);
}

void loader__unwind_refresh(struct loader *l)
{
	if (l && l->ku_rows)
		kunwind__refresh(l->ku);
}

/* The walks' own figures, kept per CPU by BPF (ku_stats, bpf/unwind.bpf.h), added into c. */
static void add_walk_stats(struct loader *l, struct unwind_counters *c)
{
	int cpus = libbpf_num_possible_cpus();
	struct unwind_counters *v;
	__u64 *sum = (__u64 *)c;
	__u32 zero = 0;

	if (cpus <= 0 || !(v = calloc((size_t)cpus, sizeof(*v))))
		return;
	if (!bpf_map__lookup_elem(l->skel->maps.ku_stats, &zero, sizeof(zero), v,
				  (size_t)cpus * sizeof(*v), 0))
		for (int i = 0; i < cpus; i++)
			for (size_t k = 0; k < sizeof(*v) / sizeof(__u64); k++)
				sum[k] += ((const __u64 *)&v[i])[k];
	free(v);
}

void loader__unwind_counters(struct loader *l, struct unwind_counters *bpf,
			     struct kunwind_stats *tables)
{
	memset(bpf, 0, sizeof(*bpf));
	if (l && l->skel) {
		*bpf = *(volatile struct unwind_counters *)&l->skel->bss->unwind_counters;
		add_walk_stats(l, bpf);
	}
	kunwind__stats(l ? l->ku : NULL, tables);
}

/* loader__poll: BPF met a PC in no described mapping (or a process not described) since the
 * last look: a library was mapped; read the maps again, so the fast path (the process's
 * description) serves it, or its table is loaded (dlopen). */
static void ku_poll(struct loader *l)
{
	volatile struct unwind_counters *c;
	__u64 misses;

	if (!l->ku_rows)
		return;
	c = (volatile struct unwind_counters *)&l->skel->bss->unwind_counters;
	misses = c->no_mapping + c->no_proc + c->vma_lookups;
	/* at most every KU_REFRESH_NS: code in no file (a JIT) misses on every stack */
	if (misses == l->ku_misses || clock__mono_ns() - l->ku_refresh_ns < KU_REFRESH_NS)
		return;
	l->ku_misses = misses;
	l->ku_refresh_ns = clock__mono_ns();
	/* a held target nobody described after its exec (bench-trace, --no-follow races) */
	if (l->ku_pid && !kunwind__update(l->ku, l->ku_pid, true))
		l->ku_pid = 0;
	kunwind__refresh(l->ku);
}

/* --- DWARF snapshots ---------------------------------------------------------------------- */

/* Largest snapshot records a ring must hold at once, at the least. */
#define DWARF_MIN_RING_RECORDS 64

size_t loader__ringbuf_min(const struct loader_opts *opts)
{
	__u32 sz = opts->stack_copy_sz ? opts->stack_copy_sz : LOADER_DEFAULT_STACK_COPY_SZ;

	if (!opts->unwind_dwarf && !opts->unwind_kernel)
		return 0;
	return DWARF_MIN_RING_RECORDS *
	       (sizeof(struct alloc_event) + sizeof(struct stack_snapshot) + sz);
}

/* unwind_dwarf: the rodata switch, the copy size and one scratch slot per possible CPU. */
static int configure_dwarf(struct loader *l, const struct loader_opts *opts, size_t rb_sz)
{
	__u32 sz = opts->stack_copy_sz ? opts->stack_copy_sz : LOADER_DEFAULT_STACK_COPY_SZ;
	int cpus;

	if (!opts->unwind_dwarf && !opts->unwind_kernel)
		return 0; /* the scratch map keeps its one slot */
	if (sz > SNAPSHOT_STACK_MAX) {
		elog("stack copy size %u: at most %u bytes\n", sz, SNAPSHOT_STACK_MAX);
		return -EINVAL;
	}
	if (rb_sz < loader__ringbuf_min(opts)) {
		elog("ring buffer of %zu bytes: too small for %u-byte stack copies (at least %zu)\n",
		     rb_sz, sz, loader__ringbuf_min(opts));
		return -EINVAL;
	}
	cpus = libbpf_num_possible_cpus();
	if (cpus <= 0) {
		elog("cannot count the possible CPUs: %s\n", strerror(-cpus));
		return cpus ? cpus : -EINVAL;
	}
	l->skel->rodata->unwind_dwarf = opts->unwind_dwarf; /* kernel: snapshots as fallback */
	l->skel->rodata->stack_copy_sz = sz;
	l->skel->rodata->snap_hints_on = !opts->dense_stacks;
	vlog("DWARF %s: %u bytes of stack per snapshot, %d scratch slots%s\n",
	     opts->unwind_dwarf ? "unwinding" : "fallback", sz, cpus,
	     opts->dense_stacks ? ", dense copies only" : "");
	return bpf_map__set_max_entries(l->skel->maps.snap_scratch, (__u32)cpus);
}

static void *detach_one(void *arg)
{
	struct detach_job *j = arg;

	if (j->fd >= 0)
		close(j->fd);
	bpf_link__destroy(j->link);
	tree_links__close_all(j->tree);
	return NULL;
}

/*
 * Tear down every uprobe link: the allocator links (the mode's), the process tracepoints,
 * and the USDT links when usdt is set. Closing a uprobe link waits for RCU grace periods
 * (50-130 ms here), so the links are closed in parallel, one thread each: the waits overlap
 * instead of adding up (33 per-probe links took 3.5 s one after the other).
 */
static void detach_links(struct loader *l, bool usdt)
{
	struct detach_job jobs[ATTACH_DETACH_JOBS_MAX + 3 + 2];
	size_t n = 0;

	if (l->attach.state)
		n = l->attach.ops->detach(&l->attach, jobs);
	for (int i = 0; i < 3; i++) {
		if (l->proc_links[i])
			jobs[n++] = (struct detach_job){.fd = -1, .link = l->proc_links[i]};
		l->proc_links[i] = NULL;
	}
	if (usdt && l->skel) {
		jobs[n++] = (struct detach_job){.fd = -1, .link = l->skel->links.window_begin};
		jobs[n++] = (struct detach_job){.fd = -1, .link = l->skel->links.window_end};
		l->skel->links.window_begin = l->skel->links.window_end = NULL;
	}
	for (size_t i = 1; i < n; i++)
		jobs[i].threaded = !pthread_create(&jobs[i].thread, NULL, detach_one, &jobs[i]);
	if (n)
		detach_one(&jobs[0]);
	for (size_t i = 1; i < n; i++) {
		if (jobs[i].threaded)
			pthread_join(jobs[i].thread, NULL);
		else
			detach_one(&jobs[i]); /* no thread: close it here */
	}
}

static void detach_allocators(struct loader *l)
{
	detach_links(l, false);
}

/* The allocator programs ops loads: their expected_attach_type must be set before load,
 * and the session program loads only for session links (an older kernel refuses it). */
static void set_attach_types(struct alloc_bpf *s, const struct attach_ops *ops)
{
	const enum bpf_attach_type multi = (enum bpf_attach_type)BPF_TRACE_UPROBE_MULTI;

	bpf_program__set_autoload(s->progs.alloc_session, ops->session);
	bpf_program__set_autoload(s->progs.alloc_return, !ops->session);
	if (ops->session)
		bpf_program__set_expected_attach_type(s->progs.alloc_session,
						      (enum bpf_attach_type)TRACE_UPROBE_SESSION);
	if (ops->multi)
		bpf_program__set_expected_attach_type(s->progs.alloc_entry, multi);
	if (ops->multi && !ops->session)
		bpf_program__set_expected_attach_type(s->progs.alloc_return, multi);
}

/* Open the skeleton, set rodata and map sizes, load the programs of ops. */
static int open_load(struct loader *l, const struct loader_opts *opts, size_t rb_sz,
		     const struct attach_ops *ops)
{
	int err;

	l->skel = alloc_bpf__open();
	if (!l->skel) {
		err = -errno;
		elog("cannot open the BPF object: %s\n", strerror(-err));
		return err;
	}
	l->skel->rodata->target_tgid = (__u32)opts->pid;
	l->skel->rodata->follow = opts->follow;
	l->skel->rodata->window_gated = opts->window_gated;
	l->skel->rodata->noop = !opts->noop	   ? BENCH_NOOP_OFF :
				opts->noop_entry ? BENCH_NOOP_ENTRY :
						   BENCH_NOOP_SITES;
	l->skel->rodata->bench_cut = opts->bench_cut;
	l->skel->rodata->sample_bytes = opts->sample_bytes; /* --sample-bytes, 0: exact */
	if (opts->sample_bytes)
		sample__fill_table((__u32 *)l->skel->rodata->sample_table, opts->sample_bytes);
	/* Wake the consumer early only when a quarter of the ring is waiting. */
	l->skel->rodata->wakeup_threshold = rb_sz / 4;
	err = bpf_map__set_max_entries(l->skel->maps.events, (__u32)rb_sz);
	if (err)
		return err;
	err = configure_dwarf(l, opts, rb_sz);
	if (!err)
		err = ku_prepare(l, opts);
	if (err)
		return err;
	set_attach_types(l->skel, ops);
	err = alloc_bpf__load(l->skel);
	if (err && !ops->fallback) /* the last resort: say why */
		elog("cannot load the BPF programs: %s%s\n", strerror(-err),
		     tracer_verbosity < 3 ? " (-vvv shows the verifier log)" : "");
	return err;
}

/* TRACER_NO_SESSION=1 (hidden, for tests and benchmarks) starts at the fallback the kernels
 * without session uprobes get; TRACER_NO_SESSION=refused tries sessions and takes a refusal
 * as such a kernel would give it (-EINVAL at load), so the fallback path itself is what
 * runs. */
static bool no_session_env(void)
{
	const char *no_session = getenv("TRACER_NO_SESSION");

	return no_session && *no_session && strcmp(no_session, "0") &&
	       strcmp(no_session, "refused");
}

static bool session_refused_env(void)
{
	const char *no_session = getenv("TRACER_NO_SESSION");

	return no_session && !strcmp(no_session, "refused");
}

/* The first mode to try for opts, best first: sessions (per process when the caller holds
 * every new process of a followed tree), uprobe-multi links, one link per probe; inherited
 * probes for --inherit and for a followed tree whose processes are not held. */
static const struct attach_ops *first_mode(const struct loader_opts *opts)
{
	bool per_process = opts->follow && opts->hold_children && !opts->inherit &&
			   !opts->per_probe_links && !no_session_env();

	if (opts->inherit || (opts->follow && !per_process))
		return &loader_inherit__ops;
	if (opts->per_probe_links)
		return &loader_each__ops;
	if (no_session_env()) {
		vlog("TRACER_NO_SESSION=%s: no session uprobes\n", getenv("TRACER_NO_SESSION"));
		return &loader_multi__ops;
	}
	return per_process ? &loader_tree__ops : &loader_session__ops;
}

/* Make the state of mode ops (the one before gone): 0 or -ENOMEM. */
static int attach_begin(struct loader *l, const struct attach_ops *ops)
{
	l->attach = (struct attach){ .ops = ops, .syms = &l->syms };
	l->attach.state = ops->new();
	return l->attach.state ? 0 : -ENOMEM;
}

/* Attach the allocator probes of plan the way the mode says (the skeleton just loaded for
 * it): the process tracepoints first when it follows a tree (a fork during the attach must
 * already put the child in the traced map). */
static int attach_mode(struct loader *l, const struct probe_plans *plan,
		       const struct loader_opts *opts)
{
	struct attach *a = &l->attach;
	int err;

	a->entry = l->skel->progs.alloc_entry;
	a->ret = a->ops->session ? NULL : l->skel->progs.alloc_return;
	a->session = a->ops->session ? l->skel->progs.alloc_session : NULL;
	if (a->ops->follows && opts->follow) {
		err = attach_proc_tracepoints(l);
		if (err)
			return err;
	}
	return a->ops->attach(a, plan, opts->pid, opts->noop && opts->noop_entry);
}

/* Probe sites attached in mode ops (a session probe is one site: entry and return). */
static size_t probe_count(const struct probe_plans *plan, const struct attach_ops *ops,
			  bool no_ret)
{
	size_t n = 0;

	for (size_t i = 0; i < plan->cnt; i++)
		n += plan->obj[i].entry_cnt + (ops->session || no_ret ? 0 : plan->obj[i].ret_cnt);
	return n;
}

/* --- public API ------------------------------------------------------------------------- */

static int on_sample(void *ctx, void *data, size_t sz)
{
	struct loader *l = ctx;

	return l->cb ? l->cb(l->cb_ctx, data, sz) : 0;
}

struct loader *loader__new(const struct loader_opts *opts)
{
	size_t rb_sz = opts && opts->ringbuf_sz ? opts->ringbuf_sz : LOADER_DEFAULT_RINGBUF_SZ;
	long page = sysconf(_SC_PAGESIZE);
	struct loader *l = NULL;
	double t0 = loader__mono_ms(), t1 = 0;
	struct probe_plans *plan = NULL;
	const struct attach_ops *next;
	int err;

	if (!opts || opts->pid <= 0) {
		elog("no target pid\n");
		err = -EINVAL;
		goto cleanup;
	}
	libbpf_set_print(libbpf_print);
	if (!opts->ringbuf_sz && opts->unwind_dwarf)
		rb_sz = LOADER_DEFAULT_DWARF_RINGBUF_SZ; /* records carry stack copies */
	if (rb_sz < (size_t)page || (rb_sz & (rb_sz - 1)) || rb_sz > (1u << 30)) {
		elog("ring buffer size %zu: must be a power of two, %ld..%u bytes\n", rb_sz, page,
		     1u << 30);
		err = -EINVAL;
		goto cleanup;
	}
	err = env_check(opts->pid);
	if (err)
		goto cleanup;

	l = calloc(1, sizeof(*l));
	if (!l) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = 0;
	if (opts->syms)
		l->syms = *opts->syms;
	else
		err = alloc_symbols__for_process(opts->pid, opts->libc_path, &l->syms);
	if (err)
		goto cleanup;
	l->no_python = opts->no_python;
	if (l->no_python)
		alloc_symbols__drop_python(&l->syms);
	plan = malloc(sizeof(*plan));
	err = plan ? plan_probes(&l->syms, plan) : -ENOMEM;
	if (err)
		goto cleanup;

	/* open -> configure -> load -> attach, in the best mode the kernel takes: sessions,
	 * then uprobe-multi, then per-probe links (each reloads the programs for its links);
	 * a followed tree held at birth: session links per process, then inherited probes. */
	err = attach_begin(l, first_mode(opts));
	while (!err) {
		const struct attach_ops *ops = l->attach.ops;

		err = ops->session && session_refused_env() ? -EINVAL
							    : open_load(l, opts, rb_sz, ops);
		t1 = loader__mono_ms();
		if (!err) {
			dlog("BPF object loaded in %.1f ms\n", t1 - t0);
			err = attach_mode(l, plan, opts);
		}
		if (!err || !ops->fallback || err == -ESRCH)
			break;
		next = ops->fallback;
		vlog("no %s (%s): trying %s\n", ops->name, strerror(-err), next->name);
		detach_allocators(l);
		ops->free(l->attach.state);
		alloc_bpf__destroy(l->skel);
		l->skel = NULL;
		err = attach_begin(l, next);
	}
	if (!err)
		err = ku_attach(l, opts);
	if (err)
		goto cleanup;
	vlog("%zu allocator probes in %u objects as %s\n",
	     probe_count(plan, l->attach.ops, opts->noop && opts->noop_entry), l->syms.obj_cnt,
	     l->attach.ops->name);
	l->rb = ring_buffer__new(bpf_map__fd(l->skel->maps.events), on_sample, l, NULL);
	if (!l->rb) {
		err = -errno;
		elog("cannot map the ring buffer: %s\n", strerror(-err));
		goto cleanup;
	}
	if (opts->usdt_binary) {
		err = attach_usdt(l, opts->pid, opts->usdt_binary);
		if (err)
			goto cleanup;
	}
	dlog("probes attached in %.1f ms\n", loader__mono_ms() - t1);
	/* Every link is in place: let the programs work (see probes_live in alloc.bpf.c). */
	__sync_synchronize();
	l->skel->bss->probes_live = !opts->paused;
	free(plan);
	return l;

cleanup:
	free(plan);
	loader__free(l);
	errno = -err;
	return NULL;
}

void loader__resume(struct loader *l)
{
	__sync_synchronize();
	l->skel->bss->probes_live = 1;
}

int loader__add_process(struct loader *l, pid_t pid)
{
	__u32 tgid = (__u32)pid, one = 1;
	int err;

	if (!l || !l->skel)
		return -EINVAL;
	if (bpf_map__update_elem(l->skel->maps.traced, &tgid, sizeof(tgid), &one, sizeof(one),
				 BPF_ANY))
		return -errno;
	err = l->attach.ops->add_process ? l->attach.ops->add_process(&l->attach, pid) :
					   -ENOTSUP; /* loader_opts.inherit was not asked for */
	if (err) {
		bpf_map__delete_elem(l->skel->maps.traced, &tgid, sizeof(tgid), 0);
		return err;
	}
	return 0;
}

bool loader__is_traced(struct loader *l, pid_t pid)
{
	__u32 tgid = (__u32)pid, v;

	if (!l || !l->skel || pid <= 0)
		return false;
	return tgid == l->skel->rodata->target_tgid ||
	       !bpf_map__lookup_elem(l->skel->maps.traced, &tgid, sizeof(tgid), &v, sizeof(v), 0);
}

int loader__add_child(struct loader *l, pid_t pid, pid_t parent)
{
	if (!l || !l->skel || !l->attach.ops->add_child)
		return 0; /* inherited probes reach it by themselves */
	return l->attach.ops->add_child(&l->attach, pid, parent);
}

void loader__process_gone(struct loader *l, pid_t pid)
{
	if (l && l->attach.ops && l->attach.ops->process_gone)
		l->attach.ops->process_gone(&l->attach, pid);
}

int loader__attach_image(struct loader *l, pid_t pid, const struct alloc_symbols *syms)
{
	struct probe_plans *plans;
	int err;

	if (!l || !l->skel || !l->attach.ops->attach_image)
		return -ENOTSUP;
	struct alloc_symbols *own = NULL;

	if (l->no_python && alloc_symbols__has_python(syms)) { /* a copy without them */
		own = malloc(sizeof(*own));
		if (!own)
			return -ENOMEM;
		*own = *syms;
		alloc_symbols__drop_python(own);
		syms = own;
	}
	plans = malloc(sizeof(*plans));
	err = plans ? plan_probes(syms, plans) : -ENOMEM;
	if (!err)
		err = l->attach.ops->attach_image(&l->attach, pid, syms, plans);
	free(plans);
	free(own);
	return err;
}

int loader__stop(struct loader *l, loader_record_fn fn, void *ctx)
{
	double t0 = loader__mono_ms();
	int n, total = 0;

	if (!l || !fn)
		return -EINVAL;
	/* First silence the programs, then detach: the links go in parallel, in no order, and
	 * an entry link gone before its return link (or after it) would leave unmatched
	 * returns (or frees of blocks never sent) at the end of the stream. */
	l->skel->bss->probes_live = 0;
	__sync_synchronize();
	/* Inherited probes are closed by a thread (loader_inherit.h): their programs may
	 * still be running past the flag. They run inside an RCU read section, so one grace
	 * period (membarrier GLOBAL is synchronize_rcu) sees the last of them out. */
	if (l->attach.ops->detach_async && syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		vlog("membarrier: %s: the last records may be missed\n", strerror(errno));
	detach_links(l, true);
	if (!l->rb)
		return 0;
	/* Detached: nothing new can be submitted, so one pass until empty sees the rest. */
	while ((n = loader__poll(l, 0, fn, ctx)) > 0)
		total += n;
	ring_buffer__free(l->rb);
	l->rb = NULL;
	dlog("stopped in %.1f ms: %d last records\n", loader__mono_ms() - t0, total);
	return n < 0 ? n : total;
}

void loader__free(struct loader *l)
{
	double t0 = loader__mono_ms(), t1, t2;

	if (!l)
		return;
	ring_buffer__free(l->rb);
	detach_links(l, true);
	if (l->attach.ops) /* waits for what detach began (loader__stop: overlapped with the
			    * output) */
		l->attach.ops->free(l->attach.state);
	t1 = loader__mono_ms();
	if (l->ku_rows)
		munmap(l->ku_rows, ku_rows_len(l));
	kunwind__free(l->ku);
	alloc_bpf__destroy(l->skel); /* detaches the USDT links stored in skel->links */
	t2 = loader__mono_ms();
	dlog("detached in %.1f ms, BPF object freed in %.1f ms\n", t1 - t0, t2 - t1);
	free(l);
}

int loader__poll(struct loader *l, int timeout_ms, loader_record_fn fn, void *ctx)
{
	struct epoll_event ev;
	int n;

	if (!l || !fn)
		return -EINVAL;
	if (!l->rb) /* stopped */
		return 0;
	/* Records are submitted without wakeups: the epoll wait returns early only for window
	 * marks or a filling ring; either way everything available is consumed after it. */
	if (timeout_ms != 0) {
		n = epoll_wait(ring_buffer__epoll_fd(l->rb), &ev, 1, timeout_ms);
		if (n < 0 && errno != EINTR)
			return -errno;
	}
	l->cb = fn;
	l->cb_ctx = ctx;
	n = ring_buffer__consume(l->rb);
	l->cb = NULL;
	l->cb_ctx = NULL;
	ku_poll(l);
	return n;
}

void loader__counters(struct loader *l, struct probe_counters *out)
{
	if (!l) {
		memset(out, 0, sizeof(*out));
		return;
	}
	/* Plain loads of the mmap'ed .bss: each counter is read atomically (aligned u64). */
	*out = *(volatile struct probe_counters *)&l->skel->bss->counters;
}

int loader__set_snap_hint(struct loader *l, const struct snap_hint_key *k,
			  const struct snap_hint *h)
{
	int fd, err;

	if (!l || !k || (h && h->n > SNAP_HINT_MAX))
		return -EINVAL;
	if (!l->skel->rodata->snap_hints_on)
		return -EOPNOTSUPP;
	fd = bpf_map__fd(l->skel->maps.snap_hints);
	err = h ? bpf_map_update_elem(fd, k, h, BPF_ANY) : bpf_map_delete_elem(fd, k);
	if (err && !h && errno == ENOENT)
		return 0;
	return err ? -errno : 0;
}

void loader__snapshot_counters(struct loader *l, struct snapshot_counters *out)
{
	if (!l) {
		memset(out, 0, sizeof(*out));
		return;
	}
	*out = *(volatile struct snapshot_counters *)&l->skel->bss->snap_counters;
}

/* The sum over the CPUs of entry key of a per-CPU array of __u64 (0 if it cannot be read). */
static __u64 percpu_sum(int fd, __u32 key)
{
	int cpus = libbpf_num_possible_cpus();
	__u64 *v, sum = 0;

	if (cpus <= 0 || !(v = calloc((size_t)cpus, sizeof(*v))))
		return 0;
	if (!bpf_map_lookup_elem(fd, &key, v))
		for (int i = 0; i < cpus; i++)
			sum += v[i];
	free(v);
	return sum;
}

void loader__sample_counters(struct loader *l, struct sample_counters *out)
{
	if (!l) {
		memset(out, 0, sizeof(*out));
		return;
	}
	*out = *(volatile struct sample_counters *)&l->skel->bss->sample_counters;
	out->sampled = percpu_sum(bpf_map__fd(l->skel->maps.sample_percpu), SAMPLE_PERCPU_SAMPLED);
	out->skipped = percpu_sum(bpf_map__fd(l->skel->maps.sample_percpu), SAMPLE_PERCPU_SKIPPED);
}

int loader__stack(struct loader *l, __s32 stack_id, __u64 *ips, size_t max)
{
	struct stack_val v;
	size_t n = 0;

	if (!l || (!ips && max))
		return -EINVAL;
	if (stack_id < 0)
		return -ENOENT;
	if (bpf_map__value_size(l->skel->maps.stacks) != sizeof(v))
		return -EPROTO;
	if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.stacks), &stack_id, &v))
		return -errno;
	while (n < max && n < v.depth && n < STACK_MAX_DEPTH && v.ips[n]) {
		ips[n] = v.ips[n];
		n++;
	}
	return (int)n;
}

int loader__set_py_layout(struct loader *l, pid_t pid, const struct py_layout *layout)
{
	__u32 tgid = (__u32)pid;
	int fd, err;

	if (!l || !l->skel || pid <= 0)
		return -EINVAL;
	fd = bpf_map__fd(l->skel->maps.py_layouts);
	err = layout ? bpf_map_update_elem(fd, &tgid, layout, BPF_ANY)
		     : bpf_map_delete_elem(fd, &tgid);
	if (err && !layout && errno == ENOENT)
		return 0;
	if (err)
		return -errno;
	/* BPF looks layouts up only once one exists (plain store: a flag, read racily). */
	if (layout)
		l->skel->bss->py_any = 1;
	return 0;
}

int loader__py_stack(struct loader *l, __u32 py_stack, struct py_stack_val *out)
{
	if (!l || !l->skel || !py_stack)
		return -EINVAL;
	if (bpf_map__value_size(l->skel->maps.py_stacks) != sizeof(*out))
		return -EPROTO;
	if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.py_stacks), &py_stack, out))
		return -errno;
	return out->depth <= PY_FRAMES_MAX ? 0 : -EPROTO;
}

void loader__py_counters(struct loader *l, struct py_counters *out)
{
	if (!l || !l->skel) {
		memset(out, 0, sizeof(*out));
		return;
	}
	*out = *(volatile struct py_counters *)&l->skel->bss->py_counters;
}

__u64 loader__fn_addr(struct loader *l, __u32 fn)
{
	if (!l || fn >= FN_COUNT)
		return 0;
	return ((volatile __u64 *)l->skel->bss->fn_addrs)[l->syms.owner[fn]];
}

const char *loader__libc_path(struct loader *l)
{
	return l ? l->syms.path : NULL;
}

const struct alloc_symbols *loader__alloc_symbols(struct loader *l)
{
	return l ? &l->syms : NULL;
}

__u32 loader__fn_owner(struct loader *l, __u32 fn)
{
	return l && fn < FN_COUNT ? l->syms.owner[fn] : fn;
}

int loader__ringbuf_fd(struct loader *l)
{
	return bpf_map__fd(l->skel->maps.events);
}

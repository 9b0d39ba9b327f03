// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "trap_cost.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LOG_TAG "trap cost: "
#include "log.h"
#include "uprobe_multi.h"

/* A uprobe-multi link (uprobe_multi.h) attaches in ~10 ms; a perf_event_open uprobe creates a
 * trace event: ~170 ms to open and ~330 ms to close here. */

/* 3 x 100 traps: ~2 ms at 6 us a trap; the cheapest batch is the one nobody preempted. */
#define TRAP_COST_BATCHES 3
#define TRAP_COST_CALLS	  100

/* The probe site: an empty function that starts like malloc (push), which the kernel
 * emulates: one trap a hit. An instruction it must single-step out of line (free's first,
 * a test) costs a second exception; the floor is the cheaper of the two. trap_cost_base,
 * the same code never probed, is the baseline: the site itself may still carry an earlier
 * measurement's link, whose close completes in the background. */
void trap_cost_site(void);
void trap_cost_base(void);
#define TRAP_COST_FN(name)                                                                          \
	".globl " name "\n.hidden " name "\n.type " name ", @function\n" name ":\n"               \
	"	push %rbp\n	pop %rbp\n	ret\n.size " name ", . - " name "\n"
__asm__(".text\n" TRAP_COST_FN("trap_cost_site") TRAP_COST_FN("trap_cost_base"));

static double now_ns(void)
{
	struct timespec ts;

	/* The thread's CPU time (the trap handler's included): wall time would also count
	 * other processes, which a trap-heavy loop lets run at each return to user space on a
	 * loaded machine (x10 at a load of 12 on 2 CPUs, seen). */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The cheapest of TRAP_COST_BATCHES batches of calls to fn, ns per call. */
static double time_calls(void (*fn)(void))
{
	double best = 0;

	for (int b = 0; b < TRAP_COST_BATCHES; b++) {
		double t0 = now_ns(), t;

		for (int i = 0; i < TRAP_COST_CALLS; i++)
			fn();
		t = (now_ns() - t0) / TRAP_COST_CALLS;
		if (b == 0 || t < best)
			best = t;
	}
	return best;
}

/* The file and file offset of code address addr, from /proc/self/maps. */
static int code_file_offset(uintptr_t addr, char *path, size_t path_sz, uint64_t *off)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		uintptr_t lo, hi;
		uint64_t pgoff;
		int n = 0;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %" SCNx64 " %*s %*s %n", &lo, &hi,
			   &pgoff, &n) < 3 || !n || addr < lo || addr >= hi)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (line[n] != '/' || strlen(line + n) >= path_sz)
			break;
		strcpy(path, line + n);
		*off = addr - lo + pgoff;
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

static int sys_bpf(int cmd, union bpf_attr *a)
{
	int fd = (int)syscall(__NR_bpf, cmd, a, sizeof(*a));

	return fd < 0 ? -errno : fd;
}

/* One u64 counter: the program counts its hits, so a probe that never fired is an error,
 * not a cheap trap. */
static int counter_map_create(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = sizeof(uint32_t);
	a.value_size = sizeof(uint64_t);
	a.max_entries = 1;
	return sys_bpf(BPF_MAP_CREATE, &a);
}

static int counter_read(int map, uint64_t *v)
{
	uint32_t key = 0;
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)map;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)v;
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &a) < 0 ? -EIO : 0;
}

/* Next to nothing: count the hit in the map, return 0 (a no-op probe plus one lookup and
 * one atomic add). Type kprobe: the type uprobes run. */
static int counting_prog_load(int map, uint32_t attach_type)
{
	struct bpf_insn insns[] = {
		/* *(u32 *)(r10 - 4) = 0; r2 = r10 - 4 */
		{ .code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = BPF_REG_10, .off = -4, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_2, .imm = -4 },
		/* r1 = &map (a 2-slot load) */
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_PSEUDO_MAP_FD, .imm = map },
		{ .code = 0 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem },
		/* if (r0) __sync_fetch_and_add((u64 *)r0, 1) */
		{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = BPF_REG_0, .off = 2, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_DW | BPF_ATOMIC, .dst_reg = BPF_REG_0,
		  .src_reg = BPF_REG_1, .imm = BPF_ADD },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_KPROBE;
	a.expected_attach_type = attach_type;
	a.insns = (uint64_t)(uintptr_t)insns;
	a.insn_cnt = (uint32_t)(sizeof(insns) / sizeof(insns[0]));
	a.license = (uint64_t)(uintptr_t)"GPL";
	return sys_bpf(BPF_PROG_LOAD, &a);
}

/* A uprobe-multi link of prog on path+off, for this process only: no other process
 * takes the trap, and the target is untouched. */
static int link_create(int prog, uint32_t attach_type, const char *path, uint64_t off)
{
	size_t offs[1] = { (size_t)off };

	return uprobe_multi__link(prog, attach_type, path, offs, NULL, 1, false, getpid());
}

static void *close_link(void *arg)
{
	close((int)(intptr_t)arg);
	return NULL;
}

/* Closing a link waits for an RCU grace period (~50 ms here): off the caller's path. */
static void close_link_later(int fd)
{
	pthread_attr_t at;
	pthread_t t;

	if (pthread_attr_init(&at) || pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED) ||
	    pthread_create(&t, &at, close_link, (void *)(intptr_t)fd))
		close(fd);
	pthread_attr_destroy(&at);
}

/* The counting program on this process's probe site, linked as attach_type. */
struct site_probe {
	int map, prog, link; /* -1: not made */
};

/* Make *sp: the counter map, the program loaded for attach_type, its link. 0 or the first
 * failure's -errno (what was made is in *sp, for site_probe_release). */
static int site_probe_attach(uint32_t attach_type, struct site_probe *sp)
{
	char path[1024];
	uint64_t off = 0;
	int err;

	*sp = (struct site_probe){ -1, -1, -1 };
	err = code_file_offset((uintptr_t)trap_cost_site, path, sizeof(path), &off);
	if (err)
		return err;
	sp->map = counter_map_create();
	if (sp->map < 0)
		return sp->map;
	sp->prog = counting_prog_load(sp->map, attach_type);
	if (sp->prog < 0)
		return sp->prog;
	sp->link = link_create(sp->prog, attach_type, path, off);
	return sp->link < 0 ? sp->link : 0;
}

static void site_probe_release(const struct site_probe *sp)
{
	if (sp->link >= 0)
		close_link_later(sp->link);
	if (sp->prog >= 0)
		close(sp->prog);
	if (sp->map >= 0)
		close(sp->map);
}

int trap_cost__measure(double *ns)
{
	uint64_t hits = 0;
	double base = time_calls(trap_cost_base), probed;
	struct site_probe sp;
	int err = site_probe_attach(BPF_TRACE_UPROBE_MULTI, &sp);

	if (!err) {
		probed = time_calls(trap_cost_site);
		err = counter_read(sp.map, &hits);
		if (!err && hits != TRAP_COST_BATCHES * TRAP_COST_CALLS) {
			dlog("%" PRIu64 " probe hits, expected %d\n", hits,
			     TRAP_COST_BATCHES * TRAP_COST_CALLS);
			err = -EIO;
		}
		if (!err)
			*ns = probed > base ? probed - base : 0;
	}
	site_probe_release(&sp);
	return err;
}

bool trap_cost__advice(double ns, double slow_ns, char *buf, size_t sz)
{
	if (sz)
		buf[0] = '\0';
	if (!(ns > slow_ns))
		return false;
	snprintf(buf, sz,
		 "a uprobe trap costs %.1f us on this host (under 1 us where traps are cheap), "
		 "and each allocator call costs the target one or two: allocation-heavy "
		 "programs will run much slower traced; --sample-bytes N traces fewer calls",
		 ns / 1000.0);
	return true;
}

int trap_cost__try_link(uint32_t attach_type)
{
	struct site_probe sp;
	int err = site_probe_attach(attach_type, &sp);

	site_probe_release(&sp);
	return err;
}

void trap_cost__check(void)
{
	char msg[320];
	double ns = 0;
	int err = trap_cost__measure(&ns);

	if (err) {
		dlog("not measured: %s\n", strerror(-err));
		return;
	}
	vlog("%.0f ns per uprobe trap\n", ns);
	if (trap_cost__advice(ns, TRAP_COST_SLOW_NS, msg, sizeof(msg)))
		ilog("tracer: %s\n", msg);
}

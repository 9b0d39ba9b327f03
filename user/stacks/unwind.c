// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * unwind: DWARF CFI unwinding of captured user stacks with libdw's dwfl frame API.
 *
 * One Dwfl per target process, built once: every executable mapping of /proc/PID/maps is
 * opened eagerly and reported with dwfl_report_elf(fd, load bias), so the files stay
 * reachable after the target exited. dwfl_attach_state() is called once with callbacks
 * that read the snapshot being unwound (u->snap): set_initial_registers hands libdw the
 * probe's registers, memory_read serves 8-byte words from the stack copy and fails outside
 * it. Each unwinder__unwind() is then one dwfl_getthread_frames() on the same Dwfl, so the
 * CFI that libdw parses per module (FDE tables, CIEs) is reused by every event.
 *
 * Rule cache. libdw still re-executes the CFA program (dwarf_cfi_addrframe) and evaluates
 * every register rule for every frame of every event. Most frames' rules are trivial
 * ("CFA = rsp + N, RA = [CFA - 8], rbx = [CFA - 24], ..."), so the rules libdw computes
 * for a PC (dwarf_cfi_addrframe + dwarf_frame_cfa + dwarf_frame_register) are cached by
 * PC in a classified form and applied exactly as libdw's handle_cfi() applies them
 * (libdwfl/frame_unwind.c): undefined, same value, saved at CFA + N, value CFA + N, copy
 * of a register. A PC whose rules take anything else (a DWARF expression such as the PLT's
 * CFA, a signal frame, no CFI at all) is stepped by libdw itself: one
 * dwfl_getthread_frames() started from the current registers, stopped after one frame.
 * No CFI bytecode is interpreted here, only the rule forms libdw hands back.
 *
 * Not thread-safe: one unwinder per thread.
 */
#include "unwind.h"
#include "grow.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "procmaps.h"
#include "seq_intern.h"

/* DWARF register numbers of x86_64 (System V psABI, figure 3.36). */
#define X86_RBX 3
#define X86_RBP 6
#define X86_RSP 7
#define X86_R12 12
#define X86_RA	16 /* return address column: the caller's rip */
/* libdw's x86_64 backend tracks exactly these (frame_nregs = 17: rax..r15 and rip). */
#define UNW_NREGS 17
/* Rule cache slots (direct-mapped by PC hash). A process rarely has more distinct
 * return addresses on its allocation paths; a collision just re-asks libdw. */
#define RULE_CACHE_CAP 8192
/* Automatic maps refreshes (unwind ended in an unknown module) allowed back to back... */
#define AUTO_REFRESH_BURST 64
/* ...then at most one per this many nanoseconds: a JIT's anonymous code never resolves. */
#define AUTO_REFRESH_GAP_NS 10000000ULL

/* The register state of one frame, as libdw holds it in a Dwfl_Frame. */
struct unw_state {
	__u64 pc;	       /* this frame's PC (ip or return address) */
	bool activation;       /* pc is exact (innermost or after a signal frame): no pc - 1 */
	__u32 set;	       /* bit r: regs[r] is known */
	__u64 regs[UNW_NREGS]; /* DWARF-numbered registers */
	/* Where regs[r] came from, for stack hints: the stack word (index from sp) it was
	 * loaded from, SRC_INIT(q) (the probe's register q), or SRC_DERIVED (computed from a
	 * CFA). */
	__s32 src[UNW_NREGS];
};

#define SRC_DERIVED (-1)
#define SRC_INIT(q) (-2 - (q))

/* The snapshot being unwound; the dwfl callbacks read it. */
struct unw_snap {
	const struct unw_state *init; /* registers to hand libdw as its initial frame */
	const unsigned char *stack;   /* copy of [sp, sp + stack_len) */
	__u64 sp;		      /* address of stack[0] */
	size_t stack_len;	      /* bytes in stack */
	__u64 *ips;		      /* output of a full libdw run */
	size_t n, max;		      /* used / capacity of ips */
	struct unw_state *step;	      /* one-step mode: the caller's state goes here */
	int frame_idx;		      /* frames seen by the callback in this run */
	bool stepped;		      /* one-step mode: *step was filled */
	bool unknown;		      /* the unwind ended at a PC in no known module */
	/* Sparse copy (stack NULL): the words of [sp, sp + stack_len) that were sent. */
	const struct unwind_sparse *sparse;
	long miss_at; /* sparse: frames listed when a word not sent was read first; -1 */
	/* Dense copy: the word indexes read, for stack hints (unwinder__last_reads), and those
	 * that steered the unwind (return addresses, CFA bases). */
	__u16 reads[UNWIND_READS_MAX];
	size_t n_reads;
	__u16 ctl[UNWIND_CTL_MAX];
	size_t n_ctl;
	bool need_bp;	 /* the probe's rbp was a CFA base */
	bool reads_lost; /* the path cannot be told from words: not a whole word read, too
			  * many reads, a frame stepped by libdw, another probe register used */
};

/* How a register is recovered, as classified from dwarf_frame_register(). */
enum rule_kind {
	R_UNDEF,   /* undefined (or libdw could not say): unknown in the caller */
	R_SAME,	   /* same value as in this frame */
	R_AT_CFA,  /* saved at CFA + off */
	R_VAL_CFA, /* value is CFA + off */
	R_REG,	   /* value of register off in this frame */
};

/* The cached rules of one lookup PC. */
struct rule_entry {
	__u64 pc;	      /* lookup PC (pc or pc - 1); 0: empty slot */
	bool simple;	      /* every rule has a form below; else libdw steps */
	bool no_module;	      /* pc is in no known module: the unwind ends */
	bool signal;	      /* CIE marks a signal frame (caller is an activation) */
	__u8 ra;	      /* return-address register */
	__u8 cfa_reg;	      /* CFA = regs[cfa_reg] + cfa_off */
	__s64 cfa_off;	      /* see cfa_reg */
	__u8 kind[UNW_NREGS]; /* enum rule_kind per register */
	__s64 off[UNW_NREGS]; /* offset (or register number for R_REG) */
};

/* One executable mapping and the module reported for it. */
struct unw_mod {
	char *path;	  /* maps path without " (deleted)"; also the dwfl module name */
	__u64 ino;	  /* inode from maps */
	__u64 start, end; /* the executable mapping */
	Dwfl_Module *mod; /* NULL if the file could not be opened or reported */
};

struct unwinder {
	pid_t pid;		       /* target */
	unsigned long long start_time; /* /proc/PID/stat start time, detects PID reuse */
	bool gone;		       /* target exited: maps are frozen */
	Dwfl *dwfl;		       /* modules + attached state */
	Elf *arch_elf;		       /* tells dwfl_attach_state the architecture */
	Elf64_Ehdr arch_ehdr;	       /* backing store of arch_elf */
	struct unw_mod *mods;	       /* known executable mappings, in maps order */
	size_t mod_cnt;		       /* entries in mods */
	struct unw_snap snap;	       /* snapshot being unwound */
	struct rule_entry *rules;      /* rule cache, RULE_CACHE_CAP slots */
	bool cache_on;		       /* use the rule cache */
	struct unwind_stats stats;     /* counters */
	unsigned int auto_refresh_cnt; /* automatic refreshes so far */
	__u64 last_refresh_ns;	       /* CLOCK_MONOTONIC of the last refresh */
};

/*
 * The separate debug file (/usr/lib/debug, build-id) of a module without .eh_frame, for its
 * .debug_frame; none for a module with one, as the kernel's tables choose (cfi_table.c). A PC
 * that .eh_frame does not cover is code written without CFI (ld.so's _start, below every
 * mapping ld.so makes before main): libdw would open the debug file for it and inflate its
 * compressed sections (libc6-dbg's ld.so: a quarter of the tracer's CPU in a tree of short
 * processes, once in every new process) to find no FDE there either.
 */
static int unw_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			      Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			      GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	Dwarf_Addr bias;

	if (dwfl_module_eh_cfi(mod, &bias))
		return -1;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}

static const Dwfl_Callbacks unw_dwfl_callbacks = {
    /* Modules come with their fd (dwfl_report_elf), so find_elf is never asked. */
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = unw_find_debuginfo,
};

/* ---- dwfl thread callbacks: the snapshot stands in for the live thread ---- */

static pid_t unw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwinder *u = arg;

	/* One thread: the one whose snapshot is being unwound. */
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->pid;
}

static bool unw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

/* The sent word at word index w of a sparse copy, or NULL (offs ascending, absent last). */
static const __u64 *sparse_word(const struct unwind_sparse *sp, __u64 w)
{
	size_t lo = 0, hi = sp->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp->offs[mid] == w)
			return &sp->words[mid];
		if (sp->offs[mid] < w)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool unw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unw_snap *s = &((struct unwinder *)arg)->snap;
	__u64 off = addr - s->sp;

	/* Only the copy: the target may be gone, and reading it live would mix times. */
	if (addr < s->sp || s->stack_len < sizeof(*result) ||
	    off > s->stack_len - sizeof(*result))
		return false;
	if (s->sparse) {
		const __u64 *w = (off & 7) ? NULL : sparse_word(s->sparse, off >> 3);

		if (!w) { /* copied, but not sent: another chain than the hint's */
			if (s->miss_at < 0)
				s->miss_at = (long)s->n;
			return false;
		}
		*result = *w;
		return true;
	}
	memcpy(result, s->stack + off, sizeof(*result));
	if ((off & 7) || s->n_reads == UNWIND_READS_MAX)
		s->reads_lost = true;
	else
		s->reads[s->n_reads++] = (__u16)(off >> 3);
	return true;
}

static bool unw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct unw_state *st = ((struct unwinder *)arg)->snap.init;
	int r;

	/* Registers we do not know stay unset, as libdw expects for undefined values. */
	for (r = 0; r < UNW_NREGS; r++) {
		Dwarf_Word v = st->regs[r];

		if ((st->set & (1u << r)) && !dwfl_thread_state_registers(thread, r, 1, &v))
			return false;
	}
	/* A return address is looked up at pc - 1 by libdw only for non-initial frames:
	 * hand it pc - 1 so a resumed caller frame finds its call site's row. */
	dwfl_thread_state_register_pc(thread, st->activation ? st->pc : st->pc - 1);
	return true;
}

static const Dwfl_Thread_Callbacks unw_thread_callbacks = {
    .next_thread = unw_next_thread,
    .get_thread = unw_get_thread,
    .memory_read = unw_memory_read,
    .set_initial_registers = unw_set_initial_registers,
};

/* ---- modules ---- */

/* The vdso image in a memfd (dwfl_report_elf wants a file): the target's, else ours. */
static int unw_vdso_fd(pid_t pid, __u64 start, __u64 end)
{
	size_t len = end - start;
	const void *src = NULL;
	void *img = NULL;
	int mfd = -1;

	if (!len || len > (64u << 20))
		return -1;
	img = malloc(len);
	if (!img)
		return -1;
	if (!procmaps__read_mem(pid, start, img, len))
		src = img;
	if (!src) {
		/* Same kernel, same vdso: the mapping size is the image size. */
		src = (const void *)getauxval(AT_SYSINFO_EHDR);
		if (!src)
			goto cleanup;
	}
	mfd = memfd_create("vdso", MFD_CLOEXEC);
	if (mfd >= 0 && write(mfd, src, len) != (ssize_t)len) {
		close(mfd);
		mfd = -1;
	}
cleanup:
	free(img);
	return mfd;
}

/* Load bias of an ELF whose executable mapping [start, ...) maps file offset off. */
int unwind__load_bias(int fd, __u64 start, __u64 off, __u64 *bias)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t phnum = 0, i;
	int err = -ENOEXEC;

	if (!elf || elf_getphdrnum(elf, &phnum))
		goto cleanup;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		__u64 page_off;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* The segment mapped at the mapping's file offset. Exact (page-aligned start)
		 * wins over merely containing: segments may differ in vaddr - offset. */
		page_off = ph.p_offset & ~0xfffULL;
		if (off < page_off || off >= ph.p_offset + ph.p_filesz)
			continue;
		*bias = start - (ph.p_vaddr - (ph.p_offset - off));
		err = 0;
		if (page_off == off && (ph.p_flags & PF_X))
			break;
	}
cleanup:
	elf_end(elf);
	return err;
}

/* Open and report one executable mapping as a dwfl module; m->mod stays NULL on failure
 * (that mapping's frames then end the unwind, as with no CFI). */
static void unwinder__report_new(struct unwinder *u, struct unw_mod *m,
				 const struct proc_mapping *pm)
{
	__u64 bias = 0;
	int fd;

	if (!strcmp(m->path, "[vdso]"))
		fd = unw_vdso_fd(u->pid, m->start, m->end);
	else if (m->path[0] == '/' || pm->deleted)
		fd = procmaps__open_file(u->pid, pm);
	else
		return; /* [vsyscall], anonymous JIT code: nothing to read CFI from */
	if (fd < 0)
		return;
	if (unwind__load_bias(fd, m->start, pm->off, &bias)) {
		close(fd);
		return;
	}
	/* On success dwfl owns fd and keeps it open: the module outlives the target. */
	m->mod = dwfl_report_elf(u->dwfl, m->path, m->path, fd, bias, true);
	if (!m->mod)
		close(fd);
}

static void unw_mods_free(struct unw_mod *mods, size_t cnt)
{
	size_t i;

	for (i = 0; i < cnt; i++)
		free(mods[i].path);
	free(mods);
}

/* Re-read maps and re-report modules; *changed: the module set differs. 0 or -errno. */
static int unwinder__refresh(struct unwinder *u, bool *changed_out)
{
	struct proc_mapping *pm = NULL;
	struct unw_mod *nm = NULL;
	size_t pm_cnt = 0, k, n = 0, cap = 0, i, j;
	bool changed = false;
	int err = 0;

	*changed_out = false;
	u->last_refresh_ns = clock__mono_ns();
	if (u->gone)
		return -ESRCH;
	if (u->start_time && proc_start_time(u->pid) != u->start_time) {
		/* Exited, and maybe the PID already belongs to someone else. */
		u->gone = true;
		return -ESRCH;
	}
	err = procmaps__read(u->pid, true, &pm, &pm_cnt);
	if (err) {
		if (err == -ESRCH)
			u->gone = true;
		return err;
	}
	/* Every module is re-reported below: old ones by name and range, new ones by fd. */
	dwfl_report_begin(u->dwfl);
	for (k = 0; k < pm_cnt; k++) {
		const struct proc_mapping *p = &pm[k];
		bool known = false;

		if (!p->path[0])
			continue; /* anonymous executable memory (JIT): no CFI */
		if (grow__array(&nm, &cap, n + 1, sizeof(*nm))) {
			err = -ENOMEM;
			goto cleanup;
		}
		nm[n] = (struct unw_mod){.ino = p->ino, .start = p->start, .end = p->end};
		nm[n].path = strdup(p->path);
		if (!nm[n].path) {
			err = -ENOMEM;
			goto cleanup;
		}
		for (j = 0; j < u->mod_cnt && !known; j++) {
			struct unw_mod *o = &u->mods[j];

			if (o->start == p->start && o->end == p->end && o->ino == p->ino &&
			    !strcmp(o->path, nm[n].path)) {
				Dwarf_Addr lo, hi;

				known = true;
				nm[n].mod = o->mod;
				if (o->mod) {
					/* Same name and range: dwfl keeps the module as it is. */
					dwfl_module_info(o->mod, NULL, &lo, &hi, NULL, NULL, NULL,
							 NULL);
					nm[n].mod = dwfl_report_module(u->dwfl, o->path, lo, hi);
				}
				o->start = o->end = 0; /* claimed */
			}
		}
		for (j = 0; j < n && !known; j++) {
			/* A second executable mapping of a file reported in this round: one
			 * module covers all its segments (reporting it twice would make dwfl
			 * drop it as overlapping). */
			if (nm[j].mod && nm[j].ino == p->ino && !strcmp(nm[j].path, nm[n].path)) {
				known = true;
				nm[n].mod = nm[j].mod;
			}
		}
		if (!known) {
			changed = true;
			unwinder__report_new(u, &nm[n], p);
		}
		n++;
	}
	/* Old mappings that nothing replaced stay (dlclose'd libraries, zombie targets). */
	for (j = 0; j < u->mod_cnt; j++) {
		struct unw_mod *o = &u->mods[j];
		bool overlaps = false;
		Dwarf_Addr lo, hi;

		if (!o->start && !o->end)
			continue;
		for (i = 0; i < n && !overlaps; i++)
			overlaps = o->start < nm[i].end && nm[i].start < o->end;
		if (overlaps || !o->mod) {
			changed = true; /* replaced: dwfl drops it at dwfl_report_end */
			continue;
		}
		if (grow__array(&nm, &cap, n + 1, sizeof(*nm))) {
			err = -ENOMEM;
			goto cleanup;
		}
		dwfl_module_info(o->mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
		nm[n] = *o;
		nm[n].mod = dwfl_report_module(u->dwfl, o->path, lo, hi);
		o->path = NULL; /* moved */
		n++;
	}
cleanup:
	/* Close the report even on error: a Dwfl mid-report is unusable. */
	dwfl_report_end(u->dwfl, NULL, NULL);
	if (err) {
		/* Unknown state: forget everything rather than keep stale module pointers. */
		unw_mods_free(nm, n);
		nm = NULL;
		n = 0;
		changed = true;
	}
	unw_mods_free(u->mods, u->mod_cnt);
	u->mods = nm;
	u->mod_cnt = n;
	if (changed && u->rules)
		memset(u->rules, 0, RULE_CACHE_CAP * sizeof(*u->rules));
	*changed_out = changed;
	procmaps__free(pm, pm_cnt);
	return err;
}

int unwinder__refresh_maps(struct unwinder *u)
{
	bool changed;

	if (!u)
		return -EINVAL;
	return unwinder__refresh(u, &changed);
}

struct unwinder *unwinder__new(pid_t pid)
{
	struct unwinder *u = NULL;
	int err;

	if (pid <= 0) {
		err = -EINVAL;
		goto cleanup;
	}
	elf_version(EV_CURRENT);
	u = calloc(1, sizeof(*u));
	if (!u) {
		err = -ENOMEM;
		goto cleanup;
	}
	u->pid = pid;
	u->cache_on = true;
	u->rules = calloc(RULE_CACHE_CAP, sizeof(*u->rules));
	u->dwfl = dwfl_begin(&unw_dwfl_callbacks);
	if (!u->rules || !u->dwfl) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* A bare x86_64 ELF header selects libdw's x86_64 backend (register numbering,
	 * ABI default rules) without depending on which modules opened. */
	memcpy(u->arch_ehdr.e_ident, ELFMAG, SELFMAG);
	u->arch_ehdr.e_ident[EI_CLASS] = ELFCLASS64;
	u->arch_ehdr.e_ident[EI_DATA] = ELFDATA2LSB;
	u->arch_ehdr.e_ident[EI_VERSION] = EV_CURRENT;
	u->arch_ehdr.e_type = ET_EXEC;
	u->arch_ehdr.e_machine = EM_X86_64;
	u->arch_ehdr.e_version = EV_CURRENT;
	u->arch_ehdr.e_ehsize = sizeof(Elf64_Ehdr);
	u->arch_elf = elf_memory((char *)&u->arch_ehdr, sizeof(u->arch_ehdr));
	if (!u->arch_elf) {
		err = -ENOEXEC;
		goto cleanup;
	}
	u->start_time = proc_start_time(pid);
	err = unwinder__refresh_maps(u);
	if (err)
		goto cleanup;
	if (!dwfl_attach_state(u->dwfl, u->arch_elf, pid, &unw_thread_callbacks, u)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	return u;

cleanup:
	unwinder__free(u);
	errno = -err;
	return NULL;
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	/* dwfl_end closes the module files; arch_elf must outlive the attached state. */
	if (u->dwfl)
		dwfl_end(u->dwfl);
	if (u->arch_elf)
		elf_end(u->arch_elf);
	unw_mods_free(u->mods, u->mod_cnt);
	free(u->rules);
	free(u);
}

void unwinder__set_cache(struct unwinder *u, bool enabled)
{
	if (u)
		u->cache_on = enabled;
}

void unwinder__stats(const struct unwinder *u, struct unwind_stats *st)
{
	if (u && st)
		*st = u->stats;
}

/* ---- libdw runs ---- */

static int unw_frame_cb(Dwfl_Frame *frame, void *arg)
{
	struct unw_snap *s = &((struct unwinder *)arg)->snap;
	Dwarf_Addr pc;
	int r;

	/* Frame 0 is the state we started from: already emitted by the caller. */
	if (s->frame_idx++ == 0)
		return DWARF_CB_OK;
	if (!dwfl_frame_pc(frame, &pc, NULL))
		return DWARF_CB_ABORT;
	if (s->step) {
		/* One-step mode: take the caller's registers back, let the cache go on. */
		s->step->pc = pc;
		s->step->set = 0;
		for (r = 0; r < UNW_NREGS; r++) {
			Dwarf_Word v;

			if (dwfl_frame_reg(frame, (unsigned)r, &v) == 0) {
				s->step->regs[r] = v;
				s->step->set |= 1u << r;
			}
		}
		s->stepped = true;
		return DWARF_CB_ABORT;
	}
	s->ips[s->n++] = pc;
	/* Same rule as the cached path (rule_fill): no module, no further unwinding. */
	if (!dwfl_addrmodule(dwfl_thread_dwfl(dwfl_frame_thread(frame)), pc - 1)) {
		s->unknown = true;
		return DWARF_CB_ABORT;
	}
	return s->n < s->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/*
 * Let libdw unwind from st. With step != NULL, stop after one frame and store the caller's
 * state in *step (returns 1 if there was a caller, 0 at the end of the stack); otherwise
 * append every caller's PC to snap.ips up to snap.max (returns 0).
 */
static int unwinder__libdw_run(struct unwinder *u, const struct unw_state *st,
			       struct unw_state *step)
{
	size_t n0 = u->snap.n;

	u->snap.reads_lost = true; /* libdw's reads do not say which steered it */
	u->snap.init = st;
	u->snap.step = step;
	u->snap.frame_idx = 0;
	u->snap.stepped = false;
	/* -1 (a read outside the copy, no CFI, ...) just ends the list: partial stacks are
	 * expected from bounded copies. */
	if (dwfl_getthread_frames(u->dwfl, u->pid, unw_frame_cb, u) < 0)
		u->stats.partial_cnt++;
	u->stats.libdw_cnt += step ? u->snap.stepped : u->snap.n - n0;
	return u->snap.stepped;
}

/* ---- rule cache ---- */

/* Classify one register's rule as dwarf_frame_register() gives it; false: not simple. */
static bool rule_classify(Dwarf_Frame *frame, int regno, __u8 *kind, __s64 *off)
{
	Dwarf_Op mem[3], *ops;
	size_t nops, i = 1;

	if (dwarf_frame_register(frame, regno, mem, &ops, &nops) != 0) {
		/* libdw leaves such a register unset, i.e. undefined. */
		*kind = R_UNDEF;
		return true;
	}
	if (nops == 0) {
		if (ops == mem) {
			*kind = R_UNDEF;
			return true;
		}
		if (ops == NULL) {
			*kind = R_SAME;
			return true;
		}
		return false;
	}
	if (nops == 1 && ops[0].atom == DW_OP_regx && ops[0].number < UNW_NREGS) {
		*kind = R_REG;
		*off = (__s64)ops[0].number;
		return true;
	}
	/* (DW_OP_call_frame_cfa [DW_OP_plus_uconst N] [DW_OP_stack_value]): the only forms
	 * dwarf_frame_register synthesizes for DW_CFA_offset and DW_CFA_val_offset. */
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	*off = 0;
	if (i < nops && ops[i].atom == DW_OP_plus_uconst)
		*off = (__s64)ops[i++].number;
	*kind = R_AT_CFA;
	if (i < nops && ops[i].atom == DW_OP_stack_value) {
		*kind = R_VAL_CFA;
		i++;
	}
	return i == nops;
}

/* Fill e with the rules libdw computes at lookup PC lpc, from the CFI libdw would use. */
static void rule_fill(struct unwinder *u, __u64 lpc, struct rule_entry *e)
{
	Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, lpc);
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;
	Dwarf_Op *ops;
	size_t nops;
	bool signal = false;
	int ra, r;

	memset(e, 0, sizeof(*e));
	e->pc = lpc;
	if (!mod) {
		/* libdw would walk rbp here; in code without frame pointers that yields
		 * garbage, so a PC outside every module ends the list instead. */
		e->no_module = true;
		return;
	}
	/* Same order as libdw's __libdwfl_frame_unwind: .eh_frame, then .debug_frame. */
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, lpc - bias, &frame) != 0) {
		frame = NULL;
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, lpc - bias, &frame) != 0)
			return; /* libdw falls back to the backend's frame-pointer walk */
	}
	ra = dwarf_frame_info(frame, NULL, NULL, &signal);
	e->signal = signal;
	if (ra < 0 || ra >= UNW_NREGS || signal)
		goto cleanup;
	e->ra = (__u8)ra;
	if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops != 1)
		goto cleanup;
	if (ops[0].atom == DW_OP_bregx && ops[0].number < UNW_NREGS) {
		e->cfa_reg = (__u8)ops[0].number;
		e->cfa_off = (__s64)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom < DW_OP_breg0 + UNW_NREGS) {
		e->cfa_reg = (__u8)(ops[0].atom - DW_OP_breg0);
		e->cfa_off = (__s64)ops[0].number;
	} else {
		goto cleanup;
	}
	for (r = 0; r < UNW_NREGS; r++) {
		if (!rule_classify(frame, r, &e->kind[r], &e->off[r]))
			goto cleanup;
	}
	e->simple = true;
cleanup:
	free(frame);
}

/*
 * A register with provenance src steers the unwind (a CFA base or a return address): a
 * sparse copy may stand for this one only where the value is the same. A stack word is
 * noted for the hint to check; the probe's sp is in the hint's key, its rbp is checked
 * apart; any other probe register makes the path one a hint cannot vouch for.
 */
static void steer(struct unwinder *u, __s32 src)
{
	struct unw_snap *s = &u->snap;

	if (src >= 0) {
		for (size_t i = 0; i < s->n_ctl; i++)
			if (s->ctl[i] == (__u16)src)
				return;
		if (s->n_ctl == UNWIND_CTL_MAX)
			s->reads_lost = true;
		else
			s->ctl[s->n_ctl++] = (__u16)src;
	} else if (src == SRC_INIT(X86_RBP)) {
		s->need_bp = true;
	} else if (src != SRC_DERIVED && src != SRC_INIT(X86_RSP)) {
		s->reads_lost = true;
	}
}

/*
 * Step st to its caller with the cached rules, as libdw's handle_cfi() would.
 * Returns 1 stepped, 0 end of stack, -1 not possible here (libdw must step this frame).
 * *signal: the frame's CIE is a signal frame.
 */
static int unwinder__cached_step(struct unwinder *u, struct unw_state *st, bool *signal)
{
	__u64 lpc = st->activation ? st->pc : st->pc - 1;
	struct rule_entry *e = &u->rules[((lpc * 0x9E3779B97F4A7C15ULL) >> 40) % RULE_CACHE_CAP];
	struct unw_state nx = {.activation = false};
	__u64 cfa;
	int r;

	if (e->pc != lpc || !lpc)
		rule_fill(u, lpc, e);
	*signal = e->signal;
	if (e->no_module) {
		u->snap.unknown = true;
		return 0;
	}
	if (!e->simple || !(st->set & (1u << e->cfa_reg)))
		return -1;
	cfa = st->regs[e->cfa_reg] + (__u64)e->cfa_off;
	steer(u, st->src[e->cfa_reg]);
	for (r = 0; r < UNW_NREGS; r++) {
		Dwarf_Word v;
		__u64 at;

		switch (e->kind[r]) {
		case R_UNDEF:
			continue;
		case R_SAME:
			if (!(st->set & (1u << r)))
				continue;
			v = st->regs[r];
			nx.src[r] = st->src[r];
			break;
		case R_AT_CFA:
			at = cfa + (__u64)e->off[r];
			if (!unw_memory_read(u->dwfl, at, &v, u))
				continue;
			at -= u->snap.sp; /* read, so inside the copy */
			nx.src[r] = at & 7 ? SRC_DERIVED : (__s32)(at >> 3);
			break;
		case R_VAL_CFA:
			v = cfa + (__u64)e->off[r];
			nx.src[r] = SRC_DERIVED;
			break;
		default: /* R_REG */
			if (!(st->set & (1u << e->off[r])))
				continue;
			v = st->regs[e->off[r]];
			nx.src[r] = st->src[e->off[r]];
			break;
		}
		nx.regs[r] = v;
		nx.set |= 1u << r;
	}
	if (nx.set & (1u << e->ra))
		steer(u, nx.src[e->ra]); /* the next PC */
	/* libdw: an unknown or zero return address is the end of the stack. */
	if (e->kind[e->ra] == R_UNDEF || !(nx.set & (1u << e->ra)) || !nx.regs[e->ra]) {
		if (e->kind[e->ra] == R_AT_CFA && !(nx.set & (1u << e->ra)))
			u->stats.partial_cnt++; /* the copy ended before the return address */
		return 0;
	}
	nx.pc = nx.regs[e->ra];
	*st = nx;
	return 1;
}

/* One unwind of the snapshot; sets snap.unknown if it ended in an unknown module. */
static int unwinder__unwind_once(struct unwinder *u, const struct unwind_regs *regs,
				 const void *stack, size_t stack_len, __u64 *ips, size_t max)
{
	struct unw_state st = {.activation = true};
	struct unw_snap *s;
	int r;

	s = &u->snap;
	s->unknown = false;
	s->miss_at = -1;
	s->stack = stack;
	s->sp = regs->sp;
	s->stack_len = stack_len;
	s->ips = ips;
	s->max = max;
	s->n = 0;

	st.pc = regs->ip;
	for (r = 0; r < UNW_NREGS; r++)
		st.src[r] = SRC_INIT(r);
	st.regs[X86_RSP] = regs->sp;
	st.regs[X86_RBP] = regs->bp;
	st.set = 1u << X86_RSP | 1u << X86_RBP;
	if (regs->has_callee_saved) {
		st.regs[X86_RBX] = regs->rbx;
		st.regs[X86_R12] = regs->r12;
		st.regs[X86_R12 + 1] = regs->r13;
		st.regs[X86_R12 + 2] = regs->r14;
		st.regs[X86_R12 + 3] = regs->r15;
		st.set |= 1u << X86_RBX | 0xfu << X86_R12;
	}
	ips[s->n++] = st.pc;
	if (!u->cache_on) {
		if (!dwfl_addrmodule(u->dwfl, st.pc))
			s->unknown = true;
		else if (s->n < max)
			unwinder__libdw_run(u, &st, NULL);
		goto out;
	}
	while (s->n < max) {
		struct unw_state nx;
		bool was_signal;

		r = unwinder__cached_step(u, &st, &was_signal);
		if (r == 1) {
			u->stats.cache_hit_cnt++;
			ips[s->n++] = st.pc;
			continue;
		}
		if (r == 0)
			break;
		/* This frame's rules need libdw's evaluator: let it step one frame. */
		if (!unwinder__libdw_run(u, &st, &nx))
			break;
		/* After a signal frame the caller's PC is where it was interrupted: exact. */
		nx.activation = was_signal;
		for (r = 0; r < UNW_NREGS; r++) /* libdw does not say (reads_lost is set) */
			nx.src[r] = SRC_DERIVED;
		st = nx;
		ips[s->n++] = st.pc;
	}
out:
	return (int)s->n;
}

/* unwinder__unwind and unwinder__unwind_sparse: sparse NULL for a dense copy in stack. */
static int unwinder__unwind_any(struct unwinder *u, const struct unwind_regs *regs,
				const void *stack, size_t stack_len,
				const struct unwind_sparse *sparse, __u64 *ips, size_t max)
{
	bool changed = false;
	int n;

	u->stats.unwind_cnt++;
	u->snap.sparse = sparse;
	u->snap.n_reads = 0;
	u->snap.n_ctl = 0;
	u->snap.need_bp = false;
	u->snap.reads_lost = false;
	if (!max)
		return 0;
	n = unwinder__unwind_once(u, regs, stack, stack_len, ips, max);
	if (u->snap.unknown && !u->gone &&
	    (u->auto_refresh_cnt < AUTO_REFRESH_BURST ||
	     clock__mono_ns() - u->last_refresh_ns >= AUTO_REFRESH_GAP_NS)) {
		/* Maybe a dlopen since the maps were read: look again, and retry if so. */
		u->auto_refresh_cnt++;
		if (!unwinder__refresh(u, &changed) && changed)
			n = unwinder__unwind_once(u, regs, stack, stack_len, ips, max);
	}
	/* A word the hint did not send was read: the frames after it may be wrong. */
	if (sparse && u->snap.miss_at >= 0 && n > u->snap.miss_at)
		n = u->snap.miss_at > 0 ? (int)u->snap.miss_at : 1;
	u->stats.frame_cnt += (__u64)n;
	return n;
}

int unwinder__unwind(struct unwinder *u, const struct unwind_regs *regs, const void *stack,
		     size_t stack_len, __u64 *ips, size_t max)
{
	if (!u || !regs || (!stack && stack_len) || (!ips && max))
		return -EINVAL;
	return unwinder__unwind_any(u, regs, stack, stack_len, NULL, ips, max);
}

int unwinder__unwind_sparse(struct unwinder *u, const struct unwind_regs *regs,
			    size_t stack_len, const struct unwind_sparse *sparse, __u64 *ips,
			    size_t max, bool *missed)
{
	int n;

	if (!u || !regs || !sparse || (!sparse->offs && sparse->n) ||
	    (!sparse->words && sparse->n) || (!ips && max))
		return -EINVAL;
	for (size_t i = 1; i < sparse->n; i++)
		if (sparse->offs[i] <= sparse->offs[i - 1])
			return -EINVAL;
	n = unwinder__unwind_any(u, regs, NULL, stack_len, sparse, ips, max);
	if (missed)
		*missed = max && u->snap.miss_at >= 0;
	return n;
}

bool unwinder__last_reads(const struct unwinder *u, struct unwind_reads *out)
{
	/* An unwind that ended at a PC in no known module may go further once the maps are
	 * read again (a dlopen, JIT code): its reads are not a whole path. */
	if (!u || !out || u->snap.sparse || u->snap.reads_lost || u->snap.unknown)
		return false;
	out->words = u->snap.reads;
	out->n = u->snap.n_reads;
	out->steering = u->snap.ctl;
	out->n_steering = u->snap.n_ctl;
	out->need_bp = u->snap.need_bp;
	return true;
}

/* ---- stack table ---- */

/* The interned lists: ids are seq_intern indices, bounded to fit __s32. */
#define STACK_IDS_MAX 0x7ffffffe

struct stack_table {
	struct seq_intern seqs; /* of __u64 PCs */
};

struct stack_table *stack_table__new(void)
{
	struct stack_table *t = calloc(1, sizeof(*t));

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	seq_intern__init(&t->seqs, sizeof(__u64));
	return t;
}

void stack_table__free(struct stack_table *t)
{
	if (!t)
		return;
	seq_intern__release(&t->seqs);
	free(t);
}

__s32 stack_table__intern(struct stack_table *t, const __u64 *ips, size_t n)
{
	int64_t id;

	if (!t || (!ips && n))
		return -EINVAL;
	/* Past the last id a __s32 holds, known lists are still found but no new one added. */
	if (seq_intern__cnt(&t->seqs) < STACK_IDS_MAX)
		id = seq_intern__intern(&t->seqs, ips, n, NULL);
	else if ((id = seq_intern__find(&t->seqs, ips, n)) == -ENOENT)
		id = -E2BIG;
	return (__s32)id;
}

int stack_table__get(const struct stack_table *t, __s32 id, const __u64 **ips, size_t *n)
{
	if (!t || id < 0 || (size_t)id >= seq_intern__cnt(&t->seqs) || !ips || !n)
		return -ENOENT;
	*ips = seq_intern__get(&t->seqs, (size_t)id, n, NULL);
	return 0;
}

size_t stack_table__cnt(const struct stack_table *t)
{
	return t ? seq_intern__cnt(&t->seqs) : 0;
}

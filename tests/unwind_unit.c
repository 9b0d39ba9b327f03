// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unwinder tests on real snapshots without BPF: the fixture (tests/data/unwind/, built by
 * tests/unwind.cmake without frame pointers) runs under ptrace and stops on an int3; we take
 * its registers (PTRACE_GETREGS) and 8 KiB of stack from SP (/proc/PID/mem), the same data
 * the BPF probe captures, unwind with user/unwind.c and symbolize with user/symbolizer.c.
 * Every unwind is done twice, with and without the rule cache, and must agree.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "symbolizer.h"
#include "unwind.h"

#define FIX(name)  UNWFIX_DIR "/" name
#define STACK_SZ   8192 /* what the BPF side is expected to copy */
#define MAX_FRAMES 64

/* A stopped fixture and what a probe would have captured. */
struct snap {
	pid_t pid;		       /* traced child, stopped (0 once reaped) */
	struct unwind_regs regs;       /* registers at the probe */
	unsigned char stack[STACK_SZ]; /* copy of [regs.sp, regs.sp + len) */
	size_t len;		       /* bytes copied */
};

/* Start exe with up to two args under ptrace; it is left in its exec stop. */
static void snap_spawn(struct snap *s, const char *exe, const char *arg, const char *arg2)
{
	int st;

	memset(s, 0, sizeof(*s));
	s->pid = fork();
	cr_assert_geq(s->pid, 0, "fork: %s", strerror(errno));
	if (s->pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execl(exe, exe, arg, arg2, (char *)NULL);
		_exit(127);
	}
	cr_assert_eq(waitpid(s->pid, &st, 0), s->pid);
	cr_assert(WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP, "no exec stop for %s: 0x%x", exe, st);
}

/*
 * Run the fixture to its next int3 (passing other signals on to it) and capture what a
 * probe would: registers and up to STACK_SZ bytes of stack from SP.
 * entry_probe: the int3 is the first instruction of a function; report ip at the function
 * start as a uprobe would (rip is past the int3).
 */
static void snap_next(struct snap *s, bool entry_probe)
{
	struct user_regs_struct r;
	char path[64];
	ssize_t got;
	int st, sig = 0, fd;

	for (;;) {
		cr_assert_eq(ptrace(PTRACE_CONT, s->pid, NULL, (void *)(long)sig), 0);
		cr_assert_eq(waitpid(s->pid, &st, 0), s->pid);
		cr_assert(WIFSTOPPED(st), "fixture ended before its probe: 0x%x", st);
		if (WSTOPSIG(st) == SIGTRAP)
			break;
		sig = WSTOPSIG(st); /* e.g. the fixture's own SIGUSR1: deliver it */
	}
	cr_assert_eq(ptrace(PTRACE_GETREGS, s->pid, NULL, &r), 0);
	s->regs = (struct unwind_regs){
	    .ip = entry_probe ? r.rip - 1 : r.rip,
	    .sp = r.rsp,
	    .bp = r.rbp,
	    .rbx = r.rbx,
	    .r12 = r.r12,
	    .r13 = r.r13,
	    .r14 = r.r14,
	    .r15 = r.r15,
	    .has_callee_saved = true,
	};
	snprintf(path, sizeof(path), "/proc/%d/mem", s->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	/* Near the top of the stack fewer than STACK_SZ bytes may exist: take what reads. */
	for (s->len = STACK_SZ; s->len >= 64; s->len /= 2) {
		got = pread(fd, s->stack, s->len, (off_t)s->regs.sp);
		if (got > 0) {
			s->len = (size_t)got;
			break;
		}
	}
	close(fd);
	cr_assert_geq(s->len, 64, "no stack read at 0x%llx", (unsigned long long)s->regs.sp);
}

/* Spawn and run to the first probe. */
static void snap_take(struct snap *s, const char *exe, const char *arg, bool entry_probe)
{
	snap_spawn(s, exe, arg, NULL);
	snap_next(s, entry_probe);
}

/* Kill and reap the fixture: afterwards nothing of it is left in /proc. */
static void snap_kill(struct snap *s)
{
	int st;

	if (s->pid <= 0)
		return;
	kill(s->pid, SIGKILL);
	waitpid(s->pid, &st, 0);
	s->pid = 0;
}

/* Unwind s with the cache on and off; both must agree. Returns the count, PCs in ips. */
static int unwind_both(struct unwinder *u, const struct snap *s, size_t len, __u64 *ips, size_t max)
{
	__u64 raw[MAX_FRAMES];
	int n, m, i;

	cr_assert_leq(max, MAX_FRAMES);
	unwinder__set_cache(u, true);
	n = unwinder__unwind(u, &s->regs, s->stack, len, ips, max);
	unwinder__set_cache(u, false);
	m = unwinder__unwind(u, &s->regs, s->stack, len, raw, max);
	unwinder__set_cache(u, true);
	cr_assert_gt(n, 0, "unwind: %d", n);
	cr_assert_eq(n, m, "cached unwind has %d frames, libdw alone %d", n, m);
	for (i = 0; i < n; i++)
		cr_assert_eq(ips[i], raw[i], "frame %d: cached 0x%llx, libdw 0x%llx", i,
			     (unsigned long long)ips[i], (unsigned long long)raw[i]);
	return n;
}

/* Symbolize ips into names (one string per frame, inlined frames expanded). */
static void symbolize(struct symbolizer *sym, const __u64 *ips, int n, struct strvec *out)
{
	int i, r;

	for (i = 0; i < n; i++) {
		r = symbolizer__frames(sym, ips[i], i > 0, out);
		cr_assert_gt(r, 0, "symbolize 0x%llx: %d", (unsigned long long)ips[i], r);
	}
	for (i = 0; i < (int)out->cnt; i++)
		cr_log_info("frame %d: %s", i, out->items[i]);
}

/* Index of the first frame at or after from whose text contains name, or -1. */
static int find_frame(const struct strvec *v, int from, const char *name)
{
	for (int i = from; i < (int)v->cnt; i++) {
		if (strstr(v->items[i], name))
			return i;
	}
	return -1;
}

/* The frames name[0..cnt) appear in this order; adjacent: with no frame between them. */
static void expect_order(const struct strvec *v, const char *const *names, int cnt, bool adjacent)
{
	int at = -1, prev = -1;

	for (int i = 0; i < cnt; i++) {
		at = find_frame(v, prev + 1, names[i]);
		cr_assert_geq(at, 0, "frame '%s' missing after frame %d", names[i], prev);
		if (adjacent && prev >= 0)
			cr_assert_eq(at, prev + 1, "'%s' at %d, expected right after '%s' at %d",
				     names[i], at, names[i - 1], prev);
		prev = at;
	}
}

/* Name as the symbolizer prints it, function part: "0x..: NAME (...)". */
#define FN(name) ": " name " ("

/* No function of exe whose symbol contains marker sets up a frame pointer. */
static void expect_no_frame_pointer(const char *exe, const char *marker, int min_funcs)
{
	char cmd[4200], line[1024];
	bool in_fn = false;
	int funcs = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn %s", exe);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, ">:")) {
			in_fn = strstr(line, marker) != NULL;
			funcs += in_fn;
			continue;
		}
		if (in_fn)
			cr_assert_null(strstr(line, "mov    %rsp,%rbp"),
				       "frame-pointer prologue in %s: %s", exe, line);
	}
	pclose(p);
	cr_assert_geq(funcs, min_funcs, "objdump found %d '%s' functions in %s", funcs, marker,
		      exe);
}

Test(unwind, fixtures_have_no_frame_pointers)
{
	/* The point of the fixtures: a frame-pointer walk must not get through them. */
	expect_no_frame_pointer(FIX("unwfix"), "<fix_", 7);
	expect_no_frame_pointer(FIX("libunwfix.so"), "<unwlib_", 2);
	if (!access(FIX("rsfix"), X_OK))
		expect_no_frame_pointer(FIX("rsfix"), "rsfix", 3);
}

Test(unwind, chain_without_frame_pointers)
{
	static const char *const want[] = {FN("unwfix_probe"), FN("fix_c"), FN("fix_b"),
					   FN("fix_a"), FN("main")};
	struct strvec names = {0};
	struct symbolizer *sym;
	struct unwinder *u;
	__u64 ips[MAX_FRAMES];
	struct snap *s = calloc(1, sizeof(*s));
	int n;

	cr_assert_not_null(s);
	snap_take(s, FIX("unwfix"), "chain", true);
	u = unwinder__new(s->pid);
	cr_assert_not_null(u, "unwinder__new: %s", strerror(errno));
	sym = symbolizer__new(s->pid);
	cr_assert_not_null(sym);
	/* Nothing changed: the modules are re-reported as they are. */
	cr_assert_eq(unwinder__refresh_maps(u), 0);
	n = unwind_both(u, s, s->len, ips, MAX_FRAMES);
	cr_assert_eq(ips[0], s->regs.ip, "first PC is the probe's ip");
	symbolize(sym, ips, n, &names);
	expect_order(&names, want, 5, true);
	/* Below main: libc's start code, then the end of the stack (not max frames). */
	cr_assert_lt(n, 12, "%d frames: the unwind did not stop at the outermost frame", n);

	/* Callee-saved registers unknown (BPF captured only ip/sp/bp): same result here. */
	s->regs.has_callee_saved = false;
	cr_assert_eq(unwind_both(u, s, s->len, ips, MAX_FRAMES), n);

	unwinder__free(u);
	symbolizer__free(sym);
	strvec__release(&names);
	snap_kill(s);
	free(s);
}

Test(unwind, through_libc_qsort)
{
	static const char *const want[] = {FN("unwfix_probe"), FN("fix_cmp")};
	static const char *const callers[] = {FN("fix_cmp"), "qsort", FN("fix_sort"), FN("main")};
	struct strvec names = {0};
	struct symbolizer *sym;
	struct unwinder *u;
	__u64 ips[MAX_FRAMES];
	struct snap *s = calloc(1, sizeof(*s));
	int n;

	cr_assert_not_null(s);
	snap_take(s, FIX("unwfix"), "qsort", true);
	u = unwinder__new(s->pid);
	cr_assert_not_null(u, "unwinder__new: %s", strerror(errno));
	sym = symbolizer__new(s->pid);
	cr_assert_not_null(sym);
	n = unwind_both(u, s, s->len, ips, MAX_FRAMES);
	symbolize(sym, ips, n, &names);
	expect_order(&names, want, 2, true);
	/* libc's internal frames (msort_with_tmp, qsort_r) sit between the comparator and
	 * qsort; their names depend on libc's symbols, so only the order is checked. */
	expect_order(&names, callers, 4, false);
	cr_assert_gt(find_frame(&names, 0, FN("main")), find_frame(&names, 0, FN("fix_cmp")) + 2,
		     "no libc frames between the comparator and main");

	unwinder__free(u);
	symbolizer__free(sym);
	strvec__release(&names);
	snap_kill(s);
	free(s);
}

Test(unwind, through_a_signal_frame)
{
	/* The kernel's signal frame: __restore_rt's CFI is a signal frame with expression
	 * rules, so libdw steps it (one-step mode) and the cache resumes after it. */
	static const char *const want[] = {FN("unwfix_probe"), FN("fix_handler")};
	static const char *const callers[] = {FN("fix_handler"), "raise", FN("fix_sig"),
					      FN("main")};
	struct strvec names = {0};
	struct symbolizer *sym;
	struct unwinder *u;
	struct unwind_stats st;
	__u64 ips[MAX_FRAMES];
	struct snap *s = calloc(1, sizeof(*s));
	int n;

	cr_assert_not_null(s);
	snap_take(s, FIX("unwfix"), "signal", true);
	u = unwinder__new(s->pid);
	sym = symbolizer__new(s->pid);
	cr_assert(u && sym);
	n = unwind_both(u, s, s->len, ips, MAX_FRAMES);
	symbolize(sym, ips, n, &names);
	expect_order(&names, want, 2, true);
	expect_order(&names, callers, 4, false);
	unwinder__stats(u, &st);
	cr_log_info("cached steps %llu, libdw steps %llu", (unsigned long long)st.cache_hit_cnt,
		    (unsigned long long)st.libdw_cnt);
	unwinder__free(u);
	symbolizer__free(sym);
	strvec__release(&names);
	snap_kill(s);
	free(s);
}

Test(unwind, dlopen_after_creation)
{
	static const char *const want[] = {FN("unwfix_probe"), FN("unwlib_mid"), FN("unwlib_entry"),
					   FN("fix_dl"), FN("main")};
	struct strvec names = {0};
	struct symbolizer *sym;
	struct unwinder *u;
	__u64 ips[MAX_FRAMES], again[MAX_FRAMES];
	struct snap *s = calloc(1, sizeof(*s));
	int n;

	cr_assert_not_null(s);
	snap_spawn(s, FIX("unwfix"), "dlopen", FIX("libunwfix.so"));
	snap_next(s, true); /* before dlopen: maps without the library */
	u = unwinder__new(s->pid);
	cr_assert_not_null(u);
	snap_next(s, true); /* inside the library */
	/* The library's PC is in no known module: the unwinder re-reads the maps itself. */
	n = unwind_both(u, s, s->len, ips, MAX_FRAMES);
	sym = symbolizer__new(s->pid);
	cr_assert_not_null(sym);
	symbolize(sym, ips, n, &names);
	expect_order(&names, want, 5, true);
	/* An explicit refresh with nothing new changes nothing. */
	cr_assert_eq(unwinder__refresh_maps(u), 0);
	cr_assert_eq(unwinder__unwind(u, &s->regs, s->stack, s->len, again, MAX_FRAMES), n);
	cr_assert_arr_eq(again, ips, (size_t)n * sizeof(ips[0]));
	unwinder__free(u);
	symbolizer__free(sym);
	strvec__release(&names);
	snap_kill(s);
	free(s);
}

Test(unwind, deleted_executable)
{
	/* A rebuilt or removed binary: only /proc/PID/map_files still reaches it. */
	static const char *const want[] = {FN("unwfix_probe"), FN("fix_c"), FN("fix_b"),
					   FN("fix_a")};
	struct strvec names = {0};
	struct symbolizer *sym;
	struct unwinder *u;
	__u64 ips[MAX_FRAMES];
	struct snap *s;
	char copy[4200], cmd[8600];
	int n;

	if (geteuid() != 0)
		cr_skip_test("opening /proc/PID/map_files needs CAP_SYS_ADMIN (run as root)");
	s = calloc(1, sizeof(*s));
	cr_assert_not_null(s);
	snprintf(copy, sizeof(copy), "%s/unwfix-deleted-%d", UNWFIX_DIR, (int)getpid());
	snprintf(cmd, sizeof(cmd), "cp %s %s", FIX("unwfix"), copy);
	cr_assert_eq(system(cmd), 0);
	snap_take(s, copy, "chain", true);
	cr_assert_eq(unlink(copy), 0);
	u = unwinder__new(s->pid);
	cr_assert_not_null(u);
	n = unwind_both(u, s, s->len, ips, MAX_FRAMES);
	sym = symbolizer__new(s->pid);
	cr_assert_not_null(sym);
	symbolize(sym, ips, n, &names);
	expect_order(&names, want, 4, true);
	unwinder__free(u);
	symbolizer__free(sym);
	strvec__release(&names);
	snap_kill(s);
	free(s);
}

Test(unwind, truncated_stack_gives_a_prefix)
{
	struct unwinder *u;
	__u64 full[MAX_FRAMES], part[MAX_FRAMES];
	struct snap *s = calloc(1, sizeof(*s));
	size_t lens[] = {0, 7, 8, 64, 200, 512};
	int n, m;

	cr_assert_not_null(s);
	snap_take(s, FIX("unwfix"), "chain", true);
	u = unwinder__new(s->pid);
	cr_assert_not_null(u);
	n = unwind_both(u, s, s->len, full, MAX_FRAMES);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		m = unwind_both(u, s, lens[i], part, MAX_FRAMES);
		cr_log_info("stack_len %zu: %d of %d frames", lens[i], m, n);
		cr_assert_leq(m, n);
		for (int j = 0; j < m; j++)
			cr_assert_eq(part[j], full[j], "len %zu frame %d differs", lens[i], j);
	}
	/* At a function's entry the return address is the word at SP: no copy, no caller. */
	cr_assert_eq(unwinder__unwind(u, &s->regs, s->stack, 0, part, MAX_FRAMES), 1);
	cr_assert_eq(unwinder__unwind(u, &s->regs, s->stack, 8, part, MAX_FRAMES), 2);
	/* A PC in no module (JIT code, garbage) is reported and ends the list. */
	{
		struct unwind_regs jit = s->regs;

		jit.ip = 0x1000;
		cr_assert_eq(unwinder__unwind(u, &jit, s->stack, s->len, part, MAX_FRAMES), 1);
		cr_assert_eq(part[0], 0x1000);
	}
	/* max bounds the list. */
	cr_assert_eq(unwinder__unwind(u, &s->regs, s->stack, s->len, part, 3), 3);
	cr_assert_eq(unwinder__unwind(u, &s->regs, s->stack, s->len, part, 0), 0);
	cr_assert_eq(unwinder__unwind(NULL, &s->regs, s->stack, s->len, part, 3), -EINVAL);
	unwinder__free(u);
	snap_kill(s);
	free(s);
}

Test(unwind, after_the_process_exited)
{
	static const char *const want[] = {FN("unwfix_probe"), FN("fix_c"), FN("fix_b"),
					   FN("fix_a"), FN("main")};
	struct strvec names = {0};
	struct symbolizer *sym;
	struct unwinder *u;
	__u64 ips[MAX_FRAMES], before[MAX_FRAMES];
	struct snap *s = calloc(1, sizeof(*s));
	char proc[64];
	int n, m;

	cr_assert_not_null(s);
	snap_take(s, FIX("unwfix"), "chain", true);
	u = unwinder__new(s->pid);
	sym = symbolizer__new(s->pid);
	cr_assert(u && sym);
	m = unwinder__unwind(u, &s->regs, s->stack, s->len, before, MAX_FRAMES);
	unwinder__set_cache(u, false);
	snap_kill(s);
	snprintf(proc, sizeof(proc), "/proc/%d/maps", (int)s->pid);
	cr_assert_eq(unwinder__refresh_maps(u), -ESRCH, "the process is gone");
	/* Cache off: every frame goes through libdw and the module files opened earlier. */
	n = unwind_both(u, s, s->len, ips, MAX_FRAMES);
	cr_assert_eq(n, m);
	cr_assert_arr_eq(ips, before, (size_t)n * sizeof(ips[0]));
	symbolize(sym, ips, n, &names);
	expect_order(&names, want, 5, true);
	unwinder__free(u);
	symbolizer__free(sym);
	strvec__release(&names);
	free(s);
}

/*
 * Frame "0xADDR: NAME (...)" names a Rust path: "a::b::c", "a::b::<T>", "<T as Trait>::f",
 * not a bare identifier as DWARF's DW_AT_name has it ("call_once<fn(), ()>", "{closure#0}").
 */
static bool is_rust_path(const char *frame)
{
	const char *name = strstr(frame, ": ") + 2, *sep = strstr(name, "::"),
		   *generic = strchr(name, '<');

	return name[0] == '<' || (sep && (!generic || sep < generic));
}

/* The frames' "0xADDR:" prefixes are equal (inlined frames share their address). */
static bool same_address(const char *a, const char *b)
{
	size_t n = strcspn(a, ":");

	return n == strcspn(b, ":") && !strncmp(a, b, n);
}

/*
 * Unwind and symbolize the Rust fixture fix (built as crate "rsfix"): the Rust frames read
 * demangled, in order, and no frame name is left mangled (_ZN..., _R<uppercase>...). Rust's
 * runtime between rsfix::main and C's main is std's code, much of it inlined (FnOnce::
 * call_once into __rust_begin_short_backtrace, catch_unwind's levels into
 * lang_start_internal): every frame of it, inlined ones too, reads as a qualified path.
 */
static void check_rust_release_build(const char *fix)
{
	static const char *const want[] = {FN("rsfix::rs_inner"), FN("rsfix::rs_middle"),
					   FN("rsfix::rs_outer"), FN("rsfix::main")};
	struct strvec names = {0};
	struct symbolizer *sym;
	struct unwinder *u;
	__u64 ips[MAX_FRAMES];
	struct snap *s;
	int n, first, c_main;

	if (access(fix, X_OK))
		cr_skip_test("no Rust fixture (rustc not found when configuring)");
	s = calloc(1, sizeof(*s));
	cr_assert_not_null(s);
	/* int3 inside rs_inner: rip is already an instruction of rs_inner. */
	snap_take(s, fix, "x", false);
	u = unwinder__new(s->pid);
	sym = symbolizer__new(s->pid);
	cr_assert(u && sym);
	n = unwind_both(u, s, s->len, ips, MAX_FRAMES);
	symbolize(sym, ips, n, &names);
	expect_order(&names, want, 4, true);
	first = find_frame(&names, 0, FN("rsfix::main")) + 1;
	c_main = find_frame(&names, first, FN("main"));
	cr_assert_gt(c_main, first, "C main below Rust's runtime");
	/* The first of them: core's FnOnce::call_once, inlined ("call_once<fn(), ()>" in
	 * DWARF); legacy "core::ops::function::FnOnce::call_once", v0 "<fn() as core::ops::
	 * function::FnOnce<()>>::call_once". */
	cr_assert(same_address(names.items[first], names.items[first + 1]), "not inlined: %s",
		  names.items[first]);
	cr_assert(strstr(names.items[first], "core::ops::function::FnOnce") &&
		      strstr(names.items[first], "::call_once ("),
		  "inlined std frame: %s", names.items[first]);
	for (int i = first; i < c_main; i++)
		cr_expect(is_rust_path(names.items[i]), "not a Rust path: %s", names.items[i]);
	for (size_t i = 0; i < names.cnt; i++) {
		const char *name = strstr(names.items[i], ": ") + 2;

		cr_expect(strncmp(name, "_ZN", 3) && strncmp(name, "_R", 2), "mangled: %s",
			  names.items[i]);
	}
	unwinder__free(u);
	symbolizer__free(sym);
	strvec__release(&names);
	snap_kill(s);
	free(s);
}

/* rustc's default (legacy) mangling: _ZN5rsfix8rs_inner17h<hash>E. */
Test(unwind, rust_release_build)
{
	check_rust_release_build(FIX("rsfix"));
}

/* The same program with -C symbol-mangling-version=v0: _RNvCs<hash>_5rsfix8rs_inner. */
Test(unwind, rust_release_build_v0_mangling)
{
	check_rust_release_build(FIX("rsfix_v0"));
}

Test(unwind, new_errors)
{
	int st;
	pid_t pid = fork();

	errno = 0;
	cr_assert_null(unwinder__new(0));
	cr_assert_eq(errno, EINVAL);
	/* A reaped child: its PID names nothing (until reused, which is unlikely here). */
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, &st, 0);
	errno = 0;
	cr_assert_null(unwinder__new(pid));
	cr_assert_eq(errno, ESRCH);
	unwinder__free(NULL);
	unwinder__set_cache(NULL, true);
}

Test(unwind, stack_table_interns)
{
	struct stack_table *t = stack_table__new();
	__u64 a[] = {1, 2, 3}, b[] = {1, 2, 4}, c[] = {1, 2};
	const __u64 *got;
	size_t n;
	__s32 ia, ib, ic, ie;

	cr_assert_not_null(t);
	ia = stack_table__intern(t, a, 3);
	ib = stack_table__intern(t, b, 3);
	ic = stack_table__intern(t, c, 2);
	ie = stack_table__intern(t, NULL, 0);
	cr_assert(ia >= 0 && ib >= 0 && ic >= 0 && ie >= 0);
	cr_assert(ia != ib && ia != ic && ib != ic && ie != ia && ie != ic);
	cr_assert_eq(stack_table__intern(t, a, 3), ia);
	cr_assert_eq(stack_table__intern(t, c, 2), ic);
	cr_assert_eq(stack_table__get(t, ib, &got, &n), 0);
	cr_assert_eq(n, 3);
	cr_assert_arr_eq(got, b, sizeof(b));
	cr_assert_eq(stack_table__get(t, ie, &got, &n), 0);
	cr_assert_eq(n, 0);
	cr_assert_eq(stack_table__get(t, 99, &got, &n), -ENOENT);
	cr_assert_eq(stack_table__get(t, -1, &got, &n), -ENOENT);
	cr_assert_eq(stack_table__intern(t, NULL, 2), -EINVAL);
	stack_table__free(t);
	stack_table__free(NULL);
}

Test(unwind, stack_table_many)
{
	/* Enough lists to grow the index several times; ids stay stable and distinct. */
	struct stack_table *t = stack_table__new();
	enum { CNT = 50000 };
	__u64 ips[4];
	const __u64 *got;
	size_t n;

	cr_assert_not_null(t);
	for (__u64 i = 0; i < CNT; i++) {
		ips[0] = 0x400000 + i; /* distinct lists, sharing suffixes and hashes' inputs */
		ips[1] = i % 97;
		ips[2] = i * 31;
		cr_assert_eq(stack_table__intern(t, ips, 1 + i % 3), (__s32)i);
	}
	cr_assert_eq(stack_table__cnt(t), CNT);
	for (__u64 i = 0; i < CNT; i += 777) {
		ips[0] = 0x400000 + i;
		ips[1] = i % 97;
		ips[2] = i * 31;
		cr_assert_eq(stack_table__intern(t, ips, 1 + i % 3), (__s32)i);
		cr_assert_eq(stack_table__get(t, (__s32)i, &got, &n), 0);
		cr_assert_eq(n, 1 + i % 3);
		cr_assert_arr_eq(got, ips, n * sizeof(*ips));
	}
	stack_table__free(t);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Per-event cost over repeated unwinds of one snapshot: printed, not asserted. */
static void bench_one(const char *what, struct unwinder *u, const struct snap *s)
{
	enum { ITER = 10000 };
	__u64 ips[MAX_FRAMES];
	struct unwind_stats st0, st1;
	double t0, us[2];
	int n = 0;

	for (int cached = 1; cached >= 0; cached--) {
		unwinder__set_cache(u, cached);
		unwinder__unwind(u, &s->regs, s->stack, s->len, ips, MAX_FRAMES); /* warm */
		unwinder__stats(u, &st0);
		t0 = now_us();
		for (int i = 0; i < ITER; i++)
			n = unwinder__unwind(u, &s->regs, s->stack, s->len, ips, MAX_FRAMES);
		us[cached] = (now_us() - t0) / ITER;
		unwinder__stats(u, &st1);
		cr_assert_gt(n, 0);
		fprintf(stderr,
			"unwind bench %-6s cache %-3s: %d frames, %.2f us/event, %.3f us/frame "
			"(%llu cached steps, %llu libdw steps)\n",
			what, cached ? "on" : "off", n, us[cached], us[cached] / n,
			(unsigned long long)(st1.cache_hit_cnt - st0.cache_hit_cnt) / ITER,
			(unsigned long long)(st1.libdw_cnt - st0.libdw_cnt) / ITER);
	}
	unwinder__set_cache(u, true);
	fprintf(stderr, "unwind bench %-6s speedup x%.1f\n", what, us[0] / us[1]);
}

Test(unwind, bench_per_event_cost)
{
	struct snap *s = calloc(1, sizeof(*s));
	struct unwinder *u;

	__u64 ips[MAX_FRAMES];
	double t0, t1, t2;

	cr_assert_not_null(s);
	snap_take(s, FIX("unwfix"), "chain", true);
	/* Cold: opening the modules, then the first unwind (CFI tables read, rules filled). */
	t0 = now_us();
	u = unwinder__new(s->pid);
	t1 = now_us();
	cr_assert_not_null(u);
	cr_assert_gt(unwinder__unwind(u, &s->regs, s->stack, s->len, ips, MAX_FRAMES), 0);
	t2 = now_us();
	fprintf(stderr, "unwind bench cold: unwinder__new %.0f us, first unwind %.0f us\n", t1 - t0,
		t2 - t1);
	bench_one("chain", u, s);
	unwinder__free(u);
	snap_kill(s);
	snap_take(s, FIX("unwfix"), "qsort", true);
	u = unwinder__new(s->pid);
	cr_assert_not_null(u);
	bench_one("qsort", u, s);
	unwinder__free(u);
	snap_kill(s);
	free(s);
}

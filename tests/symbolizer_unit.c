// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Symbolizer tests against live fixture processes (tests/data/symbolizer/fixture.c, built by
 * tests/symbolizer.cmake). Expected frames come from binutils' addr2line run on the same ELF
 * addresses (vaddr = runtime address - load bias reported by the fixture's dynamic linker).
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "module_share.h"
#include "report.h"
#include "symbolizer.h"
#include "symbolizer_fixture.h"

#define FIX(name) SYMFIX_DIR "/" name

/* Absolute, symlink-free path, as /proc/PID/maps shows it. */
static const char *real(const char *path, char *buf)
{
	cr_assert_not_null(realpath(path, buf), "realpath %s: %s", path, strerror(errno));
	return buf;
}

static void dump(const char *what, const struct strvec *v)
{
	for (size_t i = 0; i < v->cnt; i++)
		cr_log_info("%s[%zu] %s", what, i, v->items[i]);
}

/*
 * Our outermost name is the ELF symbol, as in Valgrind ("msort_with_tmp.part.0"), where
 * addr2line prints the DWARF name ("msort_with_tmp"): drop GCC's clone suffixes to compare.
 */
static char *strip_clone_suffix(const char *frame)
{
	char *copy = strdup(frame), *name = strstr(copy, ": "), *dot, *paren;

	cr_assert_not_null(copy);
	if (!name)
		return copy;
	name += 2;
	paren = strstr(name, " (");
	dot = strchr(name, '.');
	if (dot && paren && dot < paren)
		memmove(dot, paren, strlen(paren) + 1);
	return copy;
}

/*
 * Symbolize a fixture address and compare with addr2line on file for the same address
 * (ip - 1 for return addresses). Leaves our frames in got (caller releases).
 */
static void expect_addr2line(struct symbolizer *s, const char *file, const struct symfix_addr *a,
			     bool is_return, struct strvec *got)
{
	__u64 look = is_return ? a->addr - 1 : a->addr;
	struct strvec want = {0};
	int n, m;

	n = symbolizer__frames(s, a->addr, is_return, got);
	m = addr2line__frames(file, look - a->bias, look, &want);
	dump("got", got);
	dump("want", &want);
	cr_assert_gt(n, 0, "%s: symbolizer__frames: %d", a->name, n);
	cr_assert_gt(m, 0, "%s: addr2line failed: %d", a->name, m);
	cr_assert_eq((size_t)n, got->cnt);
	cr_assert_eq(n, m, "%s: %d frames, addr2line has %d", a->name, n, m);
	for (int i = 0; i < n; i++) {
		char *g = strip_clone_suffix(got->items[i]);

		cr_assert_str_eq(g, want.items[i], "%s frame %d", a->name, i);
		free(g);
	}
	strvec__release(&want);
}

/* Assert frame starts with "0x<addr>: <func> (<rest>" . */
static void expect_frame(const char *frame, __u64 addr, const char *func, const char *rest)
{
	char *want;

	cr_assert_neq(asprintf(&want, "0x%llX: %s (%s", (unsigned long long)addr, func, rest), -1);
	cr_assert(!strncmp(frame, want, strlen(want)), "frame '%s' does not start with '%s'", frame,
		  want);
	free(want);
}

static struct symfix fix;
static struct symbolizer *sym;

static void start(const char *exe)
{
	cr_assert_eq(symfix__start(&fix, exe), 0, "cannot run %s", exe);
	sym = symbolizer__new(fix.pid);
	cr_assert_not_null(sym, "symbolizer__new: %s", strerror(errno));
}

static void stop(void)
{
	symbolizer__free(sym);
	sym = NULL;
	if (fix.pid > 0)
		symfix__stop(&fix);
}

TestSuite(symbolizer, .fini = stop);

Test(symbolizer, pie_function_entries)
{
	const char *names[] = {"plain", "host", "main"};
	struct strvec got = {0};

	start(FIX("symfix_pie"));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct symfix_addr *a = symfix__get(&fix, names[i]);

		cr_assert_neq(a->bias, 0, "PIE loaded at bias 0?");
		expect_addr2line(sym, FIX("symfix_pie"), a, false, &got);
		cr_assert_eq(got.cnt, 1);
		expect_frame(got.items[0], a->addr, names[i], "fixture.c:");
		strvec__clear(&got);
	}
	strvec__release(&got);
}

Test(symbolizer, return_address_minus_one)
{
	const struct symfix_addr *a;
	struct strvec got = {0}, raw = {0};

	start(FIX("symfix_pie"));
	a = symfix__get(&fix, "plain_ra");
	expect_addr2line(sym, FIX("symfix_pie"), a, true, &got);
	cr_assert_eq(got.cnt, 1);
	expect_frame(got.items[0], a->addr - 1, "plain", "fixture.c:");
	/* Not a return address: printed and looked up as is. */
	cr_assert_eq(symbolizer__frames(sym, a->addr, false, &raw), 1);
	expect_frame(raw.items[0], a->addr, "plain", "fixture.c:");
	strvec__release(&got);
	strvec__release(&raw);
}

Test(symbolizer, inlined_chain)
{
	const struct symfix_addr *a;
	struct strvec got = {0};

	start(FIX("symfix_pie"));
	a = symfix__get(&fix, "host_ra");
	expect_addr2line(sym, FIX("symfix_pie"), a, true, &got);
	cr_assert_eq(got.cnt, 3, "expected inl_inner / inl_outer / host");
	expect_frame(got.items[0], a->addr - 1, "inl_inner", "fixture.c:");
	expect_frame(got.items[1], a->addr - 1, "inl_outer", "fixture.c:");
	expect_frame(got.items[2], a->addr - 1, "host", "fixture.c:");
	strvec__release(&got);
}

Test(symbolizer, main_frame_cut)
{
	const struct symfix_addr *a;
	struct strvec got = {0};

	start(FIX("symfix_pie"));
	a = symfix__get(&fix, "main_ra");
	expect_addr2line(sym, FIX("symfix_pie"), a, true, &got);
	cr_assert(symbolizer__is_main_frame(got.items[got.cnt - 1]));
	cr_assert_not(symbolizer__is_main_frame(got.items[0]) && got.cnt > 1);
	strvec__release(&got);
}

Test(symbolizer, is_main_frame)
{
	cr_assert(symbolizer__is_main_frame("0x10918F: main (prog.c:21)"));
	cr_assert(symbolizer__is_main_frame("0x10918F: main (in /usr/bin/prog)"));
	cr_assert(symbolizer__is_main_frame("0x10918F: main"));
	cr_assert_not(symbolizer__is_main_frame("0x10918F: mainly (prog.c:21)"));
	cr_assert_not(symbolizer__is_main_frame("0x10918F: domain (prog.c:21)"));
	cr_assert_not(symbolizer__is_main_frame("0x10918F: ??? (in /usr/bin/main)"));
	cr_assert_not(symbolizer__is_main_frame("0x10918F: ???"));
	cr_assert_not(symbolizer__is_main_frame(NULL));
}

Test(symbolizer, non_pie_executable)
{
	const char *names[] = {"plain_ra", "host_ra", "main_ra"};
	struct strvec got = {0};

	start(FIX("symfix_nopie"));
	cr_assert_eq(symfix__get(&fix, "main")->bias, 0, "ET_EXEC has no load bias");
	expect_addr2line(sym, FIX("symfix_nopie"), symfix__get(&fix, "main"), false, &got);
	strvec__release(&got);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		expect_addr2line(sym, FIX("symfix_nopie"), symfix__get(&fix, names[i]), true, &got);
		strvec__release(&got);
	}
}

Test(symbolizer, shared_library)
{
	const struct symfix_addr *a;
	struct strvec got = {0};

	start(FIX("symfix_pie"));
	expect_addr2line(sym, FIX("libsymfix.so"), symfix__get(&fix, "lib_func"), false, &got);
	strvec__release(&got);
	a = symfix__get(&fix, "lib_ra");
	expect_addr2line(sym, FIX("libsymfix.so"), a, true, &got);
	expect_frame(got.items[got.cnt - 1], a->addr - 1, "symfix_lib_func", "fixture_lib.c:");
	strvec__release(&got);
}

Test(symbolizer, stripped_binary)
{
	char path[PATH_MAX], want[PATH_MAX + 64];
	const struct symfix_addr *a;
	struct strvec got = {0};

	struct strvec later = {0};
	__u64 rel = 0;
	const char *plus;

	start(FIX("symfix_stripped"));
	a = symfix__get(&fix, "main_ra");
	cr_assert_eq(symbolizer__frames(sym, a->addr, true, &got), 1);
	/* the module and the address in it, as `addr2line -e MODULE REL` takes them */
	snprintf(want, sizeof(want), "0x%llX: ??? (in %s+0x%llx)",
		 (unsigned long long)(a->addr - 1), real(FIX("symfix_stripped"), path),
		 (unsigned long long)(a->addr - 1 - a->bias));
	cr_assert_str_eq(got.items[0], want);
	/* ...which finds main in the same binary before it was stripped */
	plus = strrchr(got.items[0], '+');
	cr_assert_not_null(plus);
	rel = strtoull(plus + 1, NULL, 16);
	cr_assert_gt(addr2line__frames(FIX("symfix_pie"), rel, a->addr - 1, &later), 0);
	cr_expect(!strncmp(strchr(later.items[later.cnt - 1], ' ') + 1, "main (", 6), "%s",
		  later.items[later.cnt - 1]);
	strvec__release(&later);
	strvec__release(&got);
	/* Its (unstripped) library still has everything. */
	expect_addr2line(sym, FIX("libsymfix.so"), symfix__get(&fix, "lib_ra"), true, &got);
	strvec__release(&got);
}

Test(symbolizer, symbols_without_debug_info)
{
	char path[PATH_MAX], want[PATH_MAX + 64];
	const struct symfix_addr *a;
	struct strvec got = {0};

	start(FIX("symfix_nodebug"));
	a = symfix__get(&fix, "plain_ra");
	cr_assert_eq(symbolizer__frames(sym, a->addr, true, &got), 1);
	snprintf(want, sizeof(want), "0x%llX: plain (in %s)", (unsigned long long)(a->addr - 1),
		 real(FIX("symfix_nodebug"), path));
	cr_assert_str_eq(got.items[0], want);
	strvec__release(&got);
}

Test(symbolizer, debuglink_separate_debug_file)
{
	const char *names[] = {"plain_ra", "host_ra", "main_ra"};
	struct strvec got = {0};

	start(FIX("symfix_split"));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		/* Same code as symfix_pie: addr2line on the unstripped file is the reference. */
		expect_addr2line(sym, FIX("symfix_pie"), symfix__get(&fix, names[i]), true, &got);
		strvec__release(&got);
	}
}

Test(symbolizer, libc_build_id_debug_file)
{
	const struct symfix_addr *a;
	struct strvec got = {0}, want = {0};
	char path[PATH_MAX];

	start(FIX("symfix_pie"));
	a = symfix__get(&fix, "libc_ra");
	cr_assert_eq(symfix__module_path(&fix, a->addr, path, sizeof(path)), 0);
	cr_assert_gt(symbolizer__frames(sym, a->addr, true, &got), 0);
	dump("got", &got);
	cr_assert(!strstr(got.items[got.cnt - 1], "???"), "libc has .dynsym at least");
	/* With libc6-dbg installed (/usr/lib/debug/.build-id), lines must match addr2line. */
	if (addr2line__frames(path, a->addr - 1 - a->bias, a->addr - 1, &want) > 0 &&
	    !strstr(want.items[0], "(in ")) {
		strvec__release(&got);
		expect_addr2line(sym, path, a, true, &got);
	} else {
		cr_log_warn("no debug info for %s: only symbols checked", path);
	}
	strvec__release(&got);
	strvec__release(&want);
}

Test(symbolizer, no_module)
{
	struct strvec got = {0};
	const struct symfix_addr *heap;

	start(FIX("symfix_pie"));
	cr_assert_eq(symbolizer__frames(sym, 0x10, false, &got), 1);
	cr_assert_str_eq(got.items[0], "0x10: ???");
	cr_assert_eq(symbolizer__frames(sym, 0x11, true, &got), 1);
	cr_assert_str_eq(got.items[1], "0x10: ???");
	heap = symfix__get(&fix, "heap");
	cr_assert_eq(symbolizer__frames(sym, heap->addr, false, &got), 1);
	cr_assert(!strcmp(got.items[2] + strlen(got.items[2]) - 5, ": ???"), "%s", got.items[2]);
	strvec__release(&got);
}

Test(symbolizer, vdso)
{
	const struct symfix_addr *a;
	struct strvec got = {0};

	start(FIX("symfix_pie"));
	a = symfix__get(&fix, "vdso_clock_gettime");
	cr_assert_neq(a->addr, 0, "fixture found no vdso");
	cr_assert_eq(symbolizer__frames(sym, a->addr, false, &got), 1);
	dump("got", &got);
	cr_assert(strstr(got.items[0], "clock_gettime (in [vdso])"), "%s", got.items[0]);
	strvec__release(&got);
}

Test(symbolizer, cached_results_are_identical)
{
	struct strvec a = {0}, b = {0};
	const struct symfix_addr *ra;

	start(FIX("symfix_pie"));
	ra = symfix__get(&fix, "host_ra");
	cr_assert_eq(symbolizer__frames(sym, ra->addr, true, &a), 3);
	cr_assert_eq(symbolizer__frames(sym, ra->addr, true, &b), 3);
	for (int i = 0; i < 3; i++)
		cr_assert_str_eq(a.items[i], b.items[i]);
	/* Same ip as a non-return address is another lookup (another line possibly). */
	cr_assert_gt(symbolizer__frames(sym, ra->addr, false, &b), 0);
	expect_frame(b.items[3], ra->addr, "inl_inner", "fixture.c:");
	strvec__release(&a);
	strvec__release(&b);
}

Test(symbolizer, after_process_exit)
{
	const char *names[] = {"plain_ra", "host_ra", "main_ra"};
	const struct symfix_addr *vd;
	struct strvec got = {0};

	start(FIX("symfix_pie"));
	/* Nothing looked up yet: all ELF/DWARF parsing happens after the exit. */
	cr_assert_eq(symfix__stop(&fix), 0);
	cr_assert_eq(symbolizer__refresh_maps(sym), -ESRCH);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		expect_addr2line(sym, FIX("symfix_pie"), symfix__get(&fix, names[i]), true, &got);
		strvec__release(&got);
	}
	expect_addr2line(sym, FIX("libsymfix.so"), symfix__get(&fix, "lib_ra"), true, &got);
	strvec__release(&got);
	vd = symfix__get(&fix, "vdso_clock_gettime");
	cr_assert_eq(symbolizer__frames(sym, vd->addr, false, &got), 1);
	cr_assert(strstr(got.items[0], "clock_gettime (in [vdso])"), "%s", got.items[0]);
	strvec__release(&got);
}

Test(symbolizer, deleted_binary)
{
	char dir[] = "/tmp/symfix-XXXXXX", copy[PATH_MAX], cmd[2 * PATH_MAX];
	const struct symfix_addr *a;
	struct strvec got = {0};

	if (geteuid() != 0)
		cr_skip_test("/proc/PID/map_files needs root");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/symfix_copy", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", FIX("symfix_pie"), copy);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(symfix__start(&fix, copy), 0);
	cr_assert_eq(unlink(copy), 0);
	rmdir(dir);
	sym = symbolizer__new(fix.pid);
	cr_assert_not_null(sym);
	/* And gone, too: only what was opened at creation remains. */
	cr_assert_eq(symfix__stop(&fix), 0);
	a = symfix__get(&fix, "host_ra");
	expect_addr2line(sym, FIX("symfix_pie"), a, true, &got);
	cr_assert_eq(got.cnt, 3);
	strvec__release(&got);
	/* The module is named by its path without " (deleted)". */
	a = symfix__get(&fix, "main");
	cr_assert_eq(symbolizer__frames(sym, a->addr + 1, false, &got), 1);
	cr_assert(!strstr(got.items[0], "deleted"), "%s", got.items[0]);
	strvec__release(&got);
}

Test(symbolizer, dlopen_after_creation)
{
	struct symfix_addr dl;
	struct strvec got = {0};

	start(FIX("symfix_pie"));
	cr_assert_eq(symfix__command(&fix, "dlopen " FIX("libsymfix_dl.so"), &dl), 0);
	cr_assert_neq(dl.addr, 0, "fixture could not dlopen");
	/* Not in the maps read at creation: the symbolizer re-reads them by itself. */
	expect_addr2line(sym, FIX("libsymfix_dl.so"), &dl, false, &got);
	expect_frame(got.items[0], dl.addr, "symfix_dl_func", "fixture_dl.c:");
	strvec__release(&got);
}

Test(symbolizer, bad_arguments)
{
	struct strvec got = {0};
	struct symfix f;
	pid_t pid;

	cr_assert_null(symbolizer__new(0));
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(symfix__start(&f, FIX("symfix_pie")), 0);
	pid = f.pid;
	cr_assert_eq(symfix__stop(&f), 0);
	cr_assert_null(symbolizer__new(pid));
	cr_assert_eq(errno, ESRCH);
	cr_assert_eq(symbolizer__frames(NULL, 1, false, &got), -EINVAL);
	symbolizer__free(NULL);
}

Test(symbolizer, other_mount_namespace)
{
	char dir[] = "/tmp/symfix-ns-XXXXXX", exe[PATH_MAX], script[3 * PATH_MAX];
	char *argv[] = {"unshare", "-m", "sh", "-c", script, NULL};
	struct strvec got = {0};

	if (geteuid() != 0)
		cr_skip_test("unshare -m needs root");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(exe, sizeof(exe), "%s/symfix_ns", dir);
	/* The binary exists only in the fixture's mount namespace, on a private tmpfs. */
	snprintf(script, sizeof(script), "mount -t tmpfs symfix %s && cp %s %s && exec %s", dir,
		 FIX("symfix_pie"), exe, exe);
	if (symfix__start_argv(&fix, argv)) {
		rmdir(dir);
		cr_skip_test("cannot create a mount namespace here (unshare -m)");
	}
	cr_assert_neq(access(exe, F_OK), 0, "%s must not be visible outside the namespace", exe);
	sym = symbolizer__new(fix.pid);
	cr_assert_not_null(sym);
	expect_addr2line(sym, FIX("symfix_pie"), symfix__get(&fix, "host_ra"), true, &got);
	cr_assert_eq(got.cnt, 3);
	strvec__release(&got);
	symfix__stop(&fix);
	rmdir(dir);
}

Test(symbolizer, build_id_debug_dir)
{
	char dir[] = "/tmp/symfix-dbg-XXXXXX", hex[129], cmd[4 * PATH_MAX];
	const unsigned char *id;
	struct strvec got = {0};
	ssize_t id_sz;
	Elf *elf;
	int fd;

	/* The stripped copy keeps the build-id of symfix_pie, whose DWARF is in .debug. */
	elf_version(EV_CURRENT);
	fd = open(FIX("symfix_stripped"), O_RDONLY);
	cr_assert_geq(fd, 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	id_sz = dwelf_elf_gnu_build_id(elf, (const void **)&id);
	cr_assert_gt(id_sz, 1, "fixture linked without a build-id");
	for (ssize_t i = 0; i < id_sz && i < 64; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	elf_end(elf);
	close(fd);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/.build-id/%.2s && cp %s %s/.build-id/%.2s/%s.debug",
		 dir, hex, FIX("symfix_split.debug"), dir, hex, hex + 2);
	cr_assert_eq(system(cmd), 0);

	start(FIX("symfix_stripped"));
	cr_assert_eq(symbolizer__add_debug_dir(sym, dir), 0);
	expect_addr2line(sym, FIX("symfix_pie"), symfix__get(&fix, "host_ra"), true, &got);
	cr_assert_eq(got.cnt, 3);
	strvec__release(&got);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

/* Frame "0xADDR: NAME (FILE:LINE)" has exactly this name and file. */
static void expect_frame_name(const char *frame, const char *name, const char *file)
{
	const char *at = strstr(frame, ": ");
	size_t len = strlen(name), flen = strlen(file);

	cr_assert_not_null(at, "no name in '%s'", frame);
	at += 2;
	cr_assert(!strncmp(at, name, len) && !strncmp(at + len, " (", 2) &&
		      !strncmp(at + len + 2, file, flen) && at[len + 2 + flen] == ':',
		  "frame '%s' is not '%s (%s:...)'", frame, name, file);
}

/* The site `tracer report` names for a stack of frames (innermost first) starts with want. */
static void expect_site(const struct strvec *stack, const char *want)
{
	const char *cleaned[32];
	char *site;

	cr_assert_leq(stack->cnt, 32);
	for (size_t i = 0; i < stack->cnt; i++)
		cleaned[i] = site__clean_frame(stack->items[i]);
	site = site__name(cleaned, stack->cnt, NULL);
	cr_assert_not_null(site);
	cr_assert(!strncmp(site, want, strlen(want)), "site '%s' does not start with '%s'", site,
		  want);
	free(site);
}

#define VECTOR_INT "std::vector<int, std::allocator<int> >"
#define STRING	   "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"

/*
 * g++ -O2 inlines libstdc++'s members into their callers. Inlined frames are named by the
 * demangled linkage name of their DIE's abstract origin, as addr2line -C names them and as
 * the same function's ELF symbol reads when it is not inlined (c++filt's output, Valgrind's
 * for non-inlined frames), not by DWARF's bare DW_AT_name ("push_back", "_M_allocate"). So
 * `tracer report` sees them as std:: plumbing and names the site by the user's function.
 */
Test(symbolizer, cxx_inlined_frames_are_qualified)
{
	struct strvec vec_new = {0}, vec_push = {0}, str_new = {0};

	start(FIX("symfix_cxx"));
	/* operator new <- _M_realloc_insert (allocate levels inlined) <- push_back (inlined) in
	 * grow_vector: names, files and lines as addr2line -C has them. */
	expect_addr2line(sym, FIX("symfix_cxx"), symfix__get(&fix, "vec_new_ra"), true, &vec_new);
	expect_addr2line(sym, FIX("symfix_cxx"), symfix__get(&fix, "vec_push_ra"), true, &vec_push);
	expect_addr2line(sym, FIX("symfix_cxx"), symfix__get(&fix, "str_new_ra"), true, &str_new);
	cr_assert_geq(vec_new.cnt, 2, "no inlined allocate levels in _M_realloc_insert");
	cr_assert_eq(vec_push.cnt, 2, "push_back not inlined into grow_vector");
	expect_frame_name(vec_push.items[0], VECTOR_INT "::push_back(int const&)", "stl_vector.h");
	expect_frame_name(vec_push.items[1], "grow_vector(int)", "fixture_cxx.cc");
	cr_assert_eq(str_new.cnt, 3, "std::string's constructor not inlined into make_string");
	expect_frame_name(str_new.items[1],
			  STRING "::basic_string<std::allocator<char> >(char const*, "
				 "std::allocator<char> const&)",
			  "basic_string.h");
	/* Every inlined frame of the vector's growth is a std:: member. */
	for (size_t i = 0; i + 1 < vec_new.cnt; i++)
		cr_assert(strstr(vec_new.items[i], ": std::"), "not qualified: %s",
			  vec_new.items[i]);

	/* What `tracer report` makes of the allocation stacks. */
	for (size_t i = 0; i < vec_push.cnt; i++)
		cr_assert_eq(strvec__push(&vec_new, vec_push.items[i]), 0);
	expect_site(&vec_new, "grow_vector(int) (fixture_cxx.cc:");
	expect_site(&str_new, "make_string[abi:cxx11]() (fixture_cxx.cc:");
	strvec__release(&vec_new);
	strvec__release(&vec_push);
	strvec__release(&str_new);
}

/* Two processes mapping the same libc share its module (module_share.h): loaded once, kept
 * idle after the last symbolizer goes (a shell loop's next child needs it again). Before,
 * each process loaded libc's debug info anew: 70 ms at every fork of a traced loop. */
Test(symbolizer, processes_share_a_file_s_module)
{
	struct strvec fa = { 0 }, fb = { 0 };
	__u64 ip = (__u64)(uintptr_t)dlsym(RTLD_DEFAULT, "qsort");
	unsigned long before = module_share__count(), one, two;
	struct symbolizer *a, *b;

	module_share__keep_idle(32); /* as the tracer does while it traces */
	a = symbolizer__new(getpid());
	one = module_share__count();
	b = symbolizer__new(getpid());
	two = module_share__count();
	cr_assert(a && b && ip);
	cr_expect_gt(one, before, "no module shared: %lu", one);
	cr_expect_eq(two, one, "the second process has modules of its own: %lu, then %lu", one,
		     two);
	cr_assert_gt(symbolizer__frames(a, ip, false, &fa), 0);
	cr_assert_gt(symbolizer__frames(b, ip, false, &fb), 0);
	cr_expect_str_eq(fa.items[0], fb.items[0]);
	symbolizer__free(a);
	symbolizer__free(b);
	cr_expect_eq(module_share__count(), one, "the idle modules were not kept");
	module_share__flush();
	cr_expect_eq(module_share__count(), before);
	strvec__release(&fa);
	strvec__release(&fb);
}

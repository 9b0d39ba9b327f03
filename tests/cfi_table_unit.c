// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cfi_table_unit: the CFI table compiler (user/stacks/cfi_compile.c, cfi_table.c), its
 * cache (cfi_cache.c) and the reference step (cfi_step.c).
 *  - rules: libcfirules.so (tests/data/cfi/rules.S), one function per rule, rows checked at
 *    labelled points;
 *  - libdw: for thousands of PCs of libc.so.6, python3.11, the unwinder's fixture and
 *    libcfirules.so, the row equals what libdw's dwarf_cfi_addrframe() says (CFA register
 *    and offset, RBP rule, return address rule);
 *  - stacks: stacks captured in this process (tests/data/cfi/capture.c, no frame pointers,
 *    through libc's qsort) unwound by cfi_step and by the libdw unwinder (unwind.c): the
 *    same frame lists;
 *  - cache: stored, loaded, rejected when damaged or stale and rebuilt, directory rules;
 *  - hostile: damaged .eh_frame sections compile without a crash into sorted rows.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "cfi_cache.h"
#include "cfi_compile.h"
#include "cfi_step.h"
#include "cfi_table.h"
#include "elf_file.h"
#include "test_timeout.h"
#include "test_util.h"
#include "unwind.h"

#define RULES_LIB    CFIFIX_DIR "/libcfirules.so"
#define RULES_LIB_DF CFIFIX_DIR "/libcfirules_df.so" /* .debug_frame only */

/* ---- rules ---------------------------------------------------------------------------- */

struct rules {
	void *h;
	uint64_t base; /* load bias */
	struct cfi_table *t;
};

static void rules_open(struct rules *r, const char *lib)
{
	struct link_map *lm;
	const char *why = NULL;

	r->h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	cr_assert(r->h, "dlopen %s: %s", lib, dlerror());
	cr_assert_eq(dlinfo(r->h, RTLD_DI_LINKMAP, &lm), 0);
	r->base = lm->l_addr;
	r->t = cfi_table__load(lib, NULL, &why);
	cr_assert(r->t, "%s: %s", lib, why);
}

/* The row at the label name (an ELF address of the library). */
static const struct unwind_row *rule_at(const struct rules *r, const char *name)
{
	void *p = dlsym(r->h, name);

	cr_assert(p, "no symbol %s", name);
	return cfi_table__find(r->t, (uint64_t)p - r->base);
}

static void expect_row(const struct rules *r, const char *name, int cfa, int cfa_off, int rbp,
		       int rbp_off)
{
	const struct unwind_row *row = rule_at(r, name);

	cr_assert(row, "%s: no row", name);
	cr_expect_eq(row->cfa_rule, cfa, "%s: cfa rule %d, want %d", name, row->cfa_rule, cfa);
	cr_expect_eq(row->cfa_off, cfa_off, "%s: cfa off %d, want %d", name, row->cfa_off,
		     cfa_off);
	cr_expect_eq(row->rbp_rule, rbp, "%s: rbp rule %d, want %d", name, row->rbp_rule, rbp);
	cr_expect_eq(row->rbp_off, rbp_off, "%s: rbp off %d, want %d", name, row->rbp_off,
		     rbp_off);
}

static void check_rules(const char *lib)
{
	struct rules r;

	rules_open(&r, lib);
	for (uint32_t i = 1; i < r.t->n_rows; i++)
		cr_assert_gt(r.t->rows[i].pc, r.t->rows[i - 1].pc, "rows not sorted at %u", i);
	cr_expect_null(cfi_table__find(r.t, 0), "a row before the first FDE");
	expect_row(&r, "r_push", UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	expect_row(&r, "r_push_body", UNWIND_CFA_RSP, 16, UNWIND_RBP_CFA_OFF, -16);
	expect_row(&r, "r_push_rbp", UNWIND_CFA_RBP, 16, UNWIND_RBP_CFA_OFF, -16);
	expect_row(&r, "r_push_ret", UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	/* restore_state brings back the CFA as well as rbp's rule. */
	expect_row(&r, "r_push_restored", UNWIND_CFA_RBP, 16, UNWIND_RBP_CFA_OFF, -16);
	expect_row(&r, "r_end", UNWIND_CFA_END, 0, 0, 0);
	expect_row(&r, "r_signal", UNWIND_CFA_UNSUPPORTED, 0, 0, 0);
	expect_row(&r, "r_expr", UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	expect_row(&r, "r_expr_body", UNWIND_CFA_UNSUPPORTED, 0, 0, 0);
	expect_row(&r, "r_plt11", UNWIND_CFA_PLT, 8, UNWIND_RBP_SAME, 0);
	cr_expect_eq(rule_at(&r, "r_plt11")->plt_ge, 11);
	expect_row(&r, "r_plt9", UNWIND_CFA_PLT, 8, UNWIND_RBP_SAME, 0);
	cr_expect_eq(rule_at(&r, "r_plt9")->plt_ge, 9);
	expect_row(&r, "r_rbp_reg", UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	expect_row(&r, "r_rbp_reg_body", UNWIND_CFA_RSP, 8, UNWIND_RBP_UNSUPPORTED, 0);
	expect_row(&r, "r_big_body", UNWIND_CFA_UNSUPPORTED, 0, 0, 0);
	expect_row(&r, "r_big_ret", UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	expect_row(&r, "r_ra_moved", UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	expect_row(&r, "r_ra_moved_body", UNWIND_CFA_UNSUPPORTED, 0, 0, 0);
	expect_row(&r, "r_gap", UNWIND_CFA_NONE, 0, 0, 0);
	expect_row(&r, "r_last", UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	cfi_table__free(r.t);
	dlclose(r.h);
}

Test(cfi, rules_of_each_kind)
{
	check_rules(RULES_LIB);
}

/* The same rules from .debug_frame (absolute addresses, its own CIE id): libdw cannot be
 * asked here (it wants .debug_info), the rows can. */
Test(cfi, rules_from_debug_frame)
{
	check_rules(RULES_LIB_DF);
}

/* A fake stack for cfi_step: words at [base, base + 8 * n). */
struct mem {
	uint64_t base;
	const uint64_t *w;
	size_t n;
};

static bool mem_read(void *ctx, uint64_t addr, uint64_t *val)
{
	const struct mem *m = ctx;

	if (addr < m->base || (addr - m->base) % 8 || (addr - m->base) / 8 >= m->n)
		return false;
	*val = m->w[(addr - m->base) / 8];
	return true;
}

/* Registers at a probe: rbp known. */
static struct cfi_regs regs(uint64_t rip, uint64_t rsp, uint64_t rbp)
{
	return (struct cfi_regs){.rip = rip, .rsp = rsp, .rbp = rbp, .rbp_unknown = false};
}

Test(cfi, step_follows_each_rule)
{
	const uint64_t sp = 0x7ffd00001000;
	const uint64_t words[] = {0x1111, 0x2222, 0xaaaa, 0xbbbb, 0xcccc};
	struct mem m = {sp, words, 5};
	struct rules r;
	struct cfi_regs g;
	uint64_t pc;

	rules_open(&r, RULES_LIB);
	/* After push rbp; mov rsp, rbp: CFA = rbp + 16, rbp saved at CFA - 16. */
	g = regs((uint64_t)dlsym(r.h, "r_push_rbp"), sp, sp + 8);
	cr_assert_eq(cfi_step(r.t, r.base, false, &g, mem_read, &m), CFI_STEP_OK);
	cr_expect_eq(g.rip, 0xaaaa);
	cr_expect_eq(g.rsp, sp + 24);
	cr_expect_eq(g.rbp, 0x2222);
	/* The PLT rule: CFA = rsp + 8, 8 more once (rip & 15) >= the threshold (r_plt11 is
	 * 64-byte aligned). */
	pc = (uint64_t)dlsym(r.h, "r_plt11");
	g = regs(pc + 12, sp, 7);
	cr_assert_eq(cfi_step(r.t, r.base, false, &g, mem_read, &m), CFI_STEP_OK);
	cr_expect_eq(g.rsp, sp + 16, "PLT at +12: rsp 0x%lx", (unsigned long)g.rsp);
	cr_expect_eq(g.rip, 0x2222);
	cr_expect_eq(g.rbp, 7);
	g = regs(pc + 10, sp, 7);
	cr_assert_eq(cfi_step(r.t, r.base, false, &g, mem_read, &m), CFI_STEP_OK);
	cr_expect_eq(g.rsp, sp + 8);
	cr_expect_eq(g.rip, 0x1111);
	/* The IBT .plt's threshold is 9. */
	g = regs((uint64_t)dlsym(r.h, "r_plt9") + 9, sp, 7);
	cr_assert_eq(cfi_step(r.t, r.base, false, &g, mem_read, &m), CFI_STEP_OK);
	cr_expect_eq(g.rsp, sp + 16);
	g = regs((uint64_t)dlsym(r.h, "r_plt9") + 8, sp, 7);
	cr_assert_eq(cfi_step(r.t, r.base, false, &g, mem_read, &m), CFI_STEP_OK);
	cr_expect_eq(g.rsp, sp + 8);
	/* The ends: END, UNSUPPORTED, a gap, an rbp rule BPF cannot follow, a bad read. */
	g = regs((uint64_t)dlsym(r.h, "r_end"), sp, 0);
	cr_expect_eq(cfi_step(r.t, r.base, false, &g, mem_read, &m), CFI_STEP_END);
	g = regs((uint64_t)dlsym(r.h, "r_signal"), sp, 0);
	cr_expect_eq(cfi_step(r.t, r.base, false, &g, mem_read, &m), CFI_STEP_UNSUPPORTED);
	g = regs((uint64_t)dlsym(r.h, "r_gap"), sp, 0);
	cr_expect_eq(cfi_step(r.t, r.base, false, &g, mem_read, &m), CFI_STEP_NO_ROW);
	g = regs((uint64_t)dlsym(r.h, "r_push_rbp"), sp, sp + 64);
	cr_expect_eq(cfi_step(r.t, r.base, false, &g, mem_read, &m), CFI_STEP_FAULT);
	/* rbp becomes unknown (a rule BPF cannot follow, a saved rbp unreadable) and the walk
	 * goes on, until a CFA needs rbp. */
	g = regs((uint64_t)dlsym(r.h, "r_rbp_reg_body"), sp, 0);
	cr_expect_eq(cfi_step(r.t, r.base, false, &g, mem_read, &m), CFI_STEP_OK);
	cr_expect_eq(g.rip, 0x1111);
	cr_expect(g.rbp_unknown);
	g = regs((uint64_t)dlsym(r.h, "r_push_body"), sp - 8, 0);
	cr_expect_eq(cfi_step(r.t, r.base, false, &g, mem_read, &m), CFI_STEP_OK);
	cr_expect_eq(g.rip, 0x1111, "CFA = rsp + 16, the return address at sp");
	cr_expect(g.rbp_unknown, "rbp saved at sp - 8, outside the stack: unknown");
	g.rip = (uint64_t)dlsym(r.h, "r_push_rbp");
	cr_expect_eq(cfi_step(r.t, r.base, false, &g, mem_read, &m), CFI_STEP_UNSUPPORTED,
		     "a CFA from an unknown rbp");
	/* A return address is looked up one byte back: the end of r_ra_moved is r_gap's row
	 * only for the first frame. */
	g = regs((uint64_t)dlsym(r.h, "r_last"), sp, 0);
	cr_expect_eq(cfi_step(r.t, r.base, true, &g, mem_read, &m), CFI_STEP_NO_ROW);
	cfi_table__free(r.t);
	dlclose(r.h);
}

/* ---- against libdw's CFI ------------------------------------------------------------ */

/* The row libdw's frame at a PC implies, by the mapping rules of cfi_compile.h. */
static struct unwind_row libdw_row(Dwarf_Frame *fr)
{
	struct unwind_row want = {0};
	Dwarf_Op mem[3], *ops;
	size_t nops;
	bool signal;

	dwarf_frame_info(fr, NULL, NULL, &signal);
	if (signal)
		return (struct unwind_row){.cfa_rule = UNWIND_CFA_UNSUPPORTED};
	cr_assert_eq(dwarf_frame_register(fr, 16, mem, &ops, &nops), 0);
	/* libdw.h: no ops with ops == mem is "undefined", with ops == NULL "same value". */
	if (ops == mem && !nops)
		return (struct unwind_row){.cfa_rule = UNWIND_CFA_END};
	if (!(nops == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst &&
	      (int64_t)ops[1].number == -8))
		return (struct unwind_row){.cfa_rule = UNWIND_CFA_UNSUPPORTED};
	cr_assert_eq(dwarf_frame_cfa(fr, &ops, &nops), 0);
	if (nops == 1 && ops[0].atom == DW_OP_bregx && (ops[0].number == 7 || ops[0].number == 6)) {
		int64_t off = (int64_t)ops[0].number2;

		if (off < INT16_MIN || off > INT16_MAX)
			return (struct unwind_row){.cfa_rule = UNWIND_CFA_UNSUPPORTED};
		want.cfa_rule = ops[0].number == 7 ? UNWIND_CFA_RSP : UNWIND_CFA_RBP;
		want.cfa_off = (int16_t)off;
	} else if (nops == 9 && ops[0].atom == DW_OP_breg7 && ops[1].atom == DW_OP_breg16 &&
		   ops[1].number == 0 && ops[2].atom == DW_OP_lit15 && ops[3].atom == DW_OP_and &&
		   ops[4].atom >= DW_OP_lit0 && ops[4].atom <= DW_OP_lit15 &&
		   ops[5].atom == DW_OP_ge && ops[6].atom == DW_OP_lit3 &&
		   ops[7].atom == DW_OP_shl && ops[8].atom == DW_OP_plus) {
		want.cfa_rule = UNWIND_CFA_PLT;
		want.cfa_off = (int16_t)ops[0].number;
		want.plt_ge = (uint16_t)(ops[4].atom - DW_OP_lit0);
	} else {
		return (struct unwind_row){.cfa_rule = UNWIND_CFA_UNSUPPORTED};
	}
	cr_assert_eq(dwarf_frame_register(fr, 6, mem, &ops, &nops), 0);
	if (!ops && !nops) {
		want.rbp_rule = UNWIND_RBP_SAME;
	} else if (ops && nops >= 1 && nops <= 2 && ops[0].atom == DW_OP_call_frame_cfa &&
		   (nops == 1 || ops[1].atom == DW_OP_plus_uconst)) {
		int64_t off = nops == 1 ? 0 : (int64_t)ops[1].number;

		want.rbp_rule = off >= INT16_MIN && off <= INT16_MAX ? UNWIND_RBP_CFA_OFF
								     : UNWIND_RBP_UNSUPPORTED;
		want.rbp_off = want.rbp_rule == UNWIND_RBP_CFA_OFF ? (int16_t)off : 0;
	} else {
		want.rbp_rule = UNWIND_RBP_UNSUPPORTED;
	}
	return want;
}

static bool same_row(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->cfa_rule == b->cfa_rule && a->rbp_rule == b->rbp_rule &&
	       a->cfa_off == b->cfa_off && a->rbp_off == b->rbp_off && a->plt_ge == b->plt_ge;
}

/* Compare the table of path with libdw at three PCs of every row: its first byte, its
 * middle, its last byte. Returns the number of PCs compared. */
static size_t compare_with_libdw(const char *path)
{
	const char *why = NULL;
	struct cfi_table *t = cfi_table__load(path, NULL, &why);
	struct elf_file f;
	Dwarf_CFI *cfi;
	size_t cnt = 0, bad = 0;

	cr_assert(t, "%s: %s", path, why);
	cr_assert_eq(elf_file__open(path, &f), 0);
	cfi = dwarf_getcfi_elf(f.elf);
	cr_assert(cfi, "libdw: no CFI in %s", path);
	for (uint32_t i = 0; i + 1 < t->n_rows; i++) {
		uint64_t lo = t->rows[i].pc, hi = t->rows[i + 1].pc;
		uint64_t pcs[3] = {lo, lo + (hi - lo) / 2, hi - 1};

		for (int k = 0; k < 3; k++) {
			const struct unwind_row *got = cfi_table__find(t, pcs[k]);
			struct unwind_row want = {.cfa_rule = UNWIND_CFA_NONE};
			Dwarf_Frame *fr = NULL;

			if (!dwarf_cfi_addrframe(cfi, pcs[k], &fr)) {
				want = libdw_row(fr);
				free(fr);
			}
			cr_assert(got);
			cnt++;
			if (same_row(got, &want))
				continue;
			if (bad++ < 10)
				cr_log_error("%s: pc 0x%lx: row cfa %d%+d rbp %d%+d ge %d, libdw "
					     "cfa %d%+d rbp %d%+d ge %d",
					     path, (unsigned long)pcs[k], got->cfa_rule,
					     got->cfa_off, got->rbp_rule, got->rbp_off, got->plt_ge,
					     want.cfa_rule, want.cfa_off, want.rbp_rule, want.rbp_off,
					     want.plt_ge);
		}
	}
	cr_expect_eq(bad, 0, "%s: %zu of %zu PCs differ from libdw", path, bad, cnt);
	cr_log_info("%s: %u rows, %zu PCs compared with libdw, %zu differ", path, t->n_rows, cnt,
		    bad);
	dwarf_cfi_end(cfi);
	elf_file__close(&f);
	cfi_table__free(t);
	return cnt;
}

Test(cfi, agrees_with_libdw_libc)
{
	size_t n = compare_with_libdw("/lib/x86_64-linux-gnu/libc.so.6");

	cr_expect_geq(n, 3000, "only %zu PCs", n);
}

Test(cfi, agrees_with_libdw_python)
{
	const char *py = "/usr/bin/python3.11";

	if (access(py, R_OK))
		cr_skip_test("%s is not installed", py);
	cr_expect_geq(compare_with_libdw(py), 3000);
}

Test(cfi, agrees_with_libdw_test_programs)
{
	const char *why = NULL;
	struct cfi_table *t;
	uint32_t ge = 0;

	compare_with_libdw(UNWFIX_DIR "/unwfix");
	compare_with_libdw(RULES_LIB);
	compare_with_libdw("/proc/self/exe");
	/* The IBT .plt as the toolchain writes it (-fcf-protection -z ibtplt): its threshold is
	 * whatever this binutils uses (9 in 2.40), and libdw agrees with the row. */
	compare_with_libdw(CFIFIX_DIR "/ibtplt");
	t = cfi_table__load(CFIFIX_DIR "/ibtplt", NULL, &why);
	cr_assert(t, "%s", why);
	for (uint32_t i = 0; i < t->n_rows; i++)
		if (t->rows[i].cfa_rule == UNWIND_CFA_PLT)
			ge = t->rows[i].plt_ge;
	cr_expect(ge && ge != 11, "no IBT .plt row (threshold %u)", ge);
	cfi_table__free(t);
}

/* More files on request (docs/BENCHMARKS.md ran it on big C++ and Rust libraries):
 * CFI_LIBDW_FILES=path:path... */
Test(cfi, agrees_with_libdw_on_request)
{
	const char *env = getenv("CFI_LIBDW_FILES");
	char *list, *save = NULL;

	if (!env || !*env)
		cr_skip_test("CFI_LIBDW_FILES not set");
	list = strdup(env);
	cr_assert(list);
	for (char *p = strtok_r(list, ":", &save); p; p = strtok_r(NULL, ":", &save))
		compare_with_libdw(p);
	free(list);
}

/* ---- stacks: cfi_step against the libdw unwinder ------------------------------------- */

/* The module of a PC in this process: its table (loaded once) and bias. */
struct mod {
	uint64_t lo, hi, bias;
	struct cfi_table *t;
};

struct mods {
	struct mod m[64];
	size_t n;
};

static int add_mod(struct dl_phdr_info *info, size_t sz, void *arg)
{
	struct mods *ms = arg;
	const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";

	for (int i = 0; i < info->dlpi_phnum && ms->n < 64; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		/* The vdso is no file: no table, unwinding stops there. */
		ms->m[ms->n++] = (struct mod){info->dlpi_addr + ph->p_vaddr,
					      info->dlpi_addr + ph->p_vaddr + ph->p_memsz,
					      info->dlpi_addr,
					      strstr(path, "vdso") ? NULL
								   : cfi_table__load(path, NULL, NULL)};
	}
	return 0;
}

static const struct mod *mod_of(const struct mods *ms, uint64_t pc)
{
	for (size_t i = 0; i < ms->n; i++)
		if (pc >= ms->m[i].lo && pc < ms->m[i].hi)
			return &ms->m[i];
	return NULL;
}

static bool cap_read(void *ctx, uint64_t addr, uint64_t *val)
{
	const struct cap *c = ctx;

	if (addr < c->rsp || addr - c->rsp > c->len || c->len - (addr - c->rsp) < 8)
		return false;
	memcpy(val, c->stack + (addr - c->rsp), 8);
	return true;
}

/* The frame list of a capture by cfi_step (the BPF walk), innermost first. */
static size_t step_frames(const struct mods *ms, const struct cap *c, uint64_t *ips, size_t max,
			  enum cfi_step_result *why)
{
	struct cfi_regs g = {c->rip, c->rsp, c->rbp, false};
	size_t n = 0;

	*why = CFI_STEP_OK;
	ips[n++] = g.rip;
	while (n < max) {
		/* A return address may end its mapping: looked up one byte back, as the row. */
		const struct mod *m = mod_of(ms, n > 1 ? g.rip - 1 : g.rip);

		if (!m || !m->t) {
			*why = CFI_STEP_NO_ROW;
			break;
		}
		*why = cfi_step(m->t, m->bias, n > 1, &g, cap_read, (void *)c);
		if (*why != CFI_STEP_OK)
			break;
		ips[n++] = g.rip;
	}
	return n;
}

static void compare_stacks(const struct cap *c, const char *what)
{
	struct unwind_regs ur = {.ip = c->rip, .sp = c->rsp, .bp = c->rbp};
	struct unwinder *u = unwinder__new(getpid());
	struct mods *ms = calloc(1, sizeof(*ms));
	uint64_t a[128], b[128];
	enum cfi_step_result why;
	int na;
	size_t nb;
	Dl_info di;

	cr_assert(u && ms);
	dl_iterate_phdr(add_mod, ms);
	na = unwinder__unwind(u, &ur, c->stack, c->len, (__u64 *)a, 128);
	nb = step_frames(ms, c, b, 128, &why);
	cr_assert_geq(na, 5, "%s: libdw gave %d frames", what, na);
	for (size_t i = 0; i < (size_t)na || i < nb; i++) {
		uint64_t pc = i < (size_t)na ? a[i] : b[i];

		if (i < (size_t)na && i < nb && a[i] == b[i])
			continue;
		cr_log_error("%s: frame %zu: libdw 0x%lx, cfi_step 0x%lx (%s)", what, i,
			     i < (size_t)na ? (unsigned long)a[i] : 0UL,
			     i < nb ? (unsigned long)b[i] : 0UL,
			     dladdr((void *)pc, &di) && di.dli_sname ? di.dli_sname : "?");
	}
	cr_expect_eq(nb, (size_t)na, "%s: cfi_step %zu frames (stopped: %s), libdw %d", what, nb,
		     cfi_step__name(why), na);
	cr_expect_arr_eq(a, b, (size_t)na < nb ? (size_t)na * 8 : nb * 8, "%s: frames differ",
			 what);
	for (size_t i = 0; i < ms->n; i++)
		cfi_table__free(ms->m[i].t);
	free(ms);
	unwinder__free(u);
}

Test(cfi, steps_like_libdw_on_captured_stacks)
{
	struct cap *c = malloc(sizeof(*c));
	char what[64];

	cr_assert(c);
	for (int depth = 0; depth < 6; depth++) {
		for (int x = 0; x < 2; x++) {
			memset(c, 0, sizeof(*c));
			cap_chain(c, depth, x);
			cr_assert_gt(c->len, 0);
			snprintf(what, sizeof(what), "chain depth %d x %d", depth, x);
			compare_stacks(c, what);
		}
	}
	memset(c, 0, sizeof(*c));
	cap_qsort(c);
	cr_assert_gt(c->len, 0, "the comparator never captured");
	compare_stacks(c, "qsort");
	free(c);
}

/* ---- the cache ----------------------------------------------------------------------- */

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

static bool same_table(const struct cfi_table *a, const struct cfi_table *b)
{
	return a->n_rows == b->n_rows && a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len) &&
	       !memcmp(a->rows, b->rows, (size_t)a->n_rows * sizeof(*a->rows));
}

/* A fresh directory for a cache: <tmp>/c/unwind does not exist yet. */
static void cache_dirs(char *top, size_t top_sz, char *dir, size_t dir_sz)
{
	snprintf(top, top_sz, "/tmp/cfi_unit.XXXXXX");
	cr_assert(mkdtemp(top), "mkdtemp: %s", strerror(errno));
	snprintf(dir, dir_sz, "%s/c/unwind", top);
}

static void cleanup_dirs(const char *top)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	cr_expect_eq(system(cmd), 0);
}

/* Flip one byte of a file at off. */
static void poke(const char *path, off_t off)
{
	int fd = open(path, O_RDWR);
	unsigned char b;

	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, &b, 1, off), 1);
	b ^= 0x5a;
	cr_assert_eq(pwrite(fd, &b, 1, off), 1);
	close(fd);
}

/* The cache's identity of the file at path (cfi_cache__src_of). */
static struct cfi_cache_src src_of(const char *path)
{
	struct cfi_cache_src src;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(cfi_cache__src_of(fd, &src), 0);
	close(fd);
	return src;
}

Test(cfi, cache_stores_loads_and_rebuilds)
{
	char top[64], dir[96], path[256];
	const char *why = NULL;
	struct cfi_table *cold = cfi_table__load(LIBC, NULL, &why), *warm;
	const struct cfi_cache_src libc_src = src_of(LIBC);
	struct unwind_row *rows;
	uint32_t n;
	struct stat st;

	cr_assert(cold, "%s", why);
	cr_assert_gt(cold->build_id_len, 0, "libc has no build-id");
	cache_dirs(top, sizeof(top), dir, sizeof(dir));
	cr_assert_eq(cfi_cache__load(dir, cold->build_id, cold->build_id_len, &libc_src, &rows, &n),
		     -ENOENT);

	/* Cold: compiled and stored; the directory 0700, the file 0600. */
	warm = cfi_table__load(LIBC, dir, &why);
	cr_assert(warm && same_table(cold, warm));
	cfi_table__free(warm);
	cr_assert_eq(stat(dir, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0700, "dir mode %o", st.st_mode & 0777);
	cr_assert_eq(cfi_cache__path(dir, cold->build_id, cold->build_id_len, path, sizeof(path)),
		     0);
	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	cr_expect_eq(st.st_mode & 0777, 0600, "file mode %o", st.st_mode & 0777);
	cr_expect_eq((size_t)st.st_size,
		     sizeof(struct cfi_cache_hdr) + cold->n_rows * sizeof(struct unwind_row));

	/* Warm: the stored rows. */
	cr_assert_eq(cfi_cache__load(dir, cold->build_id, cold->build_id_len, &libc_src, &rows, &n), 0);
	cr_expect_eq(n, cold->n_rows);
	cr_expect_arr_eq(rows, cold->rows, (size_t)n * sizeof(*rows));
	free(rows);

	/* A damaged row: rejected, and the next load compiles and stores it again. */
	poke(path, (off_t)(sizeof(struct cfi_cache_hdr) + 5 * sizeof(struct unwind_row) + 4));
	cr_expect_eq(cfi_cache__load(dir, cold->build_id, cold->build_id_len, &libc_src, &rows, &n),
		     -EBADMSG);
	warm = cfi_table__load(LIBC, dir, &why);
	cr_assert(warm && same_table(cold, warm), "not rebuilt after damage");
	cfi_table__free(warm);
	cr_expect_eq(cfi_cache__load(dir, cold->build_id, cold->build_id_len, &libc_src, &rows, &n), 0);
	free(rows);

	/* A damaged header (the version), a short file: rejected. */
	poke(path, 8);
	cr_expect_eq(cfi_cache__load(dir, cold->build_id, cold->build_id_len, &libc_src, &rows, &n),
		     -EBADMSG);
	cr_assert_eq(truncate(path, 100), 0);
	cr_expect_eq(cfi_cache__load(dir, cold->build_id, cold->build_id_len, &libc_src, &rows, &n),
		     -EBADMSG);

	/* Another build-id's name on libc's entry: rejected (the header says whose it is). */
	warm = cfi_table__load(LIBC, dir, &why);
	cfi_table__free(warm);
	{
		uint8_t other[20];
		char opath[256];

		memcpy(other, cold->build_id, cold->build_id_len);
		other[0] ^= 1;
		cr_assert_eq(cfi_cache__path(dir, other, cold->build_id_len, opath, sizeof(opath)), 0);
		cr_assert_eq(link(path, opath), 0);
		cr_expect_eq(cfi_cache__load(dir, other, cold->build_id_len, &libc_src, &rows, &n), -EBADMSG);
	}

	/* A directory others may write: not used, neither read nor written; still compiled. */
	cr_assert_eq(chmod(dir, 0777), 0);
	cr_expect_eq(cfi_cache__load(dir, cold->build_id, cold->build_id_len, &libc_src, &rows, &n),
		     -EPERM);
	cr_expect_eq(cfi_cache__store(dir, cold->build_id, cold->build_id_len, &libc_src, cold->rows,
				      cold->n_rows),
		     -EPERM);
	warm = cfi_table__load(LIBC, dir, &why);
	cr_assert(warm && same_table(cold, warm));
	cfi_table__free(warm);
	cfi_table__free(cold);
	cleanup_dirs(top);
}

Test(cfi, cache_refuses_a_symlinked_entry)
{
	char top[64], dir[96], path[256], target[128];
	const char *why = NULL;
	struct cfi_table *t = cfi_table__load(LIBC, NULL, &why);
	const struct cfi_cache_src libc_src = src_of(LIBC);
	struct unwind_row *rows;
	uint32_t n;

	cr_assert(t, "%s", why);
	cache_dirs(top, sizeof(top), dir, sizeof(dir));
	cfi_table__free(cfi_table__load(LIBC, dir, &why));
	cr_assert_eq(cfi_cache__path(dir, t->build_id, t->build_id_len, path, sizeof(path)), 0);
	snprintf(target, sizeof(target), "%s/elsewhere", top);
	cr_assert_eq(rename(path, target), 0);
	cr_assert_eq(symlink(target, path), 0);
	cr_expect_neq(cfi_cache__load(dir, t->build_id, t->build_id_len, &libc_src, &rows, &n), 0,
		      "an entry read through a symlink");
	cfi_table__free(t);
	cleanup_dirs(top);
}

/*
 * A build-id is the file's own claim: a copy of libc with other CFI and libc's build-id
 * (as a hostile library could be) neither gets libc's cached table nor leaves its own for
 * the real libc.
 */
Test(cfi, cache_entry_serves_only_its_own_file)
{
	char top[64], dir[96], copy[128];
	const char *why = NULL;
	struct cfi_table *libc = cfi_table__load(LIBC, NULL, &why), *fake = NULL, *warm;
	size_t len = 0;
	struct elf_file f;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	off_t eh_off = -1;
	size_t shstrndx;

	cr_assert(libc, "%s", why);
	cache_dirs(top, sizeof(top), dir, sizeof(dir));
	/* The copy: libc's bytes, its .eh_frame changed until its table differs. */
	cr_assert_eq(elf_file__open(LIBC, &f), 0);
	cr_assert_eq(elf_getshdrstrndx(f.elf, &shstrndx), 0);
	while ((scn = elf_nextscn(f.elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    !strcmp(elf_strptr(f.elf, shstrndx, sh.sh_name) ?: "", ".eh_frame"))
			eh_off = (off_t)sh.sh_offset, len = sh.sh_size;
	elf_file__close(&f);
	cr_assert_geq(eh_off, 0);
	snprintf(copy, sizeof(copy), "%s/libc-copy.so", top);
	for (size_t at = len / 2; !fake && at < len; at += 97) {
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", LIBC, copy);
		cr_assert_eq(system(cmd), 0);
		poke(copy, eh_off + (off_t)at);
		fake = cfi_table__load(copy, NULL, &why);
		if (fake && same_table(libc, fake)) {
			cfi_table__free(fake);
			fake = NULL;
		}
	}
	cr_assert(fake, "no change of .eh_frame changed the table");
	cr_assert_eq(fake->build_id_len, libc->build_id_len);
	cr_assert_arr_eq(fake->build_id, libc->build_id, libc->build_id_len);

	/* libc cached first: the copy is compiled, not served libc's rows. */
	cfi_table__free(cfi_table__load(LIBC, dir, &why));
	warm = cfi_table__load(copy, dir, &why);
	cr_assert(warm);
	cr_expect(same_table(fake, warm), "a file of libc's build-id was given libc's table");
	cfi_table__free(warm);
	/* The copy's entry now: the real libc does not get its rows. */
	warm = cfi_table__load(LIBC, dir, &why);
	cr_assert(warm);
	cr_expect(same_table(libc, warm), "libc was given the copy's table");
	cfi_table__free(warm);
	cfi_table__free(fake);
	cfi_table__free(libc);
	cleanup_dirs(top);
}

/* A cache directory reached through a symlink someone else planted in a sticky directory
 * (as in /tmp) is refused, even when it leads to a directory of ours; our own symlink in a
 * directory nobody else writes is followed. */
Test(cfi, cache_dir_through_a_planted_symlink_is_refused)
{
	char top[64], sticky[96], mine[96], link[128], dir[160];
	const uint8_t id[4] = {1, 2, 3, 4};
	const struct cfi_cache_src src = {.dev = 1, .ino = 2, .size = 3, .ctime_ns = 4};
	const struct unwind_row rows[2] = {{.pc = 1, .cfa_rule = UNWIND_CFA_RSP, .cfa_off = 8},
					   {.pc = 9, .cfa_rule = UNWIND_CFA_NONE}};

	if (geteuid() != 0)
		cr_skip_test("needs root: a symlink owned by another user is made with lchown");
	cache_dirs(top, sizeof(top), dir, sizeof(dir));
	snprintf(sticky, sizeof(sticky), "%s/sticky", top);
	snprintf(mine, sizeof(mine), "%s/mine", top);
	cr_assert_eq(mkdir(sticky, 0755), 0);
	cr_assert_eq(chmod(sticky, 01777), 0);
	cr_assert_eq(mkdir(mine, 0700), 0);
	snprintf(link, sizeof(link), "%s/cache", sticky);
	cr_assert_eq(symlink(mine, link), 0);
	cr_assert_eq(lchown(link, 12345, 12345), 0);
	snprintf(dir, sizeof(dir), "%s/unwind", link);
	cr_expect_eq(cfi_cache__store(dir, id, 4, &src, rows, 2), -ELOOP);
	/* Ours, in a directory only we write: followed. */
	cr_assert_eq(unlink(link), 0);
	snprintf(link, sizeof(link), "%s/cache", top);
	cr_assert_eq(symlink(mine, link), 0);
	snprintf(dir, sizeof(dir), "%s/unwind", link);
	cr_expect_eq(cfi_cache__store(dir, id, 4, &src, rows, 2), 0);
	cleanup_dirs(top);
}

Test(cfi, default_cache_dir)
{
	const char *d;

	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	d = cfi_table__default_cache_dir();
	cr_assert(d);
	cr_expect_str_eq(d, "/x/cache/tracer/unwind");
	setenv("XDG_CACHE_HOME", "relative", 1); /* not absolute: ignored, as the spec says */
	setenv("HOME", "/home/h", 1);
	d = cfi_table__default_cache_dir();
	cr_assert(d);
	cr_expect_str_eq(d, "/home/h/.cache/tracer/unwind");
}

/* A compressed .debug_frame (objcopy --compress-debug-sections) gives the same rows; one
 * whose header claims more than CFI_INFLATE_MAX is refused before libelf allocates it (the
 * size a zlib bomb's header states). */
Test(cfi, compressed_debug_frame_and_its_claimed_size)
{
	char top[64], dir[96], copy[160], cmd[512];
	const char *why = NULL;
	struct cfi_table *plain = cfi_table__load(RULES_LIB_DF, NULL, &why), *t;
	struct elf_file f;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	off_t chdr_off = -1;
	uint64_t claim = 1ull << 30;
	int fd;

	cr_assert(plain, "%s", why);
	cache_dirs(top, sizeof(top), dir, sizeof(dir));
	snprintf(copy, sizeof(copy), "%s/df_zlib.so", top);
	snprintf(cmd, sizeof(cmd), "objcopy --compress-debug-sections=zlib '%s' '%s'",
		 RULES_LIB_DF, copy);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	cr_assert_eq(elf_file__open(copy, &f), 0);
	cr_assert_eq(elf_getshdrstrndx(f.elf, &shstrndx), 0);
	while ((scn = elf_nextscn(f.elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(f.elf, shstrndx, sh.sh_name)) &&
		    !strcmp(name, ".debug_frame") && (sh.sh_flags & SHF_COMPRESSED))
			chdr_off = (off_t)sh.sh_offset;
	}
	elf_file__close(&f);
	cr_assert_geq(chdr_off, 0, "objcopy left .debug_frame uncompressed");
	t = cfi_table__load(copy, NULL, &why);
	cr_assert(t, "%s", why);
	cr_expect_eq(t->n_rows, plain->n_rows);
	cr_expect_arr_eq(t->rows, plain->rows, (size_t)plain->n_rows * sizeof(*t->rows));
	cfi_table__free(t);

	/* Elf64_Chdr: ch_type, ch_reserved, then ch_size. */
	fd = open(copy, O_RDWR);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, &claim, sizeof(claim), chdr_off + 8), (ssize_t)sizeof(claim));
	close(fd);
	why = NULL;
	cr_expect_null(cfi_table__load(copy, NULL, &why));
	cr_expect(why && strstr(why, "inflates past"), "why: %s", why ? why : "(none)");
	cfi_table__free(plain);
	cleanup_dirs(top);
}

Test(cfi, no_cfi_says_why)
{
	const char *why = NULL;

	cr_expect_null(cfi_table__load("/etc/hostname", NULL, &why));
	cr_expect(why && *why, "no reason");
	why = NULL;
	cr_expect_null(cfi_table__load("/nonexistent/file", NULL, &why));
	cr_expect(why && *why, "no reason");
}

/* ---- hostile sections ---------------------------------------------------------------- */

/* A copy of libc's .eh_frame and its address. */
static uint8_t *eh_frame_of(const char *path, size_t *len, uint64_t *addr)
{
	struct elf_file f;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	uint8_t *copy = NULL;

	cr_assert_eq(elf_file__open(path, &f), 0);
	cr_assert_eq(elf_getshdrstrndx(f.elf, &shstrndx), 0);
	while ((scn = elf_nextscn(f.elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(f.elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".eh_frame") || !(d = elf_getdata(scn, NULL)))
			continue;
		copy = malloc(d->d_size);
		cr_assert(copy);
		memcpy(copy, d->d_buf, d->d_size);
		*len = d->d_size;
		*addr = sh.sh_addr;
	}
	elf_file__close(&f);
	cr_assert(copy, "no .eh_frame in %s", path);
	return copy;
}

static void compile_checked(const uint8_t *sec, size_t len, uint64_t addr, bool is_eh)
{
	struct cfi_rows out = {0};
	struct cfi_compile_stats st = {0};
	int err = cfi_compile(sec, len, addr, is_eh, &out, &st);

	cr_assert(err == 0 || err == -ENOENT, "cfi_compile: %d", err);
	for (size_t i = 1; i < out.n; i++)
		cr_assert_gt(out.rows[i].pc, out.rows[i - 1].pc, "rows not sorted at %zu", i);
	cr_assert_eq(st.fde_ok_cnt + st.fde_bad_cnt + st.fde_empty_cnt + st.fde_far_cnt +
			     st.fde_bad_insn_cnt,
		     st.fde_cnt, "an FDE not accounted for");
	free(out.rows);
}

Test(cfi, damaged_sections_compile_safely, .timeout = 60)
{
	size_t len = 0;
	uint64_t addr = 0, seed = 0x9e3779b97f4a7c15ull;
	uint8_t *orig = eh_frame_of(LIBC, &len, &addr), *sec = malloc(len);

	cr_assert(sec);
	/* libc's section damaged at random (bytes, then a cut every third round), read as
	 * .eh_frame and every fifth time as .debug_frame. Under ASan (.ci/sanitize.sh) an
	 * out-of-bounds read fails this test; the copy is exactly len bytes long. */
	for (int round = 0; round < 200; round++) {
		size_t n = len;

		memcpy(sec, orig, len);
		for (int k = 0; k < 1 + round % 16; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			sec[(seed >> 33) % len] = (uint8_t)(seed >> 13);
		}
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		if (round % 3 == 0)
			n = (seed >> 33) % len;
		compile_checked(sec, n, addr, round % 5 != 4);
	}
	/* Every prefix length of the section's first entries. */
	for (size_t cut = 0; cut < 512 && cut <= len; cut++) {
		memcpy(sec, orig, cut);
		compile_checked(sec, cut, addr, true);
	}
	free(sec);
	free(orig);
}

/*
 * One CIE named by every FDE, its initial instructions a megabyte of DW_CFA_nop: its parse
 * and its instructions are worked out once, not once per FDE (100,000 FDEs took 154 s).
 */
Test(cfi, long_cie_named_by_every_fde_is_read_once, .timeout = TEST_TIMEOUT(20))
{
	const size_t nops = 1u << 20, fdes = 100000;
	const size_t cie_len = 4 + 1 + 1 + 3 + nops; /* id, version, "", aligns and ra, nops */
	size_t len = 4 + cie_len + fdes * 24;
	uint8_t *sec = calloc(1, len), *p = sec;
	struct cfi_rows out = {0};
	struct cfi_compile_stats st = {0};
	uint32_t w;

	cr_assert(sec);
	w = (uint32_t)cie_len;
	memcpy(p, &w, 4);
	p += 8;	     /* the CIE id: 0 */
	*p++ = 1;    /* version */
	*p++ = 0;    /* augmentation "" */
	*p++ = 1;    /* code alignment */
	*p++ = 0x78; /* data alignment -8 */
	*p++ = 16;   /* return address register */
	p += nops;
	for (size_t i = 0; i < fdes; i++, p += 24) {
		uint64_t begin = 0x1000 + 16 * i, range = 16;

		w = 20;
		memcpy(p, &w, 4);
		w = (uint32_t)(p + 4 - sec); /* back to the CIE */
		memcpy(p + 4, &w, 4);
		memcpy(p + 8, &begin, 8);
		memcpy(p + 16, &range, 8);
	}
	cr_assert_eq(cfi_compile(sec, len, 0, true, &out, &st), 0);
	cr_expect_eq(st.fde_ok_cnt, fdes);
	cr_expect_eq(out.n, 2, "one rsp + 8 row and the end: %zu rows", out.n);
	free(out.rows);
	free(sec);
}

/*
 * An FDE naming an offset inside another entry, where a CIE was planted, is unreadable: only
 * the chain's CIEs are read (they do not overlap, so reading them all costs one pass; CIEs
 * nested in one another, each megabytes of instructions, would cost the square).
 */
Test(cfi, fde_naming_a_cie_nested_in_another_entry_is_bad)
{
	static const uint8_t sec[] = {
	    /* 0: the chain's CIE, 23 bytes; its instructions (13..27) are a planted CIE */
	    23, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0x78, 16,
	    /* 13: the planted CIE: 10 bytes, id 0, version 1, "", 1, -8, ra 16, nop */
	    10, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0x78, 16, 0,
	    /* 27: FDE naming the planted CIE: its id field at 31, 18 back */
	    20, 0, 0, 0, 18, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0,
	    /* 51: FDE naming the chain's CIE: id field at 55, 55 back */
	    20, 0, 0, 0, 55, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0};
	struct cfi_rows out = {0};
	struct cfi_compile_stats st = {0};
	int err = cfi_compile(sec, sizeof(sec), 0, true, &out, &st);

	cr_expect(err == 0 || err == -ENOENT, "cfi_compile: %d", err);
	cr_expect_eq(st.cie_cnt, 1);
	cr_expect_eq(st.fde_cnt, 2);
	cr_expect_eq(st.fde_bad_cnt, 1, "the FDE of the planted CIE read (%u bad)", st.fde_bad_cnt);
	free(out.rows);
}

/* DW_CFA_advance_loc's delta times a hostile code alignment (2^63) overflows: the FDE's
 * instructions are bad from there (an UNSUPPORTED row), not a rule moved to where the
 * product wrapped (here: the FDE's start). */
Test(cfi, advance_loc_overflow_is_a_bad_instruction)
{
	static const uint8_t sec[] = {
	    /* 0: CIE, 18 bytes: id 0, version 1, "", code alignment 2^63, -8, ra 16 */
	    18, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	    0x01, 0x78, 16,
	    /* 22: FDE [0x1000, 0x1010): advance_loc 2, def_cfa_offset 16 */
	    23, 0, 0, 0, 26, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0x42,
	    0x0e, 16};
	struct cfi_rows out = {0};
	struct cfi_compile_stats st = {0};

	cr_assert_eq(cfi_compile(sec, sizeof(sec), 0, true, &out, &st), 0);
	cr_expect_eq(st.fde_bad_insn_cnt, 1);
	cr_assert_geq(out.n, 1);
	cr_expect_eq(out.rows[0].pc, 0x1000);
	cr_expect_eq(out.rows[0].cfa_rule, UNWIND_CFA_UNSUPPORTED, "rule %u, offset %d",
		     out.rows[0].cfa_rule, out.rows[0].cfa_off);
	free(out.rows);
}

/* A CFA register number is read whole: 2^32 + 7 is no register BPF knows, not rsp. */
Test(cfi, cfa_register_beyond_32_bits_is_not_rsp)
{
	static const uint8_t sec[] = {
	    /* 0: CIE, 9 bytes: id 0, version 1, "", 1, -8, ra 16 */
	    9, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0x78, 16,
	    /* 13: FDE [0x1000, 0x1010): def_cfa r(2^32 + 7), 16 */
	    27, 0, 0, 0, 17, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0x0c,
	    0x87, 0x80, 0x80, 0x80, 0x10, 16};
	struct cfi_rows out = {0};
	struct cfi_compile_stats st = {0};

	cr_assert_eq(cfi_compile(sec, sizeof(sec), 0, true, &out, &st), 0);
	cr_assert_geq(out.n, 1);
	cr_expect_eq(out.rows[0].cfa_rule, UNWIND_CFA_UNSUPPORTED, "rule %u, offset %d",
		     out.rows[0].cfa_rule, out.rows[0].cfa_off);
	free(out.rows);
}

/* One corpus file: first byte the format, the rest the section. */
static void replay_one(const char *path, const char *data, size_t len, void *ctx)
{
	cr_assert(data, "%s: unreadable", path);
	if (len)
		compile_checked((const uint8_t *)data + 1, len - 1, 0x1000, !(data[0] & 1));
}

/* Every seed and past crash of the fuzzer (tests/fuzz/fuzz_cfi_compile.c) compiles safely. */
Test(cfi, fuzz_corpus_replay)
{
	const char *cdir = TESTS_SRC_DIR "/fuzz/corpus/cfi_compile";
	int files = tu_each_file(cdir, replay_one, NULL);

	cr_assert_geq(files, 0, "%s: %s", cdir, strerror(errno));
	cr_expect_geq(files, 5, "the seed corpus is missing (%d files)", files);
}

/*
 * kunwind (user/trace/kunwind.c): what the in-kernel unwinder is given, on this very process
 * (its maps, its libc), with a sink in plain memory instead of BPF maps:
 *  - each executable file mapping is described, sorted by start, with its bias; the libc
 *    mapping's rows in the array are exactly the rows cfi_table__load compiles for libc, and
 *    a PC of a libc function finds, through the description, the row cfi_table__find gives;
 *  - a second update adds no rows (one table per file), modules are published by file;
 *  - a rows array too small for libc: counted beyond capacity, its mapping has n_rows 0.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfi_table.h"
#include "kunwind.h"
#include "procmaps.h"

struct sink_mem {
	struct unwind_proc proc;
	int procs_set, modules_set;
	pid_t pid;
};

static int set_proc(void *ctx, pid_t pid, const struct unwind_proc *p)
{
	struct sink_mem *m = ctx;

	if (p) {
		m->proc = *p;
		m->pid = pid;
		m->procs_set++;
	}
	return 0;
}

static int set_module(void *ctx, const struct unwind_module_key *k, const struct unwind_module *v)
{
	struct sink_mem *m = ctx;

	(void)k;
	(void)v;
	m->modules_set++;
	return 0;
}

/* This process's libc mapping (executable) and its path. */
static const struct unwind_mapping *libc_mapping(const struct unwind_proc *p, char *path,
						 size_t sz)
{
	__u64 pc = (__u64)(uintptr_t)&malloc;
	struct proc_mapping *maps;
	size_t n;

	cr_assert_eq(procmaps__read(getpid(), true, &maps, &n), 0);
	path[0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (maps[i].start <= pc && pc < maps[i].end)
			snprintf(path, sz, "%s", maps[i].path);
	procmaps__free(maps, n);
	cr_assert(path[0], "malloc at %#llx is in no mapping", (unsigned long long)pc);
	for (__u32 i = 0; i < p->n; i++)
		if (p->m[i].start <= pc && pc < p->m[i].end)
			return &p->m[i];
	return NULL;
}

Test(kunwind, describes_this_process_with_libcs_rows)
{
	size_t stride = 16, cap = 4u << 20;
	void *rows = calloc(cap, stride);
	struct sink_mem mem = { 0 };
	struct kunwind_sink sink = { .rows = rows, .row_stride = stride, .rows_cap = (__u32)cap,
				     .set_proc = set_proc, .set_module = set_module, .ctx = &mem };
	struct kunwind *k = kunwind__new(NULL);
	const struct unwind_mapping *m;
	struct kunwind_stats st, st2;
	struct cfi_table *t;
	const char *why = NULL;
	char path[4096];
	__u64 pc;

	cr_assert_not_null(rows);
	cr_assert_not_null(k);
	cr_assert_gt(kunwind__prepare(k, getpid()), 0, "no rows for this process's modules");
	cr_assert_eq(kunwind__attach(k, &sink), 0);
	cr_assert_eq(kunwind__update(k, getpid(), false), 0);
	cr_assert_eq(mem.pid, getpid());
	cr_assert_gt(mem.proc.n, 1);
	for (__u32 i = 1; i < mem.proc.n; i++)
		cr_expect_lt(mem.proc.m[i - 1].start, mem.proc.m[i].start, "not sorted at %u", i);
	cr_expect_gt(mem.modules_set, 0, "no module published by file");

	m = libc_mapping(&mem.proc, path, sizeof(path));
	cr_assert_not_null(m, "libc's mapping is not described");
	t = cfi_table__load(path, NULL, &why);
	cr_assert_not_null(t, "%s: %s", path, why);
	cr_assert_eq(m->n_rows, t->n_rows);
	cr_expect_eq(memcmp((char *)rows + (size_t)m->first_row * stride, &t->rows[0],
			    sizeof(t->rows[0])),
		     0);
	for (__u32 i = 0; i < t->n_rows; i += 97)
		cr_expect_eq(memcmp((char *)rows + (size_t)(m->first_row + i) * stride, &t->rows[i],
				    sizeof(t->rows[i])),
			     0, "row %u differs", i);
	/* malloc's PC through the description: the row the table itself gives */
	pc = (__u64)(uintptr_t)&malloc + 4;
	cr_assert_not_null(cfi_table__find(t, pc - m->bias));
	{
		const struct unwind_row *want = cfi_table__find(t, pc - m->bias);
		__u32 lo = 0, hi = m->n_rows;

		while (lo < hi) { /* the last row at or below, as BPF searches */
			__u32 mid = lo + (hi - lo) / 2;
			const struct unwind_row *r =
			    (const void *)((char *)rows + (size_t)(m->first_row + mid) * stride);

			if (r->pc <= pc - m->bias)
				lo = mid + 1;
			else
				hi = mid;
		}
		cr_assert_gt(lo, 0);
		cr_expect_eq(memcmp((char *)rows + (size_t)(m->first_row + lo - 1) * stride, want,
				    sizeof(*want)),
			     0, "the row found through the description is not the table's");
	}

	kunwind__stats(k, &st);
	cr_assert_eq(kunwind__update(k, getpid(), false), 0);
	kunwind__stats(k, &st2);
	cr_expect_eq(st.rows_used, st2.rows_used, "a second update loaded tables again");
	cr_expect_eq(st2.updates, st.updates + 1);
	cr_expect_eq(st2.over_capacity, 0);
	cfi_table__free(t);
	kunwind__free(k);
	free(rows);
}

Test(kunwind, beyond_capacity_is_counted)
{
	size_t stride = 16, cap = 64; /* far too small for libc */
	void *rows = calloc(cap, stride);
	struct sink_mem mem = { 0 };
	struct kunwind_sink sink = { .rows = rows, .row_stride = stride, .rows_cap = (__u32)cap,
				     .set_proc = set_proc, .ctx = &mem };
	struct kunwind *k = kunwind__new(NULL);
	const struct unwind_mapping *m;
	struct kunwind_stats st;
	char path[4096];

	cr_assert_not_null(k);
	cr_assert_eq(kunwind__attach(k, &sink), 0);
	cr_assert_eq(kunwind__update(k, getpid(), false), 0);
	m = libc_mapping(&mem.proc, path, sizeof(path));
	cr_assert_not_null(m);
	cr_expect_eq(m->n_rows, 0, "libc's rows do not fit, yet its mapping has %u", m->n_rows);
	kunwind__stats(k, &st);
	cr_expect_gt(st.over_capacity, 0);
	cr_expect_leq(st.rows_used, cap);
	kunwind__free(k);
	free(rows);
}

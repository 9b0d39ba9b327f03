// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* procmaps: read our own /proc/self maps and open our own executable mapping. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procmaps.h"

/* The executable mapping holding addr, or NULL. */
static const struct proc_mapping *find(const struct proc_mapping *m, size_t cnt, __u64 addr)
{
	size_t i;

	for (i = 0; i < cnt; i++)
		if (m[i].start <= addr && addr < m[i].end)
			return &m[i];
	return NULL;
}

Test(procmaps, start_time)
{
	cr_assert_neq(proc_start_time(getpid()), 0);
	/* No such process: 0, which callers treat as "unknown". */
	cr_assert_eq(proc_start_time(INT_MAX), 0);
}

Test(procmaps, reads_own_exec_mappings_sorted)
{
	struct proc_mapping *m = NULL, *all = NULL;
	size_t cnt = 0, all_cnt = 0, i;
	char exe[PATH_MAX];
	ssize_t len;
	const struct proc_mapping *self;

	cr_assert_eq(procmaps__read(getpid(), true, &m, &cnt), 0);
	cr_assert_gt(cnt, 0);
	for (i = 1; i < cnt; i++)
		cr_assert_geq(m[i].start, m[i - 1].end, "maps order is address order");
	/* Our code lives in our executable, mapped executable with its inode. */
	self = find(m, cnt, (__u64)(uintptr_t)&find);
	cr_assert_not_null(self);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cr_assert_gt(len, 0);
	exe[len] = '\0';
	cr_assert_str_eq(self->path, exe);
	cr_assert_neq(self->ino, 0);
	cr_assert_not(self->deleted);
	/* The vdso shows as a pseudo path. */
	if (getauxval(AT_SYSINFO_EHDR)) {
		const struct proc_mapping *v = find(m, cnt, getauxval(AT_SYSINFO_EHDR));

		cr_assert_not_null(v);
		cr_assert_str_eq(v->path, "[vdso]");
	}
	/* Without exec_only, the non-executable mappings (data, stack) come too. */
	cr_assert_eq(procmaps__read(getpid(), false, &all, &all_cnt), 0);
	cr_assert_gt(all_cnt, cnt);
	procmaps__free(all, all_cnt);
	procmaps__free(m, cnt);
	procmaps__free(NULL, 0);
}

Test(procmaps, opens_own_executable_by_inode)
{
	struct proc_mapping *m = NULL, fake;
	const struct proc_mapping *self;
	size_t cnt = 0;
	struct stat st;
	int fd;

	cr_assert_eq(procmaps__read(getpid(), true, &m, &cnt), 0);
	self = find(m, cnt, (__u64)(uintptr_t)&find);
	cr_assert_not_null(self);
	fd = procmaps__open_file(getpid(), self);
	cr_assert_geq(fd, 0, "open: %s", strerror(-fd));
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq((__u64)st.st_ino, self->ino);
	close(fd);
	/* Marked deleted: map_files comes first (it needs privileges), then the paths; either
	 * way the fd must be the same file. */
	fake = *self;
	fake.deleted = true;
	fd = procmaps__open_file(getpid(), &fake);
	cr_assert_geq(fd, 0, "open: %s", strerror(-fd));
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq((__u64)st.st_ino, self->ino);
	close(fd);
	/* Nothing opens (no such mapping, no such path): -errno. */
	fake = *self;
	fake.start = 0x1000;
	fake.end = 0x2000;
	fake.path = "/nonexistent/procmaps_unit";
	cr_assert_eq(procmaps__open_file(getpid(), &fake), -ENOENT);
	procmaps__free(m, cnt);
}

Test(procmaps, reads_own_memory)
{
	static const char want[] = "procmaps read_mem probe";
	char got[sizeof(want)];

	cr_assert_eq(procmaps__read_mem(getpid(), (__u64)(uintptr_t)want, got, sizeof(got)), 0);
	cr_assert_str_eq(got, want);
	cr_assert_eq(procmaps__read(INT_MAX, true, &(struct proc_mapping *){NULL}, &(size_t){0}),
		     -ESRCH);
}

/* process_vm_readv: the bytes asked for, and -EFAULT (not a short success) for a range that
 * runs into an unmapped page. */
Test(procmaps, read_vm_exact_or_efault)
{
	static const char want[] = "procmaps read_vm probe";
	long pg = sysconf(_SC_PAGESIZE);
	char got[sizeof(want)], *two;

	cr_assert_eq(procmaps__read_vm(getpid(), (__u64)(uintptr_t)want, got, sizeof(got)), 0);
	cr_assert_str_eq(got, want);
	two = mmap(NULL, (size_t)(2 * pg), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	cr_assert(two != MAP_FAILED);
	cr_assert_eq(munmap(two + pg, (size_t)pg), 0);
	cr_expect_eq(procmaps__read_vm(getpid(), (__u64)(uintptr_t)(two + pg - 4), got, 8),
		     -EFAULT);
	cr_expect_eq(procmaps__read_vm(getpid(), (__u64)(uintptr_t)(two + pg - 8), got, 8), 0);
	munmap(two, (size_t)pg);
}

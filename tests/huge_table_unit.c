// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* huge_table: zeroed tables, big ones 2 MiB-aligned (what THP can back), sizes that
 * overflow refused, every byte of a size that is no multiple of a page usable. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>

#include "huge_table.h"

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

Test(huge_table, small_tables_are_zeroed)
{
	unsigned char *p = huge_table__alloc(1000, 16);

	cr_assert_not_null(p);
	cr_expect(all_zero(p, 16000));
	p[15999] = 1;
	huge_table__free(p, 1000, 16);
}

Test(huge_table, big_tables_are_aligned_zeroed_and_whole)
{
	/* 4 MiB, and 3 MiB + 5 bytes (its last huge page only partly used) */
	static const size_t N[] = {(size_t)4 << 20, ((size_t)3 << 20) + 5};

	for (size_t i = 0; i < sizeof(N) / sizeof(N[0]); i++) {
		unsigned char *p = huge_table__alloc(N[i], 1);

		cr_assert_not_null(p, "%zu bytes", N[i]);
		cr_expect_eq((uintptr_t)p % ((uintptr_t)2 << 20), 0, "%p not 2 MiB-aligned",
			     (void *)p);
		cr_expect(all_zero(p, N[i]));
		p[0] = p[N[i] - 1] = 0xff; /* writable to its last byte */
		huge_table__free(p, N[i], 1);
	}
}

Test(huge_table, an_overflowing_size_is_refused)
{
	errno = 0;
	cr_expect_null(huge_table__alloc(SIZE_MAX / 2, 4));
	cr_expect_eq(errno, ENOMEM);
	errno = 0;
	cr_expect_null(huge_table__alloc(SIZE_MAX - 4096, 1)); /* fits size_t, not the rounding */
	cr_expect_eq(errno, ENOMEM);
	huge_table__free(NULL, 10, 10); /* ignored */
}

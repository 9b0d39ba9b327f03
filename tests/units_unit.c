// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for user/util/units.c (the one byte formatter and the one size parser) and
 * user/util/clock.h (the one monotonic clock).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "units.h"

/* Human units: bytes below 1 KiB exactly, then two decimals of the largest binary unit that
 * keeps the rounded figure under 1024 (also where rounding would give "1024.00"). */
Test(units, bytes_human)
{
	static const struct {
		uint64_t v;
		const char *want;
	} cases[] = {
		{ 0, "0 B" },
		{ 512, "512 B" },
		{ 1023, "1023 B" },
		{ 1024, "1.00 KiB" },
		{ 1331, "1.30 KiB" }, /* the zero stays: columns line up on the point */
		{ 1536, "1.50 KiB" },
		{ 10168, "9.93 KiB" },
		{ 1048570, "1023.99 KiB" },
		{ 1048571, "1.00 MiB" }, /* 1023.995 KiB would print "1024.00 KiB" */
		{ 1048575, "1.00 MiB" }, /* 1023.999 KiB rounds up: the next unit */
		{ 1048576, "1.00 MiB" },
		{ 419603616, "400.17 MiB" },
		{ 1073741824, "1.00 GiB" },
		{ 1ull << 40, "1.00 TiB" },
		{ UINT64_MAX, "16.00 EiB" },
	};
	char buf[UNITS_BYTES_SZ];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_expect_str_eq(units__bytes(cases[i].v, false, buf, sizeof(buf)), cases[i].want,
				 "%llu", (unsigned long long)cases[i].v);
	}
}

/* --bytes: the integer whatever its size, every digit (no trip through a double). */
Test(units, bytes_exact)
{
	char buf[UNITS_BYTES_SZ];

	cr_expect_str_eq(units__bytes(0, true, buf, sizeof(buf)), "0 B");
	cr_expect_str_eq(units__bytes(1024, true, buf, sizeof(buf)), "1024 B");
	cr_expect_str_eq(units__bytes(1048575, true, buf, sizeof(buf)), "1048575 B");
	cr_expect_str_eq(units__bytes(UINT64_MAX, true, buf, sizeof(buf)),
			 "18446744073709551615 B");
	cr_expect_str_eq(units__bytes(UINT64_MAX - 1, false, buf, sizeof(buf)), "16.00 EiB");
}

/* An average: below 1 KiB rounded half to even like %.0f; 1023.5 B is already 1.00 KiB. */
Test(units, bytes_frac)
{
	char buf[UNITS_BYTES_SZ];

	cr_expect_str_eq(units__bytes_frac(2.5, buf, sizeof(buf)), "2 B");
	cr_expect_str_eq(units__bytes_frac(3.5, buf, sizeof(buf)), "4 B");
	cr_expect_str_eq(units__bytes_frac(1023.4, buf, sizeof(buf)), "1023 B");
	cr_expect_str_eq(units__bytes_frac(1023.5, buf, sizeof(buf)), "1.00 KiB");
	cr_expect_str_eq(units__bytes_frac(1536.0, buf, sizeof(buf)), "1.50 KiB");
}

/* A buffer too small truncates, terminated. */
Test(units, bytes_small_buffer)
{
	char buf[4];

	cr_expect_str_eq(units__bytes(1536, false, buf, sizeof(buf)), "1.5");
}

Test(units, scale)
{
	const char *name;

	cr_expect_eq(units__scale(0, &name), 1);
	cr_expect_str_eq(name, "B");
	cr_expect_eq(units__scale(1023, &name), 1);
	cr_expect_eq(units__scale(1024, &name), 1024);
	cr_expect_str_eq(name, "KiB");
	cr_expect_eq(units__scale(3ull << 20, &name), 1ull << 20);
	cr_expect_str_eq(name, "MiB");
	cr_expect_eq(units__scale(UINT64_MAX, &name), 1ull << 60);
	cr_expect_str_eq(name, "EiB");
}

Test(units, parse_size)
{
	static const struct {
		const char *s;
		uint64_t want;
	} ok[] = {
		{ "0", 0 },
		{ "00", 0 },
		{ "1", 1 },
		{ "4096", 4096 },
		{ "0B", 0 },
		{ "512b", 512 },
		{ "64K", 65536 },
		{ "64k", 65536 },
		{ "64KiB", 65536 },
		{ "64KB", 65536 }, /* K, KB and KiB alike: powers of 1024 */
		{ "64kb", 65536 },
		{ "64kib", 65536 },
		{ "512M", 512ull << 20 },
		{ "1MiB", 1ull << 20 },
		{ "1G", 1ull << 30 },
		{ "2GB", 2ull << 30 },
		{ "1.5M", 1572864 },
		{ "1.5K", 1536 },
		{ "0.5", 1 }, /* a fraction rounds to the nearest byte, half up */
		{ "1.4", 1 },
		{ "1.001K", 1025 },
		{ "18446744073709551615", UINT64_MAX },
		{ "17179869183G", 17179869183ull << 30 }, /* the largest whole G */
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t v = 42;

		cr_expect_eq(units__parse_size(ok[i].s, &v), 0, "'%s'", ok[i].s);
		cr_expect_eq(v, ok[i].want, "'%s': %llu", ok[i].s, (unsigned long long)v);
	}
}

Test(units, parse_size_refuses)
{
	static const struct {
		const char *s;
		int err;
	} bad[] = {
		{ "", -EINVAL },
		{ "K", -EINVAL },
		{ "B", -EINVAL },
		{ "-1", -EINVAL },
		{ "+1", -EINVAL },
		{ " 1", -EINVAL },
		{ "1 ", -EINVAL },
		{ "1 K", -EINVAL },
		{ ".5K", -EINVAL },
		{ "5.", -EINVAL },
		{ "5.K", -EINVAL },
		{ "1e3", -EINVAL },
		{ "0x10", -EINVAL },
		{ "4X", -EINVAL },
		{ "1XiB", -EINVAL },
		{ "1Ki", -EINVAL },
		{ "1KiBB", -EINVAL },
		{ "1T", -EINVAL },
		{ "1.2.3", -EINVAL },
		{ "inf", -EINVAL },
		{ "nan", -EINVAL },
		{ "18446744073709551616", -ERANGE },
		{ "99999999999999999999999", -ERANGE },
		{ "17179869184G", -ERANGE },
		{ "16777216T", -EINVAL }, /* a unit it does not know is garbage, not too large */
		{ "18446744073709551615.5", -ERANGE },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 42;

		cr_expect_eq(units__parse_size(bad[i].s, &v), bad[i].err, "'%s'", bad[i].s);
		cr_expect_eq(v, 42, "'%s': out untouched", bad[i].s);
	}
	cr_expect_eq(units__parse_size(NULL, NULL), -EINVAL);
	cr_expect(strstr(units__size_error(-EINVAL), "not a size"));
	cr_expect(strstr(units__size_error(-ERANGE), "too large"));
}

Test(clock, monotonic)
{
	uint64_t a = clock__mono_ns(), b = clock__mono_ns();
	struct timespec ts;

	cr_assert(a > 0 && b >= a);
	/* the clock BPF's bpf_ktime_get_ns() reads: CLOCK_MONOTONIC, not a private origin */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	cr_expect_geq((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec, b);
}

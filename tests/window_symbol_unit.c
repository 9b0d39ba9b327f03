// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests for user/trace/window_symbol.c: what --start-at/--stop-at accept. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "window_symbol.h"

Test(window_symbol, split_keeps_double_colons_in_names)
{
	static const struct {
		const char *spec, *path, *name;
	} cases[] = {
		{ "leak_some", "/exe", "leak_some" },
		{ "app::leak_some", "/exe", "app::leak_some" },
		{ "/lib/libx.so:f", "/lib/libx.so", "f" },
		{ "/lib/libx.so:ns::Cls::run", "/lib/libx.so", "ns::Cls::run" },
		{ "<app::T as core::ops::Drop>::drop", "/exe",
		  "<app::T as core::ops::Drop>::drop" },
	};
	char path[256];
	const char *name;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		window_symbol__split(cases[i].spec, "/exe", path, sizeof(path), &name);
		cr_expect_str_eq(path, cases[i].path, "%s", cases[i].spec);
		cr_expect_str_eq(name, cases[i].name, "%s", cases[i].spec);
	}
}

static void expect_resolves(const char *bin, const char *name, const char *want)
{
	char sym[512];
	int amb = -1, err = window_symbol__resolve(bin, name, sym, sizeof(sym), &amb);

	cr_assert_eq(err, 0, "%s in %s: %d", name, bin, err);
	cr_expect_str_eq(sym, want, "%s", name);
	cr_expect_eq(amb, 0, "%s", name);
}

Test(window_symbol, cxx_demangled_names)
{
	char sym[512];
	int amb, err;

	/* plain and mangled names as before, then demangled ones without and with parameters */
	expect_resolves(CXX_BIN, "main", "main");
	expect_resolves(CXX_BIN, "_Z11grow_vectori", "_Z11grow_vectori");
	expect_resolves(CXX_BIN, "grow_vector", "_Z11grow_vectori");
	expect_resolves(CXX_BIN, "grow_vector(int)", "_Z11grow_vectori");
	cr_expect_eq(window_symbol__resolve(CXX_BIN, "grow_vec", sym, sizeof(sym), &amb), -ENOENT);
	cr_expect_eq(window_symbol__resolve(CXX_BIN, "grow_vector(long)", sym, sizeof(sym), &amb),
		     -ENOENT);
	err = window_symbol__resolve(CXX_BIN ".no-such-file", "main", sym, sizeof(sym), &amb);
	cr_expect_eq(err, -ENOENT, "%d", err);
}

Test(window_symbol, rust_demangled_names)
{
#ifndef RS_BIN
	cr_skip_test("rustc not found at configure time");
#else
	char sym[512];
	int amb;

	cr_assert_eq(window_symbol__resolve(RS_BIN, "rs_sites::build", sym, sizeof(sym), &amb), 0);
	/* legacy mangling: _ZN8rs_sites5build17h<hash>E */
	cr_expect(!strncmp(sym, "_ZN8rs_sites5build17h", 21), "%s", sym);
	cr_expect_eq(window_symbol__resolve(RS_BIN, "rs_sites::bui", sym, sizeof(sym), &amb),
		     -ENOENT);
#endif
}

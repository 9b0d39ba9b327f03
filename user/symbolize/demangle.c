// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * demangle: linkage names -> readable names, for the symbolizer's frame strings.
 *
 * Order, as rustc-demangle decides it: Rust legacy first (a `_ZN...E` that parses as one and
 * ends there or in a "."-suffix), then Rust v0 (`_R...`), then C++ for any other `_Z`. A
 * plain C++ `_ZN3foo3barE` (a variable, never a function frame) prints the same either way.
 *
 * The Rust printers follow rustc-demangle 0.1.21 (src/legacy.rs, src/v0.rs) in its
 * alternate form; where it would print "{invalid syntax}", "?" or "{recursion limit
 * reached}" into the name, this module answers "cannot" and the raw name is shown instead.
 *
 * Bounds: input DEMANGLE_MAX_IN bytes of printable ASCII; output DEMANGLE_MAX_OUT bytes;
 * v0 recursion V0_MAX_DEPTH and V0_MAX_STEPS parse steps (backrefs can make a short name
 * print an exponentially long one, which the output bound then stops); C++ see
 * cxx_demangle(), cxx_pack_work_ok() and cxx_may_hang().
 */
#include "demangle.h"

#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/* Nesting of v0 paths, types, consts and backrefs (rustc-demangle allows 500). */
#define V0_MAX_DEPTH 256
/* v0 parse steps per name: backrefs re-read earlier parts, this bounds the work. */
#define V0_MAX_STEPS 65536
/* for<...> lifetimes one v0 binder may introduce. */
#define V0_MAX_BINDER 256

/* ---- output ------------------------------------------------------------------------- */

/* A bounded output buffer: a write that does not fit fails and marks it full. */
struct dm_buf {
	char *s;    /* DEMANGLE_MAX_OUT + 1 bytes, NUL-terminated */
	size_t len; /* bytes used */
	bool full;  /* a write did not fit */
};

static bool buf__putn(struct dm_buf *b, const char *s, size_t n)
{
	if (b->full || n > DEMANGLE_MAX_OUT - b->len) {
		b->full = true;
		return false;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return true;
}

static bool buf__puts(struct dm_buf *b, const char *s)
{
	return buf__putn(b, s, strlen(s));
}

static bool buf__putu64(struct dm_buf *b, uint64_t v)
{
	char tmp[24];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return buf__putn(b, tmp + i, sizeof(tmp) - i);
}

/* Code point cp as UTF-8 (the caller checked it is a valid scalar value). */
static bool buf__put_utf8(struct dm_buf *b, uint32_t cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		u[0] = (char)(0xF0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 0x3F));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3F));
		u[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	return buf__putn(b, u, n);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

static bool is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

/* Value of a hex digit (either case), -1 if c is none. */
static int hex_val(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* ---- Rust legacy: _ZN <len><ident>... E --------------------------------------------- */

/*
 * The hash element rustc appends ("h" and hex digits). rustc-demangle's is_rust_hash
 * accepts any length and either case, so "_ZN3foo5h05afE" also prints "foo".
 */
static bool legacy__is_hash(const char *s, size_t n)
{
	if (!n || s[0] != 'h')
		return false;
	for (size_t i = 1; i < n; i++)
		if (hex_val(s[i]) < 0)
			return false;
	return true;
}

/*
 * One "$...$" escape (esc without the dollars, n bytes) to what it stands for. False for
 * an escape rustc-demangle does not know: the caller then prints the rest as it is.
 */
static bool legacy__unescape(struct dm_buf *b, const char *esc, size_t n)
{
	static const struct {
		const char *esc, *text;
	} named[] = {{"SP", "@"}, {"BP", "*"}, {"RF", "&"}, {"LT", "<"},
		     {"GT", ">"}, {"LP", "("}, {"RP", ")"}, {"C", ","}};
	uint32_t cp = 0;

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (strlen(named[i].esc) == n && !memcmp(esc, named[i].esc, n)) {
			buf__puts(b, named[i].text); /* a full buffer is seen by the caller */
			return true;
		}
	}
	/* $u<lowercase hex>$: a code point, unless it is a control character. */
	if (n < 2 || esc[0] != 'u')
		return false;
	for (size_t i = 1; i < n; i++) {
		int d = hex_val(esc[i]);

		if (d < 0 || (esc[i] >= 'A' && esc[i] <= 'F'))
			return false;
		cp = cp * 16 + (uint32_t)d;
		if (cp > 0x10FFFF)
			return false;
	}
	if ((cp >= 0xD800 && cp <= 0xDFFF) || cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
		return false;
	buf__put_utf8(b, cp);
	return true;
}

/* Print one path element: "_$" loses its "_", ".." is "::", escapes are decoded. */
static void legacy__element(struct dm_buf *b, const char *s, size_t n)
{
	const char *end = s + n;

	if (n >= 2 && s[0] == '_' && s[1] == '$')
		s++;
	while (s < end) {
		if (*s == '.') {
			bool pair = s + 1 < end && s[1] == '.';

			buf__puts(b, pair ? "::" : ".");
			s += pair ? 2 : 1;
		} else if (*s == '$') {
			const char *close = memchr(s + 1, '$', (size_t)(end - s - 1));

			if (!close || !legacy__unescape(b, s + 1, (size_t)(close - s - 1)))
				break; /* unknown escape: the rest is printed raw */
			s = close + 1;
		} else {
			size_t run = strcspn(s, "$.");

			if (run > (size_t)(end - s))
				run = (size_t)(end - s);
			buf__putn(b, s, run);
			s += run;
		}
	}
	buf__putn(b, s, (size_t)(end - s));
}

/*
 * _ZN <decimal length><bytes> ... E [suffix]: print the elements joined by "::", dropping a
 * final hash element. *suffix is set to what follows the E. False if it is not one.
 */
static bool rust_legacy(struct dm_buf *b, const char *sym, size_t n, const char **suffix)
{
	const char *p = sym + 3, *end = sym + n, *first;
	size_t elements = 0, k;

	if (n <= 3 || memcmp(sym, "_ZN", 3))
		return false;
	for (first = p; p < end && *p != 'E'; elements++) {
		size_t len = 0;

		if (!is_digit(*p))
			return false;
		while (p < end && is_digit(*p)) {
			len = len * 10 + (size_t)(*p++ - '0');
			if (len > DEMANGLE_MAX_IN)
				return false;
		}
		if (len >= (size_t)(end - p))
			return false; /* the E must still follow */
		p += len;
	}
	if (p >= end)
		return false;
	*suffix = p + 1;
	for (p = first, k = 0; k < elements; k++) {
		size_t len = 0;

		while (is_digit(*p))
			len = len * 10 + (size_t)(*p++ - '0');
		if (k + 1 == elements && legacy__is_hash(p, len))
			break;
		if (k)
			buf__puts(b, "::");
		legacy__element(b, p, len);
		p += len;
	}
	return true;
}

/* ---- Rust v0: _R <path> [<instantiating-crate>] [suffix] -------------------------------- */

/* Parser and printer state over the mangling after "_R". */
struct v0 {
	const char *sym;   /* the mangling after "_R" */
	size_t len;	   /* its length (".llvm." suffix already cut) */
	size_t pos;	   /* next byte to parse */
	unsigned depth;	   /* nesting of paths, types, consts, backrefs */
	unsigned steps;	   /* parse steps so far */
	uint64_t bound_lt; /* lifetimes bound by the for<...> binders around (printing only) */
	bool skip;	   /* only parsing: nothing printed, backrefs not followed */
	struct dm_buf *out;
};

static bool v0_path(struct v0 *p, bool in_value);
static bool v0_type(struct v0 *p);
static bool v0_const(struct v0 *p, bool in_value);

static char v0__peek(const struct v0 *p)
{
	return p->pos < p->len ? p->sym[p->pos] : '\0';
}

static bool v0__eat(struct v0 *p, char c)
{
	if (v0__peek(p) != c || !c)
		return false;
	p->pos++;
	return true;
}

static bool v0__next(struct v0 *p, char *c)
{
	if (p->pos >= p->len)
		return false;
	*c = p->sym[p->pos++];
	return true;
}

static bool v0__print(struct v0 *p, const char *s)
{
	return p->skip || buf__puts(p->out, s);
}

static bool v0__printn(struct v0 *p, const char *s, size_t n)
{
	return p->skip || buf__putn(p->out, s, n);
}

static bool v0__print_u64(struct v0 *p, uint64_t v)
{
	return p->skip || buf__putu64(p->out, v);
}

/* One level deeper; false past the depth or work bound. Paired with v0__leave. */
static bool v0__enter(struct v0 *p)
{
	return ++p->depth <= V0_MAX_DEPTH && ++p->steps <= V0_MAX_STEPS;
}

static void v0__leave(struct v0 *p)
{
	p->depth--;
}

/* <base-62-number> = {<0-9a-zA-Z>} "_": "_" is 0, "0_" is 1, ... */
static bool v0__int62(struct v0 *p, uint64_t *v)
{
	uint64_t x = 0;
	char c;

	if (v0__eat(p, '_')) {
		*v = 0;
		return true;
	}
	while (!v0__eat(p, '_')) {
		int d;

		if (!v0__next(p, &c))
			return false;
		if (is_digit(c))
			d = c - '0';
		else if (is_lower(c))
			d = 10 + c - 'a';
		else if (is_upper(c))
			d = 36 + c - 'A';
		else
			return false;
		if (x > (UINT64_MAX - (uint64_t)d) / 62)
			return false;
		x = x * 62 + (uint64_t)d;
	}
	if (x == UINT64_MAX)
		return false;
	*v = x + 1;
	return true;
}

/* [<tag> <base-62-number>]: 0 when absent, else the number + 1. */
static bool v0__opt_int62(struct v0 *p, char tag, uint64_t *v)
{
	if (!v0__eat(p, tag)) {
		*v = 0;
		return true;
	}
	if (!v0__int62(p, v) || *v == UINT64_MAX)
		return false;
	(*v)++;
	return true;
}

/*
 * <identifier> = [<disambiguator>] <undisambiguated-identifier>, the latter
 * ["u"] <decimal> ["_"] <bytes>. Punycode ("u") is not supported: "cannot".
 */
static bool v0__ident(struct v0 *p, const char **s, size_t *n)
{
	size_t len;
	char c;

	if (v0__peek(p) == 'u' || !v0__next(p, &c) || !is_digit(c))
		return false;
	len = (size_t)(c - '0');
	while (len && is_digit(v0__peek(p))) {
		len = len * 10 + (size_t)(p->sym[p->pos++] - '0');
		if (len > DEMANGLE_MAX_IN)
			return false;
	}
	v0__eat(p, '_');
	if (len > p->len - p->pos)
		return false;
	*s = p->sym + p->pos;
	*n = len;
	p->pos += len;
	return true;
}

/* {<hex-digit>} "_", lowercase: the nibbles in *s, *n. */
static bool v0__hex(struct v0 *p, const char **s, size_t *n)
{
	size_t start = p->pos;
	char c;

	for (;;) {
		if (!v0__next(p, &c))
			return false;
		if (c == '_')
			break;
		if (!is_digit(c) && !(c >= 'a' && c <= 'f'))
			return false;
	}
	*s = p->sym + start;
	*n = p->pos - 1 - start;
	return true;
}

/* Hex nibbles as a u64 (leading zeros ignored); false if they do not fit. */
static bool hex__u64(const char *s, size_t n, uint64_t *v)
{
	while (n && *s == '0')
		s++, n--;
	if (n > 16)
		return false;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v = *v << 4 | (uint64_t)hex_val(s[i]);
	return true;
}

/*
 * <backref> = "B" <base-62-number>, the B already eaten: the position of an earlier part
 * to print again. Returns 1 after jumping there (*saved: where to come back), 0 when only
 * parsing (nothing to print), -1 on error. Only backwards, so it cannot loop.
 */
static int v0__backref_enter(struct v0 *p, size_t *saved)
{
	size_t at = p->pos - 1;
	uint64_t i;

	if (!v0__int62(p, &i) || i >= at)
		return -1;
	if (p->skip)
		return 0;
	if (!v0__enter(p))
		return -1;
	*saved = p->pos;
	p->pos = (size_t)i;
	return 1;
}

static void v0__backref_leave(struct v0 *p, size_t saved)
{
	p->pos = saved;
	v0__leave(p);
}

/* 'a'.. for bound lifetimes (innermost binder last), '_' for 0 (erased). */
static bool v0_lifetime(struct v0 *p, uint64_t lt)
{
	uint64_t depth;

	if (p->skip)
		return true; /* bound lifetimes are only tracked while printing */
	if (!v0__print(p, "'"))
		return false;
	if (!lt)
		return v0__print(p, "_");
	if (lt > p->bound_lt)
		return false;
	depth = p->bound_lt - lt;
	if (depth < 26) {
		char c = (char)('a' + depth);

		return v0__printn(p, &c, 1);
	}
	return v0__print(p, "_") && v0__print_u64(p, depth);
}

/* Print a list of items until "E", with sep between; *cnt: items printed. */
static bool v0__list(struct v0 *p, bool (*item)(struct v0 *), const char *sep, size_t *cnt)
{
	size_t i = 0;

	while (!v0__eat(p, 'E')) {
		if ((i && !v0__print(p, sep)) || !item(p))
			return false;
		i++;
	}
	if (cnt)
		*cnt = i;
	return true;
}

/* <generic-arg> = <lifetime> | <type> | "K" <const> */
static bool v0_generic_arg(struct v0 *p)
{
	uint64_t lt;

	if (v0__eat(p, 'L'))
		return v0__int62(p, &lt) && v0_lifetime(p, lt);
	if (v0__eat(p, 'K'))
		return v0_const(p, false);
	return v0_type(p);
}

static bool v0_type_item(struct v0 *p)
{
	return v0_type(p);
}

/* "C" [<disambiguator>] <identifier>: a crate root, printed without its disambiguator. */
static bool v0_crate_root(struct v0 *p)
{
	const char *s;
	uint64_t dis;
	size_t n;

	return v0__opt_int62(p, 's', &dis) && v0__ident(p, &s, &n) && v0__printn(p, s, n);
}

/*
 * "N" <namespace> <path> <identifier>: path::ident, or path::{closure#N} and the like for
 * the special (uppercase) namespaces; a lowercase namespace with no name adds nothing.
 */
static bool v0_nested(struct v0 *p, bool in_value)
{
	const char *s;
	uint64_t dis;
	size_t n;
	char ns;

	if (!v0__next(p, &ns) || !(is_upper(ns) || is_lower(ns)) || !v0_path(p, in_value) ||
	    !v0__opt_int62(p, 's', &dis) || !v0__ident(p, &s, &n))
		return false;
	if (is_lower(ns))
		return !n || (v0__print(p, "::") && v0__printn(p, s, n));
	if (!v0__print(p, "::{"))
		return false;
	if (!v0__print(p, ns == 'C'   ? "closure"
			  : ns == 'S' ? "shim"
				      : "") ||
	    (ns != 'C' && ns != 'S' && !v0__printn(p, &ns, 1)))
		return false;
	if (n && (!v0__print(p, ":") || !v0__printn(p, s, n)))
		return false;
	return v0__print(p, "#") && v0__print_u64(p, dis) && v0__print(p, "}");
}

/*
 * "M" <impl-path> <type>: <T>;  "X" <impl-path> <type> <path>: <T as Trait>;
 * "Y" <type> <path>: <T as Trait>. The impl-path is parsed, never printed.
 */
static bool v0_impl(struct v0 *p, char tag)
{
	if (tag != 'Y') {
		bool skip = p->skip, ok;
		uint64_t dis;

		if (!v0__opt_int62(p, 's', &dis))
			return false;
		p->skip = true;
		ok = v0_path(p, false);
		p->skip = skip;
		if (!ok)
			return false;
	}
	if (!v0__print(p, "<") || !v0_type(p))
		return false;
	if (tag != 'M' && (!v0__print(p, " as ") || !v0_path(p, false)))
		return false;
	return v0__print(p, ">");
}

/* <path> = "C" | "N" | "M" | "X" | "Y" | "I" <path> {<generic-arg>} "E" | <backref> */
static bool v0_path(struct v0 *p, bool in_value)
{
	size_t saved;
	bool ok = false;
	char tag;
	int r;

	if (!v0__enter(p) || !v0__next(p, &tag))
		return false;
	switch (tag) {
	case 'C':
		ok = v0_crate_root(p);
		break;
	case 'N':
		ok = v0_nested(p, in_value);
		break;
	case 'M':
	case 'X':
	case 'Y':
		ok = v0_impl(p, tag);
		break;
	case 'I':
		/* A value path says foo::<T>, a type Foo<T>. */
		ok = v0_path(p, in_value) && (!in_value || v0__print(p, "::")) &&
		     v0__print(p, "<") && v0__list(p, v0_generic_arg, ", ", NULL) &&
		     v0__print(p, ">");
		break;
	case 'B':
		r = v0__backref_enter(p, &saved);
		ok = r == 0;
		if (r > 0) {
			ok = v0_path(p, in_value);
			v0__backref_leave(p, saved);
		}
		break;
	}
	v0__leave(p);
	return ok;
}

/* The basic type of a lowercase tag, NULL if it is none. */
static const char *v0__basic_type(char tag)
{
	static const char *const types[26] = {
	    ['a' - 'a'] = "i8",	  ['b' - 'a'] = "bool",	 ['c' - 'a'] = "char",
	    ['d' - 'a'] = "f64",  ['e' - 'a'] = "str",	 ['f' - 'a'] = "f32",
	    ['h' - 'a'] = "u8",	  ['i' - 'a'] = "isize", ['j' - 'a'] = "usize",
	    ['l' - 'a'] = "i32",  ['m' - 'a'] = "u32",	 ['n' - 'a'] = "i128",
	    ['o' - 'a'] = "u128", ['p' - 'a'] = "_",	 ['s' - 'a'] = "i16",
	    ['t' - 'a'] = "u16",  ['u' - 'a'] = "()",	 ['v' - 'a'] = "...",
	    ['x' - 'a'] = "i64",  ['y' - 'a'] = "u64",	 ['z' - 'a'] = "!"};

	return is_lower(tag) ? types[tag - 'a'] : NULL;
}

/* [<binder>] = ["G" <base-62-number>]: print "for<'a, 'b> " and bind them for the body. */
static bool v0__binder_enter(struct v0 *p, uint64_t *bound)
{
	if (!v0__opt_int62(p, 'G', bound) || *bound > V0_MAX_BINDER)
		return false;
	if (p->skip || !*bound)
		return true;
	if (!v0__print(p, "for<"))
		return false;
	for (uint64_t i = 0; i < *bound; i++) {
		p->bound_lt++;
		if ((i && !v0__print(p, ", ")) || !v0_lifetime(p, 1))
			return false;
	}
	return v0__print(p, "> ");
}

static void v0__binder_leave(struct v0 *p, uint64_t bound)
{
	if (!p->skip)
		p->bound_lt -= bound;
}

/* <fn-sig> = [<binder>] ["U"] ["K" <abi>] {<type>} "E" <type> */
static bool v0_fn_sig(struct v0 *p)
{
	const char *abi = NULL;
	size_t abi_len = 0;
	uint64_t bound;
	bool is_unsafe, ok;

	if (!v0__binder_enter(p, &bound))
		return false;
	is_unsafe = v0__eat(p, 'U');
	if (v0__eat(p, 'K')) {
		if (v0__eat(p, 'C')) {
			abi = "C";
			abi_len = 1;
		} else if (!v0__ident(p, &abi, &abi_len) || !abi_len) {
			return false;
		}
	}
	ok = !is_unsafe || v0__print(p, "unsafe ");
	if (ok && abi) {
		/* rustc wrote the ABI's '-' as '_'. */
		ok = v0__print(p, "extern \"");
		for (size_t i = 0; ok && i < abi_len; i++)
			ok = v0__printn(p, abi[i] == '_' ? "-" : &abi[i], 1);
		ok = ok && v0__print(p, "\" ");
	}
	ok =
	    ok && v0__print(p, "fn(") && v0__list(p, v0_type_item, ", ", NULL) && v0__print(p, ")");
	if (ok && !v0__eat(p, 'u'))
		ok = v0__print(p, " -> ") && v0_type(p);
	v0__binder_leave(p, bound);
	return ok;
}

/*
 * The trait path of a dyn bound; with generic args, the "<...>" is left open (*open) so the
 * associated type bindings that follow go inside it.
 */
static bool v0_dyn_trait_path(struct v0 *p, bool *open)
{
	size_t saved;
	bool ok;
	int r;

	*open = false;
	if (v0__eat(p, 'B')) {
		r = v0__backref_enter(p, &saved);
		if (r <= 0)
			return r == 0;
		ok = v0__enter(p) && v0_dyn_trait_path(p, open);
		v0__leave(p);
		v0__backref_leave(p, saved);
		return ok;
	}
	if (v0__eat(p, 'I')) {
		*open = true;
		return v0_path(p, false) && v0__print(p, "<") &&
		       v0__list(p, v0_generic_arg, ", ", NULL);
	}
	return v0_path(p, false);
}

/* <dyn-trait> = <path> {"p" <undisambiguated-identifier> <type>} */
static bool v0_dyn_trait(struct v0 *p)
{
	const char *s;
	size_t n;
	bool open;

	if (!v0_dyn_trait_path(p, &open))
		return false;
	while (v0__eat(p, 'p')) {
		if (!v0__print(p, open ? ", " : "<"))
			return false;
		open = true;
		if (!v0__ident(p, &s, &n) || !v0__printn(p, s, n) || !v0__print(p, " = ") ||
		    !v0_type(p))
			return false;
	}
	return !open || v0__print(p, ">");
}

/* "D" <dyn-bounds> <lifetime>, the D eaten: dyn A + B [+ 'a]. */
static bool v0_dyn(struct v0 *p)
{
	uint64_t bound, lt;
	bool ok;

	if (!v0__print(p, "dyn ") || !v0__binder_enter(p, &bound))
		return false;
	ok = v0__list(p, v0_dyn_trait, " + ", NULL);
	v0__binder_leave(p, bound);
	if (!ok || !v0__eat(p, 'L') || !v0__int62(p, &lt))
		return false;
	return !lt || (v0__print(p, " + ") && v0_lifetime(p, lt));
}

/* "R"/"Q" [<lifetime>] <type>, the tag eaten: & or &mut, with a named lifetime if any. */
static bool v0_ref(struct v0 *p, char tag)
{
	uint64_t lt = 0;

	if (!v0__print(p, "&"))
		return false;
	if (v0__eat(p, 'L') && !v0__int62(p, &lt))
		return false;
	if (lt && (!v0_lifetime(p, lt) || !v0__print(p, " ")))
		return false;
	return (tag == 'R' || v0__print(p, "mut ")) && v0_type(p);
}

/*
 * <type> = <basic-type> | <path> | "A" <type> <const> | "S" <type> | "R"/"Q" .. | "P"/"O"
 * <type> | "F" <fn-sig> | "D" <dyn-bounds> <lifetime> | "T" {<type>} "E" | <backref>
 */
static bool v0_type(struct v0 *p)
{
	const char *basic;
	size_t saved, cnt;
	bool ok = false;
	char tag;
	int r;

	if (!v0__next(p, &tag))
		return false;
	basic = v0__basic_type(tag);
	if (basic)
		return v0__print(p, basic);
	if (!v0__enter(p))
		return false;
	switch (tag) {
	case 'R':
	case 'Q':
		ok = v0_ref(p, tag);
		break;
	case 'P':
	case 'O':
		ok = v0__print(p, tag == 'P' ? "*const " : "*mut ") && v0_type(p);
		break;
	case 'A':
	case 'S':
		ok = v0__print(p, "[") && v0_type(p) &&
		     (tag == 'S' || (v0__print(p, "; ") && v0_const(p, true))) && v0__print(p, "]");
		break;
	case 'T':
		/* A one-element tuple keeps its comma: (T,). */
		ok = v0__print(p, "(") && v0__list(p, v0_type_item, ", ", &cnt) &&
		     (cnt != 1 || v0__print(p, ",")) && v0__print(p, ")");
		break;
	case 'F':
		ok = v0_fn_sig(p);
		break;
	case 'D':
		ok = v0_dyn(p);
		break;
	case 'B':
		r = v0__backref_enter(p, &saved);
		ok = r == 0;
		if (r > 0) {
			ok = v0_type(p);
			v0__backref_leave(p, saved);
		}
		break;
	default:
		/* Any other tag starts a path (a named type). */
		p->pos--;
		ok = v0_path(p, false);
		break;
	}
	v0__leave(p);
	return ok;
}

/* ASCII c as Rust's char::escape_debug writes it inside quote ('\'' or '"'). */
static bool v0__escaped_char(struct v0 *p, char c, char quote)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[8] = "\\u{";
	size_t n = 3;

	switch (c) {
	case '\0':
		return v0__print(p, "\\0");
	case '\t':
		return v0__print(p, "\\t");
	case '\r':
		return v0__print(p, "\\r");
	case '\n':
		return v0__print(p, "\\n");
	case '\\':
		return v0__print(p, "\\\\");
	case '\'':
	case '"':
		/* The other kind of quote needs no backslash. */
		return c == quote ? v0__print(p, c == '"' ? "\\\"" : "\\'") : v0__printn(p, &c, 1);
	}
	if (c >= 0x20 && c < 0x7F)
		return v0__printn(p, &c, 1);
	/* Other control characters: \u{1b}, \u{7f}. */
	if (c >= 0x10)
		tmp[n++] = hex[c >> 4];
	tmp[n++] = hex[c & 0xF];
	tmp[n++] = '}';
	return v0__printn(p, tmp, n);
}

/* A str constant's hex-encoded bytes as "..."; only ASCII is supported. */
static bool v0_const_str(struct v0 *p)
{
	const char *s;
	size_t n;
	bool ok;

	if (!v0__hex(p, &s, &n) || n % 2)
		return false;
	ok = v0__print(p, "\"");
	for (size_t i = 0; ok && i < n; i += 2) {
		int byte = hex_val(s[i]) << 4 | hex_val(s[i + 1]);

		ok = byte < 0x80 && v0__escaped_char(p, (char)byte, '"');
	}
	return ok && v0__print(p, "\"");
}

/* An integer constant's hex value in decimal (0x... past u64); no type suffix. */
static bool v0_const_uint(struct v0 *p)
{
	const char *s;
	uint64_t v;
	size_t n;

	if (!v0__hex(p, &s, &n))
		return false;
	if (hex__u64(s, n, &v))
		return v0__print_u64(p, v);
	return v0__print(p, "0x") && v0__printn(p, s, n);
}

/* A bool or ASCII char constant. */
static bool v0_const_bool_char(struct v0 *p, char tag)
{
	const char *s;
	uint64_t v;
	size_t n;

	if (!v0__hex(p, &s, &n) || !hex__u64(s, n, &v))
		return false;
	if (tag == 'b')
		return v <= 1 && v0__print(p, v ? "true" : "false");
	return v < 0x80 && v0__print(p, "'") && v0__escaped_char(p, (char)v, '\'') &&
	       v0__print(p, "'");
}

static bool v0_const_item(struct v0 *p)
{
	return v0_const(p, true);
}

/* A struct constant's field: [<disambiguator>] <identifier> <const> as "name: value". */
static bool v0_const_field(struct v0 *p)
{
	const char *s;
	uint64_t dis;
	size_t n;

	return v0__opt_int62(p, 's', &dis) && v0__ident(p, &s, &n) && v0__printn(p, s, n) &&
	       v0__print(p, ": ") && v0_const(p, true);
}

/* "V" <path> ("U" | "T" {<const>} "E" | "S" {<field>} "E"), the V eaten: an ADT value. */
static bool v0_const_adt(struct v0 *p)
{
	char kind;

	if (!v0_path(p, true) || !v0__next(p, &kind))
		return false;
	if (kind == 'U')
		return true;
	if (kind == 'T')
		return v0__print(p, "(") && v0__list(p, v0_const_item, ", ", NULL) &&
		       v0__print(p, ")");
	if (kind == 'S')
		return v0__print(p, " { ") && v0__list(p, v0_const_field, ", ", NULL) &&
		       v0__print(p, " }");
	return false;
}

/* The body of a const of tag (see v0_const). */
static bool v0_const_body(struct v0 *p, char tag)
{
	size_t cnt;

	switch (tag) {
	case 'e':
		/* A str value: *"..." (the literal itself would be a &str). */
		return v0__print(p, "*") && v0_const_str(p);
	case 'R':
	case 'Q':
		if (tag == 'R' && v0__eat(p, 'e'))
			return v0_const_str(p);
		return v0__print(p, tag == 'R' ? "&" : "&mut ") && v0_const(p, true);
	case 'A':
		return v0__print(p, "[") && v0__list(p, v0_const_item, ", ", NULL) &&
		       v0__print(p, "]");
	case 'T':
		return v0__print(p, "(") && v0__list(p, v0_const_item, ", ", &cnt) &&
		       (cnt != 1 || v0__print(p, ",")) && v0__print(p, ")");
	case 'V':
		return v0_const_adt(p);
	}
	return false;
}

/*
 * <const> = <type-tag> <const-data> | "p" | <backref>. Literals print bare; compound values
 * in a generic argument list are wrapped in {...} (in_value: already inside one).
 */
static bool v0_const(struct v0 *p, bool in_value)
{
	bool ok = false, braces;
	size_t saved;
	char tag;
	int r;

	if (!v0__next(p, &tag) || !v0__enter(p))
		return false;
	switch (tag) {
	case 'p':
		ok = v0__print(p, "_");
		break;
	case 'h':
	case 't':
	case 'm':
	case 'y':
	case 'o':
	case 'j':
		ok = v0_const_uint(p);
		break;
	case 'a':
	case 's':
	case 'l':
	case 'x':
	case 'n':
	case 'i':
		ok = (!v0__eat(p, 'n') || v0__print(p, "-")) && v0_const_uint(p);
		break;
	case 'b':
	case 'c':
		ok = v0_const_bool_char(p, tag);
		break;
	case 'B':
		r = v0__backref_enter(p, &saved);
		ok = r == 0;
		if (r > 0) {
			ok = v0_const(p, in_value);
			v0__backref_leave(p, saved);
		}
		break;
	default:
		/* "Re" is a plain string literal; other compound values need braces. */
		braces = !in_value && !(tag == 'R' && v0__peek(p) == 'e');
		ok = (!braces || v0__print(p, "{")) && v0_const_body(p, tag) &&
		     (!braces || v0__print(p, "}"));
		break;
	}
	v0__leave(p);
	return ok;
}

/*
 * _R <path> [<instantiating-crate>] [suffix]: first a parse-only pass over the whole
 * mangling (backrefs not followed), then the path printed as a value path.
 */
static bool rust_v0(struct dm_buf *b, const char *sym, size_t n, const char **suffix)
{
	struct v0 p = {.sym = sym + 2, .len = n - 2, .skip = true, .out = b};

	if (n <= 2 || memcmp(sym, "_R", 2) || !is_upper(sym[2]))
		return false;
	if (!v0_path(&p, false))
		return false;
	if (is_upper(v0__peek(&p)) && !v0_path(&p, false))
		return false;
	*suffix = p.sym + p.pos;
	p = (struct v0){.sym = sym + 2, .len = n - 2, .out = b};
	return v0_path(&p, true);
}

/* ---- the Rust front: rustc-demangle's demangle() ----------------------------------------- */

/* ThinLTO's ".llvm.<hex>" comes last and is dropped: the length of sym without it. */
static size_t rust__strip_llvm(const char *sym, size_t n)
{
	const char *at = strstr(sym, ".llvm.");

	if (!at)
		return n;
	for (const char *c = at + 6; *c; c++)
		if (!(is_digit(*c) || (*c >= 'A' && *c <= 'F') || *c == '@'))
			return n;
	return (size_t)(at - sym);
}

/* A suffix kept after the name: "." then printable ASCII without spaces. */
static bool rust__suffix_ok(const char *s, size_t n)
{
	if (!n)
		return true;
	if (s[0] != '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return false;
	return true;
}

/* Rust legacy or v0 into b (empty on failure). */
static bool rust_demangle(struct dm_buf *b, const char *sym)
{
	size_t n = rust__strip_llvm(sym, strlen(sym));
	const char *suffix = NULL;
	bool ok;

	ok = rust_legacy(b, sym, n, &suffix);
	if (!ok) {
		*b = (struct dm_buf){.s = b->s};
		ok = rust_v0(b, sym, n, &suffix);
	}
	ok = ok && !b->full && rust__suffix_ok(suffix, (size_t)(sym + n - suffix)) &&
	     buf__putn(b, suffix, (size_t)(sym + n - suffix));
	if (!ok)
		*b = (struct dm_buf){.s = b->s};
	return ok && b->len;
}

/* ---- C++ ------------------------------------------------------------------------------ */

/* Work bound for pack expansions (see cxx_pack_work). */
#define CXX_MAX_PACK_WORK (1u << 24)

/*
 * The output of libstdc++'s demangler is bounded exactly: it prints through a callback
 * (cxx_sink), which stops it with a longjmp at the first byte past DEMANGLE_MAX_OUT. What it
 * would print is never built whole, so a 150-byte name whose parts each name the previous
 * one twice (a gigabyte of text) costs DEMANGLE_MAX_OUT bytes of work, and heavy real names
 * (std::vector<std::string>::_M_realloc_insert<...>) print completely. Jumping out leaks
 * nothing: the callback variant keeps its components, substitution table and printing state
 * in arrays on its stack.
 *
 * Output bounds time where output is printed; a pack expansion of an empty pack prints
 * nothing, so nested expansions could still loop without output: each pack construct (Dp,
 * sizeof..., a fold) may repeat its pattern once per pack element (at most the name's
 * length), and names where that product passes CXX_MAX_PACK_WORK are not handed over.
 */
static bool cxx_pack_work_ok(const char *sym, size_t n)
{
	uint64_t work = n;

	for (size_t i = 0; i + 1 < n; i++) {
		char c = sym[i], d = sym[i + 1];

		if ((c == 'D' && d == 'p') || (c == 's' && (d == 'Z' || d == 'P')) ||
		    (c == 'f' && (d == 'l' || d == 'r' || d == 'L' || d == 'R')))
			work *= n;
		if (work > CXX_MAX_PACK_WORK)
			return false;
	}
	return true;
}

/* Past a <source-name> (decimal length, then that many bytes) at *p; false if it runs
 * past end (the demangler then fails at once). */
static bool cxx__skip_source_name(const char **p, const char *end)
{
	size_t len = 0;

	while (*p < end && is_digit(**p) && len <= DEMANGLE_MAX_IN)
		len = len * 10 + (size_t)(*(*p)++ - '0');
	if (!len || len > (size_t)(end - *p)) /* no name is empty */
		return false;
	*p += len;
	return true;
}

/* Past template args made only of names, template parameters, substitutions, builtin types
 * and P/R/O/K/V qualifiers, from after the I to after the E; NULL if anything else is in
 * them (the caller then assumes the worst). */
static const char *cxx__skip_simple_args(const char *p, const char *end)
{
	while (p < end && *p != 'E') {
		if (is_digit(*p)) {
			if (!cxx__skip_source_name(&p, end))
				return NULL;
		} else if (*p == 'T' || (*p == 'S' && !is_lower(p[1]))) {
			/* T_, T0_, S_, S1A_ */
			for (p++; p < end && (is_digit(*p) || is_upper(*p)); p++)
				;
			if (p >= end || *p++ != '_')
				return NULL;
		} else if (*p == 'S') {
			p += 2; /* St, Sa, Ss, ... */
		} else if ((is_lower(*p) && *p != 'u') || strchr("PROKV", *p)) {
			p++;
		} else {
			return NULL;
		}
	}
	return p < end ? p + 1 : NULL;
}

/*
 * Whether __cxa_demangle may never return for sym. libstdc++ 12's demangler (Debian 12's)
 * spins forever on an unresolved name in the new syntax ("sr" followed by a digit, a
 * lowercase letter, C, U or L) whose qualifier chain reaches a C, D or U that starts no
 * constructor, destructor, lambda or unnamed type: "_Z1fDTsr1aDxE", "_Z1fDTsrUxE" (found by
 * fuzzing; c++filt of binutils 2.40 returns at once). Every "sr" is checked: the chain's
 * source names, two-letter operators and simple template args are walked as the demangler
 * walks them, an E ends the chain safely, and past anything else (a name running past the
 * end or an empty one, or no E before the end) any C, D or U later in sym counts as a hang. An overcount: of libLLVM 14/15's and
 * libstdc++'s 73,021 demangled names, 11 (SFINAE helpers) stay mangled.
 */
static bool cxx_may_hang(const char *sym, size_t n)
{
	const char *end = sym + n;

	for (const char *at = strstr(sym, "sr"); at; at = strstr(at + 2, "sr")) {
		const char *p = at + 2;

		if (!(is_digit(*p) || is_lower(*p) || *p == 'C' || *p == 'U' || *p == 'L'))
			continue; /* the old syntax: a type follows */
		while (p && p < end && *p != 'E') {
			if (is_digit(*p)) {
				/* A length running past the end hangs it too:
				 * "_Z1fDTsr1aIiE44D*xE". */
				if (!cxx__skip_source_name(&p, end))
					p = NULL;
			} else if (is_lower(*p) && p + 1 < end && !(p[0] == 'c' && p[1] == 'v')) {
				/* An operator name, or not one (the demangler stops). */
				p += 2;
			} else if (*p == 'I') {
				p = cxx__skip_simple_args(p + 1, end);
			} else if (*p == 'C' || *p == 'D' || *p == 'U') {
				return true;
			} else {
				p = NULL;
			}
		}
		/* No chain-ending E (it ran out, or into something not walked): the worst. */
		if ((!p || p >= end) && strpbrk(at + 2, "CDU"))
			return true;
	}
	return false;
}

/* libstdc++'s demangler with a print callback (cp-demangle.c, in libstdc++.a): 0 when the
 * name demangled. Not in the shared library's exports; linked from the archive. */
extern int __gcclibcxx_demangle_callback(const char *mangled,
					 void (*callback)(const char *, size_t, void *),
					 void *opaque);

struct cxx_sink {
	struct dm_buf *b;
	jmp_buf full; /* where a write past DEMANGLE_MAX_OUT returns to */
};

static void cxx_sink(const char *s, size_t n, void *opaque)
{
	struct cxx_sink *k = opaque;

	if (!buf__putn(k->b, s, n))
		longjmp(k->full, 1);
}

/* C++ via libstdc++'s demangler into b, stopped at DEMANGLE_MAX_OUT bytes of output. */
static bool cxx_demangle(struct dm_buf *b, const char *sym)
{
	struct cxx_sink k = { .b = b };
	size_t n = strlen(sym);

	/* Only _Z names: the demangler would read "f" as the type float. */
	if (n <= 2 || memcmp(sym, "_Z", 2) || !cxx_pack_work_ok(sym, n) || cxx_may_hang(sym, n))
		return false;
	/* what a Rust attempt may have left */
	b->len = 0;
	b->full = false;
	b->s[0] = '\0';
	if (setjmp(k.full))
		return false; /* longer than DEMANGLE_MAX_OUT: "cannot" */
	return __gcclibcxx_demangle_callback(sym, cxx_sink, &k) == 0 && b->len && !b->full;
}

/* ---- the public entry ------------------------------------------------------------------- */

/* Could sym be a mangled name worth trying: bounded, printable ASCII, _Z or _R prefix. */
static bool demangle__candidate(const char *sym)
{
	size_t n;

	if (!sym || sym[0] != '_' || (sym[1] != 'Z' && sym[1] != 'R'))
		return false;
	for (n = 0; sym[n]; n++)
		if (n >= DEMANGLE_MAX_IN || sym[n] <= ' ' || sym[n] > '~')
			return false;
	return true;
}

char *demangle__name(const char *sym)
{
	struct dm_buf b = {0};
	int err = EINVAL;
	char *res = NULL;

	if (!demangle__candidate(sym))
		goto cleanup;
	b.s = malloc(DEMANGLE_MAX_OUT + 1);
	if (!b.s) {
		err = ENOMEM;
		goto cleanup;
	}
	b.s[0] = '\0';
	if (!rust_demangle(&b, sym) && !cxx_demangle(&b, sym))
		goto cleanup;
	res = strdup(b.s);
	if (!res)
		err = ENOMEM;
cleanup:
	free(b.s);
	if (!res)
		errno = err;
	return res;
}

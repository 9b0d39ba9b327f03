/* SPDX-License-Identifier: MIT */
/*
 * bi_test.c - `test EXPR` and `[[ EXPR ]]` (a statement form). Both share the operators;
 * `test` reads its operands by count (kaish's rules, bi_test), [[ ]] parses an expression
 * with && || ( ) grouping, glob matching for == / != and =~ regex matching.
 */
#include <fnmatch.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "bi_table.h"
#include "builtins.h"
#include "util.h"
#include "vfs.h"

const char bi_test_usage[] =
	"Usage: test EXPR    or    [[ EXPR ]]\n"
	"Evaluate a condition; exit 0 if true, 1 if false, 2 on a usage error.\n"
	"  -e/-f/-d/-s/-L PATH   exists / regular file / directory / non-empty / symlink\n"
	"  -z S, -n S            empty / non-empty string\n"
	"  A = B, A == B, A != B, A < B, A > B   string compare ([[ ]]: == and != glob-match)\n"
	"  A =~ RE               ([[ ]] only) extended regex match\n"
	"  -eq -ne -lt -le -gt -ge                numeric compare (floats too)\n"
	"  ! EXPR; in [[ ]] also EXPR && EXPR, EXPR || EXPR, ( EXPR ). test has no -a / -o / ( ):\n"
	"  chain tests with && and || (E020).\n";

struct tst {
	struct bi_ctx *c;
	char **v;
	int n;
	int i;
	bool dbl;
	int depth;
	bool error;
};

static int t_or(struct tst *t);

static bool t_fail(struct tst *t, const char *msg, const char *near)
{
	if (!t->error)
		bi_err(t->c, "%s%s%s", msg, near ? ": " : "", near ? near : "");
	t->error = true;
	return false;
}

static bool is_unary(const char *s)
{
	static const char *const ops[] = { "-e", "-f", "-d", "-s", "-L", "-h", "-z", "-n",
					   "-r", "-w", "-x", NULL };
	for (const char *const *o = ops; *o; o++)
		if (!strcmp(s, *o))
			return true;
	return false;
}

static bool is_binary(const char *s)
{
	static const char *const ops[] = { "=", "==", "!=", "<", ">", "=~", "-eq", "-ne",
					   "-lt", "-le", "-gt", "-ge", NULL };
	for (const char *const *o = ops; *o; o++)
		if (!strcmp(s, *o))
			return true;
	return false;
}

/* File tests go through the VFS: a path outside the sandbox simply tests false. */
static bool t_unary(struct tst *t, const char *op, const char *arg)
{
	if (!strcmp(op, "-z"))
		return !*arg;
	if (!strcmp(op, "-n"))
		return *arg;
	struct stat st;
	bool link = !strcmp(op, "-L") || !strcmp(op, "-h");
	if (vfs_stat(t->c->k, arg, &st, !link) < 0)
		return false;
	switch (op[1]) {
	case 'e': return true;
	case 'f': return S_ISREG(st.st_mode);
	case 'd': return S_ISDIR(st.st_mode);
	case 's': return st.st_size > 0;
	case 'L':
	case 'h': return S_ISLNK(st.st_mode);
	case 'r': return st.st_mode & 0444;
	case 'w': return st.st_mode & 0222;
	case 'x': return st.st_mode & 0111;
	}
	return false;
}

/* Numbers are kaish's: integers or floats ("1.5", "08" is decimal 8). */
static bool t_num(struct tst *t, const char *s, double *v)
{
	char *end;
	if (!s || !*s)
		return t_fail(t, "integer expression expected", s);
	*v = strtod(s, &end);
	if (*end || end == s || s[0] == ' ' || s[0] == '\t' || !strpbrk(s, "0123456789"))
		return t_fail(t, "integer expression expected", s);
	return true;
}

/* In [[ ]], == and != glob-match the right side; in test they compare strings. */
static bool t_binary(struct tst *t, const char *a, const char *op, const char *b)
{
	if (!strcmp(op, "=") || !strcmp(op, "==") || !strcmp(op, "!=")) {
		bool eq = t->dbl ? fnmatch(b, a, 0) == 0 : !strcmp(a, b);
		return op[0] == '!' ? !eq : eq;
	}
	if (!strcmp(op, "<"))
		return strcmp(a, b) < 0;
	if (!strcmp(op, ">"))
		return strcmp(a, b) > 0;
	if (!strcmp(op, "=~")) {
		if (!t->dbl)
			return t_fail(t, "=~ is only valid in [[ ]]", NULL);
		regex_t re;
		char *msg = NULL;
		if (bi_regex_compile(&re, b, REG_EXTENDED | REG_NOSUB, &msg) < 0) {
			t_fail(t, msg ? msg : "invalid regex", NULL);
			free(msg);
			return false;
		}
		bool hit = regexec(&re, a, 0, NULL, 0) == 0;
		regfree(&re);
		return hit;
	}
	double x, y;
	if (!t_num(t, a, &x) || !t_num(t, b, &y))
		return false;
	if (!strcmp(op, "-eq")) return x == y;
	if (!strcmp(op, "-ne")) return x != y;
	if (!strcmp(op, "-lt")) return x < y;
	if (!strcmp(op, "-le")) return x <= y;
	if (!strcmp(op, "-gt")) return x > y;
	return x >= y;
}

/* primary := '(' or ')' | UNARY ARG | ARG BINARY ARG | ARG */
static int t_primary(struct tst *t)
{
	if (t->i >= t->n)
		return t_fail(t, "argument expected", NULL);
	const char *a = t->v[t->i];
	if (!strcmp(a, "(")) {
		t->i++;
		int r = t_or(t);
		if (t->i >= t->n || strcmp(t->v[t->i], ")"))
			return t_fail(t, "expected ')'", NULL);
		t->i++;
		return r;
	}
	if (t->i + 2 < t->n + 0 && is_binary(t->v[t->i + 1])) {
		t->i += 3;
		return t_binary(t, a, t->v[t->i - 2], t->v[t->i - 1]);
	}
	if (is_unary(a) && t->i + 1 < t->n) {
		t->i += 2;
		return t_unary(t, a, t->v[t->i - 1]);
	}
	t->i++;
	return *a != '\0';
}

/* not := '!' not | primary */
static int t_not(struct tst *t)
{
	if (++t->depth > 64)
		return t_fail(t, "expression too deep", NULL);
	int r;
	if (t->i < t->n && !strcmp(t->v[t->i], "!")) {
		t->i++;
		r = !t_not(t);
	} else {
		r = t_primary(t);
	}
	t->depth--;
	return r;
}

/* and := not ('&&' not)*   ([[ ]] only) */
static int t_and(struct tst *t)
{
	int r = t_not(t);
	while (t->i < t->n && (!strcmp(t->v[t->i], "&&"))) {
		t->i++;
		int r2 = t_not(t);
		r = r && r2;
	}
	return r;
}

/* or := and ('||' and)*   ([[ ]] only) */
static int t_or(struct tst *t)
{
	int r = t_and(t);
	while (t->i < t->n && (!strcmp(t->v[t->i], "||"))) {
		t->i++;
		int r2 = t_and(t);
		r = r || r2;
	}
	return r;
}

int bi_test_eval(struct bi_ctx *c, char **argv, int argc, bool dbl)
{
	struct tst t = { .c = c, .v = argv, .n = argc, .i = 0, .dbl = dbl };
	if (argc == 0)
		return 1;
	int r = t_or(&t);
	if (!t.error && t.i < t.n)
		t_fail(&t, "unexpected argument", t.v[t.i]);
	return t.error ? KAISH_EXIT_USAGE : (r ? 0 : 1);
}

static bool is_compound(const char *s)
{
	return !strcmp(s, "-a") || !strcmp(s, "-o") || !strcmp(s, "(") || !strcmp(s, ")");
}

static bool is_test_op(const char *s)
{
	return is_unary(s) || is_binary(s) || is_compound(s) || !strcmp(s, "!");
}

static const char compound_hint[] =
	"kaish `test` has no -a/-o/() compound: chain with shell `&&`/`||` or use `[[ ... ]]`";

/*
 * test := '!'* primary   -- kaish's `test` counts its operands instead of parsing: after the
 * leading '!' run (kept while an operand remains), 0 operands is false, 1 is a string's
 * truth, 2 is UNARY ARG, 3 is ARG BINARY ARG; an operator short of its operand, -a / -o /
 * ( ) and anything longer are usage errors (exit 2).
 */
int bi_test(struct bi_ctx *c, int argc, char **argv)
{
	struct tst t = { .c = c, .v = argv + 1, .n = argc - 1, .dbl = false };
	bool neg = false;
	while (t.n >= 2 && !strcmp(t.v[0], "!")) {
		neg = !neg;
		t.v++;
		t.n--;
	}
	bool r = false;
	if (t.n == 1) {
		if (is_test_op(t.v[0]))
			t_fail(&t, "operator needs an operand", t.v[0]);
		r = *t.v[0] != '\0';
	} else if (t.n == 2) {
		if (is_compound(t.v[0]))
			bi_err(c, "'%s' is not supported: %s", t.v[0], compound_hint), t.error = true;
		else if (!is_unary(t.v[0]) || !strcmp(t.v[0], "-L") || !strcmp(t.v[0], "-h") ||
			 !strcmp(t.v[0], "-s"))
			t_fail(&t, "expected a unary operator (-f, -z, ...) before the operand, found",
			       t.v[0]);
		else
			r = t_unary(&t, t.v[0], t.v[1]);
	} else if (t.n == 3) {
		if (is_compound(t.v[1]))
			bi_err(c, "'%s' is not supported: %s", t.v[1], compound_hint), t.error = true;
		else if (!is_binary(t.v[1]) || !strcmp(t.v[1], "=~"))
			t_fail(&t, "expected a binary operator (=, !=, -eq, ...) between the operands, "
				   "found", t.v[1]);
		else
			r = t_binary(&t, t.v[0], t.v[1], t.v[2]);
	} else if (t.n > 3) {
		bi_err(c, "too many arguments: %s", compound_hint);
		t.error = true;
	}
	return t.error ? KAISH_EXIT_USAGE : (neg ^ r) ? 0 : 1;
}

/* E020: an -a / -o / ( ) where `test` would read an operator is refused before anything runs
 * (the slots bi_test reads; a dynamic operand leaves the script to run time). */
int bi_test_check(int argc, char **argv, char **msg)
{
	char **v = argv + 1;
	int n = argc - 1;
	const char *op = NULL;
	for (int i = 0; i < n; i++)
		if (!v[i])
			return 0;
	while (n >= 2 && !strcmp(v[0], "!")) {
		v++;
		n--;
	}
	if (n == 2 && is_compound(v[0]))
		op = v[0];
	else if (n == 3 && is_compound(v[1]))
		op = v[1];
	for (int i = 0; n > 3 && !op && i < n; i++)
		if (is_compound(v[i]))
			op = v[i];
	if (!op)
		return 0;
	struct sbuf b;
	sb_init(&b);
	sb_printf(&b, "E020 test: '%s' is not supported: %s", op, compound_hint);
	*msg = sb_detach(&b);
	return -1;
}

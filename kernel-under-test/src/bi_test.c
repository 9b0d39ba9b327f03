/* SPDX-License-Identifier: MIT */
/*
 * bi_test.c - `test EXPR` and `[[ EXPR ]]` (a statement form sharing this evaluator).
 * [[ ]] adds && || ( ) grouping, glob matching for == / != and =~ regex matching.
 */
#include <fnmatch.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "bi_table.h"
#include "builtins.h"
#include "vfs.h"

const char bi_test_usage[] =
	"Usage: test EXPR    or    [[ EXPR ]]\n"
	"Evaluate a condition; exit 0 if true, 1 if false, 2 on a usage error.\n"
	"  -e/-f/-d/-s/-L PATH   exists / regular file / directory / non-empty / symlink\n"
	"  -z S, -n S            empty / non-empty string\n"
	"  A = B, A == B, A != B, A < B, A > B   string compare ([[ ]]: == and != glob-match)\n"
	"  A =~ RE               ([[ ]] only) extended regex match\n"
	"  -eq -ne -lt -le -gt -ge                integer compare\n"
	"  ! EXPR, EXPR && EXPR, EXPR || EXPR, ( EXPR )   (-a / -o in test)\n";

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

static bool t_int(struct tst *t, const char *s, long *v)
{
	if (!bi_parse_long(s, v))
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
	long x, y;
	if (!t_int(t, a, &x) || !t_int(t, b, &y))
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

/* and := not (('&&' | '-a') not)* */
static int t_and(struct tst *t)
{
	int r = t_not(t);
	while (t->i < t->n && (!strcmp(t->v[t->i], t->dbl ? "&&" : "-a"))) {
		t->i++;
		int r2 = t_not(t);
		r = r && r2;
	}
	return r;
}

/* or := and (('||' | '-o') and)* */
static int t_or(struct tst *t)
{
	int r = t_and(t);
	while (t->i < t->n && (!strcmp(t->v[t->i], t->dbl ? "||" : "-o"))) {
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

/* `test` is the same evaluator without [[ ]]'s extensions (-a/-o instead of && ||). */
int bi_test(struct bi_ctx *c, int argc, char **argv)
{
	return bi_test_eval(c, argv + 1, argc - 1, false);
}

/* SPDX-License-Identifier: MIT */
/*
 * bi_table.c - the builtin registry (a name-sorted table, binary-searched per dispatch as
 * kaish's schema catalog) and helpers shared by the builtins.
 */
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bi_table.h"
#include "builtins.h"
#include "exec.h"
#include "util.h"
#include "vfs.h"

/* Sorted by name (strcmp order): bi_lookup binary-searches it. */
static const struct builtin builtins[] = {
	{ "[[", bi_test, bi_test_usage, NULL },
	{ "cat", bi_cat, bi_cat_usage, NULL },
	{ "cd", bi_cd, bi_cd_usage, NULL },
	{ "cut", bi_cut, bi_cut_usage, NULL },
	{ "echo", bi_echo, bi_echo_usage, NULL },
	{ "export", bi_export, bi_export_usage, NULL },
	{ "gather", bi_gather, bi_gather_usage, NULL },
	{ "grep", bi_grep, bi_grep_usage, bi_grep_check },
	{ "head", bi_head, bi_head_usage, NULL },
	{ "ls", bi_ls, bi_ls_usage, NULL },
	{ "mkdir", bi_mkdir, bi_mkdir_usage, NULL },
	{ "pwd", bi_pwd, bi_pwd_usage, NULL },
	{ "rm", bi_rm, bi_rm_usage, NULL },
	{ "scatter", bi_scatter, bi_scatter_usage, NULL },
	{ "sed", bi_sed, bi_sed_usage, bi_sed_check },
	{ "seq", bi_seq, bi_seq_usage, bi_seq_check },
	{ "set", bi_set, bi_set_usage, NULL },
	{ "sort", bi_sort, bi_sort_usage, NULL },
	{ "tail", bi_tail, bi_tail_usage, NULL },
	{ "test", bi_test, bi_test_usage, bi_test_check },
	{ "touch", bi_touch, bi_touch_usage, NULL },
	{ "tr", bi_tr, bi_tr_usage, NULL },
	{ "uniq", bi_uniq, bi_uniq_usage, NULL },
	{ "unset", bi_unset, bi_unset_usage, NULL },
	{ "wc", bi_wc, bi_wc_usage, NULL },
};

const struct builtin *bi_lookup(const char *name)
{
	size_t lo = 0, hi = sizeof(builtins) / sizeof(builtins[0]);
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, builtins[mid].name);
		if (c == 0)
			return &builtins[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Resolved by the executor before functions and builtins, as kaish's special forms. */
bool bi_is_special(const char *name)
{
	static const char *const special[] = { "true", "false", ":", "break", "continue",
					       "return", "exit", "local", NULL };
	for (const char *const *s = special; *s; s++)
		if (!strcmp(name, *s))
			return true;
	return false;
}

void bi_err(struct bi_ctx *c, const char *fmt, ...)
{
	va_list ap;
	char msg[1024];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sb_printf(c->io->err, "%s: %s\n", c->name, msg);
}

bool bi_help(struct bi_ctx *c, int argc, char **argv, const char *usage)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--help")) {
			sb_adds(c->io->out, usage);
			return true;
		}
	}
	return false;
}

const char *bi_stdin(struct bi_ctx *c, size_t *len)
{
	*len = c->io->in ? c->io->in_len : 0;
	return c->io->in ? c->io->in : "";
}

int bi_read_input(struct bi_ctx *c, const char *path, char **buf, size_t *len)
{
	if (!strcmp(path, "-")) {
		const char *in = bi_stdin(c, len);
		*buf = kstrndup(in, *len);
		return *buf ? 0 : 1;
	}
	int e = vfs_read_all(c->k, path, buf, len);
	if (e < 0) {
		bi_err(c, "%s: %s", path, vfs_strerror(e));
		return vfs_exit_code(e);
	}
	return 0;
}

bool bi_parse_long(const char *s, long *v)
{
	char *end;
	if (!s || !*s)
		return false;
	errno = 0;
	*v = strtol(s, &end, 10);
	return !*end && errno == 0;
}

bool bi_bre_append(struct sbuf *b, const char *pat)
{
	bool rewrote = false;
	for (const char *p = pat; *p; p++) {
		if (*p == '\\' && p[1] && strchr("()|+?{}", p[1])) {
			sb_addc(b, p[1]);
			p++;
			rewrote = true;
		} else if (*p == '\\' && p[1]) {
			sb_addc(b, *p);
			sb_addc(b, *++p);
		} else {
			sb_addc(b, *p);
		}
	}
	return rewrote;
}

char *bi_bre_to_ere(const char *pat, bool *rewrote)
{
	struct sbuf b;
	sb_init(&b);
	bool r = bi_bre_append(&b, pat);
	if (rewrote)
		*rewrote = r;
	return sb_detach(&b);
}

void bi_dialect_hint(char **msg, const char *strict_flag)
{
	struct sbuf m;
	sb_init(&m);
	sb_printf(&m, "%s (GNU BRE dialect: a backslashed | + ? ( ) { } is an operator here; "
		      "match the character itself with a bracket class such as [)] or [|], "
		      "or use %s for strict ERE)", *msg, strict_flag);
	free(*msg);
	*msg = sb_detach(&m);
}

/*
 * glibc's regcomp copies a subexpression once per stacked quantifier and per {m,n} bound, so
 * "x++++..." or "((x{1,1000}){1,1000})" take gigabytes to compile (found by fuzzing: 2.9 GB
 * for a 164-byte sed script, in the validator). Refuse, up front: a quantifier applied to a
 * quantifier, and bounds whose product exceeds 100 000 (conservative: non-nested bounds
 * count too).
 */
static bool regex_too_complex(const char *p, bool ere)
{
	bool prev_quant = false;
	double product = 1;
	for (; *p; p++) {
		bool quant = false, bound = false;
		if (*p == '[') { /* a bracket expression: nothing in it is a quantifier */
			p++;
			if (*p == '^')
				p++;
			if (*p == ']')
				p++;
			while (*p && *p != ']')
				p++;
			if (!*p)
				return false; /* unbalanced: regcomp reports it */
			prev_quant = false;
			continue;
		}
		if (*p == '\\' && p[1]) {
			p++;
			quant = !ere && (*p == '+' || *p == '?' || *p == '{');
			bound = !ere && *p == '{';
		} else {
			quant = *p == '*' || (ere && (*p == '+' || *p == '?' || *p == '{'));
			bound = ere && *p == '{';
		}
		if (bound) {
			char *end;
			long lo = strtol(p + 1, &end, 10), hi = lo;
			if (*end == ',')
				hi = end[1] >= '0' && end[1] <= '9' ? strtol(end + 1, &end, 10) : lo + 1;
			product *= (double)(hi > lo ? hi : lo) + 1;
			while (*p && *p != '}')
				p++;
			if (!*p)
				return false;
		}
		if ((quant && prev_quant) || product > 100000)
			return true;
		prev_quant = quant;
	}
	return false;
}

/*
 * glibc's ERE takes a ')' with no open group as a literal; kaish's engine (and POSIX, which
 * leaves it undefined) refuse it, and a pattern like `:\)` after the GNU BRE rewrite must fail
 * loudly rather than match something else. True when an unescaped ')' outside a bracket
 * expression closes nothing.
 */
static bool ere_unmatched_close(const char *p)
{
	long depth = 0;
	for (; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '[') { /* skip a bracket expression, as regex_too_complex */
			p++;
			if (*p == '^')
				p++;
			if (*p == ']')
				p++;
			while (*p && *p != ']')
				p++;
			if (!*p)
				return false;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')' && --depth < 0) {
			return true;
		}
	}
	return false;
}

int bi_regex_compile(void *rep, const char *pat, int flags, char **msg)
{
	regex_t *re = rep;
	if (regex_too_complex(pat, flags & REG_EXTENDED)) {
		if (msg)
			*msg = strdup("regex too complex (stacked quantifiers or repetition bounds "
				      "over 100000)");
		return -1;
	}
	if ((flags & REG_EXTENDED) && ere_unmatched_close(pat)) {
		if (msg) {
			struct sbuf m;
			sb_init(&m);
			sb_printf(&m, "invalid regex '%s': Unmatched ) or \\)", pat);
			*msg = sb_detach(&m);
		}
		return -1;
	}
	/* Rust-regex spellings that POSIX lacks: \d and \D. */
	struct sbuf b;
	sb_init(&b);
	for (const char *p = pat; *p; p++) {
		if (*p == '\\' && p[1] == 'd') {
			sb_adds(&b, "[0-9]");
			p++;
		} else if (*p == '\\' && p[1] == 'D') {
			sb_adds(&b, "[^0-9]");
			p++;
		} else if (*p == '\\' && p[1]) {
			sb_addc(&b, *p);
			sb_addc(&b, *++p);
		} else {
			sb_addc(&b, *p);
		}
	}
	int rc = regcomp(re, sb_str(&b), flags);
	sb_free(&b);
	if (rc != 0) {
		char e[256];
		regerror(rc, re, e, sizeof(e));
		if (msg) {
			struct sbuf m;
			sb_init(&m);
			sb_printf(&m, "invalid regex '%s': %s", pat, e);
			*msg = sb_detach(&m);
		}
		return -1;
	}
	return 0;
}

int bi_flags(struct bi_ctx *c, int argc, char **argv, const char *letters, bool *set,
	     struct strv *ops)
{
	bool done = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!done && !strcmp(a, "--")) {
			done = true;
		} else if (!done && a[0] == '-' && a[1]) {
			for (const char *f = a + 1; *f; f++) {
				const char *p = strchr(letters, *f);
				if (!p) {
					bi_err(c, "unknown option '-%c'", *f);
					return -1;
				}
				set[p - letters] = true;
			}
		} else {
			strv_pushdup(ops, a);
		}
	}
	return 0;
}

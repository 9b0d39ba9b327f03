/* SPDX-License-Identifier: MIT */
/*
 * expand.c - word expansion: parts -> strings.
 *
 * kaish semantics: no word splitting of $VAR (it is always one argument); "..." and
 * unquoted text behave the same except for $@; $( ) yields its text with trailing newlines
 * trimmed, except in a for-loop head where text splits on newlines and a typed array
 * (data_is_value) yields one item per element.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "exec.h"
#include "kernel.h"
#include "parse.h"
#include "scope.h"
#include "util.h"
#include "vfs.h"

/* Value of a variable reference: specials first, then the scope. Writes into b. */
static void var_value(kaish_kernel *k, const char *name, struct sbuf *b, bool *set)
{
	struct scope *s = &k->scope;
	*set = true;
	if (!strcmp(name, "?")) {
		sb_printf(b, "%d", k->last_code);
	} else if (!strcmp(name, "#")) {
		sb_printf(b, "%d", s->pos.n);
	} else if (!strcmp(name, "$")) {
		sb_printf(b, "%ld", k->pid);
	} else if (!strcmp(name, "@") || !strcmp(name, "*")) {
		for (int i = 0; i < s->pos.n; i++) {
			if (i)
				sb_addc(b, ' ');
			sb_adds(b, s->pos.v[i]);
		}
	} else if (isdigit((unsigned char)name[0])) {
		long idx = strtol(name, NULL, 10);
		if (idx == 0)
			sb_adds(b, "kaish");
		else if (idx <= s->pos.n)
			sb_adds(b, s->pos.v[idx - 1]);
		else
			*set = false;
	} else if (!strcmp(name, "PIPESTATUS") && pstatus_render(&k->ps, b)) {
		/* kept as numbers by the executor, rendered as the list only when read */
	} else {
		const char *v = scope_get(s, name);
		if (v)
			sb_adds(b, v);
		else
			*set = false;
	}
}

/* Trim trailing newlines (and the \r of a \r\n). */
static size_t trim_nl(const char *s, size_t n)
{
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	return n;
}

/* A typed value bound by $( ): strings decode, other JSON stays compact text. */
static char *typed_text(const char *json)
{
	char *s = json_string_value(json);
	return s ? s : strdup(json);
}

/* Split a $( ) result into for-loop items. */
static int subst_items(const char *text, size_t len, const char *data, bool is_value,
		       struct strv *out)
{
	if (data && is_value && json_kind(data) == 'a') {
		struct strv elems;
		strv_init(&elems);
		if (json_array_split(data, &elems) < 0) {
			strv_free(&elems);
			return -1;
		}
		for (int i = 0; i < elems.n; i++)
			if (strv_push(out, typed_text(elems.v[i])) < 0)
				break;
		strv_free(&elems);
		return 0;
	}
	len = trim_nl(text, len);
	size_t start = 0;
	while (start < len) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;
		size_t e = end;
		if (e > start && text[e - 1] == '\r')
			e--;
		if (strv_push(out, kstrndup(text + start, e - start)) < 0)
			return -1;
		start = end + 1;
	}
	return 0;
}

/* Concatenate the expansion of a part list into b (one field). Returns -1 only when the
 * enclosing command must fail (arithmetic error); a failed $( ) expands to its output. */
static int expand_parts(kaish_kernel *k, struct wpart *wp, struct io *io, struct sbuf *b);
static int expand_arith(const char *expr, struct scope *s, const struct pstatus *ps,
			long long *val, char **err);

/* Parse a slice key "A:B" (either side may be empty or negative). False if key is not one. */
static bool slice_key(const char *key, bool *has_a, long *a, bool *has_b, long *b)
{
	char *end;
	*has_a = *key != ':';
	*a = *has_a ? strtol(key, &end, 10) : 0;
	if (*has_a && end == key)
		return false;
	if (!*has_a)
		end = (char *)key;
	if (*end != ':')
		return false;
	const char *bs = end + 1;
	*has_b = *bs != '\0';
	*b = *has_b ? strtol(bs, &end, 10) : 0;
	return !*has_b || (end != bs && !*end);
}

/* Clamp the half-open range [a, b) of a sequence of n (negatives count from the end). */
static void slice_range(long n, bool has_a, long a, bool has_b, long b, long *from, long *to)
{
	a = !has_a ? 0 : a < 0 ? n + a : a;
	b = !has_b ? n : b < 0 ? n + b : b;
	*from = a < 0 ? 0 : a > n ? n : a;
	*to = b < *from ? *from : b > n ? n : b;
}

/*
 * ${V[a:b]} (§2.1): the slice of a list held as JSON text (a JSON array), or of a string by
 * characters (UTF-8 code points), half open, negatives from the end, out-of-range clamped.
 * Returns 1 with the result in out (malloc'd), 0 if key is not a slice, -1 with a message
 * in *err for a record (no order to slice).
 */
static int slice_value(const char *v, const char *key, char **out, const char **err)
{
	bool has_a, has_b;
	long a, b, from, to;
	if (!slice_key(key, &has_a, &a, &has_b, &b))
		return 0;
	char kind = json_kind(v);
	if (kind == 'o') {
		*err = "a record has no order to slice";
		return -1;
	}
	struct strv el;
	strv_init(&el);
	if (kind == 'a' && json_array_split(v, &el) == 0) {
		struct sbuf r;
		sb_init(&r);
		slice_range(el.n, has_a, a, has_b, b, &from, &to);
		sb_addc(&r, '[');
		for (long i = from; i < to; i++)
			sb_printf(&r, "%s%s", i > from ? "," : "", el.v[i]);
		sb_addc(&r, ']');
		strv_free(&el);
		*out = sb_detach(&r);
		return 1;
	}
	strv_free(&el);
	long chars = 0;
	for (const char *p = v; *p; p++)
		chars += ((unsigned char)*p & 0xc0) != 0x80;
	slice_range(chars, has_a, a, has_b, b, &from, &to);
	const char *p = v, *start = NULL;
	long ci = -1;
	for (; *p; p++) {
		if (((unsigned char)*p & 0xc0) != 0x80 && ++ci == from)
			start = p;
		if (((unsigned char)*p & 0xc0) != 0x80 && ci == to)
			break;
	}
	*out = start && to > from ? kstrndup(start, (size_t)(p - start)) : strdup("");
	return 1;
}

/*
 * ${NAME[key]} (§2.1): a member of a list (index) or record (field) held as JSON text,
 * such as PIPESTATUS or a gathered row; ${NAME[a:b]} slices a list or a string. Strings
 * decode, other members stay compact JSON. No such member: unset. v holds the value,
 * replaced in place.
 */
static int subscript(kaish_kernel *k, struct word *key, struct io *io, struct sbuf *v, bool *set)
{
	struct sbuf kb;
	char *m = NULL;
	const char *err = NULL;
	int sl = 0;
	sb_init(&kb);
	if (expand_parts(k, key->parts, io, &kb) < 0) {
		sb_free(&kb);
		return -1;
	}
	if (*set)
		sl = slice_value(sb_str(v), sb_str(&kb), &m, &err);
	if (sl < 0) {
		sb_printf(io->err, "kaish: ${..[%s]}: %s\n", sb_str(&kb), err);
		sb_free(&kb);
		return -1;
	}
	if (*set && sl == 0)
		m = json_member(sb_str(v), sb_str(&kb));
	sb_free(&kb);
	v->len = 0;
	*set = m != NULL;
	if (m) {
		char *t = sl ? NULL : typed_text(m);
		sb_adds(v, t ? t : m);
		free(t);
		free(m);
	}
	return 0;
}

/* Run a $( ) and append its one-value result to b. */
static int subst_value(kaish_kernel *k, struct wpart *wp, struct io *io, struct sbuf *b)
{
	struct sbuf out;
	char *data = NULL;
	bool is_value = false;
	sb_init(&out);
	exec_subst(k, wp->sub, io, &out, &data, &is_value);
	if (data && is_value) {
		char *t = typed_text(data);
		if (t)
			sb_adds(b, t);
		free(t);
	} else {
		sb_add(b, sb_str(&out), trim_nl(sb_str(&out), out.len));
	}
	free(data);
	sb_free(&out);
	return 0;
}

static int expand_parts(kaish_kernel *k, struct wpart *wp, struct io *io, struct sbuf *b)
{
	for (; wp; wp = wp->next) {
		switch (wp->type) {
		case W_LIT:
			sb_adds(b, wp->text);
			break;
		case W_DQ:
			if (expand_parts(k, wp->kids, io, b) < 0)
				return -1;
			break;
		case W_VAR: {
			struct sbuf v;
			bool set;
			sb_init(&v);
			var_value(k, wp->text, &v, &set);
			if (wp->key && subscript(k, wp->key, io, &v, &set) < 0) {
				sb_free(&v);
				return -1;
			}
			if (wp->op == V_LENGTH) {
				/* A list (JSON array text, such as PIPESTATUS) counts its elements,
				 * a string its UTF-8 code points, not bytes. */
				size_t chars = 0;
				struct strv el;
				strv_init(&el);
				if (v.len && json_kind(sb_str(&v)) == 'a' &&
				    json_array_split(sb_str(&v), &el) == 0) {
					chars = (size_t)el.n;
				} else {
					for (size_t i = 0; i < v.len; i++)
						if (((unsigned char)v.s[i] & 0xc0) != 0x80)
							chars++;
				}
				strv_free(&el);
				sb_printf(b, "%zu", chars);
			} else if (wp->op == V_DEFAULT && (!set || v.len == 0)) {
				if (expand_parts(k, wp->alt->parts, io, b) < 0) {
					sb_free(&v);
					return -1;
				}
			} else {
				sb_add(b, sb_str(&v), v.len);
			}
			sb_free(&v);
			break;
		}
		case W_SUBST:
			subst_value(k, wp, io, b);
			break;
		case W_ARITH: {
			long long val = 0;
			char *err = NULL;
			struct sbuf e;
			sb_init(&e);
			int rc = expand_parts(k, wp->kids, io, &e);
			if (rc == 0)
				rc = expand_arith(sb_str(&e), &k->scope, &k->ps, &val, &err);
			sb_free(&e);
			if (rc < 0) {
				sb_printf(io->err, "kaish: arithmetic: %s\n", err ? err : "error");
				free(err);
				return -1;
			}
			sb_printf(b, "%lld", val);
			break;
		}
		}
	}
	return 0;
}

/* Does the word have an unquoted glob metacharacter in a literal part? */
static bool has_glob(const struct wpart *wp)
{
	for (; wp; wp = wp->next)
		if (wp->type == W_LIT && !wp->quoted &&
		    (strpbrk(wp->text, "*?") ||
		     (strchr(wp->text, '[') && strchr(strchr(wp->text, '['), ']'))))
			return true; /* a '[' counts only with its ']' in the same literal */
	return false;
}

/* The word as an fnmatch pattern: quoted text and expansions are escaped (literal). */
static int glob_pattern(kaish_kernel *k, struct wpart *wp, struct io *io, struct sbuf *pat)
{
	for (; wp; wp = wp->next) {
		struct sbuf v;
		sb_init(&v);
		if (wp->type == W_LIT && !wp->quoted) {
			sb_adds(pat, wp->text);
			continue;
		}
		/* Expand just this part, through a copy: the tree is shared read-only by scatter
		 * workers, and cutting wp->next in place raced between them (found by fuzzing: a
		 * worker restored another's NULL and the rest of the word was lost, and leaked). */
		struct wpart one = *wp;
		one.next = NULL;
		int rc = expand_parts(k, &one, io, &v);
		for (size_t i = 0; i < v.len; i++) {
			if (strchr("*?[]\\", v.s[i]))
				sb_addc(pat, '\\');
			sb_addc(pat, v.s[i]);
		}
		sb_free(&v);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Match pattern component by component through the VFS. Results are sorted per directory;
 * hidden entries only match a component that starts with '.'. */
static int glob_walk(kaish_kernel *k, const char *prefix, const char *rest, struct strv *out,
		     int depth)
{
	if (depth > 64)
		return 0;
	const char *slash = strchr(rest, '/');
	size_t cl = slash ? (size_t)(slash - rest) : strlen(rest);
	char *comp = kstrndup(rest, cl);
	if (!comp)
		return -1;
	const char *next = slash ? slash + 1 : NULL;
	while (next && *next == '/')
		next++;
	if (next && !*next)
		next = NULL;
	struct strv names;
	strv_init(&names);
	if (!strpbrk(comp, "*?[")) {
		strv_push(&names, strdup(comp)); /* literal component: just descend */
	} else if (vfs_list(k, *prefix ? prefix : ".", &names) < 0) {
		free(comp);
		return 0;
	}
	for (int i = 0; i < names.n; i++) {
		const char *nm = names.v[i];
		bool literal = !strpbrk(comp, "*?[");
		if (!literal && (fnmatch(comp, nm, FNM_PERIOD) != 0))
			continue;
		struct sbuf p;
		sb_init(&p);
		sb_adds(&p, prefix);
		if (p.len && p.s[p.len - 1] != '/')
			sb_addc(&p, '/');
		sb_adds(&p, literal ? comp : nm);
		struct stat st;
		if (next) {
			if (vfs_stat(k, sb_str(&p), &st, true) == 0 && S_ISDIR(st.st_mode))
				glob_walk(k, sb_str(&p), next, out, depth + 1);
		} else if (vfs_stat(k, sb_str(&p), &st, false) == 0) {
			strv_push(out, sb_detach(&p));
		}
		sb_free(&p);
	}
	strv_free(&names);
	free(comp);
	return 0;
}

/* Expand a bare glob word; zero matches is an error, as kaish. */
static int expand_glob(kaish_kernel *k, struct word *w, struct io *io, struct strv *out)
{
	struct sbuf pat;
	sb_init(&pat);
	if (glob_pattern(k, w->parts, io, &pat) < 0) {
		sb_free(&pat);
		return -1;
	}
	const char *p = sb_str(&pat);
	int before = out->n;
	glob_walk(k, p[0] == '/' ? "/" : "", p[0] == '/' ? p + 1 : p, out, 0);
	if (out->n == before) {
		sb_printf(io->err, "kaish: no matches for glob pattern '%s'\n", w->raw);
		sb_free(&pat);
		return -1;
	}
	sb_free(&pat);
	return 0;
}

int expand_word(kaish_kernel *k, struct word *w, struct io *io, enum expand_mode mode,
		struct strv *out)
{
	if (mode != EXP_STR && k->glob && has_glob(w->parts))
		return expand_glob(k, w, io, out);
	struct wpart *wp = w->parts;
	/* Whole-word forms that may produce several fields. */
	if (wp && !wp->next && mode != EXP_STR) {
		if (wp->type == W_VAR && !wp->quoted && wp->op == V_PLAIN && !strcmp(wp->text, "@")) {
			for (int i = 0; i < k->scope.pos.n; i++)
				if (strv_pushdup(out, k->scope.pos.v[i]) < 0)
					return -1;
			return 0;
		}
		if (wp->type == W_SUBST && mode == EXP_FOR) {
			struct sbuf text;
			char *data = NULL;
			bool is_value = false;
			sb_init(&text);
			exec_subst(k, wp->sub, io, &text, &data, &is_value);
			int rc = subst_items(sb_str(&text), text.len, data, is_value, out);
			free(data);
			sb_free(&text);
			return rc;
		}
	}
	struct sbuf b;
	sb_init(&b);
	/* ~ and ~/x expand against the session HOME only (hermetic: never the process env). */
	if (wp && wp->type == W_LIT && !wp->quoted && wp->text[0] == '~' &&
	    (wp->text[1] == '\0' || wp->text[1] == '/')) {
		const char *home = scope_get(&k->scope, "HOME");
		if (home) {
			sb_adds(&b, home);
			sb_adds(&b, wp->text + 1);
			wp = wp->next;
		}
	}
	if (expand_parts(k, wp, io, &b) < 0 || b.oom) {
		sb_free(&b);
		return -1;
	}
	return strv_push(out, sb_detach(&b));
}

char *expand_str(kaish_kernel *k, struct word *w, struct io *io)
{
	struct strv v;
	strv_init(&v);
	if (expand_word(k, w, io, EXP_STR, &v) < 0 || v.n != 1) {
		strv_free(&v);
		return NULL;
	}
	char *s = v.v[0];
	free(v.v);
	return s;
}

/* --- $(( )) integer arithmetic ------------------------------------------------------------- */

struct arith {
	const char *p;
	struct scope *s;
	const struct pstatus *ps; /* PIPESTATUS: a list, never a number (reads as 0) */
	int depth;
	char *err;
};

static long long ar_expr(struct arith *a);

static void ar_ws(struct arith *a)
{
	while (isspace((unsigned char)*a->p))
		a->p++;
}

static long long ar_fail(struct arith *a, const char *msg)
{
	if (!a->err)
		a->err = strdup(msg);
	return 0;
}

/* primary := NUMBER | ['$'] NAME | '(' expr ')' | ('-' | '+' | '!') primary */
static long long ar_primary(struct arith *a)
{
	ar_ws(a);
	if (++a->depth > 64)
		return ar_fail(a, "expression too deep");
	long long v = 0;
	char c = *a->p;
	if (c == '(') {
		a->p++;
		v = ar_expr(a);
		ar_ws(a);
		if (*a->p != ')')
			return ar_fail(a, "expected ')'");
		a->p++;
	} else if (c == '-' || c == '+' || c == '!') {
		a->p++;
		v = ar_primary(a);
		v = c == '-' ? -v : c == '!' ? !v : v;
	} else if (isdigit((unsigned char)c)) {
		v = strtoll(a->p, (char **)&a->p, 10);
	} else {
		if (c == '$')
			a->p++;
		const char *st = a->p;
		while (isalnum((unsigned char)*a->p) || *a->p == '_')
			a->p++;
		if (a->p == st)
			return ar_fail(a, "syntax error");
		char name[128];
		size_t n = (size_t)(a->p - st) < sizeof(name) - 1 ? (size_t)(a->p - st) : sizeof(name) - 1;
		memcpy(name, st, n);
		name[n] = '\0';
		const char *val = NULL;
		if (isdigit((unsigned char)name[0])) { /* $1.. positionals */
			long idx = strtol(name, NULL, 10);
			if (idx >= 1 && idx <= a->s->pos.n)
				val = a->s->pos.v[idx - 1];
		} else if (!(a->ps->n > 0 && !strcmp(name, "PIPESTATUS"))) {
			val = scope_get(a->s, name);
		}
		v = val ? strtoll(val, NULL, 10) : 0;
	}
	a->depth--;
	return v;
}

/* Binary operators by precedence level, loosest first. */
static const char *const ar_levels[][7] = {
	{ "||", NULL }, { "&&", NULL }, { "==", "!=", NULL }, { "<=", ">=", "<", ">", NULL },
	{ "+", "-", NULL }, { "*", "/", "%", NULL },
};

/* level := next-level (OP next-level)* for the operators of ar_levels[lvl], left-assoc. */
static long long ar_level(struct arith *a, int lvl)
{
	if (lvl == (int)(sizeof(ar_levels) / sizeof(ar_levels[0])))
		return ar_primary(a);
	long long l = ar_level(a, lvl + 1);
	for (;;) {
		ar_ws(a);
		const char *op = NULL;
		for (int i = 0; ar_levels[lvl][i]; i++) {
			size_t n = strlen(ar_levels[lvl][i]);
			if (!strncmp(a->p, ar_levels[lvl][i], n)) {
				op = ar_levels[lvl][i];
				break;
			}
		}
		if (!op || a->err)
			return l;
		a->p += strlen(op);
		long long r = ar_level(a, lvl + 1);
		if (!strcmp(op, "||")) l = l || r;
		else if (!strcmp(op, "&&")) l = l && r;
		else if (!strcmp(op, "==")) l = l == r;
		else if (!strcmp(op, "!=")) l = l != r;
		else if (!strcmp(op, "<=")) l = l <= r;
		else if (!strcmp(op, ">=")) l = l >= r;
		else if (!strcmp(op, "<")) l = l < r;
		else if (!strcmp(op, ">")) l = l > r;
		else if (!strcmp(op, "+")) l = (long long)((unsigned long long)l + (unsigned long long)r);
		else if (!strcmp(op, "-")) l = (long long)((unsigned long long)l - (unsigned long long)r);
		else if (!strcmp(op, "*")) l = (long long)((unsigned long long)l * (unsigned long long)r);
		else if (r == 0) return ar_fail(a, "division by zero");
		else if (!strcmp(op, "/")) l = (l == -__LONG_LONG_MAX__ - 1 && r == -1) ? l : l / r;
		else l = (r == -1) ? 0 : l % r;
	}
}

static long long ar_expr(struct arith *a)
{
	return ar_level(a, 0);
}

/* Integer arithmetic for $(( )): returns 0 or -1 with a message in *err (malloc'd). */
static int expand_arith(const char *expr, struct scope *s, const struct pstatus *ps,
			long long *val, char **err)
{
	struct arith a = { .p = expr, .s = s, .ps = ps, .depth = 0, .err = NULL };
	*val = ar_expr(&a);
	ar_ws(&a);
	if (!a.err && *a.p)
		ar_fail(&a, "syntax error");
	if (a.err) {
		*err = a.err;
		return -1;
	}
	return 0;
}

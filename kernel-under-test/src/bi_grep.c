/* SPDX-License-Identifier: MIT */
/*
 * bi_grep.c - grep: search files or stdin with an extended regex (POSIX regcomp).
 * -r walks the VFS through vfs_walk (hidden entries skipped, .gitignore honoured).
 *
 * Dialect, as kaish: the pattern is an ERE that also takes the GNU BRE backslash-metas
 * (`a\|b`, `\(x\)\+`, `a\{2\}`), rewritten to their ERE form; -E is strict ERE, where
 * they are the literal characters; -F is a fixed string.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bi_table.h"
#include "builtins.h"
#include "exec.h"
#include "util.h"
#include "vfs.h"

const char bi_grep_usage[] =
	"Usage: grep [OPTION]... PATTERN [FILE]...\n"
	"Search for PATTERN (extended regex) in each FILE, or stdin.\n"
	"  -r, -R, --recursive          search directories recursively (ignore rules apply)\n"
	"  -n, --line-number            prefix lines with their 1-based number\n"
	"  -i, --ignore-case            case-insensitive match\n"
	"  -v, --invert-match           select non-matching lines\n"
	"  -c, --count                  print only a count of selected lines\n"
	"  -l, --files-with-matches     print only names of files with selected lines\n"
	"  -E, --extended-regexp        strict ERE: \\| \\+ \\( ... are literal characters\n"
	"  -F, --fixed-strings          PATTERN is a literal string\n"
	"  -w, --word-regexp            match whole words only\n"
	"  -o, --only-matching          print only the matched parts\n"
	"  -q, --quiet                  print nothing, exit 0 on a match\n"
	"  -h / -H                      never / always print file names\n"
	"  -e PATTERN                   use PATTERN (may start with '-'); repeated: any of them\n"
	"  -A N, -B N, -C N             print N lines of context after / before / around\n"
	"Without -E or -F, GNU BRE spellings (\\| \\+ \\? \\( \\) \\{m,n\\}) are operators too.\n"
	"Exit: 0 a line was selected, 1 none, 2 error.\n";

struct grep_opts {
	bool recursive, number, icase, invert, count, list, fixed, word, only, quiet;
	bool extended; /* -E: strict ERE, no BRE rewrite */
	int names;     /* -1 never, 1 always, 0 auto */
	long after, before; /* -A / -B lines of context (-C sets both) */
	const char *pattern;
	bool pattern_set; /* the pattern operand was seen (it may be NULL = not literal) */
	struct strv more; /* -e patterns after the first (alternatives), owned */
	bool more_unknown; /* one of them is not literal (validation time) */
};

static const struct {
	const char *lng;
	char shrt;
} grep_long[] = {
	{ "--recursive", 'r' },	    { "--line-number", 'n' },	    { "--ignore-case", 'i' },
	{ "--invert-match", 'v' },  { "--count", 'c' },		    { "--files-with-matches", 'l' },
	{ "--extended-regexp", 'E' }, { "--fixed-strings", 'F' },   { "--word-regexp", 'w' },
	{ "--only-matching", 'o' }, { "--quiet", 'q' },		    { "--no-filename", 'h' },
	{ "--with-filename", 'H' },
};

/* Options that take a value: the rest of the cluster (-A1) or the next word (-A 1). */
static const struct {
	const char *lng; /* also accepted as --lng=VALUE */
	char shrt;
} grep_valued[] = {
	{ "--regexp", 'e' }, { "--after-context", 'A' }, { "--before-context", 'B' }, { "--context", 'C' },
};

/* fmt is one of this file's literals with one %s. */
static int grep_fail(char **msg, const char *fmt, const char *arg)
{
	struct sbuf b;
	sb_init(&b);
	sb_printf(&b, fmt, arg);
	*msg = sb_detach(&b);
	return -1;
}

/* Apply a value-taking option; v is NULL when not literal (validation time). */
static int set_valued(struct grep_opts *o, char f, const char *v, char **msg)
{
	long n = 0;
	if (f == 'e') { /* each -e is one more alternative, as GNU grep */
		if (o->pattern_set && o->pattern) {
			strv_pushdup(&o->more, v ? v : "");
			o->more_unknown |= !v;
		} else if (!o->pattern_set) {
			o->pattern = v;
		}
		o->pattern_set = true;
		return 0;
	}
	if (v && (!bi_parse_long(v, &n) || n < 0))
		return grep_fail(msg, "invalid context length argument '%s'", v);
	if (f != 'B')
		o->after = n;
	if (f != 'A')
		o->before = n;
	return 0;
}

/* One short flag; -1 for an unknown letter (usage error, exit 2). */
static int set_flag(struct grep_opts *o, char f)
{
	switch (f) {
	case 'r': case 'R': o->recursive = true; break;
	case 'n': o->number = true; break;
	case 'i': o->icase = true; break;
	case 'v': o->invert = true; break;
	case 'c': o->count = true; break;
	case 'l': o->list = true; break;
	case 'E': o->extended = true; break;
	case 'F': o->fixed = true; break;
	case 'w': o->word = true; break;
	case 'o': o->only = true; break;
	case 'q': o->quiet = true; break;
	case 'h': o->names = -1; break;
	case 'H': o->names = 1; break;
	default: return -1;
	}
	return 0;
}

/* Parse options: the first operand is the pattern (unless -e), the rest are files. NULL
 * args (not literal at validation time) are operands. */
static int grep_parse(int argc, char **argv, struct grep_opts *o, struct strv *files,
		      char **msg)
{
	memset(o, 0, sizeof(*o));
	bool opts_done = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!opts_done && a && !strcmp(a, "--")) {
			opts_done = true;
		} else if (!opts_done && a && a[0] == '-' && a[1] == '-') {
			size_t j;
			const char *eq = strchr(a, '=');
			for (j = 0; j < sizeof(grep_valued) / sizeof(grep_valued[0]); j++) {
				size_t l = strlen(grep_valued[j].lng);
				if (!strncmp(a, grep_valued[j].lng, l) && (a[l] == '=' || !a[l]))
					break;
			}
			if (j < sizeof(grep_valued) / sizeof(grep_valued[0])) {
				if (!eq && ++i >= argc)
					return grep_fail(msg, "option %s needs a value", a);
				if (set_valued(o, grep_valued[j].shrt, eq ? eq + 1 : argv[i], msg) < 0)
					return -1;
				continue;
			}
			for (j = 0; j < sizeof(grep_long) / sizeof(grep_long[0]); j++)
				if (!strcmp(a, grep_long[j].lng))
					break;
			if (j == sizeof(grep_long) / sizeof(grep_long[0]))
				return grep_fail(msg, "unknown option '%s'", a);
			set_flag(o, grep_long[j].shrt);
		} else if (!opts_done && a && a[0] == '-' && a[1]) {
			/* A cluster of flags; a value-taking letter ends it (-inA1, -inC 1). */
			for (const char *f = a + 1; *f; f++) {
				if (strchr("eABC", *f)) {
					const char *v = f[1] ? f + 1 : NULL;
					if (!v && ++i >= argc) {
						char opt[3] = { '-', *f, '\0' };
						return grep_fail(msg, "option %s needs a value", opt);
					}
					if (set_valued(o, *f, v ? v : argv[i], msg) < 0)
						return -1;
					break;
				}
				if (set_flag(o, *f) < 0) {
					char opt[3] = { '-', *f, '\0' };
					return grep_fail(msg, "unknown option '%s'", opt);
				}
			}
		} else if (!o->pattern_set) {
			o->pattern = a;
			o->pattern_set = true;
		} else {
			strv_pushdup(files, a ? a : "");
		}
	}
	return 0;
}

/* -F escapes the pattern, -w wraps it in GNU word anchors \< \>, -i is REG_ICASE. Without -E
 * or -F the GNU BRE backslash-metas are rewritten to ERE; when that rewrite turned a literal
 * the author meant into an operator (`:\)`), the compile error says so. */
static int grep_compile(regex_t *re, const struct grep_opts *o, char **msg)
{
	struct sbuf p;
	bool rewrote = false;
	sb_init(&p);
	if (o->word)
		sb_adds(&p, "\\<(");
	for (int k = -1; k < o->more.n; k++) {
		const char *pat = k < 0 ? o->pattern : o->more.v[k];
		if (k >= 0)
			sb_addc(&p, '|');
		if (o->fixed) {
			for (const char *s = pat; *s; s++) {
				if (strchr("\\.[]()*+?{}|^$", *s))
					sb_addc(&p, '\\');
				sb_addc(&p, *s);
			}
		} else if (o->extended) {
			sb_adds(&p, pat);
		} else {
			rewrote |= bi_bre_append(&p, pat);
		}
	}
	if (o->word)
		sb_adds(&p, ")\\>");
	int rc = bi_regex_compile(re, sb_str(&p), REG_EXTENDED | (o->icase ? REG_ICASE : 0), msg);
	sb_free(&p);
	if (rc < 0 && rewrote && msg)
		bi_dialect_hint(msg, "-E");
	return rc;
}

/* Validator hook: a literal pattern must compile, before anything runs. */
int bi_grep_check(int argc, char **argv, char **msg)
{
	struct grep_opts o;
	struct strv files;
	strv_init(&files);
	int rc = grep_parse(argc, argv, &o, &files, msg);
	strv_free(&files);
	if (rc == 0 && o.pattern && !o.more_unknown) {
		regex_t re;
		rc = grep_compile(&re, &o, msg);
		if (rc == 0)
			regfree(&re);
	}
	strv_free(&o.more);
	return rc;
}

struct grep_run {
	struct bi_ctx *c;
	struct grep_opts *o;
	regex_t re;
	bool show_names;
	bool matched;
	bool error;
	bool printed; /* a line was printed: the next context group after a gap gets "--" */
};

/* One output line: [name SEP][lineno SEP]text, SEP ':' for a selected line, '-' for context. */
static void grep_emit(struct grep_run *g, const char *name, long lineno, const char *s, size_t n,
		      char sep)
{
	struct sbuf *out = g->c->io->out;
	if (g->show_names)
		sb_printf(out, "%s%c", name, sep);
	if (g->o->number)
		sb_printf(out, "%ld%c", lineno, sep);
	sb_add(out, s, n);
	sb_addc(out, '\n');
	g->printed = true;
}

/* -B: print the lines from max(lineno - before, last_out + 1) up to the selected line that
 * starts at buf + start, walking back over the (restored) newlines; "--" marks a gap. */
static void grep_before(struct grep_run *g, const char *name, const char *buf, size_t start,
			long lineno, long last_out)
{
	long first = lineno - g->o->before;
	if (first <= last_out)
		first = last_out + 1;
	if (first < 1)
		first = 1;
	if (g->printed && (last_out == 0 || first > last_out + 1))
		sb_adds(g->c->io->out, "--\n");
	size_t pos = start;
	for (long k = lineno; k > first; k--) {
		pos--; /* the newline that ends line k - 1 */
		while (pos > 0 && buf[pos - 1] != '\n')
			pos--;
	}
	for (long k = first; k < lineno; k++) {
		const char *e = memchr(buf + pos, '\n', start - pos);
		size_t n = (size_t)(e - (buf + pos));
		grep_emit(g, name, k, buf + pos, n, '-');
		pos += n + 1;
	}
}

/* Search one buffer (modified in place: newlines become NULs). */
static void grep_buf(struct grep_run *g, const char *name, char *buf, size_t len)
{
	struct sbuf *out = g->c->io->out;
	const struct grep_opts *o = g->o;
	long count = 0, lineno = 0, last_out = 0, after_left = 0;
	bool ctx = (o->after || o->before) && !o->count && !o->only && !o->quiet && !o->list;
	size_t start = 0;
	while (start < len) {
		char *nl = memchr(buf + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - buf) : len;
		char saved = buf[end < len ? end : len];
		if (end < len)
			buf[end] = '\0';
		char *line = buf + start;
		lineno++;
		regmatch_t m;
		bool hit = regexec(&g->re, line, 1, &m, 0) == 0;
		if (hit != o->invert) {
			count++;
			g->matched = true;
			if (o->quiet || o->list) {
				if (end < len)
					buf[end] = saved;
				break;
			}
			if (!o->count) {
				if (o->only && !o->invert) {
					const char *p = line;
					while (regexec(&g->re, p, 1, &m, p == line ? 0 : REG_NOTBOL) == 0) {
						if (m.rm_eo == m.rm_so) {
							if (!*p)
								break;
							p++;
							continue;
						}
						grep_emit(g, name, lineno, p + m.rm_so,
							  (size_t)(m.rm_eo - m.rm_so), ':');
						p += m.rm_eo;
					}
				} else {
					if (ctx)
						grep_before(g, name, buf, start, lineno, last_out);
					grep_emit(g, name, lineno, line, end - start, ':');
					last_out = lineno;
					after_left = o->after;
				}
			}
		} else if (ctx && after_left > 0) {
			grep_emit(g, name, lineno, line, end - start, '-');
			last_out = lineno;
			after_left--;
		}
		if (end < len)
			buf[end] = saved;
		start = end + 1;
	}
	if (o->quiet)
		return;
	if (o->list && count)
		sb_printf(out, "%s\n", name);
	else if (o->count && !o->list) {
		if (g->show_names)
			sb_printf(out, "%s:", name);
		sb_printf(out, "%ld\n", count);
	}
}

/* Walk callback: read one file through the VFS and search it. Returns 1 to stop (-q). */
static int grep_file_cb(void *ctx, const char *display, const char *vpath)
{
	struct grep_run *g = ctx;
	char *buf;
	size_t len;
	int e = vfs_read_all(g->c->k, vpath, &buf, &len);
	if (e < 0) {
		bi_err(g->c, "%s: %s", display, vfs_strerror(e));
		g->error = true;
		return 0;
	}
	/* Binary files (a NUL in the first 8 KiB) are skipped, as ripgrep does. */
	if (!memchr(buf, '\0', len < 8192 ? len : 8192))
		grep_buf(g, display, buf, len);
	free(buf);
	return g->o->quiet && g->matched ? 1 : 0;
}

/* Exit 0 if a line was selected, 1 if none, 2 on any error (as ripgrep/GNU grep). */
int bi_grep(struct bi_ctx *c, int argc, char **argv)
{
	struct grep_opts o;
	struct strv files;
	char *msg = NULL;
	strv_init(&files);
	if (grep_parse(argc, argv, &o, &files, &msg) < 0 || !o.pattern) {
		bi_err(c, "%s", msg ? msg : "missing pattern");
		free(msg);
		strv_free(&files);
		strv_free(&o.more);
		return KAISH_EXIT_USAGE;
	}
	struct grep_run g = { .c = c, .o = &o };
	if (grep_compile(&g.re, &o, &msg) < 0) {
		bi_err(c, "%s", msg);
		free(msg);
		strv_free(&files);
		strv_free(&o.more);
		return KAISH_EXIT_USAGE;
	}
	if (o.recursive && files.n == 0)
		strv_pushdup(&files, ".");
	g.show_names = o.names == 1 || (o.names == 0 && (o.recursive || files.n > 1));
	if (files.n == 0) {
		size_t len;
		const char *in = bi_stdin(c, &len);
		char *buf = kstrndup(in, len);
		if (buf)
			grep_buf(&g, "(standard input)", buf, len);
		free(buf);
	}
	for (int i = 0; i < files.n && !(o.quiet && g.matched); i++) {
		const char *f = files.v[i];
		struct stat st;
		int e = vfs_stat(c->k, f, &st, true);
		if (e < 0) {
			bi_err(c, "%s: %s", f, vfs_strerror(e));
			g.error = true;
			if (e == -VFS_EESCAPE) {
				regfree(&g.re);
				strv_free(&files);
				strv_free(&o.more);
				return KAISH_EXIT_USAGE;
			}
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (!o.recursive) {
				bi_err(c, "%s: Is a directory", f);
				g.error = true;
				continue;
			}
			e = vfs_walk(c->k, f, grep_file_cb, &g);
			if (e < 0) {
				bi_err(c, "%s: %s", f, vfs_strerror(e));
				g.error = true;
			}
		} else {
			grep_file_cb(&g, f, f);
		}
	}
	regfree(&g.re);
	strv_free(&files);
	strv_free(&o.more);
	if (g.error && !(o.quiet && g.matched))
		return KAISH_EXIT_USAGE;
	return g.matched ? 0 : 1;
}

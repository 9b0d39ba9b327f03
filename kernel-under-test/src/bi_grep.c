/* SPDX-License-Identifier: MIT */
/*
 * bi_grep.c - grep: search files or stdin with an extended regex (POSIX regcomp).
 * -r walks the VFS through vfs_walk (hidden entries skipped, .gitignore honoured).
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
	"  -E, --extended-regexp        PATTERN is an extended regex (the default)\n"
	"  -F, --fixed-strings          PATTERN is a literal string\n"
	"  -w, --word-regexp            match whole words only\n"
	"  -o, --only-matching          print only the matched parts\n"
	"  -q, --quiet                  print nothing, exit 0 on a match\n"
	"  -h / -H                      never / always print file names\n"
	"  -e PATTERN                   use PATTERN (may start with '-')\n"
	"Exit: 0 a line was selected, 1 none, 2 error.\n";

struct grep_opts {
	bool recursive, number, icase, invert, count, list, fixed, word, only, quiet;
	int names; /* -1 never, 1 always, 0 auto */
	const char *pattern;
	bool pattern_set; /* the pattern operand was seen (it may be NULL = not literal) */
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
	case 'E': break;
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
		} else if (!opts_done && a && !strcmp(a, "-e")) {
			if (++i >= argc) {
				*msg = strdup("option -e needs a pattern");
				return -1;
			}
			o->pattern = argv[i];
			o->pattern_set = true;
		} else if (!opts_done && a && a[0] == '-' && a[1] == '-') {
			size_t j;
			for (j = 0; j < sizeof(grep_long) / sizeof(grep_long[0]); j++)
				if (!strcmp(a, grep_long[j].lng))
					break;
			if (j == sizeof(grep_long) / sizeof(grep_long[0])) {
				struct sbuf b;
				sb_init(&b);
				sb_printf(&b, "unknown option '%s'", a);
				*msg = sb_detach(&b);
				return -1;
			}
			set_flag(o, grep_long[j].shrt);
		} else if (!opts_done && a && a[0] == '-' && a[1]) {
			for (const char *f = a + 1; *f; f++) {
				if (set_flag(o, *f) < 0) {
					struct sbuf b;
					sb_init(&b);
					sb_printf(&b, "unknown option '-%c'", *f);
					*msg = sb_detach(&b);
					return -1;
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

/* -F escapes the pattern, -w wraps it in GNU word anchors \< \>, -i is REG_ICASE. */
static int grep_compile(regex_t *re, const struct grep_opts *o, char **msg)
{
	struct sbuf p;
	sb_init(&p);
	if (o->word)
		sb_adds(&p, "\\<(");
	if (o->fixed) {
		for (const char *s = o->pattern; *s; s++) {
			if (strchr("\\.[]()*+?{}|^$", *s))
				sb_addc(&p, '\\');
			sb_addc(&p, *s);
		}
	} else {
		sb_adds(&p, o->pattern);
	}
	if (o->word)
		sb_adds(&p, ")\\>");
	int rc = bi_regex_compile(re, sb_str(&p), REG_EXTENDED | (o->icase ? REG_ICASE : 0), msg);
	sb_free(&p);
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
	if (rc < 0 || !o.pattern)
		return rc;
	regex_t re;
	if (grep_compile(&re, &o, msg) < 0)
		return -1;
	regfree(&re);
	return 0;
}

struct grep_run {
	struct bi_ctx *c;
	struct grep_opts *o;
	regex_t re;
	bool show_names;
	bool matched;
	bool error;
};

/* Search one buffer (modified in place: newlines become NULs). */
static void grep_buf(struct grep_run *g, const char *name, char *buf, size_t len)
{
	struct sbuf *out = g->c->io->out;
	const struct grep_opts *o = g->o;
	long count = 0, lineno = 0;
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
						if (g->show_names)
							sb_printf(out, "%s:", name);
						if (o->number)
							sb_printf(out, "%ld:", lineno);
						sb_add(out, p + m.rm_so, (size_t)(m.rm_eo - m.rm_so));
						sb_addc(out, '\n');
						p += m.rm_eo;
					}
				} else {
					if (g->show_names)
						sb_printf(out, "%s:", name);
					if (o->number)
						sb_printf(out, "%ld:", lineno);
					sb_add(out, line, end - start);
					sb_addc(out, '\n');
				}
			}
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
		return KAISH_EXIT_USAGE;
	}
	struct grep_run g = { .c = c, .o = &o };
	if (grep_compile(&g.re, &o, &msg) < 0) {
		bi_err(c, "%s", msg);
		free(msg);
		strv_free(&files);
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
	if (g.error && !(o.quiet && g.matched))
		return KAISH_EXIT_USAGE;
	return g.matched ? 0 : 1;
}

/* SPDX-License-Identifier: MIT */
/*
 * bi_text.c - small line-oriented text builtins: cat, head, tail, sort, uniq, cut, tr.
 * Each reads its FILE operands (or stdin) through the VFS and buffers its whole output.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bi_table.h"
#include "builtins.h"
#include "exec.h"
#include "util.h"

const char bi_cat_usage[] =
	"Usage: cat [FILE]...\n"
	"Concatenate FILEs (or stdin; '-' is stdin) to stdout.\n";
const char bi_head_usage[] =
	"Usage: head [-n N] [-c N] [FILE]...\n"
	"Print the first N lines (default 10) or bytes.\n";
const char bi_tail_usage[] =
	"Usage: tail [-n N] [-c N] [FILE]...\n"
	"Print the last N lines (default 10) or bytes; -n +N starts at line N.\n";
const char bi_sort_usage[] =
	"Usage: sort [-r] [-n] [-u] [FILE]...\n"
	"Sort lines. -r reverse, -n numeric, -u unique.\n";
const char bi_uniq_usage[] =
	"Usage: uniq [-c] [-d] [-u] [FILE]\n"
	"Collapse adjacent equal lines. -c prefix counts, -d only repeated, -u only unique.\n";
const char bi_cut_usage[] =
	"Usage: cut (-f LIST [-d DELIM] | -c LIST) [FILE]...\n"
	"Select fields (tab-separated by default) or characters. LIST: N, N-M, N-, -M, comma-joined.\n";
const char bi_tr_usage[] =
	"Usage: tr [-d] SET1 [SET2]\n"
	"Translate or delete characters of stdin. Sets accept ranges (a-z) and \\n \\t escapes.\n";

/* Concatenate the FILE operands (or stdin) into b. Returns 0 or an exit code. */
static int read_inputs(struct bi_ctx *c, struct strv *files, struct sbuf *b)
{
	int rc = 0;
	if (!files->n) {
		size_t len;
		const char *in = bi_stdin(c, &len);
		sb_add(b, in, len);
		return 0;
	}
	for (int i = 0; i < files->n; i++) {
		char *buf;
		size_t len;
		int e = bi_read_input(c, files->v[i], &buf, &len);
		if (e) {
			rc = e;
			continue;
		}
		sb_add(b, buf, len);
		free(buf);
	}
	return rc;
}

/* Missing files are reported and skipped; the exit code is the last error. */
int bi_cat(struct bi_ctx *c, int argc, char **argv)
{
	struct strv files;
	strv_init(&files);
	for (int i = 1; i < argc; i++)
		strv_pushdup(&files, argv[i]);
	int rc = read_inputs(c, &files, c->io->out);
	strv_free(&files);
	return rc;
}

/* -n N / -nN / -N / -c N option parsing shared by head and tail. */
static int headtail_args(struct bi_ctx *c, int argc, char **argv, long *n, bool *bytes,
			 bool *from_start, struct strv *files)
{
	*n = 10;
	*bytes = *from_start = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		if ((!strcmp(a, "-n") || !strcmp(a, "-c") || !strcmp(a, "--lines") ||
		     !strcmp(a, "--bytes")) && i + 1 < argc) {
			*bytes = a[1] == 'c' || !strcmp(a, "--bytes");
			v = argv[++i];
		} else if ((a[0] == '-' && (a[1] == 'n' || a[1] == 'c') && a[2])) {
			*bytes = a[1] == 'c';
			v = a + 2;
		} else if (a[0] == '-' && isdigit((unsigned char)a[1])) {
			v = a + 1;
		} else if (a[0] == '-' && a[1]) {
			bi_err(c, "unknown option '%s'", a);
			return -1;
		} else {
			strv_pushdup(files, a);
			continue;
		}
		if (*v == '+') {
			*from_start = true;
			v++;
		}
		if (!bi_parse_long(v, n) || *n < 0) {
			bi_err(c, "invalid number '%s'", v);
			return -1;
		}
	}
	return 0;
}

/* First N lines (or -c bytes) of the concatenated inputs. */
int bi_head(struct bi_ctx *c, int argc, char **argv)
{
	long n;
	bool bytes, from_start;
	struct strv files;
	struct sbuf b;
	strv_init(&files);
	sb_init(&b);
	if (headtail_args(c, argc, argv, &n, &bytes, &from_start, &files) < 0) {
		strv_free(&files);
		return KAISH_EXIT_USAGE;
	}
	int rc = read_inputs(c, &files, &b);
	const char *s = sb_str(&b);
	size_t end = 0;
	if (bytes) {
		end = (size_t)n < b.len ? (size_t)n : b.len;
	} else {
		for (long i = 0; i < n && end < b.len; i++) {
			const char *nl = memchr(s + end, '\n', b.len - end);
			end = nl ? (size_t)(nl - s) + 1 : b.len;
		}
	}
	sb_add(c->io->out, s, end);
	sb_free(&b);
	strv_free(&files);
	return rc;
}

/* Last N lines (or bytes); -n +N starts at line N. */
int bi_tail(struct bi_ctx *c, int argc, char **argv)
{
	long n;
	bool bytes, from_start;
	struct strv files;
	struct sbuf b;
	strv_init(&files);
	sb_init(&b);
	if (headtail_args(c, argc, argv, &n, &bytes, &from_start, &files) < 0) {
		strv_free(&files);
		return KAISH_EXIT_USAGE;
	}
	int rc = read_inputs(c, &files, &b);
	const char *s = sb_str(&b);
	size_t start;
	if (bytes) {
		if (from_start)
			start = n > 0 ? ((size_t)n - 1 < b.len ? (size_t)n - 1 : b.len) : 0;
		else
			start = (size_t)n < b.len ? b.len - (size_t)n : 0;
	} else if (from_start) {
		start = 0;
		for (long i = 1; i < n && start < b.len; i++) {
			const char *nl = memchr(s + start, '\n', b.len - start);
			start = nl ? (size_t)(nl - s) + 1 : b.len;
		}
	} else {
		/* Walk back over n line ends (a final unterminated line counts as a line). */
		start = b.len;
		size_t pos = b.len;
		if (pos && s[pos - 1] == '\n')
			pos--;
		long seen = 0;
		while (pos > 0 && seen < n) {
			if (s[pos - 1] == '\n') {
				seen++;
				if (seen == n)
					break;
			}
			pos--;
		}
		start = n == 0 ? b.len : pos;
	}
	sb_add(c->io->out, s + start, b.len - start);
	sb_free(&b);
	strv_free(&files);
	return rc;
}

/* Byte order (LC_ALL=C): deterministic regardless of the host locale. */
static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -n: numeric prefix order, ties broken bytewise so the sort is total. */
static int cmp_num(const void *a, const void *b)
{
	double x = strtod(*(char *const *)a, NULL), y = strtod(*(char *const *)b, NULL);
	if (x != y)
		return x < y ? -1 : 1;
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -u drops lines equal (under the active comparison) to their predecessor. */
int bi_sort(struct bi_ctx *c, int argc, char **argv)
{
	bool f[3] = { false }; /* -r -n -u */
	struct strv files, lines;
	struct sbuf b;
	strv_init(&files);
	strv_init(&lines);
	sb_init(&b);
	if (bi_flags(c, argc, argv, "rnu", f, &files) < 0) {
		strv_free(&files);
		return KAISH_EXIT_USAGE;
	}
	bool rev = f[0], num = f[1], uniq = f[2];
	int rc = read_inputs(c, &files, &b);
	strv_split_lines(&lines, sb_str(&b), b.len);
	if (lines.n)
		qsort(lines.v, (size_t)lines.n, sizeof(char *), num ? cmp_num : cmp_lines);
	for (int k = 0; k < lines.n; k++) {
		int i = rev ? lines.n - 1 - k : k;
		if (uniq && k > 0) {
			int prev = rev ? i + 1 : i - 1;
			if ((num ? cmp_num : cmp_lines)(&lines.v[i], &lines.v[prev]) == 0)
				continue;
		}
		sb_adds(c->io->out, lines.v[i]);
		sb_addc(c->io->out, '\n');
	}
	sb_free(&b);
	strv_free(&lines);
	strv_free(&files);
	return rc;
}

/* Only adjacent duplicates collapse, as POSIX uniq. */
int bi_uniq(struct bi_ctx *c, int argc, char **argv)
{
	bool f[3] = { false }; /* -c -d -u */
	struct strv files, lines;
	struct sbuf b;
	strv_init(&files);
	strv_init(&lines);
	sb_init(&b);
	if (bi_flags(c, argc, argv, "cdu", f, &files) < 0) {
		strv_free(&files);
		return KAISH_EXIT_USAGE;
	}
	bool count = f[0], dup = f[1], uni = f[2];
	int rc = read_inputs(c, &files, &b);
	strv_split_lines(&lines, sb_str(&b), b.len);
	for (int i = 0; i < lines.n;) {
		int j = i + 1;
		while (j < lines.n && !strcmp(lines.v[i], lines.v[j]))
			j++;
		int n = j - i;
		if ((!dup || n > 1) && (!uni || n == 1)) {
			if (count)
				sb_printf(c->io->out, "%7d ", n);
			sb_adds(c->io->out, lines.v[i]);
			sb_addc(c->io->out, '\n');
		}
		i = j;
	}
	sb_free(&b);
	strv_free(&lines);
	strv_free(&files);
	return rc;
}

/* Is 1-based position pos selected by LIST (N, N-M, N-, -M, comma-joined)? */
static bool in_list(const char *list, long pos)
{
	const char *p = list;
	while (*p) {
		long lo = 1, hi = -1;
		if (isdigit((unsigned char)*p))
			lo = strtol(p, (char **)&p, 10);
		if (*p == '-') {
			p++;
			hi = isdigit((unsigned char)*p) ? strtol(p, (char **)&p, 10) : __LONG_MAX__;
		} else {
			hi = lo;
		}
		if (pos >= lo && pos <= hi)
			return true;
		if (*p == ',')
			p++;
		else if (*p)
			return false;
	}
	return false;
}

/* A LIST is digits, '-' and ',' only. */
static bool valid_list(const char *list)
{
	if (!*list)
		return false;
	for (const char *p = list; *p; p++)
		if (!isdigit((unsigned char)*p) && *p != '-' && *p != ',')
			return false;
	return true;
}

/* -f with -d (default TAB) or -c; lines without the delimiter pass through whole. */
int bi_cut(struct bi_ctx *c, int argc, char **argv)
{
	const char *fields = NULL, *chars = NULL;
	char delim = '\t';
	struct strv files, lines;
	struct sbuf b;
	strv_init(&files);
	strv_init(&lines);
	sb_init(&b);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **dst = NULL;
		if (a[0] == '-' && (a[1] == 'f' || a[1] == 'c' || a[1] == 'd')) {
			const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
			if (!v) {
				bi_err(c, "option %s needs a value", a);
				strv_free(&files);
				return KAISH_EXIT_USAGE;
			}
			if (a[1] == 'd') {
				delim = v[0];
				continue;
			}
			dst = a[1] == 'f' ? &fields : &chars;
			*dst = v;
		} else if (a[0] == '-' && a[1]) {
			bi_err(c, "unknown option '%s'", a);
			strv_free(&files);
			return KAISH_EXIT_USAGE;
		} else
			strv_pushdup(&files, a);
	}
	const char *list = fields ? fields : chars;
	if (!list || !valid_list(list)) {
		bi_err(c, "%s", list ? "invalid list" : "you must specify a list of fields or characters");
		strv_free(&files);
		return KAISH_EXIT_USAGE;
	}
	int rc = read_inputs(c, &files, &b);
	strv_split_lines(&lines, sb_str(&b), b.len);
	for (int i = 0; i < lines.n; i++) {
		const char *l = lines.v[i];
		if (chars) {
			long pos = 0;
			for (const char *p = l; *p; p++)
				if (in_list(chars, ++pos))
					sb_addc(c->io->out, *p);
		} else if (!strchr(l, delim)) {
			sb_adds(c->io->out, l); /* lines without a delimiter pass through */
		} else {
			long pos = 0;
			bool first = true;
			const char *p = l;
			for (;;) {
				const char *e = strchr(p, delim);
				size_t n = e ? (size_t)(e - p) : strlen(p);
				if (in_list(fields, ++pos)) {
					if (!first)
						sb_addc(c->io->out, delim);
					sb_add(c->io->out, p, n);
					first = false;
				}
				if (!e)
					break;
				p = e + 1;
			}
		}
		sb_addc(c->io->out, '\n');
	}
	sb_free(&b);
	strv_free(&lines);
	strv_free(&files);
	return rc;
}

/* Expand a tr SET (ranges, \n \t \\ escapes) into b. */
static void tr_set(const char *s, struct sbuf *b)
{
	for (const char *p = s; *p; p++) {
		unsigned char ch = (unsigned char)*p;
		if (*p == '\\' && p[1]) {
			p++;
			ch = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'r' ? '\r' : (unsigned char)*p;
		}
		if (p[1] == '-' && p[2]) {
			unsigned char hi = (unsigned char)p[2];
			for (unsigned v = ch; v <= hi; v++)
				sb_addc(b, (char)v);
			p += 2;
		} else {
			sb_addc(b, (char)ch);
		}
	}
}

/* Byte-wise; a shorter SET2 repeats its last byte, as GNU tr. */
int bi_tr(struct bi_ctx *c, int argc, char **argv)
{
	bool del = false;
	int i = 1;
	if (i < argc && !strcmp(argv[i], "-d")) {
		del = true;
		i++;
	}
	if (argc - i != (del ? 1 : 2)) {
		bi_err(c, "%s", del ? "-d takes exactly one set" : "expected SET1 and SET2");
		return KAISH_EXIT_USAGE;
	}
	struct sbuf s1, s2;
	sb_init(&s1);
	sb_init(&s2);
	tr_set(argv[i], &s1);
	if (!del)
		tr_set(argv[i + 1], &s2);
	unsigned char map[256];
	bool drop[256] = { false };
	for (int k = 0; k < 256; k++)
		map[k] = (unsigned char)k;
	for (size_t k = 0; k < s1.len; k++) {
		unsigned char from = (unsigned char)s1.s[k];
		if (del)
			drop[from] = true;
		else if (s2.len)
			map[from] = (unsigned char)s2.s[k < s2.len ? k : s2.len - 1];
	}
	size_t len;
	const char *in = bi_stdin(c, &len);
	for (size_t k = 0; k < len; k++) {
		unsigned char ch = (unsigned char)in[k];
		if (!drop[ch])
			sb_addc(c->io->out, (char)map[ch]);
	}
	sb_free(&s1);
	sb_free(&s2);
	return 0;
}

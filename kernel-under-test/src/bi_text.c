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
	"Print the first N lines (default 10) or bytes; -n -N prints all but the last N lines.\n"
	"Several FILEs are printed each under a '==> FILE <==' header.\n";
const char bi_tail_usage[] =
	"Usage: tail [-n N] [-c N] [FILE]...\n"
	"Print the last N lines (default 10) or bytes (-N is the same as N); -n +N starts at\n"
	"line N. Several FILEs are printed each under a '==> FILE <==' header.\n";
const char bi_sort_usage[] =
	"Usage: sort [-r] [-n] [-V] [-u] [FILE]...\n"
	"Sort lines. -r reverse, -n numeric, -V version (v1.2 < v1.10), -u unique.\n";
const char bi_uniq_usage[] =
	"Usage: uniq [-c] [-d] [-u] [FILE]\n"
	"Collapse adjacent equal lines. -c prefix counts, -d only repeated, -u only unique.\n";
const char bi_cut_usage[] =
	"Usage: cut (-f LIST [-d DELIM] [-s] | -c LIST) [FILE]...\n"
	"Select fields (tab-separated by default) or characters. LIST: N, N-M, N-, -M, comma-joined.\n"
	"A line without the delimiter passes through whole; -s drops it.\n";
const char bi_tr_usage[] =
	"Usage: tr [-c] [-d] [-s] SET1 [SET2]\n"
	"Translate, delete (-d) or squeeze (-s) bytes of stdin; -c complements SET1.\n"
	"Sets take ranges (a-z), classes ([:digit:] [:alpha:] [:space:] ...) and escapes\n"
	"(\\n \\t \\\\ \\NNN ...).\n";

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

/* head and tail options: how many lines or bytes, and which end they count from. */
struct headtail {
	long n;		 /* the count (default 10) */
	bool bytes;	 /* -c: bytes, not lines */
	bool neg;	 /* -n -N: head prints all but the last N; tail, the last N */
	bool from_start; /* tail -n +N: from line (byte) N */
};

/* -n N / -nN / -N / -c N / --lines N / --bytes N, shared by head and tail. */
static int headtail_args(struct bi_ctx *c, int argc, char **argv, struct headtail *h,
			 struct strv *files)
{
	memset(h, 0, sizeof(*h));
	h->n = 10;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		if ((!strcmp(a, "-n") || !strcmp(a, "-c") || !strcmp(a, "--lines") ||
		     !strcmp(a, "--bytes")) && i + 1 < argc) {
			h->bytes = a[1] == 'c' || !strcmp(a, "--bytes");
			v = argv[++i];
		} else if (!strncmp(a, "--lines=", 8) || !strncmp(a, "--bytes=", 8)) {
			h->bytes = a[2] == 'b';
			v = a + 8;
		} else if ((a[0] == '-' && (a[1] == 'n' || a[1] == 'c') && a[2])) {
			h->bytes = a[1] == 'c';
			v = a + 2;
		} else if (a[0] == '-' && isdigit((unsigned char)a[1])) {
			h->bytes = false;
			v = a + 1;
		} else if (a[0] == '-' && a[1]) {
			bi_err(c, "unknown option '%s'", a);
			return -1;
		} else {
			strv_pushdup(files, a);
			continue;
		}
		h->from_start = *v == '+';
		h->neg = *v == '-';
		const char *num = v + (h->from_start || h->neg);
		if (!bi_parse_long(num, &h->n) || h->n < 0 || !isdigit((unsigned char)*num)) {
			bi_err(c, "invalid number '%s'", v);
			return -1;
		}
	}
	return 0;
}

/* head of one input: the first N lines (bytes), or with -n -N all but the last N lines. */
static void head_text(const struct headtail *h, const char *s, size_t len, struct sbuf *out)
{
	size_t end = 0;
	if (h->bytes) {
		end = (size_t)h->n < len ? (size_t)h->n : len;
	} else if (h->neg) {
		long lines = 0; /* an unterminated last line counts */
		for (size_t k = 0; k < len; k++)
			lines += s[k] == '\n' || k == len - 1;
		for (long i = 0; i < lines - h->n && end < len; i++) {
			const char *nl = memchr(s + end, '\n', len - end);
			end = nl ? (size_t)(nl - s) + 1 : len;
		}
	} else {
		for (long i = 0; i < h->n && end < len; i++) {
			const char *nl = memchr(s + end, '\n', len - end);
			end = nl ? (size_t)(nl - s) + 1 : len;
		}
	}
	sb_add(out, s, end);
}

/* tail of one input: the last N lines (bytes; -N is the same), or from line (byte) +N. */
static void tail_text(const struct headtail *h, const char *s, size_t len, struct sbuf *out)
{
	long n = h->n;
	size_t start;
	if (h->bytes) {
		if (h->from_start)
			start = n > 0 ? ((size_t)n - 1 < len ? (size_t)n - 1 : len) : 0;
		else
			start = (size_t)n < len ? len - (size_t)n : 0;
	} else if (h->from_start) {
		start = 0;
		for (long i = 1; i < n && start < len; i++) {
			const char *nl = memchr(s + start, '\n', len - start);
			start = nl ? (size_t)(nl - s) + 1 : len;
		}
	} else {
		/* Walk back over n line ends (a final unterminated line counts as a line). */
		size_t pos = len;
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
		start = n == 0 ? len : pos;
	}
	sb_add(out, s + start, len - start);
}

/* head / tail: one input (stdin or the files concatenated), or with several FILEs each
 * under a `==> NAME <==` header, blank-line separated, as GNU and kaish. A FILE that cannot
 * be read is reported and skipped; the exit code is the last error. */
static int headtail_run(struct bi_ctx *c, int argc, char **argv,
			void (*cut)(const struct headtail *, const char *, size_t, struct sbuf *))
{
	struct headtail h;
	struct strv files;
	strv_init(&files);
	if (headtail_args(c, argc, argv, &h, &files) < 0) {
		strv_free(&files);
		return KAISH_EXIT_USAGE;
	}
	if (cut == head_text && h.bytes && h.neg) {
		bi_err(c, "invalid byte count -%ld: negative -c is not supported", h.n);
		strv_free(&files);
		return KAISH_EXIT_USAGE;
	}
	int rc = 0;
	if (files.n > 1) {
		bool first = true;
		for (int i = 0; i < files.n; i++) {
			char *buf;
			size_t len;
			int e = bi_read_input(c, files.v[i], &buf, &len);
			if (e) {
				rc = e;
				continue;
			}
			sb_printf(c->io->out, "%s==> %s <==\n", first ? "" : "\n", files.v[i]);
			first = false;
			cut(&h, buf, len, c->io->out);
			free(buf);
		}
	} else {
		struct sbuf b;
		sb_init(&b);
		rc = read_inputs(c, &files, &b);
		cut(&h, sb_str(&b), b.len, c->io->out);
		sb_free(&b);
	}
	strv_free(&files);
	return rc;
}

/* First N lines (or -c bytes); -n -N all but the last N lines. */
int bi_head(struct bi_ctx *c, int argc, char **argv)
{
	return headtail_run(c, argc, argv, head_text);
}

/* Last N lines (or bytes); -n -N is -n N; -n +N starts at line N. */
int bi_tail(struct bi_ctx *c, int argc, char **argv)
{
	return headtail_run(c, argc, argv, tail_text);
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

/* -V: version order, digit runs compared by value (v1.2 < v1.9 < v1.10, v1 < v1.0). */
static int cmp_ver(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* -u drops lines equal (under the active comparison) to their predecessor. */
int bi_sort(struct bi_ctx *c, int argc, char **argv)
{
	bool f[4] = { false }; /* -r -n -u -V */
	struct strv files, lines;
	struct sbuf b;
	strv_init(&files);
	strv_init(&lines);
	sb_init(&b);
	if (bi_flags(c, argc, argv, "rnuV", f, &files) < 0) {
		strv_free(&files);
		return KAISH_EXIT_USAGE;
	}
	bool rev = f[0], uniq = f[2];
	int (*cmp)(const void *, const void *) = f[3] ? cmp_ver : f[1] ? cmp_num : cmp_lines;
	int rc = read_inputs(c, &files, &b);
	strv_split_lines(&lines, sb_str(&b), b.len);
	if (lines.n)
		qsort(lines.v, (size_t)lines.n, sizeof(char *), cmp);
	for (int k = 0; k < lines.n; k++) {
		int i = rev ? lines.n - 1 - k : k;
		if (uniq && k > 0) {
			int prev = rev ? i + 1 : i - 1;
			if (cmp(&lines.v[i], &lines.v[prev]) == 0)
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

/* -f with -d (default TAB) or -c; lines without the delimiter pass through whole unless -s.
 * Options cluster and take glued values (-sd, -f1-3). */
int bi_cut(struct bi_ctx *c, int argc, char **argv)
{
	const char *fields = NULL, *chars = NULL;
	char delim = '\t';
	bool only_delimited = false;
	struct strv files, lines;
	struct sbuf b;
	strv_init(&files);
	strv_init(&lines);
	sb_init(&b);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-' || !a[1]) {
			strv_pushdup(&files, a);
			continue;
		}
		for (const char *f = a + 1; *f; f++) {
			if (*f == 's') {
				only_delimited = true;
				continue;
			}
			if (*f != 'f' && *f != 'c' && *f != 'd') {
				bi_err(c, "unknown option '-%c'", *f);
				strv_free(&files);
				return KAISH_EXIT_USAGE;
			}
			const char *v = f[1] ? f + 1 : (i + 1 < argc ? argv[++i] : NULL);
			if (!v) {
				bi_err(c, "option -%c needs a value", *f);
				strv_free(&files);
				return KAISH_EXIT_USAGE;
			}
			if (*f == 'd') {
				if (strlen(v) != 1) { /* never silently the first byte of several */
					bi_err(c, "delimiter must be a single character");
					strv_free(&files);
					return 1;
				}
				delim = v[0];
			} else {
				*(*f == 'f' ? &fields : &chars) = v;
			}
			break;
		}
	}
	const char *list = fields ? fields : chars;
	if (!list) { /* exit 1 and this wording, as kaish */
		bi_err(c, "must specify either -f or -c");
		strv_free(&files);
		return 1;
	}
	if (!valid_list(list)) {
		bi_err(c, "invalid list '%s'", list);
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
			if (only_delimited)
				continue;
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

/* One SET character at *pp: \a \b \f \n \r \t \v \\ and octal \NNN escapes, else the byte
 * itself (a backslash before another byte is dropped). Advances *pp past it. */
static unsigned char tr_char(const char **pp)
{
	const char *p = *pp;
	unsigned char ch = (unsigned char)*p++;
	if (ch == '\\' && *p) {
		const char *esc = "a\ab\bf\fn\nr\rt\tv\v";
		const char *e = strchr(esc, *p);
		if (*p >= '0' && *p <= '7') {
			unsigned v = 0;
			for (int k = 0; k < 3 && *p >= '0' && *p <= '7'; k++)
				v = v * 8 + (unsigned)(*p++ - '0');
			ch = (unsigned char)v;
		} else if (e && (e - esc) % 2 == 0) {
			ch = (unsigned char)e[1];
			p++;
		} else {
			ch = (unsigned char)*p++;
		}
	}
	*pp = p;
	return ch;
}

/* The POSIX classes tr takes, in the C locale. */
static const struct {
	const char *name;
	int (*is)(int);
} tr_classes[] = {
	{ "alnum", isalnum }, { "alpha", isalpha }, { "blank", isblank }, { "cntrl", iscntrl },
	{ "digit", isdigit }, { "graph", isgraph }, { "lower", islower }, { "print", isprint },
	{ "punct", ispunct }, { "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit },
};

/* Expand a tr SET (escapes, ranges a-z, classes [:digit:]) into b. An unknown class or a
 * reversed range is an error (never taken as literal characters): -1 with a message. */
static int tr_set(struct bi_ctx *c, const char *s, struct sbuf *b)
{
	for (const char *p = s; *p;) {
		if (p[0] == '[' && p[1] == ':') {
			const char *end = strstr(p + 2, ":]");
			size_t n = end ? (size_t)(end - (p + 2)) : 0;
			size_t k, cnt = sizeof(tr_classes) / sizeof(tr_classes[0]);
			for (k = 0; end && k < cnt; k++)
				if (strlen(tr_classes[k].name) == n && !strncmp(tr_classes[k].name, p + 2, n))
					break;
			if (!end || k == cnt) {
				bi_err(c, "invalid character class '%.*s'", end ? (int)n : (int)strlen(p),
				       end ? p + 2 : p);
				return -1;
			}
			for (int ch = 0; ch < 256; ch++)
				if (tr_classes[k].is(ch))
					sb_addc(b, (char)ch);
			p = end + 2;
			continue;
		}
		unsigned char lo = tr_char(&p);
		if (p[0] == '-' && p[1]) {
			p++;
			unsigned char hi = tr_char(&p);
			if (hi < lo) {
				bi_err(c, "range-endpoints of '%c-%c' are in reverse collating sequence order",
				       lo, hi);
				return -1;
			}
			for (unsigned v = lo; v <= hi; v++)
				sb_addc(b, (char)v);
		} else {
			sb_addc(b, (char)lo);
		}
	}
	return 0;
}

/* Byte-wise. -d deletes SET1, -s squeezes runs (of SET2's bytes when translating, else of
 * SET1's), -c / -C complements SET1: with SET2 every byte outside SET1 becomes SET2's last
 * byte. A shorter SET2 repeats its last byte, as GNU tr. Flags cluster (-cd, -cs). */
int bi_tr(struct bi_ctx *c, int argc, char **argv)
{
	bool del = false, squeeze = false, comp = false;
	const char *sets[2] = { NULL, NULL };
	int nsets = 0;
	bool opts_done = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!opts_done && !strcmp(a, "--")) {
			opts_done = true;
		} else if (!opts_done && !strcmp(a, "--delete")) {
			del = true;
		} else if (!opts_done && (!strcmp(a, "--squeeze") || !strcmp(a, "--squeeze-repeats"))) {
			squeeze = true;
		} else if (!opts_done && !strcmp(a, "--complement")) {
			comp = true;
		} else if (!opts_done && a[0] == '-' && a[1] == '-') {
			bi_err(c, "unknown option '%s'", a);
			return KAISH_EXIT_USAGE;
		} else if (!opts_done && a[0] == '-' && a[1]) {
			for (const char *f = a + 1; *f; f++) {
				if (*f == 'd')
					del = true;
				else if (*f == 's')
					squeeze = true;
				else if (*f == 'c' || *f == 'C')
					comp = true;
				else {
					bi_err(c, "unknown option '-%c'", *f);
					return KAISH_EXIT_USAGE;
				}
			}
		} else if (nsets < 2) {
			sets[nsets++] = a;
		} else {
			bi_err(c, "extra operand '%s'", a);
			return KAISH_EXIT_USAGE;
		}
	}
	if (!nsets) {
		bi_err(c, "missing SET1 argument");
		return 1;
	}
	if (nsets == 1 && !del && !squeeze) {
		bi_err(c, "SET2 required for translation");
		return 1;
	}
	struct sbuf s1, s2;
	sb_init(&s1);
	sb_init(&s2);
	int rc = 0;
	if (tr_set(c, sets[0], &s1) < 0 || (sets[1] && tr_set(c, sets[1], &s2) < 0)) {
		rc = 1;
		goto out;
	}
	bool in1[256] = { false }, drop[256] = { false }, sq[256] = { false };
	unsigned char map[256];
	for (size_t k = 0; k < s1.len; k++)
		in1[(unsigned char)s1.s[k]] = true;
	if (comp)
		for (int k = 0; k < 256; k++)
			in1[k] = !in1[k];
	for (int k = 0; k < 256; k++)
		map[k] = (unsigned char)k;
	bool translate = !del && s2.len;
	if (del) {
		memcpy(drop, in1, sizeof(drop));
	} else if (translate && comp) {
		for (int k = 0; k < 256; k++)
			if (in1[k])
				map[k] = (unsigned char)s2.s[s2.len - 1];
	} else if (translate) {
		for (size_t k = 0; k < s1.len; k++)
			map[(unsigned char)s1.s[k]] = (unsigned char)s2.s[k < s2.len ? k : s2.len - 1];
	}
	if (squeeze) {
		if (sets[1] && (del || !comp)) /* the bytes SET2 produces (after -d: SET2 itself) */
			for (size_t k = 0; k < s2.len; k++)
				sq[(unsigned char)s2.s[k]] = true;
		else if (sets[1] && s2.len) /* -cs: only the replacement byte */
			sq[(unsigned char)s2.s[s2.len - 1]] = true;
		else
			memcpy(sq, in1, sizeof(sq));
	}
	size_t len;
	const char *in = bi_stdin(c, &len);
	int prev = -1;
	for (size_t k = 0; k < len; k++) {
		unsigned char ch = (unsigned char)in[k];
		if (drop[ch])
			continue;
		ch = map[ch];
		if (sq[ch] && prev == ch)
			continue;
		sb_addc(c->io->out, (char)ch);
		prev = ch;
	}
out:
	sb_free(&s1);
	sb_free(&s2);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * bi_sed.c - sed: a stream editor subset. Commands s///, p, d, q with an optional address
 * (a line, `$` or /regex/) or range ADDR,ADDR (GNU rules: the end address is looked for
 * from the line after the start; a line-number end at or before the start selects one
 * line). Regexes are ERE that also take the GNU BRE spellings (\( \) \| \+ ...), as kaish;
 * -E / -r is strict ERE, where those escapes are the literal characters.
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

const char bi_sed_usage[] =
	"Usage: sed [-n] [-E] [-i] (-e SCRIPT)... | SCRIPT [FILE]...\n"
	"Edit lines of each FILE (or stdin). SCRIPT is commands separated by ';' or newlines:\n"
	"  [ADDR]s/RE/REPL/[g][i][p][N]   substitute (& and \\1..\\9 in REPL)\n"
	"  [ADDR]p  print    [ADDR]d  delete    [ADDR]q  quit\n"
	"ADDR is a line number, $ (last line), /RE/, or a range ADDR,ADDR.\n"
	"  -n   do not print lines automatically\n"
	"  -e   add a script (-e SCRIPT or -eSCRIPT, repeatable)\n"
	"  -E, -r   strict ERE: \\| \\( \\+ ... are literal (default: GNU BRE spellings are operators)\n"
	"  -i   edit files in place\n";

enum addr_type { A_NONE, A_LINE, A_LAST, A_RE };

struct sed_addr {
	enum addr_type type;
	long line;  /* A_LINE */
	regex_t re; /* A_RE: compiled when type is A_RE */
};

struct sed_cmd {
	struct sed_addr a1, a2; /* a2.type != A_NONE: a range a1,a2 */
	bool in_range;		/* a range is open (state of the current run) */
	char cmd; /* s p d q */
	regex_t re;
	char *rep;
	bool global, print;
	long nth;
	struct sed_cmd *next;
};

/* Only compiled regexes are freed: cmd/addr are set after a successful regcomp. */
static void sed_free(struct sed_cmd *c)
{
	while (c) {
		struct sed_cmd *n = c->next;
		if (c->a1.type == A_RE)
			regfree(&c->a1.re);
		if (c->a2.type == A_RE)
			regfree(&c->a2.re);
		if (c->cmd == 's')
			regfree(&c->re);
		free(c->rep);
		free(c);
		c = n;
	}
}

/* Read up to the unescaped delimiter; "\delim" becomes delim. Returns malloc'd text. */
static char *sed_until(const char **pp, char delim)
{
	struct sbuf b;
	sb_init(&b);
	const char *p = *pp;
	for (; *p && *p != delim; p++) {
		if (*p == '\\' && p[1] == delim) {
			sb_addc(&b, delim);
			p++;
		} else if (*p == '\\' && p[1]) {
			sb_addc(&b, *p++);
			sb_addc(&b, *p);
		} else {
			sb_addc(&b, *p);
		}
	}
	if (*p != delim) {
		sb_free(&b);
		return NULL;
	}
	*pp = p + 1;
	return sb_detach(&b);
}

/* sed patterns accept GNU BRE spellings unless ere (-E/-r): convert them, then compile as
 * ERE. A compile error of a rewritten pattern explains the dialect. */
static int sed_regex(regex_t *re, const char *pat, bool icase, bool ere, char **msg)
{
	int flags = REG_EXTENDED | (icase ? REG_ICASE : 0);
	if (ere)
		return bi_regex_compile(re, pat, flags, msg);
	bool rewrote = false;
	char *conv = bi_bre_to_ere(pat, &rewrote);
	int rc = conv ? bi_regex_compile(re, conv, flags, msg) : -1;
	free(conv);
	if (rc < 0 && rewrote && msg && *msg)
		bi_dialect_hint(msg, "-E/-r");
	return rc;
}

static int sed_fail(char **msg, const char *what, const char *at)
{
	struct sbuf b;
	sb_init(&b);
	sb_printf(&b, "%s at '%s'", what, at);
	*msg = sb_detach(&b);
	return -1;
}

/* addr := NUMBER | '$' | '/' RE '/'   (none: a->type stays A_NONE) */
static int sed_addr_parse(const char **pp, struct sed_addr *a, bool ere, char **msg)
{
	const char *p = *pp;
	if (*p >= '0' && *p <= '9') {
		a->line = strtol(p, (char **)&p, 10);
		a->type = A_LINE;
	} else if (*p == '$') {
		a->type = A_LAST;
		p++;
	} else if (*p == '/') {
		p++;
		char *re = sed_until(&p, '/');
		if (!re)
			return sed_fail(msg, "unterminated address regex", p);
		int rc = sed_regex(&a->re, re, false, ere, msg);
		free(re);
		if (rc < 0)
			return -1;
		a->type = A_RE;
	}
	*pp = p;
	return 0;
}

/* script := (ws* [addr [',' addr]] cmd ws* (';' | '\n'))* */
static int sed_compile(const char *script, bool ere, struct sed_cmd **out, char **msg)
{
	struct sed_cmd *head = NULL, **tail = &head;
	const char *p = script;
	*out = NULL;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == ';' || *p == '\n')
			p++;
		if (!*p)
			break;
		struct sed_cmd *c = calloc(1, sizeof(*c));
		if (!c)
			goto fail;
		*tail = c;
		tail = &c->next;
		if (sed_addr_parse(&p, &c->a1, ere, msg) < 0)
			goto fail;
		if (c->a1.type != A_NONE && *p == ',') {
			p++;
			if (sed_addr_parse(&p, &c->a2, ere, msg) < 0)
				goto fail;
			if (c->a2.type == A_NONE) {
				sed_fail(msg, "unexpected `,'", p);
				goto fail;
			}
		}
		while (*p == ' ')
			p++;
		c->cmd = *p;
		if (*p == 'p' || *p == 'd' || *p == 'q') {
			p++;
		} else if (*p == 's' && p[1] && p[1] != '\\' && p[1] != '\n') {
			char delim = p[1];
			p += 2;
			char *re = sed_until(&p, delim);
			char *rep = re ? sed_until(&p, delim) : NULL;
			if (!re || !rep) {
				free(re);
				free(rep);
				c->cmd = 0;
				sed_fail(msg, "unterminated `s' command", script);
				goto fail;
			}
			c->rep = rep;
			bool icase = false;
			for (; *p && !strchr("; \t\n}", *p); p++) {
				if (*p == 'g')
					c->global = true;
				else if (*p == 'i' || *p == 'I')
					icase = true;
				else if (*p == 'p')
					c->print = true;
				else if (*p >= '1' && *p <= '9')
					c->nth = strtol(p, (char **)&p, 10), p--;
				else {
					free(re);
					c->cmd = 0;
					sed_fail(msg, "unknown option to `s'", p);
					goto fail;
				}
			}
			int rc = sed_regex(&c->re, re, icase, ere, msg);
			free(re);
			if (rc < 0) {
				c->cmd = 0;
				goto fail;
			}
		} else {
			c->cmd = 0;
			sed_fail(msg, "unknown command", p);
			goto fail;
		}
	}
	*out = head;
	return 0;
fail:
	sed_free(head);
	return -1;
}

struct sed_opts {
	bool quiet, inplace, ere;
	bool unknown; /* a script part is not literal (validation time) */
};

/* Add one -e script; parts are joined by newlines, as separate script lines. */
static void sed_add_script(struct sbuf *script, const char *s, bool *have_e, bool *unknown)
{
	if (!s)
		*unknown = true;
	if (*have_e)
		sb_addc(script, '\n');
	sb_adds(script, s ? s : "");
	*have_e = true;
}

/* Gather -e scripts or the first operand; the rest are files. Flags cluster (-nE); -e takes
 * the rest of its word (-e1d) or the next word, and repeats. */
static int sed_args(int argc, char **argv, struct sbuf *script, struct strv *files,
		    struct sed_opts *o, char **msg)
{
	bool have_e = false, have_script = false, opts_done = false;
	memset(o, 0, sizeof(*o));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!opts_done && a && !strcmp(a, "--")) {
			opts_done = true;
		} else if (!opts_done && a && (!strcmp(a, "--quiet") || !strcmp(a, "--silent"))) {
			o->quiet = true;
		} else if (!opts_done && a && (!strcmp(a, "--regexp-extended"))) {
			o->ere = true;
		} else if (!opts_done && a && !strcmp(a, "--in-place")) {
			o->inplace = true;
		} else if (!opts_done && a && !strncmp(a, "--expression", 12) &&
			   (a[12] == '=' || !a[12])) {
			if (!a[12] && ++i >= argc) {
				*msg = strdup("option --expression needs a script");
				return -1;
			}
			sed_add_script(script, a[12] ? a + 13 : argv[i], &have_e, &o->unknown);
		} else if (!opts_done && a && a[0] == '-' && a[1] && a[1] != '-') {
			for (const char *f = a + 1; *f; f++) {
				if (*f == 'n') {
					o->quiet = true;
				} else if (*f == 'E' || *f == 'r') {
					o->ere = true;
				} else if (*f == 'i') {
					o->inplace = true;
				} else if (*f == 'e') {
					if (!f[1] && ++i >= argc) {
						*msg = strdup("option -e needs a script");
						return -1;
					}
					sed_add_script(script, f[1] ? f + 1 : argv[i], &have_e, &o->unknown);
					break;
				} else {
					struct sbuf b;
					sb_init(&b);
					sb_printf(&b, "unknown option '-%c'", *f);
					*msg = sb_detach(&b);
					return -1;
				}
			}
		} else if (!opts_done && a && a[0] == '-' && a[1]) {
			struct sbuf b;
			sb_init(&b);
			sb_printf(&b, "unknown option '%s'", a);
			*msg = sb_detach(&b);
			return -1;
		} else if (!have_e && !have_script) {
			if (!a)
				o->unknown = true;
			sb_adds(script, a ? a : "");
			have_script = true;
		} else {
			strv_pushdup(files, a ? a : "");
		}
	}
	if (!have_e && !have_script) {
		*msg = strdup("missing script");
		return -1;
	}
	return 0;
}

/* Validator hook: a literal script must parse and its regexes compile. */
int bi_sed_check(int argc, char **argv, char **msg)
{
	struct sbuf script;
	struct strv files;
	struct sed_opts o;
	struct sed_cmd *cmds = NULL;
	sb_init(&script);
	strv_init(&files);
	int rc = sed_args(argc, argv, &script, &files, &o, msg);
	if (rc == 0 && !o.unknown)
		rc = sed_compile(sb_str(&script), o.ere, &cmds, msg);
	sed_free(cmds);
	sb_free(&script);
	strv_free(&files);
	return rc;
}

/* Append REP for match m of line to out. */
static void sed_expand(struct sbuf *out, const char *rep, const char *line, const regmatch_t *m)
{
	for (const char *r = rep; *r; r++) {
		if (*r == '&') {
			sb_add(out, line + m[0].rm_so, (size_t)(m[0].rm_eo - m[0].rm_so));
		} else if (*r == '\\' && r[1] >= '0' && r[1] <= '9') {
			int g = *++r - '0';
			if (m[g].rm_so >= 0)
				sb_add(out, line + m[g].rm_so, (size_t)(m[g].rm_eo - m[g].rm_so));
		} else if (*r == '\\' && r[1] == 'n') {
			sb_addc(out, '\n');
			r++;
		} else if (*r == '\\' && r[1] == 't') {
			sb_addc(out, '\t');
			r++;
		} else if (*r == '\\' && r[1]) {
			sb_addc(out, *++r);
		} else {
			sb_addc(out, *r);
		}
	}
}

/* s/// on line; returns a new malloc'd line or NULL when nothing was replaced. */
static char *sed_subst(struct sed_cmd *c, const char *line)
{
	regmatch_t m[10];
	struct sbuf out;
	long n = 0;
	bool done = false;
	const char *p = line;
	sb_init(&out);
	while (!done && regexec(&c->re, p, 10, m, p == line ? 0 : REG_NOTBOL) == 0) {
		n++;
		bool take = c->nth ? (c->global ? n >= c->nth : n == c->nth) : true;
		sb_add(&out, p, (size_t)m[0].rm_so);
		if (take)
			sed_expand(&out, c->rep, p, m);
		else
			sb_add(&out, p + m[0].rm_so, (size_t)(m[0].rm_eo - m[0].rm_so));
		if (take && !c->global)
			done = true;
		if (m[0].rm_eo == m[0].rm_so) { /* empty match: copy one char to make progress */
			if (!p[m[0].rm_eo]) {
				p += m[0].rm_eo;
				break;
			}
			sb_addc(&out, p[m[0].rm_eo]);
			p += m[0].rm_eo + 1;
		} else {
			p += m[0].rm_eo;
		}
	}
	if (n == 0 || (c->nth && n < c->nth)) {
		sb_free(&out);
		return NULL;
	}
	sb_adds(&out, p);
	return sb_detach(&out);
}

static bool addr_hit(const struct sed_addr *a, long lineno, bool last, const char *line)
{
	switch (a->type) {
	case A_NONE: return true;
	case A_LINE: return lineno == a->line;
	case A_LAST: return last;
	case A_RE: return regexec(&a->re, line, 0, NULL, 0) == 0;
	}
	return false;
}

/* Does the command's address (or range) select this line? Ranges keep their state. */
static bool addr_match(struct sed_cmd *c, long lineno, bool last, const char *line)
{
	if (c->a2.type == A_NONE)
		return addr_hit(&c->a1, lineno, last, line);
	if (c->in_range) {
		/* A line-number end closes on or after its line; others when they match. */
		bool end = c->a2.type == A_LINE ? lineno >= c->a2.line :
						  addr_hit(&c->a2, lineno, last, line);
		if (end)
			c->in_range = false;
		return true;
	}
	if (!addr_hit(&c->a1, lineno, last, line))
		return false;
	/* The end is looked for from the next line; a line end at or before this one (or
	 * `$` on the last line) makes a one-line range. */
	c->in_range = c->a2.type == A_LINE ? c->a2.line > lineno : !(c->a2.type == A_LAST && last);
	return true;
}

/* Run the script over buf into out. */
static void sed_run(struct sed_cmd *cmds, bool quiet, const char *buf, size_t len,
		    struct sbuf *out)
{
	struct strv lines;
	strv_init(&lines);
	strv_split_lines(&lines, buf, len);
	bool final_nl = len && buf[len - 1] == '\n';
	for (struct sed_cmd *c = cmds; c; c = c->next)
		c->in_range = false; /* each input starts outside every range */
	for (int i = 0; i < lines.n; i++) {
		char *line = lines.v[i];
		bool last = i == lines.n - 1, deleted = false, quit = false;
		for (struct sed_cmd *c = cmds; c && !deleted && !quit; c = c->next) {
			if (!addr_match(c, i + 1, last, line))
				continue;
			switch (c->cmd) {
			case 's': {
				char *nl = sed_subst(c, line);
				if (nl) {
					free(line);
					line = lines.v[i] = nl;
					if (c->print) {
						sb_adds(out, line);
						sb_addc(out, '\n');
					}
				}
				break;
			}
			case 'p':
				sb_adds(out, line);
				sb_addc(out, '\n');
				break;
			case 'd': deleted = true; break;
			case 'q': quit = true; break;
			}
		}
		if (!deleted && !quiet) {
			sb_adds(out, line);
			if (!last || final_nl)
				sb_addc(out, '\n');
		}
		if (quit)
			break;
	}
	strv_free(&lines);
}

/* Files are processed in order; -i writes each result back through the VFS. */
int bi_sed(struct bi_ctx *c, int argc, char **argv)
{
	struct sbuf script;
	struct strv files;
	struct sed_opts o;
	struct sed_cmd *cmds = NULL;
	char *msg = NULL;
	int rc = 0;
	sb_init(&script);
	strv_init(&files);
	if (sed_args(argc, argv, &script, &files, &o, &msg) < 0 ||
	    sed_compile(sb_str(&script), o.ere, &cmds, &msg) < 0) {
		bi_err(c, "%s", msg ? msg : "invalid script");
		free(msg);
		sb_free(&script);
		strv_free(&files);
		return KAISH_EXIT_USAGE;
	}
	if (files.n == 0) {
		size_t len;
		const char *in = bi_stdin(c, &len);
		sed_run(cmds, o.quiet, in, len, c->io->out);
	}
	for (int i = 0; i < files.n; i++) {
		char *buf;
		size_t len;
		int e = bi_read_input(c, files.v[i], &buf, &len);
		if (e) {
			rc = e;
			continue;
		}
		if (o.inplace) {
			struct sbuf res;
			sb_init(&res);
			sed_run(cmds, o.quiet, buf, len, &res);
			int we = vfs_write_all(c->k, files.v[i], sb_str(&res), res.len, false);
			if (we < 0) {
				bi_err(c, "%s: %s", files.v[i], vfs_strerror(we));
				rc = vfs_exit_code(we);
			}
			sb_free(&res);
		} else {
			sed_run(cmds, o.quiet, buf, len, c->io->out);
		}
		free(buf);
	}
	sed_free(cmds);
	sb_free(&script);
	strv_free(&files);
	return rc;
}

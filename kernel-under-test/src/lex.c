/* SPDX-License-Identifier: MIT */
/*
 * lex.c - the scanner: source text -> tokens.
 *
 * Words are kept raw (quotes and $( ) included); parse.c splits a word into parts. The
 * lexer only has to find where a word ends, which means skipping over quotes and balanced
 * $( ) / ${ } (paren depth capped at KAISH_MAX_PAREN_DEPTH, as kaish's lexer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "util.h"

#define KAISH_MAX_PAREN_DEPTH 256 /* paren depth inside one word, as kaish */

struct heredoc {
	int tok;     /* index of the TOK_REDIR token that receives the body */
	char *delim; /* delimiter with quotes removed */
	bool strip;  /* <<- strips leading tabs */
};

struct lexer {
	const char *s;
	size_t len;
	size_t i;
	int line;
	struct toklist *out;
	char **err;
	struct heredoc pend[16]; /* heredocs whose bodies start after the next newline */
	int npend;
};

static int lex_error(struct lexer *lx, const char *msg, const char *near, size_t near_len)
{
	struct sbuf b;
	sb_init(&b);
	sb_printf(&b, "line %d: %s near '%.*s'", lx->line, msg, (int)near_len, near);
	*lx->err = sb_detach(&b);
	return -1;
}

static int push_tok(struct lexer *lx, enum tok_type t, int redir, const char *p, size_t n,
		    int line)
{
	struct toklist *tl = lx->out;
	if (tl->n == tl->cap) {
		int cap = tl->cap ? tl->cap * 2 : 16;
		struct token *nt = realloc(tl->t, (size_t)cap * sizeof(*nt));
		if (!nt)
			return lex_error(lx, "out of memory", "", 0);
		tl->t = nt;
		tl->cap = cap;
	}
	char *text = kstrndup(p, n);
	if (!text)
		return lex_error(lx, "out of memory", "", 0);
	tl->t[tl->n++] = (struct token){ .type = t, .redir = redir, .line = line, .text = text };
	return 0;
}

/*
 * Skip a quoted string starting at s[i] (the quote). Returns the index past the closing
 * quote, or -1: unterminated, with *closer = 0, or a $( / ${ inside "..." left open, with
 * *closer = the ')' or '}' it needed; -2: nested too deep.
 */
static long skip_quote(const char *s, size_t len, size_t i, int depth, char *closer)
{
	char q = s[i];
	*closer = 0;
	for (i++; i < len; i++) {
		if (s[i] == q)
			return (long)i + 1;
		if (q == '"' && s[i] == '\\' && i + 1 < len) {
			i++;
		} else if (q == '"' && s[i] == '$' && i + 1 < len && (s[i + 1] == '(' || s[i + 1] == '{')) {
			char close = s[i + 1] == '(' ? ')' : '}';
			long e = depth > KAISH_MAX_PAREN_DEPTH ? -2 :
				lex_match(s, len, i + 1, s[i + 1], close);
			if (e < 0) {
				*closer = e == -1 ? close : 0;
				return e;
			}
			i = (size_t)e;
		}
	}
	return -1;
}

/* Does the keyword kw stand alone at s[i] (a word boundary before and after)? */
static bool at_keyword(const char *s, size_t len, size_t i, const char *kw)
{
	size_t n = strlen(kw);
	if (i > 0 && !strchr(" \t\n;(|&", s[i - 1]))
		return false;
	if (i + n > len || memcmp(s + i, kw, n))
		return false;
	return i + n == len || strchr(" \t\r\n;)", s[i + n]);
}

/* Where a `case` inside $( ) stands: its patterns' ')' and '(' are not parentheses. */
enum case_state { CS_WORD, CS_PAT, CS_BODY };

long lex_match(const char *s, size_t len, size_t i, char open, char close)
{
	int depth = 0;
	struct {
		int depth;		/* paren depth the case stands at */
		enum case_state st;
	} cs[16];
	int ncs = 0;
	char closer;
	for (; i < len; i++) {
		char c = s[i];
		bool top = ncs && cs[ncs - 1].depth == depth; /* a case of this level */
		if (c == '\\' && i + 1 < len) {
			i++;
		} else if (c == '\'' && open == '(') {
			long e = skip_quote(s, len, i, depth, &closer);
			if (e < 0)
				return e;
			i = (size_t)e - 1;
		} else if (c == '"') {
			long e = skip_quote(s, len, i, depth, &closer);
			if (e < 0)
				return e;
			i = (size_t)e - 1;
		} else if (open == '(' && depth > 0 && at_keyword(s, len, i, "case")) {
			if (ncs == 16)
				return -2;
			cs[ncs].depth = depth;
			cs[ncs++].st = CS_WORD;
			i += 3;
		} else if (top && cs[ncs - 1].st == CS_WORD && at_keyword(s, len, i, "in")) {
			cs[ncs - 1].st = CS_PAT;
			i += 1;
		} else if (top && cs[ncs - 1].st != CS_WORD && at_keyword(s, len, i, "esac")) {
			ncs--;
			i += 3;
		} else if (top && cs[ncs - 1].st == CS_PAT && (c == '(' || c == ')')) {
			if (c == ')') /* the pattern's ')': its body follows */
				cs[ncs - 1].st = CS_BODY;
		} else if (top && cs[ncs - 1].st == CS_BODY && c == ';' && i + 1 < len &&
			   s[i + 1] == ';') {
			cs[ncs - 1].st = CS_PAT;
			i++;
		} else if (c == open) {
			if (++depth > KAISH_MAX_PAREN_DEPTH)
				return -2;
		} else if (c == close) {
			if (--depth == 0)
				return (long)i;
			while (ncs && cs[ncs - 1].depth > depth) /* cases left open inside */
				ncs--;
		}
	}
	return -1;
}

static bool is_meta(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' ||
	       c == '<' || c == '>' || c == '(' || c == ')' || c == '\r';
}

/* Scan one word starting at lx->i. */
static int lex_word(struct lexer *lx)
{
	const char *s = lx->s;
	size_t start = lx->i, i = lx->i;
	int line = lx->line;
	while (i < lx->len && !is_meta(s[i])) {
		char c = s[i];
		if (c == '\\') {
			if (i + 1 < lx->len && s[i + 1] == '\n')
				lx->line++;
			i += 2;
		} else if (c == '\'' || c == '"') {
			char closer;
			long e = skip_quote(s, lx->len, i, 0, &closer);
			if (e == -2)
				return lex_error(lx, "too deeply nested substitution", s + i, 1);
			if (e < 0 && closer)
				return lex_error(lx, closer == ')' ?
						 "unterminated command substitution, expected ')'" :
						 "unterminated parameter expansion, expected '}'",
						 s + i, 1);
			if (e < 0)
				return lex_error(lx, "unterminated quote", s + i, 1);
			for (size_t j = i; j < (size_t)e; j++)
				if (s[j] == '\n')
					lx->line++;
			i = (size_t)e;
		} else if (c == '`') {
			return lex_error(lx, "backticks are not supported, use $( )", s + i, 1);
		} else if (c == '$' && i + 1 < lx->len && (s[i + 1] == '(' || s[i + 1] == '{')) {
			long e = lex_match(s, lx->len, i + 1, s[i + 1], s[i + 1] == '(' ? ')' : '}');
			if (e == -2)
				return lex_error(lx, "too deeply nested substitution", s + i, 2);
			if (e < 0)
				return lex_error(lx, s[i + 1] == '(' ?
						 "unterminated command substitution, expected ')'" :
						 "unterminated parameter expansion, expected '}'",
						 s + i, 2);
			for (size_t j = i; j < (size_t)e; j++)
				if (s[j] == '\n')
					lx->line++;
			i = (size_t)e + 1;
		} else {
			i++;
		}
	}
	if (i > lx->len)
		i = lx->len;
	lx->i = i;
	return push_tok(lx, TOK_WORD, 0, s + start, i - start, line);
}

/* Redirect operators, longest first. A leading digit only counts when glued to '>'. */
static const struct {
	const char *op;
	enum redir_type type;
} redirs[] = {
	{ "2>&1", R_ERR2OUT }, { "1>&2", R_OUT2ERR }, { ">&2", R_OUT2ERR },
	{ "2>>", R_ERR_APPEND }, { "2>", R_ERR }, { "&>", R_BOTH }, { "<<<", R_HERESTR },
	{ ">>", R_APPEND }, { "1>", R_OUT }, { ">", R_OUT }, { "<", R_IN },
};

/* '<<' ['-'] WORD : the body follows the end of the current line. */
static int lex_heredoc_start(struct lexer *lx)
{
	const char *s = lx->s;
	size_t i = lx->i + 2;
	bool strip = i < lx->len && s[i] == '-';
	if (strip)
		i++;
	while (i < lx->len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	size_t st = i;
	while (i < lx->len && !is_meta(s[i]))
		i++;
	if (i == st || lx->npend == 16)
		return lex_error(lx, "expected a heredoc delimiter", s + lx->i, 2);
	struct sbuf d;
	bool quoted = false;
	sb_init(&d);
	for (size_t j = st; j < i; j++) {
		if (s[j] == '\'' || s[j] == '"' || s[j] == '\\')
			quoted = true; /* any quoting makes the body literal, as in sh */
		else
			sb_addc(&d, s[j]);
	}
	if (push_tok(lx, TOK_REDIR, quoted ? R_HEREDOC_LIT : R_HEREDOC, "", 0, lx->line) < 0) {
		sb_free(&d);
		return -1;
	}
	lx->pend[lx->npend++] = (struct heredoc){ .tok = lx->out->n - 1, .delim = sb_detach(&d),
						  .strip = strip };
	lx->i = i;
	return 0;
}

/* After a newline: read the pending heredoc bodies, line by line, up to their delimiters. */
static int lex_heredoc_bodies(struct lexer *lx)
{
	for (int h = 0; h < lx->npend; h++) {
		struct heredoc *hd = &lx->pend[h];
		struct sbuf body;
		bool done = false;
		sb_init(&body);
		while (lx->i < lx->len && !done) {
			/* A line ends at \n, \r\n or a bare \r: the delimiter matches whatever the
			 * ending, a body line keeps its own bytes (kaish's CR-tolerant rule). */
			const char *l = lx->s + lx->i;
			size_t n = 0, rest = lx->len - lx->i, eol = 0;
			while (n < rest && l[n] != '\n' && l[n] != '\r')
				n++;
			if (n < rest)
				eol = l[n] == '\r' && n + 1 < rest && l[n + 1] == '\n' ? 2 : 1;
			lx->i += n + eol;
			lx->line++;
			if (hd->strip)
				while (n && *l == '\t')
					l++, n--;
			if (n == strlen(hd->delim) && !memcmp(l, hd->delim, n)) {
				done = true;
				break;
			}
			sb_add(&body, l, n + eol);
			if (!eol)
				sb_addc(&body, '\n');
		}
		if (!done) {
			sb_free(&body);
			return lex_error(lx, "unterminated heredoc, expected", hd->delim, strlen(hd->delim));
		}
		struct token *t = &lx->out->t[hd->tok];
		free(t->text);
		t->text = sb_detach(&body);
		free(hd->delim);
		hd->delim = NULL;
	}
	lx->npend = 0;
	return 0;
}

static void lex_pend_free(struct lexer *lx)
{
	for (int h = 0; h < lx->npend; h++)
		free(lx->pend[h].delim);
	lx->npend = 0;
}

int lex_tokenize(const char *src, size_t len, int first_line, struct toklist *out, char **err)
{
	struct lexer lx = { .s = src, .len = len, .i = 0, .line = first_line, .out = out, .err = err,
			    .npend = 0 };
	out->t = NULL;
	out->n = out->cap = 0;
	while (lx.i < len) {
		const char *p = src + lx.i;
		char c = *p;
		bool cr_eol = c == '\r' && lx.npend && !(lx.i + 1 < len && p[1] == '\n');
		if (c == ' ' || c == '\t' || (c == '\r' && !cr_eol)) {
			lx.i++;
			continue;
		}
		if (c == '\\' && lx.i + 1 < len && p[1] == '\n') { /* line continuation */
			lx.i += 2;
			lx.line++;
			continue;
		}
		if (c == '#') {
			while (lx.i < len && src[lx.i] != '\n')
				lx.i++;
			continue;
		}
		/* A bare \r ends the line a heredoc starts on (a CR-only script). */
		if (c == '\n' || cr_eol) {
			if (push_tok(&lx, TOK_NEWLINE, 0, p, 1, lx.line) < 0)
				goto fail;
			lx.line++;
			lx.i++;
			if (lx.npend && lex_heredoc_bodies(&lx) < 0)
				goto fail;
			continue;
		}
		if (c == '<' && lx.i + 1 < len && p[1] == '<' && !(lx.i + 2 < len && p[2] == '<')) {
			if (lex_heredoc_start(&lx) < 0)
				goto fail;
			continue;
		}
		bool matched = false;
		for (size_t r = 0; r < sizeof(redirs) / sizeof(redirs[0]); r++) {
			size_t n = strlen(redirs[r].op);
			if (lx.i + n <= len && !memcmp(p, redirs[r].op, n)) {
				if (push_tok(&lx, TOK_REDIR, redirs[r].type, p, n, lx.line) < 0)
					goto fail;
				lx.i += n;
				matched = true;
				break;
			}
		}
		if (matched)
			continue;
		static const struct {
			const char *op;
			enum tok_type t;
		} ops[] = { { "&&", TOK_AND }, { "||", TOK_OR }, { ";;", TOK_DSEMI }, { ";", TOK_SEMI },
			    { "&", TOK_AMP },  { "|", TOK_PIPE }, { "(", TOK_LPAREN }, { ")", TOK_RPAREN } };
		for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
			size_t n = strlen(ops[o].op);
			if (lx.i + n <= len && !memcmp(p, ops[o].op, n)) {
				if (push_tok(&lx, ops[o].t, 0, p, n, lx.line) < 0)
					goto fail;
				lx.i += n;
				matched = true;
				break;
			}
		}
		if (matched)
			continue;
		if (lex_word(&lx) < 0)
			goto fail;
	}
	if (lx.npend) {
		lex_error(&lx, "unterminated heredoc, expected", lx.pend[0].delim,
			  strlen(lx.pend[0].delim));
		goto fail;
	}
	if (push_tok(&lx, TOK_EOF, 0, "", 0, lx.line) < 0)
		goto fail;
	return 0;
fail:
	lex_pend_free(&lx);
	lex_free(out);
	return -1;
}

void lex_free(struct toklist *tl)
{
	for (int i = 0; i < tl->n; i++)
		free(tl->t[i].text);
	free(tl->t);
	tl->t = NULL;
	tl->n = tl->cap = 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * parse.c - recursive-descent parser: tokens -> node tree.
 *
 * Each parse function carries its grammar production. Depth (compound nesting and $( ))
 * is bounded by KAISH_MAX_PARSE_DEPTH so a hostile script cannot exhaust the stack.
 * Errors: the first one wins, stored as "line N: msg near 'tok'"; functions return NULL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "util.h"

#define KAISH_MAX_PARSE_DEPTH 200 /* nesting of compound statements and $( ) */

struct parser {
	struct toklist tl;
	int pos;
	int depth;
	int braces; /* open `{ … }` bodies: there a `}` word also ends a command (kaish) */
	char *err; /* first error (malloc'd) */
};

static struct node *parse_list(struct parser *p, const char *const *stops);
static struct wpart *parse_parts(struct parser *p, const char *s, size_t len, int line,
				 bool in_dq);
static struct program *parse_src(const char *src, size_t len, int line, int depth, char **err);

/* --- errors and token access ---------------------------------------------------------------- */

static struct token *peek(struct parser *p)
{
	return &p->tl.t[p->pos];
}

static struct token *next(struct parser *p)
{
	struct token *t = &p->tl.t[p->pos];
	if (t->type != TOK_EOF)
		p->pos++;
	return t;
}

static void *parse_error(struct parser *p, const char *msg)
{
	if (!p->err) {
		struct token *t = peek(p);
		struct sbuf b;
		sb_init(&b);
		sb_printf(&b, "line %d: %s near '%s'", t->line, msg,
			  t->type == TOK_EOF ? "<end of input>" :
			  t->type == TOK_NEWLINE ? "\\n" : t->text);
		p->err = sb_detach(&b);
	}
	return NULL;
}

static bool is_kw(struct token *t, const char *kw)
{
	return t->type == TOK_WORD && !strcmp(t->text, kw);
}

static bool in_set(struct token *t, const char *const *set)
{
	for (; set && *set; set++)
		if (is_kw(t, *set))
			return true;
	return false;
}

static void skip_newlines(struct parser *p)
{
	while (peek(p)->type == TOK_NEWLINE)
		next(p);
}

static bool expect_kw(struct parser *p, const char *kw)
{
	skip_newlines(p);
	if (!is_kw(peek(p), kw)) {
		char msg[64];
		snprintf(msg, sizeof(msg), "expected '%s'", kw);
		parse_error(p, msg);
		return false;
	}
	next(p);
	return true;
}

static struct node *node_new(struct parser *p, enum node_type t, int line)
{
	struct node *n = calloc(1, sizeof(*n));
	if (!n)
		return parse_error(p, "out of memory");
	n->type = t;
	n->line = line;
	return n;
}

/*
 * Room for element n of a vector that holds n: grown like a Rust Vec (4, then doubling), so
 * the capacity is implied by n and needs no field. Growing by one element per push made a
 * 100,000-statement script copy 40 GB (realloc moves the block once glibc cannot extend it
 * in place, and always under ASan); kaish's parser pushes onto Vecs, so this also keeps the
 * allocation pattern kaish's.
 */
static bool vec_room_for(void **v, int n, size_t elem)
{
	size_t cap;
	void *nv;

	if (n > 0 && (n < 4 || (n & (n - 1))))
		return true; /* 1..3, or not a power of two: below the capacity */
	cap = n ? (size_t)n * 2 : 4;
	nv = realloc(*v, cap * elem);
	if (!nv)
		return false;
	*v = nv;
	return true;
}

static int add_kid(struct node *n, struct node *kid)
{
	if (!vec_room_for((void **)&n->kids, n->nkids, sizeof(*n->kids)))
		return -1;
	n->kids[n->nkids++] = kid;
	return 0;
}

static int add_word(struct node *n, struct word *w)
{
	if (!vec_room_for((void **)&n->words, n->nwords, sizeof(*n->words)))
		return -1;
	n->words[n->nwords++] = w;
	return 0;
}

/* --- freeing ---------------------------------------------------------------------------------- */

static void word_free(struct word *w);
static void node_free(struct node *n);

static void parts_free(struct wpart *wp)
{
	while (wp) {
		struct wpart *nx = wp->next;
		free(wp->text);
		word_free(wp->alt);
		word_free(wp->key);
		node_free(wp->sub);
		parts_free(wp->kids);
		free(wp);
		wp = nx;
	}
}

static void word_free(struct word *w)
{
	if (!w)
		return;
	parts_free(w->parts);
	free(w->raw);
	free(w);
}

static void node_free_one(struct node *n);

static void node_free(struct node *n)
{
	/* A long && / || chain (left-deep: the chain continues in a) or elif chain (in c) is a
	 * deep tree: walk that spine in a loop, so 100 000 operands never recurse 100 000 deep. */
	while (n) {
		struct node *spine = NULL;
		if (n->type == N_AND || n->type == N_OR) {
			spine = n->a;
			n->a = NULL;
		} else if (n->type == N_IF) {
			spine = n->c;
			n->c = NULL;
		}
		node_free_one(n);
		n = spine;
	}
}

static void node_free_one(struct node *n)
{
	node_free(n->a);
	node_free(n->b);
	node_free(n->c);
	for (int i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	for (int i = 0; i < n->nwords; i++)
		word_free(n->words[i]);
	free(n->words);
	for (struct assign *a = n->assigns, *nx; a; a = nx) {
		nx = a->next;
		free(a->name);
		word_free(a->value);
		free(a);
	}
	for (struct redir *r = n->redirs, *nx; r; r = nx) {
		nx = r->next;
		word_free(r->target);
		free(r);
	}
	for (struct case_arm *c = n->arms, *nx; c; c = nx) {
		nx = c->next;
		for (int i = 0; i < c->npats; i++)
			word_free(c->pats[i]);
		free(c->pats);
		node_free(c->body);
		free(c);
	}
	free(n->name);
	free(n);
}

/* --- words ------------------------------------------------------------------------------------ */

static struct wpart *part_new(struct parser *p, enum wpart_type t, const char *text, size_t n)
{
	struct wpart *wp = calloc(1, sizeof(*wp));
	if (!wp)
		return parse_error(p, "out of memory");
	wp->type = t;
	if (text && !(wp->text = kstrndup(text, n))) {
		free(wp);
		return parse_error(p, "out of memory");
	}
	return wp;
}

static struct word *word_from(struct parser *p, const char *s, size_t len, int line, bool in_dq)
{
	struct word *w = calloc(1, sizeof(*w));
	if (!w)
		return parse_error(p, "out of memory");
	w->line = line;
	w->raw = kstrndup(s, len);
	w->parts = parse_parts(p, s, len, line, in_dq);
	if (p->err || !w->raw) {
		word_free(w);
		return parse_error(p, "out of memory");
	}
	return w;
}

/*
 * dollar := '$(' program ')' | '$((' arith '))'
 *         | '${' ['#'] NAME ['[' key ']'] [':-' word] '}'
 *         | '$' (NAME | DIGIT | '?' | '#' | '@' | '*' | '$')
 * Returns the part and stores the consumed length in *used (0 = a literal '$').
 */
static struct wpart *parse_dollar(struct parser *p, const char *s, size_t len, int line,
				  size_t *used)
{
	*used = 0;
	if (len >= 2 && s[1] == '(') {
		long e = lex_match(s, len, 1, '(', ')');
		if (e < 0)
			return parse_error(p, "unterminated command substitution, expected ')'");
		if (len >= 3 && s[2] == '(' && e >= 3 && s[e - 1] == ')') {
			/* The expression is itself expanded first ($x, $( ), nested $(( ))), like
			 * the inside of "...", then evaluated. */
			struct wpart *wp = part_new(p, W_ARITH, s + 3, (size_t)e - 4);
			if (!wp)
				return NULL;
			wp->kids = parse_parts(p, s + 3, (size_t)e - 4, line, true);
			if (p->err) {
				parts_free(wp);
				return NULL;
			}
			*used = (size_t)e + 1;
			return wp;
		}
		if (p->depth >= KAISH_MAX_PARSE_DEPTH)
			return parse_error(p, "nesting too deep");
		struct wpart *wp = part_new(p, W_SUBST, NULL, 0);
		if (!wp)
			return NULL;
		char *err = NULL;
		struct program *sub = parse_src(s + 2, (size_t)e - 2, line, p->depth + 1, &err);
		if (!sub) {
			if (!p->err)
				p->err = err;
			else
				free(err);
			free(wp);
			return NULL;
		}
		wp->sub = sub->root; /* the program wrapper is not needed inside a word */
		free(sub);
		*used = (size_t)e + 1;
		return wp;
	}
	if (len >= 2 && s[1] == '{') {
		long e = lex_match(s, len, 1, '{', '}');
		if (e < 0)
			return parse_error(p, "unterminated parameter expansion, expected '}'");
		const char *in = s + 2;
		size_t n = (size_t)e - 2;
		struct wpart *wp = part_new(p, W_VAR, NULL, 0);
		if (!wp)
			return NULL;
		*used = (size_t)e + 1;
		if (n > 1 && in[0] == '#') {
			wp->op = V_LENGTH;
			in++;
			n--;
		}
		size_t nl = 0;
		while (nl < n && in[nl] != ':' && in[nl] != '}' && in[nl] != '[')
			nl++;
		bool special = nl == 1 && strchr("?#@*$", in[0]);
		bool digits = nl > 0 && strspn(in, "0123456789") >= nl;
		if (!(is_name(in, nl) || special || digits)) {
			free(wp);
			return parse_error(p, "bad substitution");
		}
		wp->text = kstrndup(in, nl);
		if (nl < n && in[nl] == '[') {
			/* ${NAME[key]}: the key is a word of its own ($i allowed), up to ']' */
			const char *close = memchr(in + nl, ']', n - nl);
			if (!close || close == in + nl + 1 || !is_name(in, nl)) {
				parts_free(wp);
				return parse_error(p, "bad substitution");
			}
			size_t kl = (size_t)(close - in - nl - 1);
			wp->key = word_from(p, in + nl + 1, kl, line, true);
			if (!wp->key) {
				parts_free(wp);
				return NULL;
			}
			size_t skip = (size_t)(close - in) + 1 - nl;
			in += skip;
			n -= skip;
		}
		if (nl < n) {
			if (wp->op != V_LENGTH && in[nl] == ':' && nl + 1 < n && in[nl + 1] != '-') {
				/* bash's ${V:off:len}: name kaish's slice ${V[a:b]} instead */
				char hint[128];
				long off = strtol(in + nl + 1, NULL, 10);
				const char *c2 = memchr(in + nl + 1, ':', n - nl - 1);
				long cnt = c2 ? strtol(c2 + 1, NULL, 10) : 0;
				if (c2)
					snprintf(hint, sizeof(hint), "bash substring ${%s:...} is not kaish: "
						 "write ${%s[%ld:%ld]}", wp->text, wp->text, off,
						 off + cnt);
				else
					snprintf(hint, sizeof(hint), "bash substring ${%s:...} is not kaish: "
						 "write ${%s[%ld:]}", wp->text, wp->text, off);
				parts_free(wp);
				return parse_error(p, hint);
			}
			if (wp->op == V_LENGTH || n < nl + 2 || in[nl + 1] != '-') {
				parts_free(wp);
				return parse_error(p, "unsupported ${...} operator");
			}
			wp->op = V_DEFAULT;
			wp->alt = word_from(p, in + nl + 2, n - nl - 2, line, false);
			if (!wp->alt) {
				parts_free(wp);
				return NULL;
			}
		}
		return wp;
	}
	size_t nl = 0;
	if (len >= 2 && strchr("?#@*$", s[1])) {
		nl = 1;
	} else if (len >= 2 && s[1] >= '0' && s[1] <= '9') {
		nl = 1;
	} else {
		while (1 + nl < len && is_name(s + 1, nl + 1))
			nl++;
	}
	if (nl == 0)
		return NULL; /* a lone '$' is literal */
	struct wpart *wp = part_new(p, W_VAR, s + 1, nl);
	*used = nl + 1;
	return wp;
}

/*
 * word  := (literal | '\' CHAR | "'" TEXT "'" | '"' dqpart* '"' | dollar)+
 * dqpart:= TEXT | '\' ('$'|'"'|'\') | dollar
 */
static struct wpart *parse_parts(struct parser *p, const char *s, size_t len, int line, bool in_dq)
{
	struct wpart *head = NULL, **tail = &head;
	struct sbuf lit;
	bool lit_quoted = false;
	sb_init(&lit);

/* Flush the pending literal as its own part (quoted-ness must not mix within a part). */
#define FLUSH()                                                                  \
	do {                                                                     \
		if (lit.len) {                                                   \
			struct wpart *lp = part_new(p, W_LIT, lit.s, lit.len);   \
			if (!lp)                                                 \
				goto fail;                                       \
			lp->quoted = lit_quoted;                                 \
			*tail = lp;                                              \
			tail = &lp->next;                                        \
			lit.len = 0;                                             \
		}                                                                \
	} while (0)
#define LIT(c, q)                                \
	do {                                     \
		if (lit.len && lit_quoted != (q)) \
			FLUSH();                 \
		lit_quoted = (q);                \
		sb_addc(&lit, (c));              \
	} while (0)

	for (size_t i = 0; i < len;) {
		char c = s[i];
		if (c == '\\' && i + 1 < len) {
			char d = s[i + 1];
			if (d == '\n') { /* continuation */
				i += 2;
				continue;
			}
			if (in_dq && !strchr("$\"\\`", d)) {
				LIT('\\', true);
				i++;
				continue;
			}
			LIT(d, true);
			i += 2;
		} else if (c == '\'' && !in_dq) {
			size_t j = i + 1;
			while (j < len && s[j] != '\'')
				j++;
			if (j == i + 1) { /* '' is an empty quoted literal */
				FLUSH();
				struct wpart *lp = part_new(p, W_LIT, "", 0);
				if (!lp)
					goto fail;
				lp->quoted = true;
				*tail = lp;
				tail = &lp->next;
			}
			for (size_t k = i + 1; k < j; k++)
				LIT(s[k], true);
			i = j + 1;
		} else if (c == '"' && !in_dq) {
			long e = -1;
			for (size_t j = i + 1; j < len; j++) {
				if (s[j] == '\\') {
					j++;
				} else if (s[j] == '$' && j + 1 < len && (s[j + 1] == '(' || s[j + 1] == '{')) {
					long m = lex_match(s, len, j + 1, s[j + 1], s[j + 1] == '(' ? ')' : '}');
					if (m < 0)
						break;
					j = (size_t)m;
				} else if (s[j] == '"') {
					e = (long)j;
					break;
				}
			}
			if (e < 0) {
				parse_error(p, "unterminated quote");
				goto fail;
			}
			FLUSH();
			struct wpart *dq = part_new(p, W_DQ, NULL, 0);
			if (!dq)
				goto fail;
			dq->quoted = true;
			*tail = dq;
			tail = &dq->next;
			dq->kids = parse_parts(p, s + i + 1, (size_t)e - i - 1, line, true);
			if (p->err)
				goto fail;
			i = (size_t)e + 1;
		} else if (c == '$') {
			size_t used;
			FLUSH();
			struct wpart *vp = parse_dollar(p, s + i, len - i, line, &used);
			if (p->err)
				goto fail;
			if (!vp) {
				LIT('$', in_dq);
				i++;
				continue;
			}
			vp->quoted = in_dq;
			*tail = vp;
			tail = &vp->next;
			i += used;
		} else {
			LIT(c, in_dq);
			i++;
		}
	}
	FLUSH();
	sb_free(&lit);
	return head;
fail:
	sb_free(&lit);
	parts_free(head);
	return NULL;
#undef FLUSH
#undef LIT
}

char *word_literal(const struct word *w)
{
	struct sbuf b;
	sb_init(&b);
	for (struct wpart *wp = w->parts; wp; wp = wp->next) {
		if (wp->type == W_LIT) {
			sb_adds(&b, wp->text);
		} else if (wp->type == W_DQ) {
			for (struct wpart *k = wp->kids; k; k = k->next) {
				if (k->type != W_LIT) {
					sb_free(&b);
					return NULL;
				}
				sb_adds(&b, k->text);
			}
		} else {
			sb_free(&b);
			return NULL;
		}
	}
	return sb_detach(&b);
}

/* --- statements ------------------------------------------------------------------------------- */

static bool is_expansion(const struct wpart *wp)
{
	return !wp->quoted && (wp->type == W_VAR || wp->type == W_SUBST || wp->type == W_ARITH);
}

/*
 * Token pasting (§2.1): unquoted text glued to an unquoted expansion ($d/f, x$y, ${a}b)
 * is a parse error in kaish; "$d/f" is the way to write it. A leading NAME= or --name=
 * is not pasting: kaish parses those as an assignment or a named argument whose value
 * is the expansion.
 */
static bool pasted(const struct word *w)
{
	const struct wpart *wp = w->parts;
	if (wp && wp->type == W_LIT && !wp->quoted) {
		const char *t = wp->text + strspn(wp->text, "-");
		const char *eq = strchr(t, '=');
		if (eq && !eq[1] && eq > t && (t == wp->text ? is_name(t, (size_t)(eq - t)) :
						   t - wp->text <= 2))
			wp = wp->next; /* the value after NAME= / --name= */
	}
	for (; wp && wp->next; wp = wp->next) {
		const struct wpart *nx = wp->next;
		bool lit = wp->type == W_LIT && !wp->quoted;
		bool nlit = nx->type == W_LIT && !nx->quoted;
		if ((lit && is_expansion(nx)) || (is_expansion(wp) && nlit))
			return true;
	}
	return false;
}

/* A '#' right after a closing quote ("abc"#3, 'abc'#3): kaish opens a comment only at the
 * start of a word, and a quoted string cannot hold a glued '#', so it is an error there,
 * never a silent comment nor a joined word. */
static const char hash_quote_msg[] =
	"'#' opens a comment only at the start of a word; quote the whole word to keep '#' "
	"inside it (\"abc#3\"), or put a space before '#' to start a comment";

static bool hash_after_quote(const char *s)
{
	char q = 0;
	for (const char *c = s; *c; c++) {
		if (q) {
			if (*c == '\\' && q == '"' && c[1]) {
				c++;
			} else if (*c == q) {
				q = 0;
				if (c[1] == '#')
					return true;
			}
		} else if (*c == '\\' && c[1]) {
			c++;
		} else if (*c == '"' || *c == '\'') {
			q = *c;
		}
	}
	return false;
}

static struct word *parse_word_tok(struct parser *p)
{
	struct token *t = peek(p);
	if (hash_after_quote(t->text))
		return parse_error(p, hash_quote_msg);
	struct word *w = word_from(p, t->text, strlen(t->text), t->line, false);
	if (w && pasted(w)) {
		/* A '#' glued after an expansion is kaish's mid-word '#' error: a comment
		 * starts only at the start of a word. */
		const char *h = strchr(t->text, '#');
		char msg[160];
		if (h && memchr(t->text, '$', (size_t)(h - t->text)) && strlen(t->text) < 80)
			snprintf(msg, sizeof(msg), "'#' opens a comment only at the start of a word; "
				 "quote the word (\"%s\")", t->text);
		else
			snprintf(msg, sizeof(msg), "token pasting: text glued to an expansion, quote "
				 "the word (\"$d/f\")");
		word_free(w);
		return parse_error(p, msg);
	}
	next(p);
	return w;
}

static bool enter(struct parser *p)
{
	if (++p->depth > KAISH_MAX_PARSE_DEPTH) {
		parse_error(p, "nesting too deep");
		return false;
	}
	return true;
}

/* redirect := REDIR [word]   (2>&1 and 1>&2 take no word) */
static int parse_redirect(struct parser *p, struct node *n)
{
	struct token *t = next(p);
	struct redir *r = calloc(1, sizeof(*r));
	if (!r) {
		parse_error(p, "out of memory");
		return -1;
	}
	r->type = (enum redir_type)t->redir;
	struct redir **tail = &n->redirs;
	while (*tail)
		tail = &(*tail)->next;
	*tail = r;
	if (r->type == R_ERR2OUT || r->type == R_OUT2ERR)
		return 0;
	if (r->type == R_HEREDOC || r->type == R_HEREDOC_LIT) {
		/* The body is the target: literal, or interpolated like "..." */
		r->target = calloc(1, sizeof(*r->target));
		if (!r->target || !(r->target->raw = strdup("<<heredoc"))) {
			parse_error(p, "out of memory");
			return -1;
		}
		r->target->line = t->line;
		if (r->type == R_HEREDOC_LIT) {
			r->target->parts = part_new(p, W_LIT, t->text, strlen(t->text));
			if (r->target->parts)
				r->target->parts->quoted = true;
		} else if (*t->text) {
			r->target->parts = parse_parts(p, t->text, strlen(t->text), t->line, true);
		}
		return p->err ? -1 : 0;
	}
	if (peek(p)->type != TOK_WORD) {
		parse_error(p, "expected a file name after redirect");
		return -1;
	}
	r->target = parse_word_tok(p);
	return r->target ? 0 : -1;
}

static int parse_redirects(struct parser *p, struct node *n)
{
	while (peek(p)->type == TOK_REDIR)
		if (parse_redirect(p, n) < 0)
			return -1;
	return 0;
}

/* An unquoted NAME=... word at the start of a simple command. */
static bool is_assignment(const char *raw)
{
	const char *eq = strchr(raw, '=');
	return eq && is_name(raw, (size_t)(eq - raw));
}

/* simple := assignment* (word | redirect)* ; at least one of them */
static struct node *parse_simple(struct parser *p)
{
	struct node *n = node_new(p, N_CMD, peek(p)->line);
	if (!n)
		return NULL;
	struct assign **atail = &n->assigns;
	while (peek(p)->type == TOK_WORD && n->nwords == 0 && is_assignment(peek(p)->text)) {
		if (hash_after_quote(peek(p)->text)) {
			parse_error(p, hash_quote_msg);
			goto fail;
		}
		struct token *t = next(p);
		const char *eq = strchr(t->text, '=');
		struct assign *a = calloc(1, sizeof(*a));
		if (!a)
			goto oom;
		*atail = a;
		atail = &a->next;
		a->name = kstrndup(t->text, (size_t)(eq - t->text));
		a->value = word_from(p, eq + 1, strlen(eq + 1), t->line, false);
		if (!a->name || !a->value)
			goto fail;
	}
	for (;;) {
		struct token *t = peek(p);
		if (t->type == TOK_WORD && p->braces > 0 && (n->nwords || n->assigns) &&
		    !strcmp(t->text, "}")) {
			break; /* `{ echo a }`: kaish needs no `;` before the closing brace */
		} else if (t->type == TOK_WORD) {
			struct word *w = parse_word_tok(p);
			if (!w)
				goto fail;
			if (add_word(n, w) < 0) {
				node_free(n);
				return parse_error(p, "out of memory");
			}
		} else if (t->type == TOK_REDIR) {
			if (parse_redirect(p, n) < 0)
				goto fail;
		} else {
			break;
		}
	}
	if (!n->nwords && !n->assigns && !n->redirs) {
		node_free(n);
		return parse_error(p, "expected a command");
	}
	return n;
oom:
	parse_error(p, "out of memory");
fail:
	node_free(n);
	return NULL;
}

/* if := 'if' list 'then' list ('elif' list 'then' list)* ['else' list] 'fi' */
static struct node *parse_if(struct parser *p)
{
	static const char *const stop_then[] = { "then", NULL };
	static const char *const stop_else[] = { "fi", "elif", "else", NULL };
	static const char *const stop_fi[] = { "fi", NULL };
	struct node *n = node_new(p, N_IF, next(p)->line);
	if (!n)
		return NULL;
	/* Each elif is one more N_IF in the c of the previous one, built in a loop: a script
	 * with 100 000 elif branches must not recurse 100 000 deep. */
	struct node *cur = n;
	for (;;) {
		if (!(cur->a = parse_list(p, stop_then)) || !expect_kw(p, "then") ||
		    !(cur->b = parse_list(p, stop_else)))
			goto fail;
		if (!is_kw(peek(p), "elif"))
			break;
		if (!(cur->c = node_new(p, N_IF, next(p)->line)))
			goto fail;
		cur = cur->c;
	}
	if (is_kw(peek(p), "else")) {
		next(p);
		if (!(cur->c = parse_list(p, stop_fi)))
			goto fail;
	}
	if (!expect_kw(p, "fi"))
		goto fail;
	return n;
fail:
	node_free(n);
	return NULL;
}

/* for := 'for' NAME 'in' word* (';' | NEWLINE) 'do' list 'done' */
static struct node *parse_for(struct parser *p)
{
	static const char *const stop_done[] = { "done", NULL };
	struct node *n = node_new(p, N_FOR, next(p)->line);
	if (!n)
		return NULL;
	struct token *t = peek(p);
	if (t->type != TOK_WORD || !is_name(t->text, strlen(t->text))) {
		parse_error(p, "expected a variable name after 'for'");
		goto fail;
	}
	n->name = strdup(next(p)->text);
	if (!is_kw(peek(p), "in")) {
		parse_error(p, "expected 'in'");
		goto fail;
	}
	next(p);
	while (peek(p)->type == TOK_WORD) {
		struct word *w = parse_word_tok(p);
		if (!w || add_word(n, w) < 0) {
			parse_error(p, "out of memory");
			goto fail;
		}
	}
	if (peek(p)->type != TOK_SEMI && peek(p)->type != TOK_NEWLINE) {
		parse_error(p, "expected ';' or newline before 'do'");
		goto fail;
	}
	next(p);
	if (!expect_kw(p, "do") || !(n->a = parse_list(p, stop_done)) || !expect_kw(p, "done"))
		goto fail;
	return n;
fail:
	node_free(n);
	return NULL;
}

/* while := 'while' list 'do' list 'done' */
static struct node *parse_while(struct parser *p)
{
	static const char *const stop_do[] = { "do", NULL };
	static const char *const stop_done[] = { "done", NULL };
	struct node *n = node_new(p, N_WHILE, next(p)->line);
	if (!n)
		return NULL;
	if (!(n->a = parse_list(p, stop_do)) || !expect_kw(p, "do") ||
	    !(n->b = parse_list(p, stop_done)) || !expect_kw(p, "done")) {
		node_free(n);
		return NULL;
	}
	return n;
}

/* case := 'case' word 'in' (['('] word ('|' word)* ')' list [';;'])* 'esac' */
static struct node *parse_case(struct parser *p)
{
	static const char *const stop_arm[] = { "esac", NULL };
	struct node *n = node_new(p, N_CASE, next(p)->line);
	struct word *w;
	if (!n)
		return NULL;
	if (peek(p)->type != TOK_WORD) {
		parse_error(p, "expected a word after 'case'");
		goto fail;
	}
	if (!(w = parse_word_tok(p)) || add_word(n, w) < 0)
		goto fail;
	if (!expect_kw(p, "in"))
		goto fail;
	struct case_arm **tail = &n->arms;
	for (;;) {
		skip_newlines(p);
		if (is_kw(peek(p), "esac")) {
			next(p);
			return n;
		}
		struct case_arm *arm = calloc(1, sizeof(*arm));
		if (!arm) {
			parse_error(p, "out of memory");
			goto fail;
		}
		*tail = arm;
		tail = &arm->next;
		if (peek(p)->type == TOK_LPAREN)
			next(p);
		for (;;) {
			if (peek(p)->type != TOK_WORD) {
				parse_error(p, "expected a case pattern");
				goto fail;
			}
			struct word **v = realloc(arm->pats, (size_t)(arm->npats + 1) * sizeof(*v));
			if (!v) {
				parse_error(p, "out of memory");
				goto fail;
			}
			arm->pats = v;
			if (!(arm->pats[arm->npats] = parse_word_tok(p)))
				goto fail;
			arm->npats++;
			if (peek(p)->type != TOK_PIPE)
				break;
			next(p);
		}
		if (peek(p)->type != TOK_RPAREN) {
			parse_error(p, "expected ')' after case pattern");
			goto fail;
		}
		next(p);
		if (!(arm->body = parse_list(p, stop_arm)))
			goto fail;
		if (peek(p)->type == TOK_DSEMI)
			next(p);
		else if (!is_kw(peek(p), "esac")) {
			parse_error(p, "expected ';;' or 'esac'");
			goto fail;
		}
	}
fail:
	node_free(n);
	return NULL;
}

/* brace := '{' list '}' */
static struct node *parse_brace(struct parser *p)
{
	static const char *const stop_brace[] = { "}", NULL };
	struct node *n = node_new(p, N_BRACE, next(p)->line);
	if (!n)
		return NULL;
	p->braces++;
	n->a = parse_list(p, stop_brace);
	p->braces--;
	if (!n->a || !expect_kw(p, "}")) {
		node_free(n);
		return NULL;
	}
	return n;
}

/* test := '[[' (word | operator)* ']]'   operators inside are kept as literal words */
static struct node *parse_test(struct parser *p)
{
	struct node *n = node_new(p, N_TEST, next(p)->line);
	if (!n)
		return NULL;
	for (;;) {
		struct token *t = peek(p);
		if (is_kw(t, "]]")) {
			next(p);
			return n;
		}
		if (t->type == TOK_EOF || t->type == TOK_NEWLINE || t->type == TOK_SEMI) {
			parse_error(p, "expected ']]'");
			break;
		}
		struct word *w;
		if (t->type == TOK_WORD) {
			w = parse_word_tok(p);
		} else { /* && || ( ) < > ! become plain operator words */
			next(p);
			w = calloc(1, sizeof(*w));
			if (w) {
				w->line = t->line;
				w->raw = strdup(t->text);
				w->parts = part_new(p, W_LIT, t->text, strlen(t->text));
			}
		}
		if (!w || add_word(n, w) < 0) {
			parse_error(p, "out of memory");
			break;
		}
	}
	node_free(n);
	return NULL;
}

/* funcdef := NAME '(' ')' brace | 'function' NAME ['(' ')'] brace */
static struct node *parse_func(struct parser *p, bool keyword)
{
	int line = peek(p)->line;
	if (keyword)
		next(p);
	struct token *t = peek(p);
	if (t->type != TOK_WORD || !is_name(t->text, strlen(t->text)))
		return parse_error(p, "expected a function name");
	struct node *n = node_new(p, N_FUNC, line);
	if (!n)
		return NULL;
	n->name = strdup(next(p)->text);
	if (peek(p)->type == TOK_LPAREN) {
		next(p);
		if (peek(p)->type != TOK_RPAREN) {
			parse_error(p, "expected ')'");
			goto fail;
		}
		next(p);
	}
	skip_newlines(p);
	if (!is_kw(peek(p), "{")) {
		parse_error(p, "expected '{' to start the function body");
		goto fail;
	}
	if (!(n->a = parse_brace(p)))
		goto fail;
	return n;
fail:
	node_free(n);
	return NULL;
}

/* command := if | for | while | case | brace | test | funcdef | simple ; compounds take
 * trailing redirects */
static struct node *parse_command(struct parser *p)
{
	/* Words that only close or continue a compound: never a command name. */
	static const char *const reserved[] = { "then", "elif", "else", "fi", "do", "done",
						"esac", "}", "]]", NULL };
	struct token *t = peek(p);
	struct node *n = NULL;
	if (!enter(p))
		return NULL;
	if (is_kw(t, "if"))
		n = parse_if(p);
	else if (is_kw(t, "for"))
		n = parse_for(p);
	else if (is_kw(t, "while"))
		n = parse_while(p);
	else if (is_kw(t, "until"))
		n = parse_error(p, "'until' is not supported, use 'while !'");
	else if (is_kw(t, "case"))
		n = parse_case(p);
	else if (is_kw(t, "{"))
		n = parse_brace(p);
	else if (is_kw(t, "[["))
		n = parse_test(p);
	else if (is_kw(t, "function"))
		n = parse_func(p, true);
	else if (t->type == TOK_WORD && p->tl.t[p->pos + 1].type == TOK_LPAREN)
		n = parse_func(p, false);
	else if (in_set(t, reserved))
		n = parse_error(p, "unexpected keyword"); /* kaish lexes these as keyword tokens */
	else if (t->type == TOK_WORD || t->type == TOK_REDIR) {
		p->depth--;
		return parse_simple(p);
	} else
		n = parse_error(p, "expected a command");
	p->depth--;
	if (n && n->type != N_FUNC && parse_redirects(p, n) < 0) {
		node_free(n);
		return NULL;
	}
	return n;
}

/* pipeline := ['!'] command ('|' NEWLINE* command)* */
static struct node *parse_pipeline(struct parser *p)
{
	bool negate = false;
	int line = peek(p)->line;
	if (is_kw(peek(p), "!")) {
		next(p);
		negate = true;
	}
	struct node *first = parse_command(p);
	if (!first)
		return NULL;
	struct node *res = first;
	if (peek(p)->type == TOK_PIPE) {
		res = node_new(p, N_PIPE, line);
		if (!res || add_kid(res, first) < 0) {
			node_free(first);
			node_free(res);
			return parse_error(p, "out of memory");
		}
		while (peek(p)->type == TOK_PIPE) {
			next(p);
			skip_newlines(p);
			struct node *c = parse_command(p);
			if (!c || add_kid(res, c) < 0) {
				node_free(c);
				node_free(res);
				return parse_error(p, "out of memory");
			}
		}
	}
	if (negate) {
		struct node *nn = node_new(p, N_NOT, line);
		if (!nn) {
			node_free(res);
			return NULL;
		}
		nn->a = res;
		res = nn;
	}
	return res;
}

/* andor := pipeline (('&&' | '||') NEWLINE* pipeline)* (left-associative) */
static struct node *parse_andor(struct parser *p)
{
	struct node *left = parse_pipeline(p);
	while (left && (peek(p)->type == TOK_AND || peek(p)->type == TOK_OR)) {
		struct token *op = next(p);
		skip_newlines(p);
		struct node *right = parse_pipeline(p);
		struct node *n = right ? node_new(p, op->type == TOK_AND ? N_AND : N_OR, op->line) : NULL;
		if (!n) {
			node_free(left);
			node_free(right);
			return NULL;
		}
		n->a = left;
		n->b = right;
		left = n;
	}
	return left;
}

/*
 * list := NEWLINE* (andor (sep NEWLINE*)+)* [andor]   sep := ';' | '&' | NEWLINE
 * Stops before a keyword in stops, '}' handled by stops, ')' , ';;' or end of input.
 * '&' runs synchronously (background jobs are not supported in this kernel).
 */
static struct node *parse_list(struct parser *p, const char *const *stops)
{
	struct node *n = node_new(p, N_LIST, peek(p)->line);
	if (!n)
		return NULL;
	for (;;) {
		while (peek(p)->type == TOK_NEWLINE || peek(p)->type == TOK_SEMI)
			next(p);
		struct token *t = peek(p);
		if (t->type == TOK_EOF || t->type == TOK_RPAREN || t->type == TOK_DSEMI ||
		    in_set(t, stops))
			break;
		struct node *s = parse_andor(p);
		if (!s || add_kid(n, s) < 0) {
			node_free(s);
			node_free(n);
			return parse_error(p, "out of memory");
		}
		t = peek(p);
		if (t->type == TOK_SEMI || t->type == TOK_NEWLINE || t->type == TOK_AMP) {
			next(p);
			continue;
		}
		if (t->type == TOK_EOF || t->type == TOK_RPAREN || t->type == TOK_DSEMI ||
		    in_set(t, stops))
			break;
		node_free(n);
		return parse_error(p, "unexpected token");
	}
	if (stops && peek(p)->type == TOK_EOF) {
		node_free(n);
		char msg[64];
		snprintf(msg, sizeof(msg), "unexpected end of input, expected '%s'", stops[0]);
		return parse_error(p, msg);
	}
	return n;
}

/* program := list EOF */
static struct program *parse_src(const char *src, size_t len, int line, int depth, char **err)
{
	struct parser p = { .pos = 0, .depth = depth, .err = NULL };
	*err = NULL;
	if (lex_tokenize(src, len, line, &p.tl, err) < 0)
		return NULL;
	struct node *root = parse_list(&p, NULL);
	if (root && peek(&p)->type != TOK_EOF) {
		parse_error(&p, "unexpected token");
		node_free(root);
		root = NULL;
	}
	lex_free(&p.tl);
	if (!root) {
		*err = p.err ? p.err : strdup("parse error");
		return NULL;
	}
	free(p.err);
	struct program *prog = calloc(1, sizeof(*prog));
	if (!prog) {
		node_free(root);
		*err = strdup("out of memory");
		return NULL;
	}
	prog->refs = 1;
	prog->root = root;
	return prog;
}

struct program *parse_program(const char *src, char **err)
{
	return parse_src(src, strlen(src), 1, 0, err);
}

void program_ref(struct program *p)
{
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
}

void program_unref(struct program *p)
{
	if (p && __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		node_free(p->root);
		free(p);
	}
}

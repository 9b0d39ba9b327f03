/* SPDX-License-Identifier: MIT */
/*
 * lex.h - the lexer: script text -> tokens. Words stay raw (quotes and $( ) included);
 * the parser splits them into parts.
 */
#ifndef KAISH_LEX_H
#define KAISH_LEX_H

#include <stddef.h>

enum tok_type {
	TOK_EOF,
	TOK_WORD,    /* raw word text, quotes included; parse_ splits it into parts */
	TOK_NEWLINE,
	TOK_SEMI,    /* ; */
	TOK_DSEMI,   /* ;; */
	TOK_AMP,     /* & */
	TOK_AND,     /* && */
	TOK_OR,	     /* || */
	TOK_PIPE,    /* | */
	TOK_LPAREN,  /* ( */
	TOK_RPAREN,  /* ) */
	TOK_REDIR,   /* see enum redir_type in tok.redir */
};

enum redir_type {
	R_IN,	     /* < */
	R_OUT,	     /* > */
	R_APPEND,    /* >> */
	R_ERR,	     /* 2> */
	R_ERR_APPEND,/* 2>> */
	R_BOTH,	     /* &> */
	R_ERR2OUT,   /* 2>&1 */
	R_OUT2ERR,   /* 1>&2, >&2 */
	R_HERESTR,   /* <<< */
	R_HEREDOC,   /* <<EOF: token text is the body, interpolated like "..." */
	R_HEREDOC_LIT, /* <<'EOF': body taken literally */
};

struct token {
	enum tok_type type;
	int redir;  /* enum redir_type for TOK_REDIR */
	int line;   /* 1-based */
	char *text; /* raw text (malloc'd) */
};

struct toklist {
	struct token *t;
	int n;
	int cap;
};

/* Tokenize src. On error returns -1 with *err = "line N: msg near 'tok'" (malloc'd). */
int lex_tokenize(const char *src, size_t len, int first_line, struct toklist *out, char **err);
void lex_free(struct toklist *tl);
/* Find the end of a balanced construct starting at s[i] == open ('(' or '{'). Returns the
 * index of the closing char, -1 if unterminated or -2 if nested too deep. Quotes are
 * honoured, and so is a `case` inside $( ): its patterns' ')' close nothing. */
long lex_match(const char *s, size_t len, size_t i, char open, char close);

#endif /* KAISH_LEX_H */

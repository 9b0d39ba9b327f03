/* SPDX-License-Identifier: MIT */
/*
 * parse.h - the parser and the node tree (AST) it builds: tokens -> words with parts ->
 * nodes. Every later phase (validate, exec, expand) walks this tree.
 */
#ifndef KAISH_PARSE_H
#define KAISH_PARSE_H

#include <stdbool.h>

#include "lex.h" /* enum redir_type */

enum wpart_type {
	W_LIT,	 /* literal text; quoted parts are never globbed or keyword-matched */
	W_VAR,	 /* $NAME ${NAME} ${NAME[key]} ${NAME:-alt} ${#NAME} $? $# $@ $1 */
	W_SUBST, /* $( program ) */
	W_DQ,	 /* "..." : kids interpolated, one field */
	W_ARITH, /* $(( expr )) : text is the expression, expanded then evaluated */
};

enum var_op { V_PLAIN, V_DEFAULT, V_LENGTH };

struct node;

struct wpart {
	enum wpart_type type;
	bool quoted;	    /* came from quotes or a backslash: literal, no glob */
	char *text;	    /* W_LIT text, W_VAR name, W_ARITH expression */
	enum var_op op;	    /* W_VAR */
	struct word *alt;   /* W_VAR V_DEFAULT: the default word */
	struct word *key;   /* W_VAR ${NAME[key]}: the subscript, or NULL */
	struct node *sub;   /* W_SUBST: the parsed program */
	struct wpart *kids; /* W_DQ */
	struct wpart *next;
};

struct word {
	struct wpart *parts;
	char *raw; /* source text, for messages */
	int line;
};

struct redir {
	enum redir_type type;
	struct word *target; /* NULL for 2>&1 and 1>&2 */
	struct redir *next;
};

struct assign {
	char *name;
	struct word *value;
	struct assign *next;
};

struct case_arm {
	struct word **pats;
	int npats;
	struct node *body;
	struct case_arm *next;
};

enum node_type {
	N_LIST,	 /* kids: statements in order */
	N_CMD,	 /* assigns + words + redirs */
	N_PIPE,	 /* kids: stages (>= 2) */
	N_AND,	 /* a && b */
	N_OR,	 /* a || b */
	N_NOT,	 /* ! a */
	N_IF,	 /* if a then b else c (c may be another N_IF for elif) */
	N_FOR,	 /* for name in words; do a */
	N_WHILE, /* while a; do b */
	N_CASE,	 /* case words[0] in arms */
	N_FUNC,	 /* name() { a } */
	N_BRACE, /* { a } */
	N_TEST,	 /* [[ words ]] */
};

struct node {
	enum node_type type;
	int line;
	struct node *a, *b, *c;
	struct node **kids;
	int nkids;
	struct word **words;
	int nwords;
	struct assign *assigns;
	struct redir *redirs;
	struct case_arm *arms;
	char *name; /* N_FOR variable, N_FUNC name */
};

/*
 * A parsed script. Function definitions keep a reference to the program that holds their
 * body, so a function outlives the execute() that defined it without copying the tree.
 */
struct program {
	int refs; /* atomic */
	struct node *root;
};

/* Parse a whole script. On error returns NULL and *err = "line N: msg near 'tok'". */
struct program *parse_program(const char *src, char **err);
void program_ref(struct program *p);
void program_unref(struct program *p);
/* The literal value of a word with no expansions (malloc'd), or NULL. */
char *word_literal(const struct word *w);

#endif /* KAISH_PARSE_H */

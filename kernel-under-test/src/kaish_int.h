/* SPDX-License-Identifier: MIT */
/*
 * kaish_int.h - internal types shared by the kernel's modules.
 *
 * Phases (see README.md): lex_ (tokens) -> parse_ (node tree) -> validate_ (static checks)
 * -> exec_ (statements, pipelines, functions) with expand_ (words -> strings) and the
 * builtins bi_, all file access through vfs_. There is no global mutable state: everything
 * lives in a kaish_kernel (one per execution context; forks are kernels too).
 */
#ifndef KAISH_INT_H
#define KAISH_INT_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "kaish.h"

#define KAISH_MAX_PARSE_DEPTH 200 /* nesting of compound statements and $( ) in the parser */
#define KAISH_MAX_PAREN_DEPTH 256 /* lexer paren depth inside one word, as kaish */
#define KAISH_VERSION "0.16.0-c"

/* --- growable byte buffer (util.c) ---------------------------------------------------------- */

/* A string builder. A failed allocation sets oom and turns later appends into no-ops. */
struct sbuf {
	char *s;    /* NUL-terminated when non-NULL */
	size_t len; /* bytes used, excluding the NUL */
	size_t cap; /* bytes allocated */
	bool oom;   /* an append failed */
};

void sb_init(struct sbuf *b);
void sb_add(struct sbuf *b, const char *p, size_t n);
void sb_adds(struct sbuf *b, const char *s);
void sb_addc(struct sbuf *b, char c);
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *sb_str(const struct sbuf *b); /* "" when empty */
/* Hand the bytes to the caller (malloc'd, never NULL unless out of memory); b is reset. */
char *sb_detach(struct sbuf *b);
void sb_free(struct sbuf *b);

/* A growable vector of owned strings. */
struct strv {
	char **v; /* v[n] is NULL when n < cap */
	int n;
	int cap;
};

void strv_init(struct strv *sv);
/* Take ownership of s (NULL s means out of memory: returns -1). Returns 0 or -1. */
int strv_push(struct strv *sv, char *s);
int strv_pushdup(struct strv *sv, const char *s);
void strv_free(struct strv *sv);

char *kstrndup(const char *s, size_t n);
bool is_name(const char *s, size_t n); /* [A-Za-z_][A-Za-z0-9_]* */

/* JSON text helpers: data sidebands are carried as compact JSON text. */
void json_add_string(struct sbuf *b, const char *s, size_t n);
/* Split a top-level JSON array into its element texts. Returns 0, or -1 if not an array. */
int json_array_split(const char *json, struct strv *out);
/* If json is a string literal, its decoded text (malloc'd), else NULL. */
char *json_string_value(const char *json);
/* 'a'rray, 'o'bject, 's'tring, 'n'umber, 'b'ool, 'z' null, or '?' */
char json_kind(const char *json);
/* Append json (compact) pretty-printed with two-space indentation, as serde_json. */
void json_pretty(struct sbuf *b, const char *json);

/* --- lexer (lex.c) ------------------------------------------------------------------------ */

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
 * index of the closing char, or -1 if unbalanced/too deep. Quotes are honoured. */
long lex_match(const char *s, size_t len, size_t i, char open, char close);

/* --- AST (parse.c) ------------------------------------------------------------------------ */

enum wpart_type {
	W_LIT,	 /* literal text; quoted parts are never globbed or keyword-matched */
	W_VAR,	 /* $NAME ${NAME} ${NAME:-alt} ${#NAME} $? $# $@ $1 */
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
void node_free(struct node *n);
/* The literal value of a word with no expansions (malloc'd), or NULL. */
char *word_literal(const struct word *w);

/* --- kernel state (kernel.c, scope.c) ----------------------------------------------------- */

struct var {
	char *name;
	char *value;
	bool exported;
};

struct frame {
	struct var *vars;
	int n;
	int cap;
};

struct scope {
	struct frame **frames; /* frames[0] is the root scope */
	int nframes;
	int cap;
	struct strv pos; /* $1..$N */
	int func_frame;	 /* frame index of the innermost function call, -1 outside */
};

int scope_init(struct scope *s);
void scope_free(struct scope *s);
int scope_copy(struct scope *dst, const struct scope *src); /* deep copy (a fork snapshot) */
const char *scope_get(const struct scope *s, const char *name);
/* Set in the frame that already holds name, else in the root frame. */
int scope_set(struct scope *s, const char *name, const char *value);
int scope_set_in(struct scope *s, int frame, const char *name, const char *value);
int scope_export(struct scope *s, const char *name);
int scope_unset(struct scope *s, const char *name);
int scope_push(struct scope *s);
void scope_pop(struct scope *s);

struct func {
	int refs; /* atomic: forks share definitions across threads */
	char *name;
	struct node *body;
	struct program *prog; /* keeps body alive */
};

/* State shared by a kernel and all its forks: read-only after construction. */
struct kshared {
	char *root;	     /* canonical sandbox root, NULL for the isolated preset */
	char *name;
	bool skip_validation;
	size_t output_limit; /* 0 = unlimited */
	size_t limit_head;
	size_t limit_tail;
	size_t vfs_budget;
	unsigned long timeout_ms; /* default per-call deadline, 0 = none */
	/* Per-call interruption, shared with every fork of the running execute(). */
	int cancelled;		  /* atomic: set by kaish_cancel() */
	long long deadline_ns;	  /* CLOCK_MONOTONIC deadline, 0 = none; set before forks exist */
	pthread_mutex_t trace_lock; /* trace callbacks may come from scatter workers */
	kaish_trace_fn trace;
	void *trace_ctx;
};

enum flow { FL_NONE, FL_BREAK, FL_CONTINUE, FL_RETURN, FL_EXIT, FL_ABORT };

struct kaish_kernel {
	struct kshared *sh;   /* owned by the root kernel, borrowed by forks */
	bool is_fork;
	pthread_mutex_t lock; /* serializes kaish_execute on the root kernel */
	struct scope scope;
	char *cwd;	      /* VFS path of the working directory */
	struct func **funcs;  /* user functions (shared, refcounted) */
	int nfuncs;
	int depth;	      /* re-entry depth: $( ), function calls */
	int loop_depth;
	int last_code;	      /* $? */
	int subst_code;	      /* status of the last $( ), for the assignment rule */
	bool errexit, pipefail, trash;
	bool glob;	      /* set -o glob: bare globs expand (default on) */
	int errexit_suppress; /* > 0 inside conditions, && / || left sides, ! */
	enum flow flow;	      /* pending break/continue/return/exit/abort */
	int flow_n;	      /* break/continue levels left */
	int exit_code;	      /* code carried by return/exit/abort */
	char *data;	      /* structured sideband of the last command (JSON), owned */
	bool data_is_value;
	long pid;	      /* $$: a per-kernel number, not the OS pid */
	struct program *prog; /* program being executed (borrowed), for function definitions */
};

struct kaish_config {
	char *root;
	char *name;
	bool trash, skip_validation, errexit;
	size_t output_limit, limit_head, limit_tail, vfs_budget;
	unsigned long timeout_ms;
	struct strv var_names, var_values;
};

kaish_kernel *kernel_fork(kaish_kernel *k);
void kernel_fork_free(kaish_kernel *f);
void kernel_set_data(kaish_kernel *k, char *json, bool is_value); /* takes json */
/* Cancelled or past the deadline? Then set flow to exit 130/124 and report it in err
 * (once per stream). */
bool kernel_interrupted(kaish_kernel *k, struct sbuf *err);
void kernel_trace(kaish_kernel *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct func *kernel_find_func(kaish_kernel *k, const char *name);
/* Define (or replace) a user function; the body stays owned by prog (referenced). */
int kernel_define_func(kaish_kernel *k, const char *name, struct node *body,
		       struct program *prog);
void func_ref(struct func *f);
void func_unref(struct func *f);
/* Output limit contract: truncate out to head+tail, remap code to 3. */
void kernel_apply_limit(const struct kshared *sh, struct sbuf *out, int *code, int *orig,
			bool *spilled);

/* --- validator (validate.c) --------------------------------------------------------------- */

/* Static checks before anything runs. Returns 0, or -1 with *err set (malloc'd). */
int validate_program(kaish_kernel *k, struct program *p, char **err);

/* --- executor (exec.c, scatter.c) --------------------------------------------------------- */

/* Where a command reads and writes. Builtins buffer their whole output into out. */
struct io {
	const char *in;	     /* stdin bytes, or NULL (no stdin) */
	size_t in_len;
	const char *in_data; /* structured stdin sideband (JSON), or NULL */
	struct sbuf *out;
	struct sbuf *err;
};

int exec_node(kaish_kernel *k, struct node *n, struct io *io);
/* Run stages as one pipeline without scatter detection. */
int exec_stages(kaish_kernel *k, struct node **stages, int n, struct io *io);
/* Run a script's root node at the top level (used by kaish_execute). */
int exec_program(kaish_kernel *k, struct program *p, struct io *io);
/* scatter/gather runner: stages[s] is scatter, stages[g] is gather. */
int exec_scatter(kaish_kernel *k, struct node **stages, int n, int s, int g, struct io *io);
/* Run a $( ) body in k (same kernel, scope restored). Output in out; data via k. */
int exec_subst(kaish_kernel *k, struct node *prog, struct io *io, struct sbuf *out,
	       char **data, bool *data_is_value);

/* --- expansion (expand.c) ----------------------------------------------------------------- */

enum expand_mode {
	EXP_ARG, /* one field per word; unquoted $@ gives one field per positional */
	EXP_FOR, /* for-loop items: $( ) text splits on newlines, typed arrays per element */
	EXP_STR, /* exactly one string */
};

/* Expand w into fields appended to out. Returns 0, or -1 if the command must fail (the
 * message is already in io->err). */
int expand_word(kaish_kernel *k, struct word *w, struct io *io, enum expand_mode mode,
		struct strv *out);
/* Expand to a single malloc'd string, or NULL on failure. */
char *expand_str(kaish_kernel *k, struct word *w, struct io *io);
/* Integer arithmetic for $(( )): returns 0 or -1 with a message in *err (malloc'd). */
int expand_arith(const char *expr, struct scope *s, long long *val, char **err);

/* --- builtins (bi_*.c) -------------------------------------------------------------------- */

struct bi_ctx {
	kaish_kernel *k;
	struct io *io;
	const char *name; /* argv[0] */
};

typedef int (*bi_fn)(struct bi_ctx *c, int argc, char **argv);
/* Static check of literal arguments (non-literal ones are NULL). 0 or -1 with *msg. */
typedef int (*bi_check_fn)(int argc, char **argv, char **msg);

struct builtin {
	const char *name;
	bi_fn fn;
	const char *usage;
	bi_check_fn check; /* optional validator hook */
};

const struct builtin *bi_lookup(const char *name);
/* Special forms handled by the executor itself (true, false, :, break, ...). */
bool bi_is_special(const char *name);

/* Helpers for builtins. */
void bi_err(struct bi_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print usage to out when argv has --help. Returns true if handled. */
bool bi_help(struct bi_ctx *c, int argc, char **argv, const char *usage);
/* Read a named file (or "-" = stdin) for a text builtin. Returns 0, or an exit code after
 * writing "NAME: path: msg" to err. */
int bi_read_input(struct bi_ctx *c, const char *path, char **buf, size_t *len);
/* Stdin as a text buffer (never NULL). */
const char *bi_stdin(struct bi_ctx *c, size_t *len);
/* Split buffer into lines without the '\n' (pointers into a copy held by lines). */
int bi_split_lines(const char *buf, size_t len, struct strv *lines);
/* Parse argv[1..] as clusters of single-letter flags ("-rn") until "--": set[i] becomes true
 * for each letters[i] seen; other words are pushed to ops. On an unknown letter writes
 * "unknown option '-X'" to err and returns -1 (ops keeps what was pushed). */
int bi_flags(struct bi_ctx *c, int argc, char **argv, const char *letters, bool *set,
	     struct strv *ops);
/* Parse a non-negative integer option value. */
bool bi_parse_long(const char *s, long *v);

int bi_regex_compile(void *re /* regex_t* */, const char *pat, int flags, char **msg);
/* Convert GNU BRE spellings (\( \) \| \+ \? \{ \}) to ERE. malloc'd. */
char *bi_bre_to_ere(const char *pat);

int bi_test_eval(struct bi_ctx *c, char **argv, int argc, bool dbl);

/* Builtin entry points. */
int bi_echo(struct bi_ctx *c, int argc, char **argv);
int bi_seq(struct bi_ctx *c, int argc, char **argv);
int bi_seq_check(int argc, char **argv, char **msg);
int bi_grep(struct bi_ctx *c, int argc, char **argv);
int bi_grep_check(int argc, char **argv, char **msg);
int bi_sed(struct bi_ctx *c, int argc, char **argv);
int bi_sed_check(int argc, char **argv, char **msg);
int bi_wc(struct bi_ctx *c, int argc, char **argv);
int bi_cat(struct bi_ctx *c, int argc, char **argv);
int bi_head(struct bi_ctx *c, int argc, char **argv);
int bi_tail(struct bi_ctx *c, int argc, char **argv);
int bi_sort(struct bi_ctx *c, int argc, char **argv);
int bi_uniq(struct bi_ctx *c, int argc, char **argv);
int bi_cut(struct bi_ctx *c, int argc, char **argv);
int bi_tr(struct bi_ctx *c, int argc, char **argv);
int bi_ls(struct bi_ctx *c, int argc, char **argv);
int bi_mkdir(struct bi_ctx *c, int argc, char **argv);
int bi_rm(struct bi_ctx *c, int argc, char **argv);
int bi_touch(struct bi_ctx *c, int argc, char **argv);
int bi_pwd(struct bi_ctx *c, int argc, char **argv);
int bi_cd(struct bi_ctx *c, int argc, char **argv);
int bi_test(struct bi_ctx *c, int argc, char **argv);
int bi_export(struct bi_ctx *c, int argc, char **argv);
int bi_set(struct bi_ctx *c, int argc, char **argv);
int bi_unset(struct bi_ctx *c, int argc, char **argv);
int bi_scatter(struct bi_ctx *c, int argc, char **argv);
int bi_gather(struct bi_ctx *c, int argc, char **argv);

extern const char bi_echo_usage[], bi_seq_usage[], bi_grep_usage[], bi_sed_usage[],
	bi_wc_usage[], bi_cat_usage[], bi_head_usage[], bi_tail_usage[], bi_sort_usage[],
	bi_uniq_usage[], bi_cut_usage[], bi_tr_usage[], bi_ls_usage[], bi_mkdir_usage[],
	bi_rm_usage[], bi_touch_usage[], bi_pwd_usage[], bi_cd_usage[], bi_test_usage[],
	bi_export_usage[], bi_set_usage[], bi_unset_usage[], bi_scatter_usage[],
	bi_gather_usage[];

/* --- VFS (vfs.c) -------------------------------------------------------------------------- */

#define VFS_EESCAPE 10000 /* -VFS_EESCAPE: "path escapes root" */
#define VFS_ENOFS 10001	  /* -VFS_ENOFS: no local filesystem (isolated preset) */

/* Confined host path for a VFS path (relative to k->cwd). follow=false canonicalizes only
 * the parent, so the last component may be a symlink that is not followed. */
int vfs_resolve(kaish_kernel *k, const char *path, bool follow, char **host);
const char *vfs_strerror(int err);
/* Exit code for a vfs error: 2 for a sandbox refusal, 1 otherwise. */
int vfs_exit_code(int err);
int vfs_read_all(kaish_kernel *k, const char *path, char **buf, size_t *len);
int vfs_write_all(kaish_kernel *k, const char *path, const char *buf, size_t len, bool append);
int vfs_stat(kaish_kernel *k, const char *path, struct stat *st, bool follow);
/* Sorted entry names of a directory (no . and ..). */
int vfs_list(kaish_kernel *k, const char *path, struct strv *names);
int vfs_mkdir(kaish_kernel *k, const char *path, bool parents);
/* Remove (or move to the trash when trash is on). */
int vfs_remove(kaish_kernel *k, const char *path, bool recursive, bool trash);
int vfs_touch(kaish_kernel *k, const char *path);
int vfs_chdir(kaish_kernel *k, const char *path);

/* Walk files under path in name order, skipping hidden entries and .gitignore'd paths.
 * cb gets the display path (path + "/" + relative) and returns 0 to continue. */
typedef int (*vfs_walk_fn)(void *ctx, const char *display, const char *vpath);
int vfs_walk(kaish_kernel *k, const char *path, vfs_walk_fn cb, void *ctx);

#endif /* KAISH_INT_H */

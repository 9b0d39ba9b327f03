/* SPDX-License-Identifier: MIT */
/*
 * kaish.h - the public API of the C shell kernel (kernel-under-test).
 *
 * A small, embeddable interpreter that behaves like kaish-kernel 0.16 for embedders:
 * build a config, build a kernel, execute scripts, read results. The kernel never prints
 * and never reads the process environment (except KAISH_TRASH in the presets).
 * Every allocation goes through plain malloc/calloc/realloc/free.
 *
 * Typical use:
 *
 *	kaish_config *cfg = kaish_config_agent_with_root("/srv/work");
 *	kaish_config_set_trash(cfg, false);
 *	kaish_kernel *k = kaish_kernel_new(cfg, &errmsg);   // cfg may be freed afterwards
 *	kaish_result r;
 *	if (kaish_execute(k, "echo hello world", &r) == KAISH_OK)
 *		printf("%d %s", r.code, r.out);
 *	kaish_result_free(&r);
 *	kaish_kernel_free(k);
 *	kaish_config_free(cfg);
 *
 * Threads: a kernel is driven by one thread at a time (calls are serialized by an internal
 * mutex). Every thread that calls kaish_execute() needs KAISH_RECOMMENDED_STACK_SIZE of stack.
 */
#ifndef KAISH_H
#define KAISH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Re-entry into the statement engine ($( ), functions, source) is capped at this depth. */
#define KAISH_MAX_RECURSION_DEPTH 48
/* Stack every thread driving kaish_execute() should have (12 MiB, as kaish's). */
#define KAISH_RECOMMENDED_STACK_SIZE ((size_t)12 * 1024 * 1024)

/* Exit-code contract (ExecResult.code). */
enum kaish_exit {
	KAISH_EXIT_OK = 0,
	KAISH_EXIT_FAILURE = 1,
	KAISH_EXIT_USAGE = 2,	    /* usage error or refusal (sandbox, bad option) */
	KAISH_EXIT_TRUNCATED = 3,   /* output truncated by the output limit */
	KAISH_EXIT_GATHER = 123,    /* gather: some worker failed */
	KAISH_EXIT_TIMEOUT = 124,
	KAISH_EXIT_NOT_FOUND = 127, /* command not found */
	KAISH_EXIT_CANCELLED = 130,
};

/* Status of an API call (not the script's exit code). */
enum kaish_status {
	KAISH_OK = 0,
	KAISH_ERR_PARSE = 1,	  /* lexer or grammar error: nothing ran */
	KAISH_ERR_VALIDATION = 2, /* validator rejected the script: nothing ran */
	KAISH_ERR_EXECUTION = 3,  /* internal failure (out of memory, ...) */
};

typedef struct kaish_config kaish_config;
typedef struct kaish_kernel kaish_kernel;

/* The result of one kaish_execute(). All strings are owned by the result. */
typedef struct kaish_result {
	int code;	    /* exit code, enum kaish_exit or a builtin's own */
	char *out;	    /* stdout text, NUL-terminated (never NULL after a call) */
	size_t out_len;	    /* bytes in out, excluding the NUL */
	char *err;	    /* stderr text: empty, or ending in exactly one '\n' */
	char *data;	    /* structured sideband as compact JSON, or NULL */
	bool data_is_value; /* data is the value $( ) binds (gather, ...) */
	int original_code;  /* the code before an output-limit truncation remapped it to 3 */
	bool did_spill;	    /* output was truncated by the output limit */
} kaish_result;

/* --- configuration ------------------------------------------------------------------------ */

/*
 * The agent preset, as KernelConfig::agent_with_root: sandboxed to root, cwd = root,
 * hermetic variables, validation on, output limit 8 KiB (1 KiB head, 512 B tail), VFS budget
 * 64 MiB, trash from KAISH_TRASH=1. Returns NULL (errno set) on failure.
 */
kaish_config *kaish_config_agent_with_root(const char *root);
/* An isolated preset: no local filesystem, memory only, no output limit. */
kaish_config *kaish_config_isolated(void);
void kaish_config_free(kaish_config *cfg);

void kaish_config_set_trash(kaish_config *cfg, bool on);
void kaish_config_set_skip_validation(kaish_config *cfg, bool skip);
void kaish_config_set_errexit(kaish_config *cfg, bool on);
/* Output limit in bytes; 0 = unlimited. */
void kaish_config_set_output_limit(kaish_config *cfg, size_t max_bytes);
/* Byte budget for the in-memory filesystem; 0 = unlimited. */
void kaish_config_set_vfs_budget(kaish_config *cfg, size_t bytes);
/* Add an initial (exported) variable. Returns 0 or -ENOMEM. */
int kaish_config_set_var(kaish_config *cfg, const char *name, const char *value);
/* Label of the kernel (default "agent" for the agent preset). Returns 0 or -ENOMEM. */
int kaish_config_set_name(kaish_config *cfg, const char *name);
/*
 * Added: default per-call deadline in milliseconds (0 = none, the default). When it passes,
 * the script stops at the next statement or loop iteration with code 124 (KAISH_EXIT_TIMEOUT)
 * and err "kaish: timed out".
 */
void kaish_config_set_request_timeout(kaish_config *cfg, unsigned long ms);

/* --- kernel ------------------------------------------------------------------------------- */

/*
 * Build a kernel from cfg (copied: cfg may be freed afterwards). On failure returns NULL
 * and, if errmsg is not NULL, stores a malloc'd message the caller frees.
 */
kaish_kernel *kaish_kernel_new(const kaish_config *cfg, char **errmsg);
/* Free a kernel and everything it owns. Accepts NULL. */
void kaish_kernel_free(kaish_kernel *k);

/*
 * Lex, parse, validate and run script. On KAISH_OK, *res holds the result (a failing script
 * is still KAISH_OK with a non-zero res->code). On KAISH_ERR_PARSE / KAISH_ERR_VALIDATION,
 * res->err holds the message ("line N: ... near 'tok'") and res->code is 2.
 * Always initialize-and-fill *res; release it with kaish_result_free().
 */
enum kaish_status kaish_execute(kaish_kernel *k, const char *script, kaish_result *res);
/* Release what a result owns; the struct itself is the caller's. Accepts a zeroed result. */
void kaish_result_free(kaish_result *res);
/*
 * Added: cancel the kaish_execute() running on k, from any thread. It stops at the next
 * statement or loop iteration (scatter workers too) with code 130 (KAISH_EXIT_CANCELLED)
 * and err "kaish: cancelled". Each kaish_execute() starts uncancelled, so a cancel that
 * arrives between two calls has no effect.
 */
void kaish_cancel(kaish_kernel *k);

/* Variables of the kernel's root scope. get returns a malloc'd copy or NULL. */
char *kaish_get_var(kaish_kernel *k, const char *name);
int kaish_set_var(kaish_kernel *k, const char *name, const char *value);
/* The kernel's current working directory (VFS path), malloc'd. */
char *kaish_cwd(kaish_kernel *k);

/* Optional trace callback: the kernel reports statement-level events here, never on stdio. */
typedef void (*kaish_trace_fn)(void *ctx, const char *event);
void kaish_set_trace(kaish_kernel *k, kaish_trace_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif /* KAISH_H */

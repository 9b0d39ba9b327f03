/* SPDX-License-Identifier: MIT */
/*
 * kernel.h - the kernel state every phase runs against. There is no global mutable state:
 * everything lives in a kaish_kernel (one per execution context; forks are kernels too).
 */
#ifndef KAISH_KERNEL_H
#define KAISH_KERNEL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "kaish.h"
#include "memfs.h"
#include "scope.h"

struct node;
struct program;
struct sbuf;

struct func {
	int refs; /* atomic: forks share definitions across threads */
	char *name;
	struct node *body;
	struct program *prog; /* keeps body alive */
};

/* State shared by a kernel and all its forks: read-only after construction, but for the
 * memory filesystem (its own lock) and the per-call interruption fields. */
struct kshared {
	char *root;	     /* canonical sandbox root, NULL for the isolated preset */
	char *name;
	bool skip_validation;
	size_t output_limit; /* 0 = unlimited */
	size_t limit_head;
	size_t limit_tail;
	size_t vfs_budget;
	struct memfs mem;    /* the in-memory `/`: every path outside the root (§4.2) */
	unsigned long timeout_ms; /* default per-call deadline, 0 = none */
	/* Per-call interruption, shared with every fork of the running execute(). */
	int cancelled;		  /* atomic: set by kaish_cancel() */
	long long deadline_ns;	  /* CLOCK_MONOTONIC deadline, 0 = none; set before forks exist */
	pthread_mutex_t trace_lock; /* trace callbacks may come from scatter workers */
	kaish_trace_fn trace;
	void *trace_ctx;
};

/*
 * PIPESTATUS as plain numbers: the statuses of the last command or pipeline (a command on its
 * own is a pipeline of one). Set after every command without touching the scope; the list
 * value `[a,b]` is rendered only where a script reads PIPESTATUS. Up to PS_INLINE codes live
 * inline (no heap); a longer pipeline's codes go to `more`. n == 0: no command yet (the
 * variable is whatever the scope holds, normally unset).
 */
#define PS_INLINE 8
struct pstatus {
	int n;
	int v[PS_INLINE];
	int *more; /* all n codes when n > PS_INLINE, else NULL */
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
	struct pstatus ps;    /* PIPESTATUS (numbers; see struct pstatus) */
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
	long long deadline_ns; /* this fork's own deadline (scatter --timeout), 0 = none */
	bool timed_out;	      /* deadline_ns passed: the fork unwound with 124 */
	struct sbuf *top_out; /* the execute() result's out (root kernel, during a call) */
	bool spilled;	      /* a statement's output into top_out was truncated */
	int spill_orig;	      /* real code of the last cut top-level statement, or -1 */
};

kaish_kernel *kernel_fork(kaish_kernel *k);
void kernel_fork_free(kaish_kernel *f);
void kernel_set_data(kaish_kernel *k, char *json, bool is_value); /* takes json */
/* Cancelled or past the call's or the fork's own deadline? Then set flow to exit 130/124
 * and report it in err (once per stream). */
bool kernel_interrupted(kaish_kernel *k, struct sbuf *err);
/* Give fork f its own deadline, ms from now (a scatter worker's --timeout); its forks
 * inherit it. */
void kernel_set_fork_deadline(kaish_kernel *f, long long ms);
/* PIPESTATUS: record the codes of the last pipeline (no heap for n <= PS_INLINE; on an
 * allocation failure the first PS_INLINE are kept), copy them (a fork, a $( ) save; returns
 * -1 when out of memory, dst then empty), free them, and render the list text into b
 * (returns false when no command has run yet, b untouched). */
void pstatus_set(struct pstatus *ps, const int *codes, int n);
int pstatus_copy(struct pstatus *dst, const struct pstatus *src);
void pstatus_free(struct pstatus *ps);
bool pstatus_render(const struct pstatus *ps, struct sbuf *b);
void kernel_trace(kaish_kernel *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct func *kernel_find_func(kaish_kernel *k, const char *name);
/* Define (or replace) a user function; the body stays owned by prog (referenced). */
int kernel_define_func(kaish_kernel *k, const char *name, struct node *body,
		       struct program *prog);
void func_ref(struct func *f);
void func_unref(struct func *f);
/* Output limit contract on the result out[from..]: over the limit, cut it to head+tail
 * around a marker line and remap code to 3 (*orig keeps the real code). */
void kernel_apply_limit(const struct kshared *sh, struct sbuf *out, size_t from, int *code,
			int *orig, bool *spilled);

#endif /* KAISH_KERNEL_H */

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * target - the traced process: a command spawned held (so the probes attach before it runs
 * its first instruction) or a running process attached by pid. Owns its pid, its pidfd or
 * ptrace exit stop, and what can be learnt from its files (executable, allocator).
 */
#ifndef TRACER_TARGET_H
#define TRACER_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct alloc_symbols;

struct target;

/* Called at a spawned child's exit stop: the last moment its /proc/PID/maps can be read. */
typedef void (*target_exit_fn)(void *ctx);

struct target_opts {
	bool drop_privs;	     /* spawn under sudo: exec as the invoking user */
	target_exit_fn on_exit_stop; /* spawn: may be NULL */
	void *ctx;		     /* passed to on_exit_stop */
};

/*
 * Fork a child that runs argv once target__release() lets it, ptrace-seized for its exit
 * stop only. opts may be NULL. Returns NULL and sets errno if it cannot be forked.
 */
struct target *target__spawn(char *const argv[], const struct target_opts *opts);

/* A running process (all of its threads), watched through a pidfd. Returns NULL with errno
 * ESRCH if there is no such process, ENOMEM. */
struct target *target__attach_pid(pid_t pid);

/* Let a held child exec. Returns 0 once it has exec'd, or -errno of its exec failure (the
 * child is then reaped). No-op for an attached process. */
int target__release(struct target *t);

/* True while the target lives; for a spawned child *status is its wait status once it is
 * gone (reaped here). Ptrace stops are passed through. Never blocks. */
bool target__alive(struct target *t, int *status);

/* An attached process: true if it is gone or goes within ms milliseconds. */
bool target__gone_within(struct target *t, int ms);

/* Block until a spawned child has exited (after SIGTERM if terminate), reaping it into
 * *status. No-op for an attached process. */
void target__wait(struct target *t, bool terminate, int *status);

/* Stop a child that was never released (it exits 127 before exec) and free. Accepts NULL. */
void target__free(struct target *t);

pid_t target__pid(const struct target *t);
bool target__is_child(const struct target *t);
/* The command line, space-joined ("pid N" if unreadable). Valid until target__free. */
const char *target__cmdline(const struct target *t);

/* The executable the target runs or will run (execvp's PATH search). 0, or -ENOENT with
 * path holding the command's name as given. */
int target__exe(const struct target *t, char *path, size_t sz);

/*
 * Where each allocator entry point of the target resolves (alloc_symbols.h): a running
 * process from its mapped objects, a held child from the executable it will exec and the
 * libraries that will load with it. 0 or -errno, logged; -ENOENT, not logged: a child's
 * command cannot be found or executed (its exec fails and says so).
 */
int target__resolve_allocator(const struct target *t, struct alloc_symbols *out);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * target - what is traced: a command spawned held (so the probes attach before it runs its
 * first instruction), running processes attached by pid, or the processes of a cgroup.
 * Owns their pids, pidfds or ptrace hold points, and what can be learnt from their files
 * (executable, allocator).
 *
 * Hold points (spawned, follow): the child is ptrace-seized with PTRACE_O_TRACEFORK,
 * TRACEVFORK, TRACEEXEC and TRACEEXIT, so every process of its tree stops once when it
 * execs (the new image has not run an instruction yet) and once when it is about to exit
 * (its maps still readable); callbacks run at both. Threads are not seized (no
 * TRACECLONE): their exits need no stop. Signal-delivery stops are re-injected, group stops
 * kept with PTRACE_LISTEN, as strace does.
 */
#ifndef TRACER_TARGET_H
#define TRACER_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct alloc_symbols;

struct target;

/* A hold point of process pid (spawned targets): the tracee waits until it returns. */
typedef void (*target_stop_fn)(void *ctx, pid_t pid);

struct target_opts {
	bool drop_privs;	     /* spawn under sudo: exec as the invoking user */
	bool follow;		     /* spawn: hold points in every process of the tree */
	target_stop_fn on_exit_stop; /* about to exit: the last moment its maps can be read */
	target_stop_fn on_exec_stop; /* follow: exec'd, the new image not started yet */
	target_stop_fn on_birth_stop; /* follow: a new process (fork, vfork), stopped before
				       * its first instruction */
	target_stop_fn on_reaped;     /* follow: a process of the tree is gone (reaped) */
	void *ctx;		     /* passed to the callbacks */
};

/*
 * Fork a child that runs argv once target__release() lets it, ptrace-seized for its exit
 * stop (and with opts->follow, its tree's fork, exec and exit stops). opts may be NULL.
 * Returns NULL and sets errno if it cannot be forked.
 */
struct target *target__spawn(char *const argv[], const struct target_opts *opts);

/* Running processes (all of their threads), each watched through a pidfd; alive while one
 * of them is. Returns NULL with errno ESRCH (naming no pid in *missing) if one does not
 * exist, ENOMEM. */
struct target *target__attach_pids(const pid_t *pids, size_t cnt, pid_t *missing);

/* The processes of a cgroup (v1 or v2: PATH/cgroup.procs), now and later (see
 * target__new_procs); alive while the cgroup holds a process. NULL with errno ENOENT (no
 * such cgroup), ESRCH (no process in it), ENOMEM. */
struct target *target__attach_cgroup(const char *path);

/* A cgroup target: the processes in it now that were not reported before (the first ones
 * are reported by target__attach_cgroup's pid list: target__pids). Returns how many were
 * put in out (at most max), or -errno. 0 for other targets. */
int target__new_procs(struct target *t, pid_t *out, size_t max);

/* The processes given as targets when it was made (the spawned child, the --pid list, the
 * cgroup's first processes). */
const pid_t *target__pids(const struct target *t, size_t *cnt);

/* A spawned child followed with hold points: every process its tree creates stops at its
 * birth (on_birth_stop) before it runs. False if the ptrace seize failed. */
bool target__holds_births(const struct target *t);

/* Let a held child exec. Returns 0 once it has exec'd, or -errno of its exec failure (the
 * child is then reaped). No-op for an attached process. */
int target__release(struct target *t);

/* True while the target lives; for a spawned child *status is its wait status once it is
 * gone (reaped here). Ptrace stops are passed through. Never blocks. */
bool target__alive(struct target *t, int *status);

/* An attached target: true if the first process is gone or goes within ms milliseconds. */
bool target__gone_within(struct target *t, int ms);

/* End a spawned child: SIGTERM to it, or (kill_tree) SIGKILL to it and to every process
 * it started that is still its descendant. target__alive then reaps it. No-op for an
 * attached process. */
void target__stop(struct target *t, bool kill_tree);

/* Stop a child that was never released (it exits 127 before exec) and free. Accepts NULL. */
void target__free(struct target *t);

/* The first (or only) process. */
pid_t target__pid(const struct target *t);
bool target__is_child(const struct target *t);
/* The first process's command line, space-joined ("pid N" if unreadable). Valid until
 * target__free. */
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

/* The argv of a live process pid, space-joined into buf; false (buf "") if unreadable. */
bool target__read_cmdline(pid_t pid, char *buf, size_t sz);

/* Is pid a kernel thread (PF_KTHREAD: no user space, nothing to trace)? */
bool target__is_kernel_thread(pid_t pid);

/* The parent of process pid, or 0 if it cannot be read. */
pid_t target__ppid(pid_t pid);

#endif

/* Helpers shared by the end-to-end tests: root/CI gating, running commands, and
 * per-call-site totals of a DHAT profile. */
#ifndef TESTS_E2E_UTIL_H
#define TESTS_E2E_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dhat_reader.h"

/* Skip the calling test when not root; under CI=true, fail instead (a BPF test must run).
 * Then guard the test's helper processes (e2e_guard()). */
#define E2E_REQUIRE_ROOT()                                                                         \
	do {                                                                                       \
		const char *why = e2e_cannot_trace();                                              \
		if (why) {                                                                         \
			if (e2e_in_ci())                                                           \
				cr_assert_fail("BPF test cannot run under CI=true: %s", why);            \
			cr_skip_test("BPF test skipped: %s", why);                                 \
		}                                                                                  \
		e2e_guard();                                                                       \
	} while (0)

/*
 * No test leaves a process or a cgroup behind, passed or failed. The calling test process
 * becomes the leader of a process group of its own, which every helper it starts joins (a
 * FIFO holder, a waiting target, the tracer); a guard process outside that group waits for
 * the test process to end, however it ends (an assertion, Criterion's timeout, a crash),
 * then SIGKILLs the whole group and removes the directories given to e2e_guard_rmdir().
 * Once per test process; E2E_REQUIRE_ROOT() calls it.
 */
void e2e_guard(void);

/* Have the guard remove the (cgroup) directory path once the test's processes are gone. */
void e2e_guard_rmdir(const char *path);

/* Have the guard SIGKILL process group pgid too (a helper the test put in a group of its
 * own, to keep the test's signals from it). */
void e2e_guard_group(pid_t pgid);

/* Has process pid (a child of the caller) ended? Without reaping it. */
bool e2e_exited(pid_t pid);

bool e2e_in_ci(void);
/* NULL if this process can attach uprobes, else the reason. */
const char *e2e_cannot_trace(void);

/* Run a shell command; returns its exit status (or -1), stdout captured into *out if out
 * is not NULL (malloc'd). */
int e2e_run(const char *cmd, char **out);

/* A fresh temporary directory (malloc'd path) under TESTS_BIN_DIR. */
char *e2e_tmpdir(const char *tag);

/* Poll the file at path until it contains needle; false after secs seconds. Waits on what a
 * process says it did (say, the tracer's "attached to pid" at -v), not on a guessed sleep. */
bool e2e_wait_for_text(const char *path, const char *needle, int secs);

/* e2e_wait_for_text(), but false at once when the writer (a child of the caller: the tracer
 * whose log path is) has ended without writing needle: a failed attach fails its test in
 * seconds, not at the timeout. The caller's message should show the log (e2e_slurp()). */
bool e2e_wait_for_text_from(const char *path, const char *needle, int secs, pid_t writer);

/* dir/name created (or replaced) holding text, with mode (0644 for data, 0755 for a script);
 * the test fails if it cannot be written. */
void e2e_write_file(const char *dir, const char *name, const char *text, mode_t mode);

/* The file at path (its first 64 KiB), malloc'd; "" if it cannot be read. */
char *e2e_slurp(const char *path);

/* The number of lines (newlines) in the file at path so far; 0 if it cannot be read. */
long e2e_lines(const char *path);

/* Poll the file at path until it holds at least n lines; false after secs seconds. With a
 * program that writes a line after each unit of work, "e2e_lines(p) + k" lines tell that
 * work ran after the call (a handshake on what it did, not a guessed sleep). */
bool e2e_wait_lines(const char *path, long n, int secs);

/* The first byte of libc's fn in process pid (which must map the same libc as this one),
 * read through /proc/PID/mem: 0xcc while a uprobe sits there. -1 if it cannot be read. */
int e2e_libc_first_byte(pid_t pid, const char *fn);

struct site_total {
	char *site;	 /* first non-allocator frame, without its address */
	uint64_t bytes;	 /* Σtb over the PPs at this site */
	uint64_t blocks; /* Σtbk */
	uint64_t end_bytes;
	double bytes_var; /* sampled profiles: Σ tbSe^2, the variance of bytes' estimate */
};

/* Sum a profile's PPs per call site. Returns the number of sites; *out is malloc'd. */
size_t e2e_sites(const struct dhat_profile *p, struct site_total **out);
void e2e_sites_free(struct site_total *s, size_t n);
const struct site_total *e2e_site_find(const struct site_total *s, size_t n, const char *site);

/*
 * The callers of a PP as function names, innermost first, joined by " <- " (malloc'd): the
 * frames after the last allocator frame (so libc's internals between a helper such as
 * getdelim and the allocator do not count), each cut to its function name (no address,
 * file:line, library or @@GLIBC version). For comparing call chains across tools.
 */
char *e2e_callers(const struct dhat_profile *p, const struct dhat_pp *pp);

/* True if the profile at path loads and names a frame containing name. */
bool e2e_profile_names(const char *path, const char *name);

/* Each profile (*.json) of dir and of its *.json.d/ (-o FILE's other images), loaded from
 * path, handed to fn (the profile is freed after the call, unless fn returns true: then it
 * is kept in *kept, if kept is not NULL, and the walk stops). Fails the test on a directory or file that does not load. Returns the number
 * of profiles seen. */
size_t e2e_each_profile(const char *dir,
			bool (*fn)(const char *path, struct dhat_profile *p, void *ctx), void *ctx,
			struct dhat_profile **kept);

/* Check the DHAT invariants of a profile; returns NULL or a static description of the
 * first violation. */
const char *e2e_invariants(const struct dhat_profile *p);

#endif

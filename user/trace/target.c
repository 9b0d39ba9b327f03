// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The traced process: see target.h. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc_symbols.h"
#include "log.h"
#include "safe_open.h"
#include "target.h"

struct target {
	pid_t pid;
	bool is_child;		/* spawned by us: waited for, not watched through a pidfd */
	char *const *argv;	/* spawned: what it runs (borrowed) */
	int go_fd, err_fd;	/* spawned and still held: the handshake pipes, else -1 */
	int pidfd;		/* attached: readable once it exits, else -1 */
	struct target_opts opts;
	char cmdline[1024];
};

/* Drop to the invoking user when run through sudo, so the traced program does not run as root. */
static int drop_to_sudo_user(void)
{
	const char *uid_s = getenv("SUDO_UID"), *gid_s = getenv("SUDO_GID");

	if (!uid_s || !gid_s || geteuid() != 0)
		return 0;
	if (setgroups(0, NULL) || setgid((gid_t)strtoul(gid_s, NULL, 10)) ||
	    setuid((uid_t)strtoul(uid_s, NULL, 10)))
		return -errno;
	return 0;
}

/*
 * Fork a child that waits on a pipe before exec'ing argv, so the probes can be attached to
 * its pid first. *go_fd receives the write end: write one byte to release the child, close
 * it without writing to make the child exit 127. *err_fd receives a CLOEXEC pipe on which the
 * child reports an exec failure (errno); EOF means exec succeeded.
 */
static pid_t spawn_held(char *const argv[], bool drop_privs, int *go_fd, int *err_fd)
{
	int go[2], ep[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -1;
	if (pipe2(ep, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		close(ep[0]);
		close(ep[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(ep[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		if (drop_privs && drop_to_sudo_user()) {
			e = errno;
			(void)!write(ep[1], &e, sizeof(e));
			_exit(127);
		}
		execvp(argv[0], argv);
		e = errno;
		(void)!write(ep[1], &e, sizeof(e));
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	*go_fd = go[1];
	*err_fd = ep[0];
	return pid;
}

/*
 * A spawned child is ptrace-seized with PTRACE_O_TRACEEXIT and nothing else: it then stops
 * once, just before it exits, while its address space still exists. That is the last moment
 * its /proc/PID/maps can be read, and short programs exit long before their profile is
 * symbolized. Other stops (signal delivery, group stop) are passed straight through.
 */
static int seize_for_exit_stop(pid_t pid)
{
	return ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACEEXIT) ? -errno : 0;
}

static void join_cmdline(char *buf, size_t sz, char *const argv[])
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; argv[i] && off < sz; i++)
		off += (size_t)snprintf(buf + off, sz - off, "%s%s", i ? " " : "", argv[i]);
}

struct target *target__spawn(char *const argv[], const struct target_opts *opts)
{
	struct target *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return NULL;
	if (opts)
		t->opts = *opts;
	t->is_child = true;
	t->argv = argv;
	t->pidfd = -1;
	t->pid = spawn_held(argv, t->opts.drop_privs, &t->go_fd, &t->err_fd);
	if (t->pid < 0) {
		err = errno;
		free(t);
		errno = err;
		return NULL;
	}
	join_cmdline(t->cmdline, sizeof(t->cmdline), argv);
	err = seize_for_exit_stop(t->pid);
	if (err)
		vlog("ptrace: %s: maps of a short-lived target may be missed\n", strerror(-err));
	return t;
}

/*
 * An attached process is watched through a pidfd: it becomes readable when the process exits,
 * even while the process is an unreaped zombie (where kill(pid, 0) still succeeds), and it can
 * never be confused with a later process that reuses the pid.
 */
static int open_pidfd(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

struct target *target__attach_pid(pid_t pid)
{
	struct target *t;
	char path[64];
	FILE *f;

	if (kill(pid, 0) && errno == ESRCH)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->go_fd = t->err_fd = -1;
	snprintf(t->cmdline, sizeof(t->cmdline), "pid %d", (int)pid);
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "r");
	if (f) {
		size_t n = fread(t->cmdline, 1, sizeof(t->cmdline) - 1, f);

		for (size_t i = 0; i + 1 < n; i++)
			if (!t->cmdline[i])
				t->cmdline[i] = ' ';
		t->cmdline[n] = '\0';
		fclose(f);
	}
	t->pidfd = open_pidfd(pid);
	return t;
}

/* Resume a ptrace-stopped child, letting the caller read its maps if it is about to exit. */
static void handle_child_stop(struct target *t, int status)
{
	int event = status >> 16;

	if (event == PTRACE_EVENT_EXIT) {
		if (t->opts.on_exit_stop)
			t->opts.on_exit_stop(t->opts.ctx);
		ptrace(PTRACE_CONT, t->pid, 0, 0);
	} else if (event == PTRACE_EVENT_STOP) {
		ptrace(PTRACE_LISTEN, t->pid, 0, 0); /* group stop: stay stopped */
	} else {
		ptrace(PTRACE_CONT, t->pid, 0, WSTOPSIG(status)); /* deliver the signal */
	}
}

/* Wait for the spawned child (blocking or not), resuming it through ptrace stops.
 * Returns true while it lives; *status holds its exit status once it is gone. */
static bool wait_child(struct target *t, int *status, bool block)
{
	for (;;) {
		pid_t p = waitpid(t->pid, status, (block ? 0 : WNOHANG) | __WALL);

		if (p == 0)
			return true;
		if (p < 0)
			return errno == EINTR;
		if (WIFEXITED(*status) || WIFSIGNALED(*status))
			return false;
		if (WIFSTOPPED(*status))
			handle_child_stop(t, *status);
	}
}

int target__release(struct target *t)
{
	int child_errno = 0, status;
	ssize_t n;

	if (t->go_fd < 0)
		return 0;
	if (write(t->go_fd, "g", 1) != 1) {
		child_errno = errno;
	} else {
		n = read(t->err_fd, &child_errno, sizeof(child_errno));
		if (n != (ssize_t)sizeof(child_errno))
			child_errno = 0;
	}
	close(t->go_fd);
	close(t->err_fd);
	t->go_fd = t->err_fd = -1;
	if (child_errno)
		while (wait_child(t, &status, true))
			;
	return -child_errno;
}

bool target__alive(struct target *t, int *status)
{
	struct pollfd pfd = { .fd = t->pidfd, .events = POLLIN };

	if (t->is_child)
		return wait_child(t, status, false);
	if (t->pidfd >= 0)
		return poll(&pfd, 1, 0) == 0;
	return kill(t->pid, 0) == 0 || errno == EPERM;
}

bool target__gone_within(struct target *t, int ms)
{
	struct pollfd pfd = { .fd = t->pidfd, .events = POLLIN };
	int status;

	return t->pidfd >= 0 ? poll(&pfd, 1, ms) == 1 : !target__alive(t, &status);
}

void target__wait(struct target *t, bool terminate, int *status)
{
	if (!t->is_child)
		return;
	if (terminate)
		kill(t->pid, SIGTERM);
	while (wait_child(t, status, true))
		;
}

void target__free(struct target *t)
{
	int status;

	if (!t)
		return;
	/* A held child we will not trace: closing its pipe makes it exit 127 before exec. */
	if (t->go_fd >= 0) {
		close(t->go_fd);
		close(t->err_fd);
		while (wait_child(t, &status, true))
			;
	}
	if (t->pidfd >= 0)
		close(t->pidfd);
	free(t);
}

pid_t target__pid(const struct target *t)
{
	return t->pid;
}

bool target__is_child(const struct target *t)
{
	return t->is_child;
}

const char *target__cmdline(const struct target *t)
{
	return t->cmdline;
}

int target__exe(const struct target *t, char *path, size_t sz)
{
	const char *dirs = getenv("PATH");
	const char *name = t->is_child ? t->argv[0] : NULL;

	if (!name) {
		snprintf(path, sz, "/proc/%d/exe", (int)t->pid);
		return 0;
	}
	if (strchr(name, '/')) {
		snprintf(path, sz, "%s", name);
		return 0;
	}
	for (const char *d = dirs ? dirs : "/usr/local/bin:/usr/bin:/bin"; *d;) {
		size_t n = strcspn(d, ":");

		if (n)
			snprintf(path, sz, "%.*s/%s", (int)n, d, name);
		else
			snprintf(path, sz, "./%s", name); /* an empty entry is the cwd */
		if (!access(path, X_OK))
			return 0;
		d += n + (d[n] == ':');
	}
	snprintf(path, sz, "%s", name);
	return -ENOENT;
}

int target__resolve_allocator(const struct target *t, struct alloc_symbols *out)
{
	char exe[PATH_MAX];
	int err;

	if (!t->is_child)
		return alloc_symbols__for_process(t->pid, NULL, out);
	err = target__exe(t, exe, sizeof(exe));
	if (err || access(exe, X_OK))
		return -ENOENT; /* the exec fails and says why */
	return alloc_symbols__for_command(exe, out);
}

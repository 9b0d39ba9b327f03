// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The traced process: see target.h. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc_symbols.h"
#include "log.h"
#include "safe_open.h"
#include "shebang.h"
#include "target.h"
#include "procmaps.h"
#include "grow.h"

struct target {
	pid_t pid;		/* the first process */
	bool is_child;		/* spawned by us: waited for, not watched through a pidfd */
	char *const *argv;	/* spawned: what it runs (borrowed) */
	int go_fd, err_fd;	/* spawned and still held: the handshake pipes, else -1 */
	int pidfd;		/* attached: the first one's, readable once it exits, else -1 */
	pid_t *pids;		/* the targets given (spawned: the child) */
	int *pidfds;		/* attached: one per pid (-1: none) */
	size_t pid_cnt;
	char *procs;		/* cgroup: its cgroup.procs file, else NULL */
	pid_t *seen;		/* cgroup: every process reported so far */
	size_t seen_cnt, seen_cap;
	struct target_opts opts;
	bool seized;		/* spawned: ptrace-seized, its hold points work */
	char cmdline[1024];
};

/*
 * Drop to the invoking user when run through sudo, so the traced program does not run as
 * root. And no gaining privileges back: the tracer (root) is its ptracer, so the kernel
 * would honour a setuid executable in the tree, and the invoking user would get a root
 * process's allocations and layout in a profile of theirs, which their own ptrace is
 * denied. With PR_SET_NO_NEW_PRIVS (inherited by the whole tree, kept across exec) a
 * setuid program runs as the user, as it does under the user's own gdb or strace.
 */
static int drop_to_sudo_user(void)
{
	const char *uid_s = getenv("SUDO_UID"), *gid_s = getenv("SUDO_GID");

	if (!uid_s || !gid_s || geteuid() != 0)
		return 0;
	if (setgroups(0, NULL) || setgid((gid_t)strtoul(gid_s, NULL, 10)) ||
	    setuid((uid_t)strtoul(uid_s, NULL, 10)) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
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
	static const int child_dfl[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1 };
	pid_t parent = getpid(), pid;
	int go[2], ep[2];

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
		/* The tracer ignores SIGPIPE (and ignored signals survive exec); SIGUSR1 is its
		 * snapshot request, not the command's. */
		for (size_t i = 0; i < sizeof(child_dfl) / sizeof(child_dfl[0]); i++)
			signal(child_dfl[i], SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		if (drop_privs && drop_to_sudo_user()) {
			e = errno;
			(void)!write(ep[1], &e, sizeof(e));
			_exit(127);
		}
		/* A dead tracer (even SIGKILLed) takes the command with it. Set after the
		 * credentials change, which clears it; a tracer already gone is checked after. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(127);
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
static int seize_for_exit_stop(pid_t pid, bool follow)
{
	/* EXITKILL: a tracer that dies, even SIGKILLed, takes every seized process along (the
	 * child's PDEATHSIG reaches the child only, not what it started). A normal end detaches
	 * the survivors first (detach_survivors), so they run on. */
	long opts = PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL;

	/* follow: every process the child's tree creates is seized too, from its birth. */
	if (follow)
		opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC;
	return ptrace(PTRACE_SEIZE, pid, 0, opts) ? -errno : 0;
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
	t->pids = &t->pid;
	t->pid_cnt = 1;
	join_cmdline(t->cmdline, sizeof(t->cmdline), argv);
	err = seize_for_exit_stop(t->pid, t->opts.follow);
	t->seized = !err;
	if (err)
		vlog("ptrace: %s: maps of a short-lived target may be missed\n", strerror(-err));
	return t;
}

bool target__holds_births(const struct target *t)
{
	return t && t->is_child && t->seized && t->opts.follow;
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

bool target__read_cmdline(pid_t pid, char *buf, size_t sz)
{
	char path[64];
	size_t n;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sz - 1, f);
	fclose(f);
	while (n && !buf[n - 1])
		n--; /* the trailing NUL(s) */
	for (size_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = '\0';
	return n > 0;
}

/* An attached target with room for cnt pids, none set. */
static struct target *target_alloc(size_t cnt)
{
	struct target *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->pids = calloc(cnt ? cnt : 1, sizeof(*t->pids));
	t->pidfds = calloc(cnt ? cnt : 1, sizeof(*t->pidfds));
	if (!t->pids || !t->pidfds) {
		free(t->pids);
		free(t->pidfds);
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->go_fd = t->err_fd = t->pidfd = -1;
	return t;
}

/* Add pid to the attached target t: its pidfd, and its command line if it is the first. */
static void add_pid(struct target *t, pid_t pid)
{
	t->pids[t->pid_cnt] = pid;
	t->pidfds[t->pid_cnt] = open_pidfd(pid);
	if (!t->pid_cnt++) {
		t->pid = pid;
		t->pidfd = t->pidfds[0];
		if (!target__read_cmdline(pid, t->cmdline, sizeof(t->cmdline)))
			snprintf(t->cmdline, sizeof(t->cmdline), "pid %d", (int)pid);
	}
}

struct target *target__attach_pids(const pid_t *pids, size_t cnt, pid_t *missing)
{
	struct target *t;

	for (size_t i = 0; i < cnt; i++)
		if (kill(pids[i], 0) && errno == ESRCH) {
			*missing = pids[i];
			return NULL;
		}
	t = target_alloc(cnt);
	for (size_t i = 0; t && i < cnt; i++)
		add_pid(t, pids[i]);
	return t;
}

/* Read a cgroup.procs file: up to max pids into out. Count or -errno. */
static int read_procs(const char *file, pid_t *out, size_t max)
{
	FILE *f = fopen(file, "re");
	long pid;
	int n = 0;

	if (!f)
		return -errno;
	while ((size_t)n < max && fscanf(f, "%ld", &pid) == 1)
		out[n++] = (pid_t)pid;
	fclose(f);
	return n;
}

#define CGROUP_PROCS_MAX 4096 /* processes read from cgroup.procs per scan */

static bool was_seen(const struct target *t, pid_t pid)
{
	for (size_t i = 0; i < t->seen_cnt; i++)
		if (t->seen[i] == pid)
			return true;
	return false;
}

static int mark_seen(struct target *t, pid_t pid)
{
	if (grow__array(&t->seen, &t->seen_cap, t->seen_cnt + 1, sizeof(*t->seen)))
		return -ENOMEM;
	t->seen[t->seen_cnt++] = pid;
	return 0;
}

struct target *target__attach_cgroup(const char *path)
{
	pid_t *pids = malloc(CGROUP_PROCS_MAX * sizeof(*pids));
	struct target *t = NULL;
	char *file = NULL;
	int n, err = 0;

	if (!pids || asprintf(&file, "%s/cgroup.procs", path) < 0) {
		err = ENOMEM;
		goto cleanup;
	}
	n = read_procs(file, pids, CGROUP_PROCS_MAX);
	if (n <= 0) {
		err = n < 0 ? (n == -ENOENT ? ENOENT : -n) : ESRCH;
		goto cleanup;
	}
	t = target_alloc((size_t)n);
	if (!t) {
		err = ENOMEM;
		goto cleanup;
	}
	for (int i = 0; i < n; i++) {
		add_pid(t, pids[i]);
		if (mark_seen(t, pids[i])) {
			err = ENOMEM;
			goto cleanup;
		}
	}
	t->procs = file;
	file = NULL;
cleanup:
	free(pids);
	free(file);
	if (err) {
		target__free(t);
		t = NULL;
		errno = err;
	}
	return t;
}

int target__new_procs(struct target *t, pid_t *out, size_t max)
{
	pid_t *pids;
	int n, cnt = 0;

	if (!t->procs)
		return 0;
	pids = malloc(CGROUP_PROCS_MAX * sizeof(*pids));
	if (!pids)
		return -ENOMEM;
	n = read_procs(t->procs, pids, CGROUP_PROCS_MAX);
	for (int i = 0; i < n && (size_t)cnt < max; i++) {
		if (was_seen(t, pids[i]))
			continue;
		if (mark_seen(t, pids[i])) {
			n = -ENOMEM;
			break;
		}
		out[cnt++] = pids[i];
	}
	free(pids);
	return n < 0 ? n : cnt;
}

const pid_t *target__pids(const struct target *t, size_t *cnt)
{
	*cnt = t->pid_cnt;
	return t->pids;
}

/* A group stop (SIGSTOP and the terminal stops) as opposed to PTRACE_EVENT_STOP's other
 * uses here: the first stop of an auto-attached child (SIGTRAP). */
static bool is_group_stop_sig(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* Resume a ptrace-stopped process of the tree, after the hold point's callback. */
static void handle_stop(struct target *t, pid_t pid, int status)
{
	int event = status >> 16, sig = WSTOPSIG(status);

	switch (event) {
	case PTRACE_EVENT_EXIT:
		if (t->opts.on_exit_stop)
			t->opts.on_exit_stop(t->opts.ctx, pid);
		ptrace(PTRACE_CONT, pid, 0, 0);
		break;
	case PTRACE_EVENT_EXEC:
		if (t->opts.on_exec_stop)
			t->opts.on_exec_stop(t->opts.ctx, pid);
		ptrace(PTRACE_CONT, pid, 0, 0);
		break;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		/* The child is seized already; its own first stop is reported on its own. */
		ptrace(PTRACE_CONT, pid, 0, 0);
		break;
	case PTRACE_EVENT_STOP:
		if (is_group_stop_sig(sig)) {
			ptrace(PTRACE_LISTEN, pid, 0, 0); /* group stop: stay stopped */
			break;
		}
		/* A new child's first stop, before its first instruction; also a process
		 * resumed (SIGCONT) after a group stop kept with PTRACE_LISTEN: the callback
		 * must be a no-op for a process it has seen. */
		if (t->opts.on_birth_stop)
			t->opts.on_birth_stop(t->opts.ctx, pid);
		ptrace(PTRACE_CONT, pid, 0, 0);
		break;
	default:
		ptrace(PTRACE_CONT, pid, 0, sig); /* deliver the signal */
	}
}

/* The processes in /proc that keep(pid, ctx) accepts: at most max into out. */
static size_t procs_where(bool (*keep)(pid_t pid, const void *ctx), const void *ctx, pid_t *out,
			  size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;

	while (d && n < max && (de = readdir(d))) {
		pid_t pid = (pid_t)atoi(de->d_name);

		if (pid > 0 && keep(pid, ctx))
			out[n++] = pid;
	}
	if (d)
		closedir(d);
	return n;
}

/* pid is ptrace-seized by *(pid_t *)tracer (TracerPid in its status). */
static bool traced_by(pid_t pid, const void *tracer)
{
	char path[64], line[128];
	bool yes = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "TracerPid:", 10)) {
			yes = (pid_t)atoi(line + 10) == *(const pid_t *)tracer;
			break;
		}
	fclose(f);
	return yes;
}

/* Let a seized process go: stop it (PTRACE_INTERRUPT), then detach, handing on a signal it
 * was stopped to receive. A fork it stopped in seized its child too: the caller looks again. */
static void detach_one(pid_t pid)
{
	int st;

	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0))
		return; /* gone */
	while (waitpid(pid, &st, __WALL) < 0)
		if (errno != EINTR)
			return;
	if (!WIFSTOPPED(st))
		return; /* it exited meanwhile */
	/* A signal-delivery stop has no event: its signal is delivered on detach. */
	ptrace(PTRACE_DETACH, pid, 0, (st >> 16) ? 0 : WSTOPSIG(st));
}

/* The command is over and its descendants that still run are left running: detached, so
 * that neither EXITKILL at the tracer's exit nor a ptrace stop while it writes the profiles
 * reaches them. Each round catches the children of forks the previous one interrupted. */
static void detach_survivors(void)
{
	pid_t pids[1024], me = getpid();
	size_t n;

	for (int round = 0; round < 16 && (n = procs_where(traced_by, &me, pids, 1024)); round++)
		for (size_t i = 0; i < n; i++)
			detach_one(pids[i]);
}

/* Wait for the spawned child (blocking or not), resuming it and (follow) the processes of
 * its tree through their ptrace stops. Returns true while the child lives; *status holds
 * its exit status once it is gone. Its descendants' exits are reaped here too (as their
 * tracer; their parents still get them). */
static bool wait_child(struct target *t, int *status, bool block)
{
	for (;;) {
		int st;
		pid_t p = waitpid(t->opts.follow ? -1 : t->pid, &st, (block ? 0 : WNOHANG) | __WALL);

		if (p == 0)
			return true;
		if (p < 0)
			return errno == EINTR;
		if (WIFSTOPPED(st)) {
			handle_stop(t, p, st);
			continue;
		}
		if (p != t->pid && t->opts.on_reaped)
			t->opts.on_reaped(t->opts.ctx, p);
		if (p == t->pid && (WIFEXITED(st) || WIFSIGNALED(st))) {
			*status = st;
			if (t->opts.follow)
				detach_survivors();
			return false;
		}
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

/* An attached process lives: its pidfd is not readable yet (or, without one, kill says). */
static bool pid_alive(pid_t pid, int pidfd)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	if (pidfd >= 0)
		return poll(&pfd, 1, 0) == 0;
	return kill(pid, 0) == 0 || errno == EPERM;
}

bool target__alive(struct target *t, int *status)
{
	pid_t one;

	if (t->is_child)
		return wait_child(t, status, false);
	if (t->procs) /* a cgroup lives while it holds a process */
		return read_procs(t->procs, &one, 1) > 0;
	for (size_t i = 0; i < t->pid_cnt; i++)
		if (pid_alive(t->pids[i], t->pidfds[i]))
			return true;
	return false;
}

bool target__gone_within(struct target *t, int ms)
{
	struct pollfd pfd = { .fd = t->pidfd, .events = POLLIN };
	int status;

	return t->pidfd >= 0 ? poll(&pfd, 1, ms) == 1 : !target__alive(t, &status);
}

/* pid descends from *(pid_t *)root, found through the parents in /proc. */
static bool descends_from(pid_t pid, const void *root)
{
	pid_t r = *(const pid_t *)root, p = pid;

	/* A bounded walk: a pid reused during it cannot make a loop. */
	for (int depth = 0; p > 1 && p != r && depth < 64; depth++)
		p = target__ppid(p);
	return pid != r && p == r;
}

void target__stop(struct target *t, bool kill_tree)
{
	pid_t tree[1024];
	size_t n;

	if (!t->is_child)
		return;
	if (!kill_tree) {
		kill(t->pid, SIGTERM);
		return;
	}
	/* What the command started dies with it (a shell's pipeline, a server's workers). Read
	 * before the command dies, while they are still its descendants (then init's). */
	n = procs_where(descends_from, &t->pid, tree, sizeof(tree) / sizeof(tree[0]));
	kill(t->pid, SIGKILL);
	for (size_t i = 0; i < n; i++)
		kill(tree[i], SIGKILL);
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
	for (size_t i = 0; !t->is_child && i < t->pid_cnt; i++)
		if (t->pidfds[i] >= 0)
			close(t->pidfds[i]);
	if (!t->is_child) {
		free(t->pids);
		free(t->pidfds);
	}
	free(t->procs);
	free(t->seen);
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
	const char *name = t->is_child ? t->argv[0] : NULL;

	if (!name) {
		snprintf(path, sz, "/proc/%d/exe", (int)t->pid);
		return 0;
	}
	return shebang__search_path(name, getenv("PATH"), path, sz);
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

pid_t target__ppid(pid_t pid)
{
	return (pid_t)proc_stat_field(pid, 4);
}

bool target__is_kernel_thread(pid_t pid)
{
	return proc_stat_field(pid, 9) & 0x00200000ULL; /* flags: PF_KTHREAD */
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Inherited uprobe perf events: see loader_inherit.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "loader_inherit.h"

#define LOG_TAG "loader: "
#include "log.h"

#define TRACEFS "/sys/kernel/tracing"

/* Room for one more element in *v (cnt in use, *cap allocated). 0 or -ENOMEM. */
static int grow(void **v, size_t *cap, size_t cnt, size_t elem)
{
	size_t n = *cap ? 2 * *cap : 32;
	void *nv;

	if (cnt < *cap)
		return 0;
	nv = realloc(*v, n * elem);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = n;
	return 0;
}

/* Append one command line to tracefs's uprobe_events. 0 or -errno. */
static int uprobe_events_write(const char *cmd)
{
	int fd = open(TRACEFS "/uprobe_events", O_WRONLY | O_APPEND | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, cmd, strlen(cmd)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* A tracer killed before its closer thread ran (SIGKILL) leaves its tracefs events:
 * delete those of tracers that no longer exist, once, before making ours. */
static void delete_stale_events(void)
{
	FILE *f = fopen(TRACEFS "/uprobe_events", "re");
	char line[PATH_MAX + 128], cmd[128];
	int pid;
	unsigned seq;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*c:tracer_%d/e%u ", &pid, &seq) == 2 && kill(pid, 0) &&
		    errno == ESRCH) {
			snprintf(cmd, sizeof(cmd), "-:tracer_%d/e%u\n", pid, seq);
			uprobe_events_write(cmd);
		}
	fclose(f);
}

/* The event for (path, off, retprobe): found, or made in tracefs. NULL + errno. */
static struct inherit_event *event_for(struct inherit_links *ls, const char *path, size_t off,
				       bool retprobe)
{
	struct inherit_event *e;
	char cmd[PATH_MAX + 128], idp[128];
	FILE *f;
	int err;

	for (size_t i = 0; i < ls->ev_cnt; i++) {
		e = &ls->ev[i];
		if (e->off == off && e->retprobe == retprobe && !strcmp(e->path, path))
			return e;
	}
	if (grow((void **)&ls->ev, &ls->ev_cap, ls->ev_cnt, sizeof(*ls->ev)))
		return NULL;
	e = &ls->ev[ls->ev_cnt];
	*e = (struct inherit_event){ .off = off, .retprobe = retprobe, .seq = (unsigned)ls->ev_cnt };
	if (!ls->group)
		delete_stale_events();
	ls->group = getpid();
	snprintf(cmd, sizeof(cmd), "%c:tracer_%d/e%u %s:0x%zx\n", retprobe ? 'r' : 'p',
		 (int)ls->group, e->seq, path, off);
	err = uprobe_events_write(cmd);
	if (err) {
		elog("cannot make the uprobe %s:0x%zx in " TRACEFS "/uprobe_events: %s\n", path,
		     off, strerror(-err));
		errno = -err;
		return NULL;
	}
	e->path = strdup(path);
	snprintf(idp, sizeof(idp), TRACEFS "/events/tracer_%d/e%u/id", (int)ls->group, e->seq);
	f = fopen(idp, "re");
	if (!f || fscanf(f, "%d", &e->id) != 1 || !e->path) {
		err = f ? -EINVAL : -errno;
		if (f)
			fclose(f);
		free(e->path);
		snprintf(cmd, sizeof(cmd), "-:tracer_%d/e%u\n", (int)ls->group, e->seq);
		uprobe_events_write(cmd);
		errno = -err;
		return NULL;
	}
	fclose(f);
	ls->ev_cnt++;
	return e;
}

static int perf_event_on(int id, pid_t tid, bool inherit)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (__u64)id;
	a.sample_period = 1;
	a.wakeup_events = 1;
	/* Copied into every task tid creates from now on (threads and processes), before it
	 * runs; the copies are freed with the original when the tracer closes it. */
	a.inherit = inherit;
	fd = (int)syscall(__NR_perf_event_open, &a, tid, -1 /* any cpu */, -1,
			  PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int push_fd(struct inherit_links *ls, int fd)
{
	if (grow((void **)&ls->fds, &ls->fd_cap, ls->fd_cnt, sizeof(*ls->fds)))
		return -ENOMEM;
	ls->fds[ls->fd_cnt++] = fd;
	return 0;
}

static int push_link(struct inherit_links *ls, struct bpf_link *link)
{
	if (grow((void **)&ls->v, &ls->cap, ls->cnt, sizeof(*ls->v)))
		return -ENOMEM;
	ls->v[ls->cnt++] = link;
	return 0;
}

/* Close every descriptor of this (forked) process but 0-2. */
static void close_inherited_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int dfd = d ? dirfd(d) : -1;

	if (!d)
		return;
	while ((e = readdir(d))) {
		int fd = (int)strtol(e->d_name, NULL, 10);
		if (fd >= 3 && fd != dfd)
			close(fd);
	}
	closedir(d);
}

/*
 * The task carrying the programs: a child of the tracer that only waits to die. The BPF
 * program of a uprobe hangs off its trace event, attached through ONE perf event; when
 * that perf event was one of the traced tasks', the first inherited copy to be freed (a
 * child's exit) took the program off the uprobe for everyone (kernel 6.18, checked: the
 * third of three forks had no record). On a task that never exits while tracing, the
 * programs stay; it never calls the allocator, so its own probe hits cost nothing.
 */
static int carrier_pid(struct inherit_links *ls)
{
	pid_t pid;

	if (ls->carrier > 0)
		return ls->carrier;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* Hold nothing of the tracer's: a held target's go pipe kept open here would
		 * keep it from ever seeing the tracer give up on it. */
		close_inherited_fds();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	ls->carrier = pid;
	return pid;
}

/* The event's program, on the carrier (once per event). */
static int attach_prog(struct inherit_links *ls, struct inherit_event *e, struct bpf_program *prog,
		       __u64 cookie)
{
	LIBBPF_OPTS(bpf_perf_event_opts, o, .bpf_cookie = cookie);
	struct bpf_link *link;
	int carrier = carrier_pid(ls), fd, err;

	if (carrier < 0)
		return carrier;
	fd = perf_event_on(e->id, carrier, false);
	if (fd < 0)
		return fd;
	link = bpf_program__attach_perf_event_opts(prog, fd, &o);
	if (!link) {
		err = -errno;
		close(fd);
		return err;
	}
	err = push_link(ls, link); /* the link owns fd now */
	if (err) {
		bpf_link__destroy(link);
		return err;
	}
	e->has_prog = true;
	return 0;
}

static int attach_task(struct inherit_links *ls, struct bpf_program *entry,
		       struct bpf_program *ret, const char *path,
		       const struct inherit_probe *probes, size_t cnt, pid_t tid)
{
	/* Return probes first: an entry without its return would leave a thread waiting. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < cnt; i++) {
			struct inherit_event *e;
			int fd, err;

			if (probes[i].retprobe != (pass == 0))
				continue;
			e = event_for(ls, path, probes[i].off, probes[i].retprobe);
			if (!e)
				return -errno;
			if (!e->has_prog) {
				err = attach_prog(ls, e, probes[i].retprobe ? ret : entry,
						  probes[i].cookie);
				if (err)
					return err;
			}
			fd = perf_event_on(e->id, tid, true);
			if (fd < 0)
				return fd;
			if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) || push_fd(ls, fd)) {
				err = errno ? -errno : -ENOMEM;
				close(fd);
				return err;
			}
		}
	}
	return 0;
}

/* Is tid one of the n tids in done? */
static bool seen(const pid_t *done, size_t n, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (done[i] == tid)
			return true;
	return false;
}

int loader_inherit__attach(struct inherit_links *ls, struct bpf_program *entry,
			   struct bpf_program *ret, const char *path,
			   const struct inherit_probe *probes, size_t cnt, pid_t pid)
{
	pid_t *done = NULL;
	size_t n = 0, cap = 0;
	bool added = true;
	char dir[64];
	int err = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	while (added && !err) {
		DIR *d = opendir(dir);
		struct dirent *e;

		if (!d)
			return errno == ENOENT ? -ESRCH : -errno;
		added = false;
		while (!err && (e = readdir(d))) {
			pid_t tid = (pid_t)strtol(e->d_name, NULL, 10);

			if (tid <= 0 || seen(done, n, tid))
				continue;
			if (n == cap) {
				pid_t *v = realloc(done, (cap = cap ? 2 * cap : 16) * sizeof(*v));

				if (!v) {
					err = -ENOMEM;
					break;
				}
				done = v;
			}
			done[n++] = tid;
			added = true;
			err = attach_task(ls, entry, ret, path, probes, cnt, tid);
			if (err == -ESRCH && tid != pid)
				err = 0; /* a thread that exited meanwhile */
		}
		closedir(d);
	}
	free(done);
	if (!err)
		dlog("%zu inherited probes on %zu thread(s) of %d\n", cnt, n, (int)pid);
	return err;
}

/* Threads closing the perf events side by side (see loader_inherit__detach). */
#define CLOSERS 8

struct close_slice {
	struct inherit_links *ls;
	int k;
};

static void *close_slice(void *arg)
{
	struct close_slice *c = arg;

	for (size_t i = (size_t)c->k; i < c->ls->cnt; i += CLOSERS)
		bpf_link__destroy(c->ls->v[i]);
	for (size_t i = (size_t)c->k; i < c->ls->fd_cnt; i += CLOSERS)
		close(c->ls->fds[i]);
	return NULL;
}

static void parallel_close(struct inherit_links *ls)
{
	struct close_slice c[CLOSERS];
	pthread_t t[CLOSERS];
	bool started[CLOSERS];

	for (int k = 0; k < CLOSERS; k++) {
		c[k] = (struct close_slice){ ls, k };
		started[k] = !pthread_create(&t[k], NULL, close_slice, &c[k]);
		if (!started[k])
			close_slice(&c[k]);
	}
	for (int k = 0; k < CLOSERS; k++)
		if (started[k])
			pthread_join(t[k], NULL);
}

/* Close every perf event, then delete the tracefs events (slow: see detach). */
static void close_all(struct inherit_links *ls)
{
	/* The carrier dies first: closing a perf event whose task is gone skips the walk
	 * over every process that maps the probed file (see detach). */
	if (ls->carrier > 0) {
		kill(ls->carrier, SIGKILL);
		waitpid(ls->carrier, NULL, 0);
		ls->carrier = 0;
	}
	parallel_close(ls);
	/* Every perf event on them is closed (their inherited copies go with them): the
	 * tracefs events can go. */
	for (size_t i = 0; i < ls->ev_cnt; i++) {
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "-:tracer_%d/e%u\n", (int)ls->group, ls->ev[i].seq);
		uprobe_events_write(cmd);
	}
}

static void *closer(void *arg)
{
	close_all(arg);
	return NULL;
}

void loader_inherit__detach(struct inherit_links *ls)
{
	if (ls->closing || (!ls->cnt && !ls->fd_cnt && !ls->ev_cnt))
		return;
	/*
	 * Closing a uprobe perf event waits for RCU grace periods (30-140 ms each here, 62
	 * events for 31 probes). Part of that is under the kernel's event_mutex and part is
	 * not: CLOSERS threads overlap what can be overlapped (`tracer -- true` under load
	 * here: 8.7-10.5 s with one thread, 4.1-5.9 s with eight, interleaved runs). The
	 * carrier dies first, so closing its events skips uprobe_apply's walk over every
	 * process mapping the probed file (its task is exiting). The programs are
	 * silenced already (probes_live), so a thread closes them while the profiles are
	 * written. Not a process outliving the tracer: the next tracer's attach would wait
	 * behind it on event_mutex (3 s: a short-lived --pid target was gone by then).
	 */
	ls->closing = true;
	ls->threaded = !pthread_create(&ls->thread, NULL, closer, ls);
	if (!ls->threaded)
		close_all(ls);
}

void loader_inherit__wait(struct inherit_links *ls)
{
	loader_inherit__detach(ls);
	if (ls->threaded)
		pthread_join(ls->thread, NULL);
	for (size_t i = 0; i < ls->ev_cnt; i++)
		free(ls->ev[i].path);
	free(ls->v);
	free(ls->fds);
	free(ls->ev);
	*ls = (struct inherit_links){ 0 };
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Inherited uprobe perf events: see loader_inherit.h. At the end, the inherit attach mode
 * made of them (loader_attach.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <time.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "loader_attach.h"
#include "loader_inherit.h"
#include "tracefs.h"
#include "grow.h"

#define LOG_TAG "loader: "
#include "log.h"
#include "safe_text.h"

/* Delete from uprobe_events each event of the groups gone() says go ("tracer_<pid>_<tag>",
 * or "tracer_<pid>" of older tracers). With open, read, write and string formatting only:
 * the carrier runs it, a child forked from a threaded tracer. Returns how many it could not
 * delete because a perf event still held them (-EBUSY), or -errno when uprobe_events cannot
 * be read. */
static int delete_events(int root, bool (*gone)(const char *group, int pid, const void *ctx),
			 const void *ctx)
{
	static char buf[1 << 20]; /* a page of the carrier's own once forked (copy on write) */
	char cmd[128], group[64];
	long n = tracefs__read(root, "uprobe_events", buf, sizeof(buf));
	int busy = 0, pid;
	unsigned seq;

	if (n < 0)
		return (int)n;
	for (char *line = buf; line && *line; line = strchr(line, '\n'), line += !!line)
		if (sscanf(line, "%*c:%63[^/]/e%u ", group, &seq) == 2 &&
		    sscanf(group, "tracer_%d", &pid) == 1 && gone(group, pid, ctx)) {
			snprintf(cmd, sizeof(cmd), "-:%s/e%u\n", group, seq);
			busy += tracefs__append(root, "uprobe_events", cmd) == -EBUSY;
		}
	return busy;
}

/* A group of a tracer that no longer exists (in this pid namespace: one of another
 * namespace looks gone too, but its events are held by its perf events, EBUSY, but for
 * the moment between making one and opening it). */
static bool tracer_is_dead(const char *group, int pid, const void *ctx)
{
	(void)group;
	(void)ctx;
	return kill(pid, 0) && errno == ESRCH;
}

static bool is_group(const char *group, int pid, const void *ctx)
{
	(void)pid;
	return !strcmp(group, ctx);
}

/* Delete every event of our group, retrying while the perf events holding them are still
 * being released (some after an RCU grace period). */
#define SWEEP_TRIES   100
#define SWEEP_WAIT_US 50000

static void delete_group(int root, const char *group)
{
	for (int i = 0; i < SWEEP_TRIES && delete_events(root, is_group, group) > 0; i++)
		usleep(SWEEP_WAIT_US);
}

/* Our group's name: the pid alone could be another tracer's in another pid namespace
 * (two containers' PID 1), and uprobe_events is one list for the whole host. */
static void name_group(struct inherit_links *ls)
{
	unsigned tag = 0;

	if (getrandom(&tag, sizeof(tag), GRND_NONBLOCK) != sizeof(tag))
		tag = (unsigned)time(NULL) ^ (unsigned)getpid() << 16;
	snprintf(ls->group, sizeof(ls->group), "tracer_%d_%08x", (int)getpid(), tag);
}

/* The event for (path, off, retprobe): found, or made in tracefs. NULL + errno. */
static struct inherit_event *event_for(struct inherit_links *ls, const char *path, size_t off,
				       bool retprobe)
{
	struct inherit_event *e;
	char cmd[PATH_MAX + 128], idp[128];
	int err;

	for (size_t i = 0; i < ls->ev_cnt; i++) {
		e = &ls->ev[i];
		if (e->off == off && e->retprobe == retprobe && !strcmp(e->path, path))
			return e;
	}
	if (grow__array(&ls->ev, &ls->ev_cap, ls->ev_cnt + 1, sizeof(*ls->ev)))
		return NULL;
	e = &ls->ev[ls->ev_cnt];
	*e = (struct inherit_event){ .off = off, .retprobe = retprobe, .seq = (unsigned)ls->ev_cnt };
	if (!ls->group[0]) {
		ls->tracefs = tracefs__root();
		if (ls->tracefs < 0) {
			elog("cannot make uprobe events: no tracefs (%s): not mounted, and the "
			     "tracer could not mount its own (needs CAP_SYS_ADMIN)\n",
			     strerror(-ls->tracefs));
			errno = -ls->tracefs;
			return NULL;
		}
		/* A tracer killed with its carrier (see carrier_pid) leaves its events:
		 * delete those of tracers that no longer exist, once, before making ours. */
		delete_events(ls->tracefs, tracer_is_dead, NULL);
		name_group(ls);
	}
	snprintf(cmd, sizeof(cmd), "%c:%s/e%u %s:0x%zx\n", retprobe ? 'r' : 'p', ls->group, e->seq,
		 path, off);
	err = tracefs__append(ls->tracefs, "uprobe_events", cmd);
	if (err) {
		elog("cannot make the uprobe %s:0x%zx in uprobe_events (tracefs %s): %s\n",
		     safe_text__term(path),
		     off, tracefs__via_name(tracefs__via()), strerror(-err));
		errno = -err;
		return NULL;
	}
	e->path = strdup(path);
	snprintf(idp, sizeof(idp), "events/%s/e%u/id", ls->group, e->seq);
	err = tracefs__read_int(ls->tracefs, idp, &e->id);
	if (err || !e->path) {
		free(e->path);
		snprintf(cmd, sizeof(cmd), "-:%s/e%u\n", ls->group, e->seq);
		tracefs__append(ls->tracefs, "uprobe_events", cmd);
		errno = err ? -err : ENOMEM;
		return NULL;
	}
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
	if (grow__array(&ls->fds, &ls->fd_cap, ls->fd_cnt + 1, sizeof(*ls->fds)))
		return -ENOMEM;
	ls->fds[ls->fd_cnt++] = fd;
	return 0;
}

static int push_link(struct inherit_links *ls, struct bpf_link *link)
{
	if (grow__array(&ls->v, &ls->cap, ls->cnt + 1, sizeof(*ls->v)))
		return -ENOMEM;
	ls->v[ls->cnt++] = link;
	return 0;
}

/* Close every descriptor of this (forked) process but 0-2 and keep (async-signal-safe). */
static void close_inherited_fds(int keep)
{
	if (keep > 3)
		close_range(3, (unsigned)keep - 1, 0);
	close_range(keep >= 3 ? (unsigned)keep + 1 : 3, ~0u, 0);
}

/* The carrier's life: idle until the tracer dies; then, unless the tracer killed it first
 * (its normal ending: it deletes its events itself), delete the tracer's events, so a
 * tracer killed with SIGKILL leaves uprobe_events as it found it. */
static void carrier_main(pid_t tracer, int root, const char *group)
{
	sigset_t term;
	int sig;

	/* Hold nothing of the tracer's but tracefs: a held target's go pipe kept open here
	 * would keep it from ever seeing the tracer give up on it. */
	close_inherited_fds(root);
	/* Out of the tracer's session and process group: a signal to the tracer's group
	 * (Ctrl-C, timeout -s KILL) does not end the carrier before it has cleaned up. */
	setsid();
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	/* The signal comes when the thread that forked the carrier ends; the tracer is gone
	 * only once the carrier has another parent (also when it died before prctl). */
	while (getppid() == tracer)
		sigwait(&term, &sig);
	delete_group(root, group);
	_exit(0);
}

/*
 * The task carrying the programs: a child of the tracer that only waits for it to die. The
 * BPF program of a uprobe hangs off its trace event, attached through ONE perf event; when
 * that perf event was one of the traced tasks', the first inherited copy to be freed (a
 * child's exit) took the program off the uprobe for everyone (kernel 6.18, checked: the
 * third of three forks had no record). On a task that never exits while tracing, the
 * programs stay; it never calls the allocator, so its own probe hits cost nothing. It also
 * outlives a tracer killed with SIGKILL, to delete the tracer's events (carrier_main).
 */
static int carrier_pid(struct inherit_links *ls)
{
	pid_t pid, tracer = getpid();

	if (ls->carrier > 0)
		return ls->carrier;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		carrier_main(tracer, ls->tracefs, ls->group);
	ls->carrier = pid;
	/* Signalled through a pidfd: a follow-mode waitpid(-1) may reap a carrier that died,
	 * and its pid be reused by then. */
	ls->carrier_fd = (int)syscall(SYS_pidfd_open, pid, 0);
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
			if (grow__array(&done, &cap, n + 1, sizeof(*done))) {
				err = -ENOMEM;
				break;
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
		if (ls->carrier_fd >= 0)
			syscall(SYS_pidfd_send_signal, ls->carrier_fd, SIGKILL, NULL, 0);
		else
			kill(ls->carrier, SIGKILL);
		waitpid(ls->carrier, NULL, 0); /* ECHILD when reaped already */
		if (ls->carrier_fd >= 0)
			close(ls->carrier_fd);
		ls->carrier = 0;
		ls->carrier_fd = -1;
	}
	parallel_close(ls);
	/* Every perf event on them is closed (their inherited copies go with them): the
	 * tracefs events can go, retried as the carrier would. */
	if (ls->ev_cnt)
		delete_group(ls->tracefs, ls->group);
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

/* --- the inherit attach mode (loader_attach.h) ------------------------------------------- */

/* Every probed object's probes, kept for the processes added later, and every event. */
struct inherit_state {
	struct inherit_probe probes[ALLOC_OBJ_MAX][FN_COUNT + PLAN_ENTRIES_MAX];
	size_t cnt[ALLOC_OBJ_MAX];
	struct inherit_links inh;
};

static void *inherit_new(void)
{
	return calloc(1, sizeof(struct inherit_state));
}

/* A plan as inherited probes (FN_COUNT + PLAN_ENTRIES_MAX at most), returns first. Returns their count. */
static size_t inherit_probes(const struct probe_plan *p, struct inherit_probe *out)
{
	size_t n = 0;

	for (size_t i = 0; i < p->ret_cnt; i++)
		out[n++] = (struct inherit_probe){ .off = p->ret_off[i], .cookie = p->ret_cookie[i],
						   .retprobe = true };
	for (size_t i = 0; i < p->entry_cnt; i++)
		out[n++] = (struct inherit_probe){ .off = p->entry_off[i],
						   .cookie = p->entry_cookie[i] };
	return n;
}

/* Every object's inherited probes on pid's threads. */
static int inherit_add_process(struct attach *a, pid_t pid)
{
	struct inherit_state *s = a->state;
	int err = 0;

	for (__u32 k = 0; k < a->syms->obj_cnt && !err; k++) {
		err = loader_inherit__attach(&s->inh, a->entry, a->ret, a->syms->objs[k],
					     s->probes[k], s->cnt[k], pid);
		if (err && err != -ESRCH)
			elog("cannot attach inherited probes to %s for pid %d: %s\n",
			     a->syms->objs[k], (int)pid, strerror(-err));
	}
	return err;
}

/* The plans as inherited probes on pid's threads (the loader attached the process
 * tracepoints before, with follow: a fork during the attach must already put the child in
 * the traced map, as it inherits the probes attached so far). Every return is trapped: no
 * session here, and no_ret is for the links' modes. */
static int inherit_attach(struct attach *a, const struct probe_plans *plans, pid_t pid,
			  bool no_ret)
{
	struct inherit_state *s = a->state;

	(void)no_ret;
	for (size_t k = 0; k < plans->cnt; k++)
		s->cnt[k] = inherit_probes(&plans->obj[k], s->probes[k]);
	return inherit_add_process(a, pid);
}

static int inherit_attach_image(struct attach *a, pid_t pid, const struct alloc_symbols *syms,
				const struct probe_plans *plans)
{
	struct inherit_state *s = a->state;
	struct inherit_probe probes[FN_COUNT + PLAN_ENTRIES_MAX];
	int err = 0;

	for (size_t k = 0; !err && k < plans->cnt; k++)
		err = loader_inherit__attach(&s->inh, a->entry, a->ret, syms->objs[k], probes,
					     inherit_probes(&plans->obj[k], probes), pid);
	return err;
}

/* No job for the loader: a thread of our own closes the perf events. */
static size_t inherit_detach(struct attach *a, struct detach_job *jobs)
{
	struct inherit_state *s = a->state;

	(void)jobs;
	loader_inherit__detach(&s->inh);
	return 0;
}

static void inherit_free(void *state)
{
	struct inherit_state *s = state;

	if (!s)
		return;
	loader_inherit__wait(&s->inh); /* begun by loader__stop: overlapped with the output */
	free(s);
}

const struct attach_ops loader_inherit__ops = {
	.name = "inherited perf events",
	.follows = true,
	.detach_async = true,
	.new = inherit_new,
	.attach = inherit_attach,
	.add_process = inherit_add_process,
	.attach_image = inherit_attach_image,
	.detach = inherit_detach,
	.free = inherit_free,
};

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer - out-of-process heap-allocation tracer writing DHAT profiles.
 *
 * main owns the command line, the target process (spawned or attached), the poll loop and
 * the wiring: loader (BPF) -> session (windows) -> collector (accounting) -> frames +
 * symbolizer -> DHAT writer -> report.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "collector.h"
#include "dhat_reader.h"
#include "dhat_writer.h"
#include "export.h"
#include "dwarf_stacks.h"
#include "fp_detect.h"
#include "frames.h"
#include "loader.h"
#include "loader_window.h"
#include "log.h"
#include "report.h"
#include "session.h"
#include "symbolizer.h"

#ifndef TRACER_VERSION
#define TRACER_VERSION "0.0.0"
#endif

/* Exit statuses, documented in --help and the README. */
enum tracer_exit {
	TRACER_EXIT_OK = 0,
	TRACER_EXIT_FAILURE = 1,     /* tracing or writing failed, or a workload failed */
	TRACER_EXIT_USAGE = 2,	     /* bad arguments or input: unknown workload, bad pid, bad file */
	TRACER_EXIT_UNSUPPORTED = 3, /* not root, or the kernel lacks BTF / uprobes */
	TRACER_EXIT_INCOMPLETE = 4,  /* profile written, but ring-buffer records were dropped */
};

#define POLL_INTERVAL_MS 20
#define MAX_WORKLOADS 16
#define MAPS_REFRESH_NS 1000000000ull

static const char usage_text[] =
	"Usage:\n"
	"  tracer --workload NAME|all|list [options]   trace the seed's shell-kernel workloads\n"
	"  tracer --pid PID [--duration SECONDS] [options]\n"
	"                                              attach to a running process\n"
	"  tracer [options] -- CMD [ARGS...]           start CMD traced, exit with its status\n"
	"  tracer report FILE [--top N] [--sort KEY] [--json]   summarize any DHAT file\n"
	"  tracer diff OLD NEW [--top N] [--json]      compare two DHAT files per stack\n"
	"  tracer export FILE [--format pprof|folded|svg] [-o OUT]\n"
	"                                              convert a DHAT file for other tools\n"
	"\n"
	"Options:\n"
	"  -w, --workload NAME     a workload of kaish-workloads, `all` or `list`\n"
	"  -p, --pid PID           trace a running process (all of its threads)\n"
	"  -d, --duration SECONDS  with --pid: stop after this long (default: until Ctrl-C or exit)\n"
	"  -o, --output PATH       profile path (default dhat-heap-<workload|pid>.json in\n"
	"                          $KAISH_PROFILE_OUT or .); with --workload all: a directory;\n"
	"                          a .gz suffix writes gzip\n"
	"      --ringbuf-size N    ring buffer bytes, a power of two (default 16777216;\n"
	"                          67108864 with --unwind dwarf)\n"
	"      --lib PATH          allocator library to probe (default: detected: jemalloc,\n"
	"                          tcmalloc or mimalloc if loaded, the executable if static,\n"
	"                          else the target's libc)\n"
	"      --unwind MODE       how stacks are taken: fp (frame pointers, in BPF), dwarf\n"
	"                          (stack copies unwound with the modules' CFI), auto (default:\n"
	"                          dwarf unless the target executable has frame pointers)\n"
	"      --stack-size BYTES  dwarf: stack bytes copied per allocation (default 8192,\n"
	"                          at most 65536); deeper frames are cut (partial stacks)\n"
	"      --start-at SYMBOL   open the profile at the first call of SYMBOL ([FILE:]NAME;\n"
	"                          NAME alone is looked up in the target's executable)\n"
	"      --stop-at SYMBOL    close it at the next call of SYMBOL (default: at the end)\n"
	"      --as-root           with -- CMD under sudo: do not drop to the invoking user\n"
	"  -f, --format LIST       also write, next to each profile: pprof (.pb.gz), folded,\n"
	"                          svg (flame graph), timeline (live heap over time, .svg)\n"
	"  -t, --top N             rows per report table (default 12)\n"
	"  -q, --quiet             no progress or summary on stderr\n"
	"  -v, --verbose           more detail (-vv, -vvv: libbpf debug output)\n"
	"  -V, --version           print the version\n"
	"  -h, --help              this help\n"
	"\n"
	"Examples:\n"
	"  sudo tracer --workload scatter-gather\n"
	"  sudo KAISH_PROFILE_OUT=/tmp/prof tracer --workload all\n"
	"  sudo tracer -o app.json -- ./my-embedder --serve\n"
	"  sudo tracer --pid 4242 --duration 10\n"
	"  sudo tracer --unwind dwarf -o app.json -- ./release-build-without-frame-pointers\n"
	"  tracer report dhat-heap-grep-pipeline.json --top 20\n"
	"  tracer diff before/dhat-heap-grep-pipeline.json after/dhat-heap-grep-pipeline.json\n"
	"  tracer export dhat-heap-cmdsubst.json --format svg\n"
	"\n"
	"Exit status:\n"
	"  0  profile(s) written          3  not root, or kernel lacks BTF or uprobes\n"
	"  1  tracing or writing failed   4  profile written, but records were dropped\n"
	"  2  bad arguments or input      with -- CMD: the command's own exit status\n"
	"                                 (128+N if killed by signal N), or 4 if it\n"
	"                                 exited 0 but records were dropped\n";

struct workload_info {
	char name[WINDOW_NAME_LEN + 1];
	unsigned long iterations;
	char unit[128];
};

/* --unwind */
enum unwind_mode {
	UNWIND_AUTO = 0,
	UNWIND_FP,
	UNWIND_DWARF,
};

struct tracer_args {
	const char *workload;
	pid_t pid;
	double duration_s;
	char **cmd; /* argv after `--` */
	const char *output;
	size_t ringbuf_sz;
	const char *lib;
	bool as_root;
	size_t top;
	unsigned formats; /* extra outputs: bits (1 << enum export_format), FORMAT_TIMELINE */
	const char *start_at, *stop_at; /* window symbols (--start-at/--stop-at) */
	enum unwind_mode unwind; /* as given; run.dwarf says what was chosen */
	__u32 stack_sz;		 /* --stack-size, 0: default */
};

/* --format timeline: not a DHAT conversion but the collector's live-bytes series. */
#define FORMAT_TIMELINE (1u << 8)

/* Everything one tracing run owns. */
struct run {
	const struct tracer_args *args;
	struct loader *loader;
	struct window_probes *window; /* --start-at/--stop-at */
	struct symbolizer *sym;
	struct session *session;
	bool dwarf;		      /* stacks are snapshots unwound here (--unwind) */
	struct dwarf_stacks *stacks;  /* dwarf: the resolver, NULL until the target exec'd */
	pid_t target;
	bool target_is_child;
	char cmdline[1024];
	struct workload_info workloads[MAX_WORKLOADS];
	size_t workload_cnt;
	__u64 truncated_stacks;
	int write_failures;
	size_t profiles_written;
	bool progress_shown; /* a progress line is on the terminal */
	int pidfd;	     /* attached (not spawned) target: readable once it exits */
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = sig;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	/* bpf_ktime_get_ns() is CLOCK_MONOTONIC: profile times share its origin. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* --- the workload driver ---------------------------------------------------------------- */

/* Path of kaish-workloads: next to the tracer, in the build tree, or as configured. */
static int find_driver(char *path, size_t sz)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sz, "%s/kaish-workloads", self);
			if (!access(path, X_OK))
				return 0;
			snprintf(path, sz, "%s/../workloads/kaish-workloads", self);
			if (!access(path, X_OK))
				return 0;
		}
	}
#ifdef WORKLOAD_DRIVER_BUILD_PATH
	snprintf(path, sz, "%s", WORKLOAD_DRIVER_BUILD_PATH);
	if (!access(path, X_OK))
		return 0;
#endif
	return -ENOENT;
}

/* Read the driver's workload table (`--describe`: name TAB iterations TAB unit). */
static int load_workloads(struct run *r, const char *driver)
{
	char cmd[PATH_MAX + 32], line[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' --describe", driver);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	while (fgets(line, sizeof(line), p) && r->workload_cnt < MAX_WORKLOADS) {
		struct workload_info *w = &r->workloads[r->workload_cnt];
		char *name = strtok(line, "\t"), *iters = strtok(NULL, "\t"),
		     *unit = strtok(NULL, "\n");

		if (!name || !iters || !unit)
			continue;
		snprintf(w->name, sizeof(w->name), "%s", name);
		w->iterations = strtoul(iters, NULL, 10);
		snprintf(w->unit, sizeof(w->unit), "%s", unit);
		r->workload_cnt++;
	}
	if (pclose(p) != 0 || !r->workload_cnt)
		return -EIO;
	return 0;
}

static const struct workload_info *find_workload(const struct run *r, const char *name)
{
	for (size_t i = 0; i < r->workload_cnt; i++)
		if (!strcmp(r->workloads[i].name, name))
			return &r->workloads[i];
	return NULL;
}

/* --- spawning a target with a handshake ----------------------------------------------------- */

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

/* Release a held child; returns 0 once it has exec'd, or -errno of its exec failure. */
static int release_child(int go_fd, int err_fd)
{
	int child_errno = 0;
	ssize_t n;

	if (write(go_fd, "g", 1) != 1) {
		int e = -errno;

		close(go_fd);
		close(err_fd);
		return e;
	}
	close(go_fd);
	n = read(err_fd, &child_errno, sizeof(child_errno));
	close(err_fd);
	return n == (ssize_t)sizeof(child_errno) ? -child_errno : 0;
}

/* --- writing profiles -------------------------------------------------------------------------- */

/* stack_source callbacks, ctx = struct run: stack ids are BPF's, or the resolver's in
 * dwarf mode (one kind per run). */
static int run_stack_cb(void *ctx, __s32 id, __u64 *ips, size_t max)
{
	struct run *r = ctx;

	if (r->dwarf)
		return r->stacks ? dwarf_stacks__stack(r->stacks, id, ips, max) : -ENOENT;
	return loader__stack(r->loader, id, ips, max);
}

static __u64 run_fn_addr_cb(void *ctx, __u32 fn)
{
	return loader__fn_addr(((struct run *)ctx)->loader, fn);
}

static void profile_path(const struct run *r, const char *name, char *path, size_t sz)
{
	const char *out = r->args->output;
	const char *dir = getenv("KAISH_PROFILE_OUT");
	bool all = r->args->workload && !strcmp(r->args->workload, "all");

	if (out && !all) {
		snprintf(path, sz, "%s", out);
		return;
	}
	if (out && all)
		dir = out;
	if (!dir || !*dir)
		dir = ".";
	if (name)
		snprintf(path, sz, "%s/dhat-heap-%s.json", dir, name);
	else
		snprintf(path, sz, "%s/dhat-heap-%d.json", dir, (int)r->target);
}

/* Write the heap-over-time chart of c next to the profile: PATH.timeline.svg. */
static int write_timeline(const char *json_path, const struct collector *c, const char *title)
{
	const struct timeline *tl = collector__timeline(c);
	const struct collector_totals *t = collector__totals(c);
	uint64_t t_us[TIMELINE_MAX_POINTS], bytes[TIMELINE_MAX_POINTS];
	struct heap_timeline ht = { .t_us = t_us, .live_bytes = bytes, .cnt = tl->cnt,
				    .tg_us = t->tg_ns / 1000, .te_us = t->te_ns / 1000,
				    .peak_bytes = t->max_bytes };
	char *path = cli_export_path(json_path, ".timeline.svg");
	char *tmp = NULL;
	FILE *f;
	int err, fd;

	if (!path)
		return -ENOMEM;
	for (size_t i = 0; i < tl->cnt; i++) {
		t_us[i] = tl->t_ns[i] / 1000;
		bytes[i] = tl->bytes[i];
	}
	fd = dhat__safe_open(path, &tmp); /* never through a symlink, see dhat_writer.c */
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		err = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		err = dhat__safe_finish(path, tmp, err);
		goto cleanup;
	}
	err = export__timeline_svg(&ht, f, title);
	if (fclose(f) && !err)
		err = -EIO;
	err = dhat__safe_finish(path, tmp, err);
	if (!err)
		ilog("wrote %s\n", path);
cleanup:
	if (err)
		elog("cannot write %s: %s\n", path, strerror(-err));
	free(path);
	return err;
}

/* The conversions asked for with --format, from the DHAT file just written. */
static int write_exports(const struct run *r, const char *json_path, const struct collector *c,
			 const char *title)
{
	struct dhat_profile *p = NULL;
	char err[512];
	int ret = 0;

	if (r->args->formats & FORMAT_TIMELINE)
		ret = write_timeline(json_path, c, title);
	for (int fmt = EXPORT_FMT_PPROF; fmt <= EXPORT_FMT_SVG; fmt++) {
		struct export_opts opts = { .weight = EXPORT_WEIGHT_BYTES };
		char *path;
		int e;

		if (!(r->args->formats & (1u << fmt)))
			continue;
		if (!p && !(p = dhat_profile__load(json_path, err, sizeof(err)))) {
			elog("%s\n", err);
			return -EINVAL;
		}
		path = cli_export_path(json_path, cli_export_suffix(fmt));
		e = path ? export__to_path(p, fmt, path, &opts) : -ENOMEM;
		if (e)
			elog("cannot write %s: %s\n", path ? path : json_path, strerror(-e));
		else
			ilog("wrote %s\n", path);
		ret = ret ?: e;
		free(path);
	}
	dhat_profile__free(p);
	return ret;
}

/* -1 if it cannot be stat'ed (only used in a -v line). */
static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

/* session_profile_fn: symbolize, write the DHAT file, print the seed's report from it. */
static int on_profile(void *ctx, struct collector *c, const char *name, __u64 iterations)
{
	struct run *r = ctx;
	struct stack_source src = { run_stack_cb, run_fn_addr_cb, r, loader__libc_path(r->loader) };
	struct frames_ctx fc = { .sym = r->sym, .src = &src };
	struct dhat_meta meta = { .cmd = r->cmdline, .pid = r->target };
	const struct workload_info *w = name ? find_workload(r, name) : NULL;
	struct report_opts ropts = { .top = r->args->top };
	char path[PATH_MAX], err[512];
	double write_ms;
	__u64 t0;
	size_t npps;
	int ret;

	if (r->sym)
		symbolizer__refresh_maps(r->sym);
	profile_path(r, r->args->workload ? name : NULL, path, sizeof(path));
	t0 = now_ns();
	ret = dhat__write_path(path, c, frames__describe, &fc, &meta);
	write_ms = (double)(now_ns() - t0) / 1e6;
	r->truncated_stacks += fc.truncated;
	if (ret) {
		elog("cannot write %s: %s\n", path, strerror(-ret));
		r->write_failures++;
		return 0; /* keep tracing: later windows may still be written */
	}
	/* Symbolization runs inside the writer (frames__describe per program point): the
	 * JSON's own cost is the rest. One line for the benchmark (workloads/bench/run.sh). */
	collector__pps(c, &npps);
	vlog("timing: %s: %zu program points, %llu frames: stacks+symbols %.1f ms, "
	     "JSON %.1f ms, %lld bytes\n",
	     path, npps, (unsigned long long)fc.frames, (double)fc.describe_ns / 1e6,
	     write_ms - (double)fc.describe_ns / 1e6, file_size(path));
	/* Under sudo the writer has already handed the file to the invoking user. */
	r->profiles_written++;
	ilog("wrote %s\n", path);
	if (r->args->formats && write_exports(r, path, c, name ? name : r->cmdline))
		r->write_failures++;

	ropts.title = name && *name ? name : r->cmdline;
	ropts.unit = w ? w->unit : NULL;
	ropts.iterations = w ? iterations : 0;
	if (report__print_file(stdout, path, &ropts, err, sizeof(err)))
		elog("report: %s\n", err);
	fflush(stdout);
	return 0;
}

/* loader_record_fn: make sure the symbolizer has seen the target's maps while it is alive,
 * show progress, then route the record. */
static int on_record(void *ctx, const void *data, size_t sz)
{
	struct run *r = ctx;
	const struct window_event *w = data;

	if (!r->sym)
		r->sym = symbolizer__new(r->target);
	if (sz >= sizeof(*w) && w->type == EV_WINDOW_BEGIN && w->iterations)
		ilog("tracing %.*s: %llu iterations\n", WINDOW_NAME_LEN, w->name,
		     (unsigned long long)w->iterations);
	else if (sz >= sizeof(*w) && w->type == EV_WINDOW_BEGIN)
		vlog("window opened at %.*s\n", WINDOW_NAME_LEN, w->name);
	if (sz >= sizeof(__u32) && w->type == EV_STACK_SNAPSHOT) {
		struct alloc_event ev;

		/* Unwound here, before the session: it only ever sees plain records. A
		 * malformed snapshot goes on as is and is counted as a bad record. */
		if (!r->stacks && r->dwarf)
			r->stacks = dwarf_stacks__new(r->target);
		if (r->stacks && !dwarf_stacks__resolve(r->stacks, data, sz, &ev))
			return session__handle(r->session, &ev, sizeof(ev));
	}
	return session__handle(r->session, data, sz);
}

/* --- the poll loop ----------------------------------------------------------------------------- */

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

/* Resume a ptrace-stopped child, capturing its maps first if it is about to exit. */
static void handle_child_stop(struct run *r, int status)
{
	int event = status >> 16;

	if (event == PTRACE_EVENT_EXIT) {
		if (!r->sym)
			r->sym = symbolizer__new(r->target);
		else
			symbolizer__refresh_maps(r->sym);
		if (r->stacks)
			dwarf_stacks__refresh_maps(r->stacks);
		ptrace(PTRACE_CONT, r->target, 0, 0);
	} else if (event == PTRACE_EVENT_STOP) {
		ptrace(PTRACE_LISTEN, r->target, 0, 0); /* group stop: stay stopped */
	} else {
		ptrace(PTRACE_CONT, r->target, 0, WSTOPSIG(status)); /* deliver the signal */
	}
}

/* Wait for the spawned child (blocking or not), resuming it through ptrace stops.
 * Returns true while it lives; *status holds its exit status once it is gone. */
static bool wait_child(struct run *r, int *status, bool block)
{
	for (;;) {
		pid_t p = waitpid(r->target, status, (block ? 0 : WNOHANG) | __WALL);

		if (p == 0)
			return true;
		if (p < 0)
			return errno == EINTR;
		if (WIFEXITED(*status) || WIFSIGNALED(*status))
			return false;
		if (WIFSTOPPED(*status))
			handle_child_stop(r, *status);
	}
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

static bool target_alive(struct run *r, int *status)
{
	struct pollfd pfd = { .fd = r->pidfd, .events = POLLIN };

	if (r->target_is_child)
		return wait_child(r, status, false);
	if (r->pidfd >= 0)
		return poll(&pfd, 1, 0) == 0;
	return kill(r->target, 0) == 0 || errno == EPERM;
}

/* Once a second on a terminal: event rate, live bytes of the open profile, drops. */
static void show_progress(struct run *r, __u64 *last_ns, __u64 *last_events)
{
	const struct collector_totals *t = session__current(r->session);
	struct probe_counters pc;
	__u64 now = now_ns();

	if (now - *last_ns < 1000000000ull)
		return;
	loader__counters(r->loader, &pc);
	fprintf(stderr, "\r\033[Ktracer: %.0f events/s, live %.1f KiB in %llu blocks, dropped %llu",
		(double)(pc.events - *last_events) * 1e9 / (double)(now - *last_ns),
		t ? (double)t->live_bytes / 1024.0 : 0.0,
		t ? (unsigned long long)t->live_blocks : 0ull, (unsigned long long)pc.dropped);
	*last_ns = now;
	*last_events = pc.events;
	r->progress_shown = true;
}

/* Poll until the target exits, a signal arrives, or the duration ends. Returns the child's
 * wait status (or 0 for an attached process). */
static int trace_loop(struct run *r, int *wait_status, bool progress)
{
	__u64 deadline = r->args->duration_s > 0 ?
				 now_ns() + (__u64)(r->args->duration_s * 1e9) : 0;
	__u64 last_ns = now_ns(), last_events = 0, last_maps_ns = now_ns();
	bool alive = true;
	int n;

	*wait_status = 0;
	while (alive && !stop_requested && (!deadline || now_ns() < deadline)) {
		n = loader__poll(r->loader, POLL_INTERVAL_MS, on_record, r);
		if (n < 0 && n != -EINTR) {
			elog("reading events: %s\n", strerror(-n));
			return n;
		}
		alive = target_alive(r, wait_status);
		/* Symbolization happens when a profile closes, often after the target is gone:
		 * keep the maps current (dlopen'd libraries) while it is alive. Cheap (~0.2 ms). */
		if (alive && r->sym && now_ns() - last_maps_ns > MAPS_REFRESH_NS) {
			symbolizer__refresh_maps(r->sym);
			if (r->stacks)
				dwarf_stacks__refresh_maps(r->stacks);
			last_maps_ns = now_ns();
		}
		if (progress)
			show_progress(r, &last_ns, &last_events);
	}
	if (r->progress_shown)
		fputc('\n', stderr);
	if (alive && r->target_is_child) {
		/* Interrupted: stop the child we started, and reap it. */
		kill(r->target, SIGTERM);
		while (wait_child(r, wait_status, true))
			;
	}
	/* What the target produced until now is drained by loader__stop (run_trace), after
	 * the programs are silenced: a drain here could chase a live target forever. */
	return 0;
}

static void print_counters(struct run *r)
{
	struct probe_counters pc;
	const struct session_stats *ss = session__stats(r->session);
	struct snapshot_counters sc = { 0 };
	struct dwarf_stacks_stats ds = { 0 };
	char unwind[128] = "";
	__u64 unwind_failures = 0;

	loader__counters(r->loader, &pc);
	if (r->dwarf) {
		/* unwind failures: events left with no stack at all (BPF could not copy, or the
		 * unwinder could not run); partial: the unwind stopped on an error (copy too
		 * short, no CFI) before the outermost frame. */
		loader__snapshot_counters(r->loader, &sc);
		dwarf_stacks__stats(r->stacks, &ds);
		unwind_failures = ds.failures + sc.copy_failures + sc.scratch_busy;
		snprintf(unwind, sizeof(unwind), ", unwind failures %llu, partial stacks %llu",
			 (unsigned long long)unwind_failures, (unsigned long long)ds.partial);
	}
	ilog("events %llu, dropped %llu, stack failures %llu, unmatched returns %llu, "
	     "unknown frees %llu, truncated stacks %llu, nested calls %llu%s\n",
	     (unsigned long long)pc.events, (unsigned long long)pc.dropped,
	     (unsigned long long)pc.stack_failures, (unsigned long long)pc.unmatched_returns,
	     (unsigned long long)ss->unknown_frees, (unsigned long long)r->truncated_stacks,
	     (unsigned long long)pc.nested_calls, unwind);
	if (r->dwarf) {
		vlog("dwarf: snapshots %llu, unwound %llu, short copies %llu, scratch busy %llu, "
		     "distinct stacks %zu, %.1f us/unwind (max %.1f), %.0f stack bytes/event\n",
		     (unsigned long long)sc.snapshots, (unsigned long long)ds.unwound,
		     (unsigned long long)sc.short_copies, (unsigned long long)sc.scratch_busy,
		     ds.distinct,
		     ds.snapshots ? (double)ds.unwind_ns / 1e3 / (double)ds.snapshots : 0.0,
		     (double)ds.max_unwind_ns / 1e3,
		     ds.snapshots ? (double)ds.stack_bytes / (double)ds.snapshots : 0.0);
		if (ds.partial)
			ilog("note: %llu stacks end early (a frame beyond the copied stack or "
			     "without CFI); a larger --stack-size may complete them\n",
			     (unsigned long long)ds.partial);
	}
	if (pc.dropped)
		elog("warning: %llu records dropped (ring buffer full): the profile is incomplete; "
		     "try a larger --ringbuf-size\n",
		     (unsigned long long)pc.dropped);
	if (ss->bad_records)
		elog("warning: %llu malformed records ignored\n",
		     (unsigned long long)ss->bad_records);
}

static int check_environment(void)
{
	if (geteuid() != 0) {
		elog("must run as root: BPF uprobes need CAP_BPF and CAP_PERFMON "
		     "(try: sudo tracer ...)\n");
		return TRACER_EXIT_UNSUPPORTED;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		elog("this kernel has no BTF (/sys/kernel/btf/vmlinux missing): "
		     "CONFIG_DEBUG_INFO_BTF is required\n");
		return TRACER_EXIT_UNSUPPORTED;
	}
	if (access("/sys/bus/event_source/devices/uprobe", F_OK)) {
		elog("this kernel has no uprobe support (CONFIG_UPROBE_EVENTS)\n");
		return TRACER_EXIT_UNSUPPORTED;
	}
	return TRACER_EXIT_OK;
}

static void join_cmdline(char *buf, size_t sz, char *const argv[])
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; argv[i] && off < sz; i++)
		off += snprintf(buf + off, sz - off, "%s%s", i ? " " : "", argv[i]);
}

/* The executable argv will run (execvp's PATH search), or the running target's. */
static int target_exe(const struct run *r, char *const argv[], char *path, size_t sz)
{
	const char *dirs = getenv("PATH");

	if (!argv) {
		snprintf(path, sz, "/proc/%d/exe", (int)r->target);
		return 0;
	}
	if (strchr(argv[0], '/')) {
		snprintf(path, sz, "%s", argv[0]);
		return 0;
	}
	for (const char *d = dirs ? dirs : "/usr/local/bin:/usr/bin:/bin"; *d;) {
		size_t n = strcspn(d, ":");

		if (n)
			snprintf(path, sz, "%.*s/%s", (int)n, d, argv[0]);
		else
			snprintf(path, sz, "./%s", argv[0]); /* an empty entry is the cwd */
		if (!access(path, X_OK))
			return 0;
		d += n + (d[n] == ':');
	}
	return -ENOENT;
}

/* True if path is an ELF executable without an interpreter, i.e. statically linked. */
static bool is_static_executable(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	bool interp = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	if (fread(&eh, sizeof(eh), 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph)) {
		fclose(f);
		return false;
	}
	for (int i = 0; i < eh.e_phnum && !interp; i++)
		if (fseek(f, (long)(eh.e_phoff + (Elf64_Off)i * sizeof(ph)), SEEK_SET) ||
		    fread(&ph, sizeof(ph), 1, f) != 1 || ph.p_type == PT_INTERP)
			interp = true; /* unreadable counts as dynamic: fall back to libc */
	fclose(f);
	return !interp;
}

/*
 * Where the target's malloc lives when --lib is not given: a replacement allocator mapped
 * into the running process (jemalloc, tcmalloc, mimalloc), or the executable itself when it
 * is statically linked. Returns false to let the loader probe the target's libc.
 */
static bool detect_allocator(const struct run *r, const char *exe, char *out, size_t sz)
{
	static const char *const allocators[] = { "libjemalloc", "libtcmalloc", "libmimalloc" };
	char maps[64], line[4096];
	FILE *f;

	if (r->target_is_child) {
		/* Not exec'd yet: an allocator preloaded through the environment, or the file. */
		const char *preload = getenv("LD_PRELOAD");
		char *copy = preload ? strdup(preload) : NULL, *save = NULL, *tok;
		bool found = false;

		for (tok = copy ? strtok_r(copy, ": ", &save) : NULL; tok && !found;
		     tok = strtok_r(NULL, ": ", &save))
			for (size_t i = 0; i < sizeof(allocators) / sizeof(allocators[0]); i++)
				if (strstr(tok, allocators[i])) {
					if (strchr(tok, '/'))
						snprintf(out, sz, "%s", tok);
					else
						snprintf(out, sz, "/usr/lib/x86_64-linux-gnu/%s", tok);
					found = !access(out, R_OK);
				}
		free(copy);
		if (found)
			return true;
		goto static_check;
	}
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)r->target);
	f = fopen(maps, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		if (!path)
			continue;
		path[strcspn(path, "\n")] = '\0';
		for (size_t i = 0; i < sizeof(allocators) / sizeof(allocators[0]); i++)
			if (strstr(path, allocators[i])) {
				snprintf(out, sz, "%s", path);
				fclose(f);
				return true;
			}
	}
	fclose(f);
static_check:
	if (!is_static_executable(exe))
		return false;
	snprintf(out, sz, "%s", exe);
	return true;
}

/* Attach --start-at/--stop-at probes to the target's functions. */
static int attach_window_symbols(struct run *r, char *const argv[])
{
	struct window_probes_opts wopts = {
		.pid = r->target,
		.ringbuf_fd = loader__ringbuf_fd(r->loader),
		.start = r->args->start_at,
		.stop = r->args->stop_at,
	};
	char exe[PATH_MAX];

	if (target_exe(r, argv, exe, sizeof(exe)))
		snprintf(exe, sizeof(exe), "%s", argv[0]); /* let the attach report it */
	wopts.executable = exe;
	r->window = window_probes__new(&wopts);
	return r->window ? 0 : -errno;
}

/* --- --unwind ---------------------------------------------------------------------------------- */

/*
 * fp or dwarf for this run (one kind of stack id per run). auto: DWARF unwinding unless the
 * target executable keeps frame pointers (fp_detect.h), where BPF's frame-pointer walk is
 * complete and cheaper. Allocations made by libc on the program's behalf (strdup, getline,
 * ...) are charged to their caller in both modes; only code without frame pointers between
 * the allocator and main (callbacks from qsort, -O2 builds, Rust) needs dwarf.
 */
static bool choose_unwind(const struct run *r, char *const argv[])
{
	struct fp_census c;
	char exe[PATH_MAX];
	int err;

	if (r->args->unwind != UNWIND_AUTO)
		return r->args->unwind == UNWIND_DWARF;
	err = target_exe(r, argv, exe, sizeof(exe));
	if (!err)
		err = fp_detect__census(exe, &c);
	if (err) {
		vlog("--unwind auto: cannot read the target executable's code (%s): dwarf\n",
		     strerror(-err));
		return true;
	}
	vlog("--unwind auto: %zu of %zu functions of %s%s keep frame pointers: %s\n", c.with_fp,
	     c.funcs, exe, c.rust ? " (Rust: its crates do not)" : "",
	     fp_detect__has_fp(&c) ? "fp" : "dwarf");
	return !fp_detect__has_fp(&c);
}

/* A held child we will not trace: closing its pipe makes it exit 127 before exec; reap it. */
static void abandon_child(struct run *r, int go_fd, int err_fd)
{
	int status;

	if (go_fd < 0)
		return;
	close(go_fd);
	close(err_fd);
	while (wait_child(r, &status, true))
		;
}

/* Trace one process: spawned from argv (held until attached), or the running pid. */
static int run_trace(struct run *r, char *const argv[], const char *usdt_binary, bool windowed)
{
	struct loader_opts lopts = {
		.libc_path = r->args->lib,
		.usdt_binary = usdt_binary,
		.window_gated = windowed,
		.ringbuf_sz = r->args->ringbuf_sz,
		.verbose = tracer_verbosity,
		.stack_copy_sz = r->args->stack_sz,
	};
	struct session_opts sopts = { .windowed = windowed, .on_profile = on_profile, .ctx = r };
	struct probe_counters pc;
	char alloc_lib[PATH_MAX];
	int go_fd = -1, err_fd = -1, wait_status = 0, err, stop_err, ret = TRACER_EXIT_FAILURE;

	if (argv) {
		r->target = spawn_held(argv, !r->args->as_root, &go_fd, &err_fd);
		if (r->target < 0) {
			elog("cannot start %s: %s\n", argv[0], strerror(errno));
			return TRACER_EXIT_FAILURE;
		}
		r->target_is_child = true;
		join_cmdline(r->cmdline, sizeof(r->cmdline), argv);
		err = seize_for_exit_stop(r->target);
		if (err)
			vlog("ptrace: %s: maps of a short-lived target may be missed\n",
			     strerror(-err));
	} else {
		r->target = r->args->pid;
		if (kill(r->target, 0) && errno == ESRCH) {
			elog("no such process: %d\n", (int)r->target);
			return TRACER_EXIT_USAGE;
		}
		snprintf(r->cmdline, sizeof(r->cmdline), "pid %d", (int)r->target);
		{
			char path[64];
			FILE *f;

			snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)r->target);
			f = fopen(path, "r");
			if (f) {
				size_t n = fread(r->cmdline, 1, sizeof(r->cmdline) - 1, f);

				for (size_t i = 0; i + 1 < n; i++)
					if (!r->cmdline[i])
						r->cmdline[i] = ' ';
				r->cmdline[n] = '\0';
				fclose(f);
			}
		}
		/* Maps first, while the process is certainly alive. */
		r->sym = symbolizer__new(r->target);
		r->pidfd = open_pidfd(r->target);
	}

	lopts.pid = r->target;
	r->dwarf = choose_unwind(r, argv);
	lopts.unwind_dwarf = r->dwarf;
	if (!lopts.libc_path) {
		char exe[PATH_MAX];

		if (!target_exe(r, argv, exe, sizeof(exe)) &&
		    detect_allocator(r, exe, alloc_lib, sizeof(alloc_lib))) {
			lopts.libc_path = alloc_lib;
			ilog("probing the allocator in %s\n", alloc_lib);
		}
	}
	r->loader = loader__new(&lopts);
	if (!r->loader) {
		err = errno;
		/* An attached process that exited (or became a zombie) while we attached is gone,
		 * whatever the loader tripped over (a zombie has no maps: "no libc"; a process
		 * between releasing its memory and its exit notification fails the uprobe attach
		 * with EINVAL): give its pidfd 200 ms to say so. */
		if (!argv && err != ESRCH) {
			struct pollfd pfd = { .fd = r->pidfd, .events = POLLIN };

			if (r->pidfd >= 0 ? poll(&pfd, 1, 200) == 1 : !target_alive(r, &wait_status))
				err = ESRCH;
		}
		if (!argv && err == ESRCH)
			elog("cannot attach to pid %d: it exited before the probes were attached\n",
			     (int)r->target);
		else
			elog("cannot attach to pid %d: %s\n", (int)r->target, strerror(err));
		abandon_child(r, go_fd, err_fd);
		return err == ESRCH ? TRACER_EXIT_USAGE :
		       err == EPERM ? TRACER_EXIT_UNSUPPORTED : TRACER_EXIT_FAILURE;
	}
	if (r->args->start_at || r->args->stop_at) {
		err = attach_window_symbols(r, argv);
		if (err) {
			abandon_child(r, go_fd, err_fd);
			ret = err == -ENOENT || err == -ESRCH ? TRACER_EXIT_USAGE : TRACER_EXIT_FAILURE;
			goto cleanup;
		}
		sopts.windowed = true;
		sopts.single_window = true;
		sopts.open_at_start = !r->args->start_at;
	}
	sopts.start_ns = now_ns();
	r->session = session__new(&sopts);
	if (!r->session) {
		elog("out of memory\n");
		abandon_child(r, go_fd, err_fd);
		goto cleanup;
	}
	if (argv) {
		err = release_child(go_fd, err_fd);
		if (err) {
			elog("cannot run %s: %s\n", argv[0], strerror(-err));
			while (wait_child(r, &wait_status, true))
				;
			ret = err == -ENOENT ? TRACER_EXIT_USAGE : TRACER_EXIT_FAILURE;
			goto cleanup;
		}
	}
	if (argv && !r->sym)
		r->sym = symbolizer__new(r->target); /* exec done: the executable is mapped */
	if (r->dwarf && !r->stacks)
		r->stacks = dwarf_stacks__new(r->target); /* after exec, like the symbolizer */
	vlog("attached to pid %d\n", (int)r->target);

	err = trace_loop(r, &wait_status,
			 !windowed && tracer_verbosity >= 0 && isatty(STDERR_FILENO));
	/* Stop probing before symbolizing and writing: a live target (--pid, --duration)
	 * would otherwise keep paying for probes, and could fill the ring with records nobody
	 * reads (counted as dropped) while the profile is written. The window probes share the
	 * ring, so they go first. Unmapping the ring also lowers the peak RSS. */
	window_probes__free(r->window);
	r->window = NULL;
	stop_err = loader__stop(r->loader, on_record, r);
	if (stop_err < 0) {
		elog("reading the last events: %s\n", strerror(-stop_err));
		err = err ?: stop_err;
	}
	if (session__in_profile(r->session))
		vlog("closing the open profile (%s)\n",
		     stop_requested ? "interrupted" : "target ended");
	err = session__finish(r->session, now_ns()) ?: err;
	print_counters(r);
	loader__counters(r->loader, &pc);

	if (err || r->write_failures)
		ret = TRACER_EXIT_FAILURE;
	else if (r->target_is_child && !windowed) {
		ret = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) :
		      WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status) : TRACER_EXIT_FAILURE;
		/* -- CMD: the command's status, but a success with dropped records is not one:
		 * 4, as in the other modes (the warning above says why). */
		if (ret == TRACER_EXIT_OK && pc.dropped)
			ret = TRACER_EXIT_INCOMPLETE;
	} else if (r->target_is_child && (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status))) {
		if (!stop_requested)
			elog("workload driver failed (status %d)\n", wait_status);
		ret = TRACER_EXIT_FAILURE;
	} else if (pc.dropped)
		ret = TRACER_EXIT_INCOMPLETE;
	else
		ret = TRACER_EXIT_OK;
	if (sopts.windowed && !r->profiles_written && ret == TRACER_EXIT_OK) {
		elog("no measurement window was seen: nothing written\n");
		ret = TRACER_EXIT_FAILURE;
	}
cleanup:
	return ret;
}

static int cmd_workload(struct run *r)
{
	char driver[PATH_MAX];
	const char *name = r->args->workload;
	char *argv[5];
	int argc = 0, err;

	/* Privileges first: an unprivileged user may not even see the driver's directory. */
	if (strcmp(name, "list")) {
		err = check_environment();
		if (err)
			return err;
	}
	err = find_driver(driver, sizeof(driver));
	if (err) {
		elog("cannot find the workload driver kaish-workloads next to the tracer\n");
		return TRACER_EXIT_FAILURE;
	}
	err = load_workloads(r, driver);
	if (err) {
		elog("cannot read the workload list from %s\n", driver);
		return TRACER_EXIT_FAILURE;
	}
	if (!strcmp(name, "list")) {
		for (size_t i = 0; i < r->workload_cnt; i++)
			printf("%-20s %4lu x %s\n", r->workloads[i].name,
			       r->workloads[i].iterations, r->workloads[i].unit);
		return TRACER_EXIT_OK;
	}
	if (strcmp(name, "all") && !find_workload(r, name)) {
		elog("unknown workload: %s (try --workload list)\n", name);
		return TRACER_EXIT_USAGE;
	}
	argv[argc++] = driver;
	argv[argc++] = "--quiet";
	if (tracer_verbosity >= 0 && isatty(STDERR_FILENO))
		argv[argc++] = "--progress";
	argv[argc++] = (char *)name;
	argv[argc] = NULL;
	/* The driver runs as root too: it only builds a fixture under /tmp. */
	return run_trace(r, argv, driver, true);
}

/* Fail before tracing, not after, when profiles could not be written where asked. */
static int check_output_dir(const struct tracer_args *args)
{
	bool all = args->workload && !strcmp(args->workload, "all");
	const char *env = getenv("KAISH_PROFILE_OUT");
	char dir[PATH_MAX];
	struct stat st;

	if (args->output && !all) {
		const char *slash = strrchr(args->output, '/');

		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - args->output) : 1,
			 slash ? args->output : ".");
		if (!dir[0])
			snprintf(dir, sizeof(dir), "/");
	} else {
		snprintf(dir, sizeof(dir), "%s", args->output ? args->output : env && *env ? env : ".");
	}
	if (stat(dir, &st)) {
		elog("output directory %s: %s\n", dir, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode)) {
		elog("output directory %s: not a directory\n", dir);
		return -ENOTDIR;
	}
	return 0;
}

/* "pprof,svg,timeline" -> bits of enum export_format and FORMAT_TIMELINE. */
static int parse_formats(const char *list, unsigned *out)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		enum export_format fmt;

		if (!strcmp(tok, "timeline"))
			*out |= FORMAT_TIMELINE;
		else if (!export_format__parse(tok, &fmt))
			*out |= 1u << fmt;
		else
			err = -EINVAL;
	}
	free(copy);
	return err;
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < 4096 || (v & (v - 1)))
		return -EINVAL;
	*out = (size_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "workload", required_argument, NULL, 'w' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "ringbuf-size", required_argument, NULL, 'R' },
		{ "lib", required_argument, NULL, 'L' },
		{ "as-root", no_argument, NULL, 'A' },
		{ "top", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'f' },
		{ "start-at", required_argument, NULL, 'B' },
		{ "stop-at", required_argument, NULL, 'E' },
		{ "unwind", required_argument, NULL, 'U' },
		{ "stack-size", required_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct tracer_args args = { 0 };
	struct run r = { .args = &args, .pidfd = -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	char *end;
	int opt, ret;

	/* Offline subcommands need neither root nor BPF. */
	if (argc > 1 && !strcmp(argv[1], "report"))
		return cli_report(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "export"))
		return cli_export(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return cli_diff(argc - 1, argv + 1);

	while ((opt = getopt_long(argc, argv, "+w:p:d:o:t:f:qvVh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'w':
			args.workload = optarg;
			break;
		case 'p': {
			long pid = strtol(optarg, &end, 10);

			if (*end || pid <= 0 || pid > INT_MAX) {
				elog("--pid needs a process id, not '%s'\n", optarg);
				return TRACER_EXIT_USAGE;
			}
			args.pid = (pid_t)pid;
			break;
		}
		case 'd':
			args.duration_s = strtod(optarg, &end);
			if (*end || args.duration_s <= 0) {
				elog("--duration needs a positive number of seconds, not '%s'\n",
				     optarg);
				return TRACER_EXIT_USAGE;
			}
			break;
		case 'o':
			args.output = optarg;
			break;
		case 'R':
			if (parse_size(optarg, &args.ringbuf_sz)) {
				elog("--ringbuf-size needs a power of two >= 4096, not '%s'\n",
				     optarg);
				return TRACER_EXIT_USAGE;
			}
			break;
		case 'L':
			args.lib = optarg;
			break;
		case 'A':
			args.as_root = true;
			break;
		case 'U':
			if (!strcmp(optarg, "fp")) {
				args.unwind = UNWIND_FP;
			} else if (!strcmp(optarg, "dwarf")) {
				args.unwind = UNWIND_DWARF;
			} else if (!strcmp(optarg, "auto")) {
				args.unwind = UNWIND_AUTO;
			} else {
				elog("--unwind takes fp, dwarf or auto, not '%s'\n", optarg);
				return TRACER_EXIT_USAGE;
			}
			break;
		case 'S': {
			unsigned long n = strtoul(optarg, &end, 10);

			if (*end || !*optarg || n < 64 || n > SNAPSHOT_STACK_MAX) {
				elog("--stack-size needs a byte count from 64 to %u, not '%s'\n",
				     SNAPSHOT_STACK_MAX, optarg);
				return TRACER_EXIT_USAGE;
			}
			args.stack_sz = (__u32)n;
			break;
		}
		case 't': {
			long n = strtol(optarg, &end, 10);

			if (*end || n <= 0) {
				elog("--top needs a positive number, not '%s'\n", optarg);
				return TRACER_EXIT_USAGE;
			}
			args.top = (size_t)n;
			break;
		}
		case 'f':
			if (parse_formats(optarg, &args.formats)) {
				elog("--format takes a list of pprof, folded, svg, timeline, not '%s'\n",
				     optarg);
				return TRACER_EXIT_USAGE;
			}
			break;
		case 'B':
			args.start_at = optarg;
			break;
		case 'E':
			args.stop_at = optarg;
			break;
		case 'q':
			tracer_verbosity = -1;
			break;
		case 'v':
			tracer_verbosity = tracer_verbosity < 0 ? 1 : tracer_verbosity + 1;
			break;
		case 'V':
			printf("tracer %s\n", TRACER_VERSION);
			return TRACER_EXIT_OK;
		case 'h':
			fputs(usage_text, stdout);
			return TRACER_EXIT_OK;
		default: /* getopt has said what is wrong */
			fputs("try 'tracer --help'\n", stderr);
			return TRACER_EXIT_USAGE;
		}
	}
	if (optind < argc)
		args.cmd = &argv[optind];
	if (!!args.workload + !!args.pid + !!args.cmd != 1) {
		elog("give exactly one of --workload NAME, --pid PID or -- CMD (see --help)\n");
		return TRACER_EXIT_USAGE;
	}
	if ((args.start_at || args.stop_at) && args.workload) {
		elog("--start-at/--stop-at go with --pid or -- CMD (workloads mark their own windows)\n");
		return TRACER_EXIT_USAGE;
	}
	if (args.duration_s > 0 && !args.pid) {
		elog("--duration goes with --pid\n");
		return TRACER_EXIT_USAGE;
	}

	if (check_output_dir(&args))
		return TRACER_EXIT_USAGE;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (args.workload) {
		ret = cmd_workload(&r);
	} else {
		ret = check_environment();
		if (ret == TRACER_EXIT_OK)
			ret = run_trace(&r, args.cmd, NULL, false);
	}
	session__free(r.session);
	window_probes__free(r.window);
	loader__free(r.loader);
	dwarf_stacks__free(r.stacks);
	symbolizer__free(r.sym);
	if (r.pidfd >= 0)
		close(r.pidfd);
	return ret;
}

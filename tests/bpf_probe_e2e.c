// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * End-to-end test of bpf/alloc.bpf.c + user/loader.c against tests/data/e2e/allocs.c.
 *
 * allocs logs (on stdout) every record the tracer must produce, with the real addresses;
 * the test compares, thread by thread, the records received between the USDT window marks
 * with that log: same order, type, fn, addresses and sizes. Worker threads may add one FREE
 * of a block never allocated under the probes (glibc frees the thread's tcache at exit).
 * Every allocation record must carry a user stack whose first frame is in allocs itself
 * (the caller of the outermost allocator call, captured at its return).
 * The same run in --unwind dwarf mode: EV_STACK_SNAPSHOT records, resolved by dwarf_stacks
 * as the tracer does, must give the very same record stream and stacks.
 *
 * Needs root and BTF. Off-root it skips with the reason; under CI=true it fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "test_timeout.h"
#include "dwarf_stacks.h"
#include "events.h"
#include "loader.h"
#include "log.h"

#define TIMEOUT_S ((int)TEST_TIMEOUT(30))

union rec {
	__u32 type;
	struct alloc_event a;
	struct window_event w;
};

struct recs {
	union rec *v;
	size_t n, cap;
	int bad_sizes;
};

struct expect {
	unsigned long tid, addr, old, size;
	int type, fn, exact, own;
};

struct child {
	pid_t pid;
	int in_fd;  /* its stdin (the "go" byte), or the pre-exec hold pipe */
	int out_fd; /* its stdout: the log */
	char *log;
	size_t log_len, log_cap;
	unsigned long exe_lo[8], exe_hi[8]; /* executable mappings of allocs */
	int exe_cnt;
};

static void require_bpf(void)
{
	const char *ci = getenv("CI");
	const char *why = NULL;

	if (geteuid() != 0)
		why = "not root";
	else if (access("/sys/kernel/btf/vmlinux", R_OK))
		why = "the kernel has no BTF (/sys/kernel/btf/vmlinux)";
	if (!why)
		return;
	if (ci && !strcmp(ci, "true"))
		cr_assert_fail("BPF test cannot run under CI=true: %s", why);
	cr_skip_test("BPF end-to-end test skipped: %s", why);
}

/* The loader's -v lines go to the test log. */
static void verbose_logs(void)
{
	tracer_verbosity = 1;
}

TestSuite(bpf_probe, .init = verbose_logs);

/* Dwarf mode: snapshots are resolved here, as main.c does, before they are stored. */
static struct dwarf_stacks *dwarf;
static int snapshot_bad;

/* The user stack of a stored record, from BPF or from the resolver. */
static int record_stack(struct loader *l, __s32 id, __u64 *ips, size_t max)
{
	return dwarf ? dwarf_stacks__stack(dwarf, id, ips, max) : loader__stack(l, id, ips, max);
}

static int on_record(void *ctx, const void *data, size_t sz)
{
	struct recs *r = ctx;
	const union rec *in = data;
	static union rec resolved; /* copied below: only valid during the call */
	size_t want;

	if (sz >= sizeof(in->type) && in->type == EV_STACK_SNAPSHOT) {
		const struct stack_snapshot *snap =
		    (const void *)((const char *)data + sizeof(struct alloc_event));

		if (!dwarf || sz < sizeof(struct alloc_event) + sizeof(*snap) ||
		    sz != sizeof(struct alloc_event) + sizeof(*snap) + snap->stack_len ||
		    snap->stack_len > LOADER_DEFAULT_STACK_COPY_SZ ||
		    dwarf_stacks__resolve(dwarf, data, sz, &resolved.a)) {
			snapshot_bad++;
			return 0;
		}
		data = &resolved;
		sz = sizeof(resolved.a);
		in = data;
	}
	want = in->type == EV_WINDOW_BEGIN || in->type == EV_WINDOW_END
			  ? sizeof(struct window_event)
			  : sizeof(struct alloc_event);

	if (sz != want) {
		r->bad_sizes++;
		return 0;
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		cr_assert_not_null(r->v);
	}
	memset(&r->v[r->n], 0, sizeof(r->v[0]));
	memcpy(&r->v[r->n++], data, sz);
	return 0;
}

/* Append what the child wrote so far; wait up to ms for something. Returns bytes read. */
static ssize_t read_log(struct child *c, int ms)
{
	struct pollfd p = {.fd = c->out_fd, .events = POLLIN};
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return 0;
	if (c->log_len + 4096 + 1 > c->log_cap) {
		c->log_cap = c->log_cap ? 2 * c->log_cap : 65536;
		c->log = realloc(c->log, c->log_cap);
		cr_assert_not_null(c->log);
	}
	n = read(c->out_fd, c->log + c->log_len, 4096);
	if (n > 0) {
		c->log_len += (size_t)n;
		c->log[c->log_len] = '\0';
	}
	return n;
}

static void wait_log(struct child *c, const char *marker)
{
	time_t end = time(NULL) + TIMEOUT_S;

	while (!(c->log && strstr(c->log, marker)) && time(NULL) < end)
		if (read_log(c, 100) < 0)
			break;
	cr_assert(c->log && strstr(c->log, marker), "allocs never printed %s; log:\n%s", marker,
		  c->log ? c->log : "");
}

/* Executable mappings of allocs in the child (it has exec'd). */
static void read_exe_maps(struct child *c)
{
	char path[64], line[PATH_MAX + 128], exe[PATH_MAX];
	FILE *f;

	cr_assert_not_null(realpath(ALLOCS_BIN, exe));
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)c->pid);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f) && c->exe_cnt < 8) {
		unsigned long lo, hi;
		char perms[8];
		char *p = strchr(line, '/');

		if (!p || sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[2] != 'x')
			continue;
		p[strcspn(p, "\n")] = '\0';
		if (strcmp(p, exe))
			continue;
		c->exe_lo[c->exe_cnt] = lo;
		c->exe_hi[c->exe_cnt++] = hi;
	}
	fclose(f);
	cr_assert_gt(c->exe_cnt, 0, "no executable mapping of %s in %s", exe, path);
}

static bool in_exe(const struct child *c, __u64 ip)
{
	for (int i = 0; i < c->exe_cnt; i++)
		if (ip >= c->exe_lo[i] && ip < c->exe_hi[i])
			return true;
	return false;
}

/*
 * Start allocs. held: fork a child that waits on a pipe BEFORE exec (the tracer's way of
 * spawning: probes attach to a pid that has not exec'd yet), then execs allocs on the same
 * pipe. Either way allocs prints READY and waits for a byte on stdin before its window, so
 * its maps can be read while it lives (held: a second "g", see release()).
 */
static void spawn(struct child *c, bool held)
{
	int in[2], out[2];

	memset(c, 0, sizeof(*c));
	cr_assert_eq(pipe(in), 0);
	cr_assert_eq(pipe(out), 0);
	c->pid = fork();
	cr_assert_geq(c->pid, 0);
	if (c->pid == 0) {
		char go;

		dup2(out[1], STDOUT_FILENO);
		close(out[0]);
		close(out[1]);
		close(in[1]);
		if (held && read(in[0], &go, 1) != 1)
			_exit(127);
		dup2(in[0], STDIN_FILENO);
		close(in[0]);
		execl(ALLOCS_BIN, ALLOCS_BIN, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in_fd = in[1];
	c->out_fd = out[0];
}

/* Poll records until the child exits, then drain. Returns its wait status. */
static int collect(struct loader *l, struct child *c, struct recs *r)
{
	time_t end = time(NULL) + TIMEOUT_S;
	int status = -1, n;

	for (;;) {
		n = loader__poll(l, 5, on_record, r);
		cr_assert_geq(n, 0, "loader__poll: %s", strerror(-n));
		read_log(c, 0);
		if (waitpid(c->pid, &status, WNOHANG) == c->pid)
			break;
		if (time(NULL) > end) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &status, 0);
			cr_assert_fail("allocs did not finish in %d s", TIMEOUT_S);
		}
	}
	do {
		n = loader__poll(l, 0, on_record, r);
		cr_assert_geq(n, 0);
	} while (n > 0);
	while (read_log(c, 0) > 0)
		;
	return status;
}

static size_t parse_expect(const char *log, struct expect **out)
{
	size_t n = 0, cap = 0;
	struct expect *v = NULL;

	for (const char *p = log; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		struct expect e;

		if (sscanf(p, "E %lu %d %d %lx %lx %lu %d %d", &e.tid, &e.type, &e.fn, &e.addr,
			   &e.old, &e.size, &e.exact, &e.own) != 8)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			v = realloc(v, cap * sizeof(*v));
			cr_assert_not_null(v);
		}
		v[n++] = e;
	}
	*out = v;
	return n;
}

static unsigned long log_fnaddr(const char *log, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "FNADDR %s ", name);
	p = strstr(log, key);
	cr_assert_not_null(p, "no %s in the log", key);
	return strtoul(p + strlen(key), NULL, 16);
}

static const char *type_name(__u32 t)
{
	return t == EV_ALLOC ? "ALLOC" : t == EV_FREE ? "FREE" : t == EV_REALLOC ? "REALLOC" : "?";
}

/* The checks shared by both tests. Records outside the window are checked by the caller. */
static void check_run(struct loader *l, struct child *c, struct recs *r, int status,
		      size_t *begin_out, size_t *end_out)
{
	size_t begin = SIZE_MAX, end = SIZE_MAX, n_exp, matched = 0, extras = 0;
	unsigned long per_fn[FN_COUNT][4] = {};
	struct probe_counters pc;
	struct expect *exp;
	unsigned long main_tid;
	__u64 ips[STACK_MAX_DEPTH];

	if (getenv("BPF_TEST_DUMP")) { /* debugging aid: every record received */
		for (size_t i = 0; i < r->n; i++) {
			const struct alloc_event *a = &r->v[i].a;

			if (a->type == EV_WINDOW_BEGIN || a->type == EV_WINDOW_END)
				fprintf(stderr, "%4zu tid %u WINDOW_%s %s\n", i, a->tid,
					a->type == EV_WINDOW_BEGIN ? "BEGIN" : "END",
					r->v[i].w.name);
			else
				fprintf(stderr,
					"%4zu tid %u %-7s %-14s addr %llx old %llx size %llu "
					"stack %d\n",
					i, a->tid, type_name(a->type), alloc_fn_name(a->fn),
					(unsigned long long)a->addr,
					(unsigned long long)a->old_addr,
					(unsigned long long)a->size, a->stack_id);
		}
		fprintf(stderr, "%s", c->log ? c->log : "");
	}
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "allocs failed: status %d\n%s",
		  status, c->log ? c->log : "");
	cr_assert(strstr(c->log, "DONE\n"));
	cr_assert_eq(r->bad_sizes, 0, "records with a wrong size");

	loader__counters(l, &pc);
	fprintf(stderr,
		"counters: events %llu dropped %llu stack_failures %llu unmatched_returns %llu "
		"entry_overflow %llu nested_calls %llu; records received %zu\n",
		(unsigned long long)pc.events, (unsigned long long)pc.dropped,
		(unsigned long long)pc.stack_failures, (unsigned long long)pc.unmatched_returns,
		(unsigned long long)pc.entry_overflow, (unsigned long long)pc.nested_calls, r->n);
	cr_expect_eq(pc.dropped, 0);
	cr_expect_eq(pc.stack_failures, 0);
	cr_expect_eq(pc.unmatched_returns, 0);
	cr_expect_eq(pc.entry_overflow, 0);
	cr_expect_gt(pc.nested_calls, 0, "strdup/getline/... nest malloc: nested_calls must count");
	cr_expect_eq(pc.events, r->n, "every submitted record is received");

	/* The window marks: one each, from the main thread, in order. */
	for (size_t i = 0; i < r->n; i++) {
		if (r->v[i].type == EV_WINDOW_BEGIN) {
			cr_assert_eq(begin, SIZE_MAX, "two WINDOW_BEGIN");
			begin = i;
		} else if (r->v[i].type == EV_WINDOW_END) {
			cr_assert_eq(end, SIZE_MAX, "two WINDOW_END");
			end = i;
		}
	}
	cr_assert(begin != SIZE_MAX && end != SIZE_MAX && begin < end, "window marks missing");
	cr_expect_str_eq(r->v[begin].w.name, "allocs");
	cr_expect_eq(r->v[begin].w.iterations, 1);
	cr_expect_str_eq(r->v[end].w.name, "allocs");
	main_tid = r->v[begin].w.tid;
	cr_expect_eq(main_tid, (unsigned long)c->pid);

	/* Per thread: the window's records must be exactly the expected ones, in order. */
	n_exp = parse_expect(c->log, &exp);
	cr_assert_gt(n_exp, 0);
	for (size_t e = 0; e < n_exp; e++) {
		if (exp[e].tid == ~0ul)
			continue; /* thread already checked */
		unsigned long tid = exp[e].tid;
		size_t k = e;
		int thread_extras = 0;

		for (size_t i = begin + 1; i < end; i++) {
			const struct alloc_event *a = &r->v[i].a;
			const struct expect *x;
			__u32 fn;

			if (a->tid != tid)
				continue;
			while (k < n_exp && exp[k].tid != tid)
				k++;
			x = k < n_exp ? &exp[k] : NULL;
			fn = x ? loader__fn_owner(l, (__u32)x->fn) : 0;
			if (!x || a->type != (__u32)x->type || a->addr != x->addr || a->fn != fn) {
				/* At thread exit glibc's tcache_thread_shutdown() free()s every
				 * chunk still cached in the thread's tcache (blocks the thread had
				 * already freed) and then the tcache itself (allocated inside
				 * malloc, never seen): trailing FREEs of dead or unknown blocks on
				 * worker threads. */
				cr_assert(
				    tid != main_tid && !x && a->type == EV_FREE &&
					++thread_extras <= 16,
				    "tid %lu record %zu: got %s %s addr %llx old %llx size %llu, "
				    "expected %s %s addr %lx old %lx size %lu",
				    tid, i, type_name(a->type), alloc_fn_name(a->fn),
				    (unsigned long long)a->addr, (unsigned long long)a->old_addr,
				    (unsigned long long)a->size,
				    x ? type_name((__u32)x->type) : "-",
				    x ? alloc_fn_name(fn) : "-", x ? x->addr : 0, x ? x->old : 0,
				    x ? x->size : 0);
				extras++;
				continue;
			}
			cr_assert_eq(a->old_addr, x->old, "%s %s: old_addr", type_name(a->type),
				     alloc_fn_name(a->fn));
			if (x->exact)
				cr_assert_eq(a->size, x->size, "%s %s: size %llu, expected %lu",
					     type_name(a->type), alloc_fn_name(a->fn),
					     (unsigned long long)a->size, x->size);
			else
				cr_assert_geq(a->size, x->size, "%s %s: size %llu, expected >= %lu",
					      type_name(a->type), alloc_fn_name(a->fn),
					      (unsigned long long)a->size, x->size);
			if (a->type != EV_FREE) {
				int nips;

				cr_assert_geq(a->stack_id, 0, "%s: stack_id %d",
					      alloc_fn_name(a->fn), a->stack_id);
				nips = record_stack(l, a->stack_id, ips, STACK_MAX_DEPTH);
				cr_assert_gt(nips, 0, "%s: stack of id %d: %d",
					     alloc_fn_name(a->fn), a->stack_id, nips);
				/* The caller of the outermost call, not libc: complete at return
				 * (except for calls libc makes itself: fclose's realloc). */
				cr_assert(
				    !x->own || in_exe(c, ips[0]),
				    "%s: first frame %llx is not in allocs (stack of %d frames)",
				    alloc_fn_name(a->fn), (unsigned long long)ips[0], nips);
				if (tid == main_tid && x->own)
					cr_assert_geq(nips, 2,
						      "main thread stacks reach main's caller");
			}
			if (a->fn < FN_COUNT)
				per_fn[a->fn][a->type]++;
			matched++;
			exp[k].tid = ~0ul;
			k++;
		}
		for (; k < n_exp; k++)
			cr_assert(
			    exp[k].tid != tid, "tid %lu: expected %s %s addr %lx not received", tid,
			    type_name((__u32)exp[k].type),
			    alloc_fn_name(loader__fn_owner(l, (__u32)exp[k].fn)), exp[k].addr);
		for (size_t j = e; j < n_exp; j++)
			if (exp[j].tid == tid)
				exp[j].tid = ~0ul;
	}
	cr_assert_eq(matched, n_exp, "matched %zu of %zu expected records", matched, n_exp);

	fprintf(
	    stderr,
	    "window: %zu records matched exactly, %zu thread-exit (tcache flush) frees; per fn:\n",
	    matched, extras);
	for (__u32 fn = 0; fn < FN_COUNT; fn++)
		if (per_fn[fn][EV_ALLOC] || per_fn[fn][EV_FREE] || per_fn[fn][EV_REALLOC])
			fprintf(stderr, "  %-15s alloc %lu free %lu realloc %lu\n",
				alloc_fn_name(fn), per_fn[fn][EV_ALLOC], per_fn[fn][EV_FREE],
				per_fn[fn][EV_REALLOC]);

	/* Entry addresses seen by the probes are the functions' addresses. */
	cr_expect_eq(loader__fn_addr(l, FN_MALLOC), log_fnaddr(c->log, "malloc"));
	cr_expect_eq(loader__fn_addr(l, FN_FREE), log_fnaddr(c->log, "free"));
	cr_expect_eq(loader__fn_addr(l, FN_STRDUP), log_fnaddr(c->log, "strdup"));
	cr_expect_eq(loader__fn_addr(l, FN_MEMALIGN), log_fnaddr(c->log, "memalign"));
	cr_expect_eq(loader__fn_addr(l, FN_ALIGNED_ALLOC), log_fnaddr(c->log, "aligned_alloc"));
	free(exp);
	*begin_out = begin;
	*end_out = end;
}

static void finish(struct loader *l, struct child *c, struct recs *r)
{
	loader__free(l);
	close(c->in_fd);
	close(c->out_fd);
	free(c->log);
	free(r->v);
}

/* allocs exec'd and waiting: attach, release, check. Not gated. */
Test(bpf_probe, attach_running_process, .timeout = TEST_TIMEOUT(120))
{
	struct loader_opts o = {.usdt_binary = ALLOCS_BIN};
	struct recs r = {};
	struct child c;
	struct loader *l;
	size_t begin, end, outside = 0;
	int status;

	require_bpf();
	spawn(&c, false);
	wait_log(&c, "READY");
	read_exe_maps(&c);
	o.pid = c.pid;
	l = loader__new(&o);
	cr_assert_not_null(l, "loader__new: %s", strerror(errno));
	cr_assert(strstr(loader__libc_path(l), "libc"), "libc path %s", loader__libc_path(l));
	cr_assert_eq(write(c.in_fd, "g", 1), 1);
	status = collect(l, &c, &r);
	check_run(l, &c, &r, status, &begin, &end);
	for (size_t i = 0; i < r.n; i++)
		outside += i < begin || i > end;
	/* fclose(fmemopen stream) after the window: its frees are traced (not gated). */
	cr_expect_gt(outside, 0, "ungated: the frees after window_end are traced");
	finish(l, &c, &r);
}

/* attach_running_process with --unwind dwarf: snapshots resolved into the same stream. */
Test(bpf_probe, dwarf_snapshots_same_records, .timeout = TEST_TIMEOUT(120))
{
	struct loader_opts o = {.usdt_binary = ALLOCS_BIN, .unwind_dwarf = true};
	struct snapshot_counters sc;
	struct dwarf_stacks_stats st;
	struct recs r = {};
	struct child c;
	struct loader *l;
	size_t begin, end;
	int status;

	require_bpf();
	spawn(&c, false);
	wait_log(&c, "READY");
	read_exe_maps(&c);
	o.pid = c.pid;
	dwarf = dwarf_stacks__new(c.pid);
	cr_assert_not_null(dwarf);
	l = loader__new(&o);
	cr_assert_not_null(l, "loader__new: %s", strerror(errno));
	cr_assert_eq(write(c.in_fd, "g", 1), 1);
	status = collect(l, &c, &r);
	check_run(l, &c, &r, status, &begin, &end);
	cr_expect_eq(snapshot_bad, 0, "malformed snapshot records");
	loader__snapshot_counters(l, &sc);
	dwarf_stacks__stats(dwarf, &st);
	cr_expect_gt(sc.snapshots, 0);
	cr_expect_eq(st.snapshots, sc.snapshots, "resolved %llu of %llu snapshots",
		     (unsigned long long)st.snapshots, (unsigned long long)sc.snapshots);
	cr_expect_eq(st.failures + sc.copy_failures + sc.scratch_busy, 0, "unwind failures");
	cr_expect_eq(st.unwound, st.snapshots);
	finish(l, &c, &r);
	dwarf_stacks__free(dwarf);
	dwarf = NULL;
}

/* The tracer's way: attach to a forked child before it execs allocs; window-gated. */
Test(bpf_probe, attach_before_exec_gated, .timeout = TEST_TIMEOUT(120))
{
	struct loader_opts o = {.usdt_binary = ALLOCS_BIN, .window_gated = true};
	struct recs r = {};
	struct child c;
	struct loader *l;
	size_t begin, end;
	int status;

	require_bpf();
	spawn(&c, true);
	o.pid = c.pid;
	l = loader__new(&o);
	cr_assert_not_null(l, "loader__new: %s", strerror(errno));
	cr_assert_eq(write(c.in_fd, "g", 1), 1); /* exec */
	wait_log(&c, "READY");
	read_exe_maps(&c);
	cr_assert_eq(write(c.in_fd, "g", 1), 1); /* run the window */
	status = collect(l, &c, &r);
	check_run(l, &c, &r, status, &begin, &end);
	for (size_t i = 0; i < r.n; i++)
		cr_assert(i >= begin && i <= end, "gated: record %zu (%s %s) outside the window", i,
			  type_name(r.v[i].type), alloc_fn_name(r.v[i].a.fn));
	finish(l, &c, &r);
}

Test(bpf_probe, errors, .timeout = TEST_TIMEOUT(60))
{
	struct loader_opts o = {0};
	struct loader *l;
	pid_t pid;

	require_bpf();
	/* A pid that is certainly gone: a reaped child. */
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	o.pid = pid;
	l = loader__new(&o);
	cr_assert_null(l);
	cr_assert_eq(errno, ESRCH, "gone pid: %s", strerror(errno));

	o.pid = getpid();
	o.libc_path = "/nonexistent/libc.so.6";
	l = loader__new(&o);
	cr_assert_null(l);
	cr_assert_eq(errno, ENOENT, "missing library: %s", strerror(errno));

	/* A statically linked process maps no libc: its own malloc is probed (issue #15). */
	{
		int in[2], out[2];
		struct pollfd pf;
		char echo = 0;
		pid_t st;

		cr_assert_eq(pipe(in), 0);
		cr_assert_eq(pipe(out), 0);
		st = fork();
		cr_assert_geq(st, 0);
		if (st == 0) {
			dup2(in[0], STDIN_FILENO);
			dup2(out[1], STDOUT_FILENO);
			close(in[1]);
			close(out[0]);
			execl(STATIC_BIN, STATIC_BIN, (char *)NULL);
			_exit(127);
		}
		close(in[0]);
		close(out[1]);
		/* Wait for the exec: until then the child maps the test's own libc. Not by
		 * /proc/PID/exe, which names the new program before its segments are mapped:
		 * the target echoes a byte once its main runs. */
		cr_assert_eq(write(in[1], "x", 1), 1);
		pf = (struct pollfd){ .fd = out[0], .events = POLLIN };
		cr_assert_eq(poll(&pf, 1, TIMEOUT_S * 1000), 1, "the static target never ran");
		cr_assert_eq(read(out[0], &echo, 1), 1, "the static target did not echo");
		cr_assert_eq(echo, 'x');
		close(out[0]);
		o.pid = st;
		o.libc_path = NULL;
		l = loader__new(&o);
		cr_assert_not_null(l, "static target: %s", strerror(errno));
		{
			struct stat probed, bin;

			cr_assert_eq(stat(loader__libc_path(l), &probed), 0);
			cr_assert_eq(stat(STATIC_BIN, &bin), 0);
			cr_expect(probed.st_ino == bin.st_ino && probed.st_dev == bin.st_dev,
				  "probed %s, not the static executable", loader__libc_path(l));
		}
		loader__free(l);
		close(in[1]); /* EOF: the target exits */
		waitpid(st, NULL, 0);
	}

	o.pid = getpid();
	o.libc_path = NULL;
	o.ringbuf_sz = 12345;
	l = loader__new(&o);
	cr_assert_null(l);
	cr_assert_eq(errno, EINVAL, "bad ring size: %s", strerror(errno));

	o.pid = 0;
	o.ringbuf_sz = 0;
	l = loader__new(&o);
	cr_assert_null(l);
	cr_assert_eq(errno, EINVAL);
}

/* Kernels without uprobe-multi links: the same checks through one link per probe. */
Test(bpf_probe, per_probe_links, .timeout = TEST_TIMEOUT(120))
{
	struct loader_opts o = {
	    .usdt_binary = ALLOCS_BIN, .window_gated = true, .per_probe_links = true};
	struct recs r = {};
	struct child c;
	struct loader *l;
	size_t begin, end;
	int status;

	require_bpf();
	spawn(&c, true);
	o.pid = c.pid;
	l = loader__new(&o);
	cr_assert_not_null(l, "loader__new: %s", strerror(errno));
	cr_assert_eq(write(c.in_fd, "g", 1), 1); /* exec */
	wait_log(&c, "READY");
	read_exe_maps(&c);
	cr_assert_eq(write(c.in_fd, "g", 1), 1); /* run the window */
	status = collect(l, &c, &r);
	check_run(l, &c, &r, status, &begin, &end);
	finish(l, &c, &r);
}

/*
 * loader__stop on a target that keeps allocating (alloc_bench mt: two threads of malloc/free
 * pairs, probes attached before its exec): the stream must end as it would if the target
 * had stopped. The links are closed in parallel, in no fixed order; without the programs
 * silenced first, returns ran without their entry (unmatched) or frees were sent for blocks
 * whose allocation was not. So: no unmatched return, every record submitted is received,
 * each worker thread's records alternate ALLOC p / FREE p, and after the stop loader__poll
 * gives nothing and loader__stop again is a no-op.
 */
Test(bpf_probe, stop_ends_the_stream_cleanly, .timeout = TEST_TIMEOUT(120))
{
	struct loader_opts o = {0};
	struct {
		__u32 tid, last_type;
		__u64 last_addr;
	} th[8] = {};
	struct probe_counters pc;
	struct recs r = {};
	size_t worker_allocs = 0, broken = 0;
	time_t end;
	struct loader *l;
	int hold[2], n;
	pid_t pid;

	require_bpf();
	cr_assert_eq(pipe(hold), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char go;

		close(hold[1]);
		if (read(hold[0], &go, 1) != 1)
			_exit(127);
		execl(ALLOC_BENCH_BIN, "alloc_bench", "mt", "2", "1000000000", (char *)NULL);
		_exit(127);
	}
	close(hold[0]);
	o.pid = pid;
	l = loader__new(&o);
	if (!l) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		cr_assert_fail("loader__new: %s", strerror(errno));
	}
	cr_assert_eq(write(hold[1], "g", 1), 1);
	close(hold[1]);
	/* Stop once the workers are seen allocating (what the target did, not a guessed
	 * 300 ms: on a slow or loaded host its exec and threads take longer than that). */
	end = time(NULL) + TIMEOUT_S;
	for (size_t seen = 0; worker_allocs <= 1000;) {
		n = loader__poll(l, 5, on_record, &r);
		cr_assert_geq(n, 0, "loader__poll: %s", strerror(-n));
		for (; seen < r.n; seen++)
			worker_allocs += r.v[seen].a.tid != (__u32)pid && r.v[seen].type == EV_ALLOC;
		if (time(NULL) > end) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			cr_assert_fail("%zu worker allocations traced in %d s", worker_allocs,
				       TIMEOUT_S);
		}
	}
	worker_allocs = 0; /* counted again below, with their order */

	n = loader__stop(l, on_record, &r);
	cr_assert_geq(n, 0, "loader__stop: %s", strerror(-n));
	loader__counters(l, &pc);
	cr_expect_eq(loader__poll(l, 0, on_record, &r), 0, "records after the stop");
	cr_expect_eq(loader__stop(l, on_record, &r), 0, "a second stop consumed records");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	fprintf(stderr, "stop: events %llu dropped %llu unmatched_returns %llu; received %zu\n",
		(unsigned long long)pc.events, (unsigned long long)pc.dropped,
		(unsigned long long)pc.unmatched_returns, r.n);
	cr_expect_eq(r.bad_sizes, 0);
	cr_expect_eq(pc.dropped, 0);
	cr_expect_eq(pc.unmatched_returns, 0, "returns without their entry while detaching");
	cr_expect_eq(pc.events, r.n, "every submitted record is received");
	for (size_t i = 0; i < r.n; i++) {
		const struct alloc_event *a = &r.v[i].a;
		size_t k = 0;

		if (a->tid == (__u32)pid || (a->type != EV_ALLOC && a->type != EV_FREE))
			continue; /* the main thread: start-up and pthread_create allocate */
		while (k < 8 && th[k].tid && th[k].tid != a->tid)
			k++;
		cr_assert_lt(k, 8, "more worker threads than alloc_bench starts");
		th[k].tid = a->tid;
		if (a->type == EV_FREE ? th[k].last_type != EV_ALLOC || th[k].last_addr != a->addr
				       : th[k].last_type == EV_ALLOC)
			broken++;
		worker_allocs += a->type == EV_ALLOC;
		th[k].last_type = a->type;
		th[k].last_addr = a->addr;
	}
	cr_expect_gt(worker_allocs, 1000, "the worker threads were traced");
	cr_expect_eq(broken, 0, "%zu worker records out of ALLOC p / FREE p order", broken);
	loader__free(l);
	free(r.v);
}

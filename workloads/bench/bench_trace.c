// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench-trace - the tracer's probes without the rest of the tracer, for the benchmark.
 *
 *   bench-trace [--noop | --noop-entry | --cut stacks|records|walk|ring] [--per-probe-links]
 *               [--unwind-kernel] [--record FILE] [--ringbuf BYTES] -- CMD [ARG...]
 *	Spawns CMD held before exec, attaches the loader's probes to it, releases it, consumes
 *	the ring buffer until it exits. --noop loads the same programs on the same probe sites
 *	with bodies that only return 0 (the probe floor). --noop-entry: the same without any
 *	return probe (entry and free traps only: the floor of an allocation whose return is
 *	skipped). TRACER_NO_SESSION=1: the loader's fallback links instead of session uprobes. --cut leaves part of the work out:
 *	"stacks" sends records without stacks, "records" keeps only the per-thread call state,
 *	"walk" takes the PC as the whole stack (no frame walk), "ring" stages records per CPU and
 *	sends 32 as one ring record (no per-record reservation; records= then counts batches)
 *	(what each part costs: run.sh's "Where the time goes"). --record saves every raw record as
 *	<u32 size><bytes> for --replay. --per-probe-links: one link per probe, as on kernels
 *	without uprobe-multi. --unwind-kernel: stacks unwound in BPF from CFI tables (--unwind
 *	kernel; "walk" then cuts that unwind). BENCH_TRACE_VERBOSE=N: loader verbosity. Prints one line of
 *	key=value figures on stdout; CMD's stdout goes to /dev/null.
 *
 *   bench-trace --replay FILE [--passes N]
 *	Feeds the EV_ALLOC/EV_FREE/EV_REALLOC records of FILE to collector__handle() N times
 *	(default 5) on the calling thread and prints the best events/s. Before that, one pass
 *	streams FILE record by record (nothing loaded) and prints the collector's peak memory
 *	by its own accounting (collector__memory) next to the process's maxrss before and
 *	after that pass: the collector's memory, measured two ways.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "cfi_table.h"
#include "loader.h"
#include "log.h"

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct sink {
	FILE *out;
	unsigned long long records, bytes;
};

static int on_record(void *ctx, const void *data, size_t sz)
{
	struct sink *s = ctx;
	__u32 len = (__u32)sz;

	s->records++;
	s->bytes += sz;
	if (s->out &&
	    (fwrite(&len, sizeof(len), 1, s->out) != 1 || fwrite(data, sz, 1, s->out) != 1))
		return -EIO;
	return 0;
}

static bool unwind_kernel; /* --unwind-kernel */

static int run_traced(char **argv, int noop, __u32 cut, bool per_probe, const char *record,
		      size_t rb_sz)
{
	struct loader_opts opts = {0};
	struct sink sink = {0};
	struct probe_counters pc;
	struct loader *l = NULL;
	int go[2], status = 0, err = 0, fd_null;
	double t0, t_attached, t_start, t_end, t_detached;
	struct rusage ru;
	pid_t pid;

	if (record) {
		sink.out = fopen(record, "we");
		if (!sink.out) {
			perror(record);
			return 1;
		}
	}
	if (pipe(go))
		return 1;
	fd_null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		close(go[0]);
		/* stdout carries this program's figures: the command's own output is not wanted */
		if (fd_null >= 0)
			dup2(fd_null, STDOUT_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (fd_null >= 0)
		close(fd_null);
	close(go[0]);
	opts.pid = pid;
	opts.ringbuf_sz = rb_sz;
	opts.noop = noop != BENCH_NOOP_OFF;
	opts.noop_entry = noop == BENCH_NOOP_ENTRY;
	opts.bench_cut = cut;
	opts.per_probe_links = per_probe;
	/* held before exec: described once it has exec'd (the loader's first misses) */
	opts.unwind_kernel = opts.unwind_held = unwind_kernel;
	opts.unwind_cache_dir = cfi_table__default_cache_dir();
	tracer_verbosity = getenv("BENCH_TRACE_VERBOSE") ? atoi(getenv("BENCH_TRACE_VERBOSE")) : 0;
	t0 = mono_s();
	l = loader__new(&opts);
	t_attached = mono_s();
	if (!l) {
		err = -errno;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fprintf(stderr, "bench-trace: loader: %s\n", strerror(-err));
		return 1;
	}
	t_start = mono_s();
	if (write(go[1], "g", 1) != 1)
		err = -EIO;
	close(go[1]);
	for (;;) {
		int n = loader__poll(l, 100, on_record, &sink);

		if (n < 0 && n != -EINTR) {
			err = n;
			break;
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
	}
	t_end = mono_s();
	while (loader__poll(l, 0, on_record, &sink) > 0)
		;
	loader__counters(l, &pc);
	loader__free(l);
	t_detached = mono_s();
	getrusage(RUSAGE_SELF, &ru);
	if (sink.out && fclose(sink.out))
		err = -EIO;
	printf("attach_s=%.3f detach_s=%.3f run_s=%.3f records=%llu record_bytes=%llu "
	       "events=%llu dropped=%llu stack_failures=%llu events_per_s=%.0f "
	       "consumer_cpu_s=%.3f consumer_maxrss_kb=%ld status=%d\n",
	       t_attached - t0, t_detached - t_end, t_end - t_start, sink.records, sink.bytes,
	       (unsigned long long)pc.events, (unsigned long long)pc.dropped,
	       (unsigned long long)pc.stack_failures, (double)pc.events / (t_end - t_start),
	       (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		   ru.ru_stime.tv_usec / 1e6,
	       ru.ru_maxrss, status);
	return err || !WIFEXITED(status) || WEXITSTATUS(status);
}

/* Next allocator record of a --record file into *ev (window marks skipped). False at the
 * end of the file or on a malformed length. */
static bool next_alloc_record(FILE *f, struct alloc_event *ev)
{
	__u32 len;

	while (fread(&len, sizeof(len), 1, f) == 1) {
		char buf[256];

		if (len > sizeof(buf)) { /* a stack copy, a process's exec: not a block's record */
			if (fseek(f, (long)len, SEEK_CUR))
				return false;
			continue;
		}
		if (fread(buf, len, 1, f) != 1)
			return false;
		if (len != sizeof(*ev))
			continue; /* window marks, process events */
		memcpy(ev, buf, sizeof(*ev));
		return true;
	}
	return false;
}

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * One pass that reads the file one record at a time, so that the process's maxrss grows by
 * what the collector holds and nothing else (the throughput passes load every record first:
 * 48 B each, O(records) by design). Prints the collector's accounting and maxrss side by
 * side. Runs before anything is loaded: maxrss is a high-water mark.
 */
static int replay_memory(const char *path)
{
	struct collector *c = NULL;
	struct collector_mem m;
	struct alloc_event ev;
	long base_kb = maxrss_kb();
	__u64 last_ns = 0;
	FILE *f = fopen(path, "re");

	if (!f) {
		perror(path);
		return 1;
	}
	while (next_alloc_record(f, &ev)) {
		if ((!c && !(c = collector__new(ev.ts_ns, NULL))) || collector__handle(c, &ev)) {
			/* No figures from half a stream. */
			fprintf(stderr, "bench-trace: %s: the collector failed\n", path);
			collector__free(c);
			fclose(f);
			return 1;
		}
		last_ns = ev.ts_ns;
	}
	fclose(f);
	if (!c) {
		fprintf(stderr, "bench-trace: no allocator records in %s\n", path);
		return 1;
	}
	collector__finish(c, last_ns);
	collector__memory(c, &m);
	printf("collector_kb=%zu collector_peak_kb=%zu stream_base_maxrss_kb=%ld "
	       "stream_maxrss_kb=%ld ",
	       m.total_sz / 1024, m.peak_sz / 1024, base_kb, maxrss_kb());
	collector__free(c);
	return 0;
}

static int replay(const char *path, int passes)
{
	struct alloc_event *ev = NULL;
	size_t cnt = 0, cap = 0;
	double best = 0;
	__u64 t_first = 0;
	FILE *f;

	if (replay_memory(path))
		return 1;
	f = fopen(path, "re");
	if (!f) {
		perror(path);
		return 1;
	}
	/* Load the allocator records first: the replay measures the collector, not the disk. */
	for (;;) {
		if (cnt == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			ev = realloc(ev, cap * sizeof(*ev));
			if (!ev)
				return 1;
		}
		if (!next_alloc_record(f, &ev[cnt]))
			break;
		cnt++;
	}
	fclose(f);
	if (!cnt) {
		fprintf(stderr, "bench-trace: no allocator records in %s\n", path);
		return 1;
	}
	t_first = ev[0].ts_ns;
	for (int p = 0; p < passes; p++) {
		struct collector *c = collector__new(t_first, NULL);
		double t0, dt;

		if (!c)
			return 1;
		t0 = mono_s();
		for (size_t i = 0; i < cnt; i++)
			if (collector__handle(c, &ev[i]))
				return 1;
		collector__finish(c, ev[cnt - 1].ts_ns);
		dt = mono_s() - t0;
		if (!p || cnt / dt > best)
			best = (double)cnt / dt;
		collector__free(c);
	}
	printf("replay_records=%zu replay_events_per_s=%.0f\n", cnt, best);
	free(ev);
	return 0;
}

int main(int argc, char **argv)
{
	const char *record = NULL, *replay_path = NULL;
	size_t rb_sz = 0;
	int noop = BENCH_NOOP_OFF;
	bool per_probe = false;
	__u32 cut = BENCH_CUT_NONE;
	int passes = 5, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--noop"))
			noop = BENCH_NOOP_SITES;
		else if (!strcmp(argv[i], "--noop-entry"))
			noop = BENCH_NOOP_ENTRY;
		else if (!strcmp(argv[i], "--cut") && i + 1 < argc && !strcmp(argv[i + 1], "stacks"))
			cut = BENCH_CUT_STACKS, i++;
		else if (!strcmp(argv[i], "--cut") && i + 1 < argc && !strcmp(argv[i + 1], "records"))
			cut = BENCH_CUT_RECORDS, i++;
		else if (!strcmp(argv[i], "--cut") && i + 1 < argc && !strcmp(argv[i + 1], "walk"))
			cut = BENCH_CUT_WALK, i++;
		else if (!strcmp(argv[i], "--cut") && i + 1 < argc && !strcmp(argv[i + 1], "ring"))
			cut = BENCH_CUT_RING, i++;
		else if (!strcmp(argv[i], "--cut")) {
			fprintf(stderr, "bench-trace: --cut takes stacks, records, walk or ring\n");
			return 2;
		}
		else if (!strcmp(argv[i], "--per-probe-links"))
			per_probe = true;
		else if (!strcmp(argv[i], "--unwind-kernel"))
			unwind_kernel = true;
		else if (!strcmp(argv[i], "--record") && i + 1 < argc)
			record = argv[++i];
		else if (!strcmp(argv[i], "--replay") && i + 1 < argc)
			replay_path = argv[++i];
		else if (!strcmp(argv[i], "--passes") && i + 1 < argc)
			passes = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ringbuf") && i + 1 < argc)
			rb_sz = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else
			break;
	}
	if (record && cut == BENCH_CUT_RING) {
		/* a batch is not a record --replay can read */
		fprintf(stderr, "bench-trace: --record cannot go with --cut ring\n");
		return 2;
	}
	if (replay_path)
		return replay(replay_path, passes > 0 ? passes : 1);
	if (i >= argc) {
		fprintf(stderr, "usage: bench-trace [--noop | --noop-entry | "
				"--cut stacks|records|walk|ring] [--per-probe-links] "
				"[--unwind-kernel] "
				"[--record FILE] "
				"[--ringbuf BYTES] -- "
				"CMD [ARG...]\n       bench-trace --replay FILE [--passes N]\n");
		return 2;
	}
	return run_traced(argv + i, noop, cut, per_probe, record, rb_sz);
}

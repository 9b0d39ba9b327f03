#include "e2e_util.h"

#include <criterion/criterion.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

bool e2e_in_ci(void)
{
	const char *ci = getenv("CI");

	return ci && !strcmp(ci, "true");
}

const char *e2e_cannot_trace(void)
{
	if (geteuid() != 0)
		return "not running as root";
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return "kernel has no BTF";
	if (access("/sys/bus/event_source/devices/uprobe", F_OK))
		return "kernel has no uprobes";
	return NULL;
}

int e2e_run(const char *cmd, char **out)
{
	FILE *p = popen(cmd, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	char chunk[4096];
	size_t n;
	int st;

	if (!p)
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0) {
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	if (buf)
		buf[len] = '\0';
	st = pclose(p);
	if (out)
		*out = buf ? buf : strdup("");
	else
		free(buf);
	return st == -1 ? -1 : WEXITSTATUS(st);
}

char *e2e_tmpdir(const char *tag)
{
	char *path;

	if (asprintf(&path, "%s/%s-XXXXXX", TESTS_BIN_DIR, tag) < 0)
		abort();
	if (!mkdtemp(path))
		abort();
	return path;
}

/* The guard's longest life: past every test's own timeout (the largest is 1800 s). */
#define GUARD_MAX_S 3600

static pid_t guarded;	  /* the test process the guard watches */
static int guard_fd = -1; /* write end: directories for the guard to remove */

/* What the guard does at the end, one line each (from the test process, through a pipe):
 * "g<pgid>" a process group to kill besides the test's, "d<path>" a directory to remove. */
#define GUARD_ITEMS 64

/* The guard: wait for the test process to end (or GUARD_MAX_S), then kill its group and
 * the groups it was given, and remove the directories (retrying while those processes
 * exit). */
static void guard_main(pid_t test, int items_fd)
{
	struct pollfd pf[2] = { { .fd = -1, .events = POLLIN }, { .fd = items_fd, .events = POLLIN } };
	char buf[16384], *items[GUARD_ITEMS];
	size_t len = 0, n_items = 0;
	time_t until = time(NULL) + GUARD_MAX_S;

	setpgid(0, 0); /* out of the group it will kill */
	/* Hold nothing of the test's: Criterion's pipes must close when the test ends. */
	if (items_fd > 3)
		close_range(3, (unsigned)items_fd - 1, 0);
	close_range((unsigned)items_fd + 1, ~0u, 0);
	pf[0].fd = (int)syscall(SYS_pidfd_open, test, 0);
	while (time(NULL) < until) {
		if (poll(pf, 2, 1000) < 0 && errno != EINTR)
			break;
		if (pf[1].revents & (POLLIN | POLLHUP)) {
			char sink[512];
			/* Full: later items are read and dropped (the test's writes must never
			 * block on a guard that stopped reading). */
			bool full = len + 1 >= sizeof(buf);
			ssize_t n = full ? read(items_fd, sink, sizeof(sink)) :
					   read(items_fd, buf + len, sizeof(buf) - 1 - len);

			if (n > 0 && !full)
				len += (size_t)n;
			else if (n <= 0)
				pf[1].fd = -1; /* the test closed it (or exec'd): poll the pidfd */
		}
		if (pf[0].fd < 0 ? kill(test, 0) != 0 : (pf[0].revents & POLLIN) != 0)
			break;
	}
	kill(-test, SIGKILL);
	buf[len] = '\0';
	for (char *save = NULL, *it = strtok_r(buf, "\n", &save); it && n_items < GUARD_ITEMS;
	     it = strtok_r(NULL, "\n", &save))
		items[n_items++] = it;
	for (size_t i = 0; i < n_items; i++)
		if (items[i][0] == 'g')
			kill(-atoi(items[i] + 1), SIGKILL);
	for (int tries = 0; tries < 100; tries++) {
		size_t left = 0;

		for (size_t i = 0; i < n_items; i++)
			left += items[i][0] == 'd' && rmdir(items[i] + 1) && errno != ENOENT;
		if (!left)
			break;
		usleep(50000);
	}
	_exit(0);
}

/* One line for the guard. */
static void guard_say(char kind, const char *what)
{
	char line[1024];
	int n = snprintf(line, sizeof(line), "%c%s\n", kind, what);

	if (guard_fd >= 0 && n > 0 && (size_t)n < sizeof(line) &&
	    write(guard_fd, line, (size_t)n) != n)
		fprintf(stderr, "e2e guard: cannot pass on %s\n", line);
}

void e2e_guard_rmdir(const char *path)
{
	guard_say('d', path);
}

void e2e_guard_group(pid_t pgid)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", (int)pgid);
	guard_say('g', num);
}

void e2e_guard(void)
{
	int p[2];
	pid_t g, me = getpid();

	if (guarded == me)
		return;
	guarded = me;
	if (getpgrp() != me && setpgid(0, 0))
		return;
	if (pipe2(p, O_CLOEXEC))
		return;
	g = fork();
	if (g < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (g == 0) {
		close(p[1]);
		guard_main(me, p[0]);
	}
	close(p[0]);
	guard_fd = p[1];
	fcntl(guard_fd, F_SETFL, O_NONBLOCK); /* a guard gone must not block the test */
}

bool e2e_exited(pid_t pid)
{
	siginfo_t si = { 0 };

	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

void e2e_write_file(const char *dir, const char *name, const char *text, mode_t mode)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "cannot create %s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0, "cannot write %s", path);
	cr_assert_eq(chmod(path, mode), 0, "chmod %s: %s", path, strerror(errno));
}

char *e2e_slurp(const char *path)
{
	char *buf = malloc(65536);
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (!buf)
		abort();
	if (fd >= 0) {
		n = read(fd, buf, 65535);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

bool e2e_wait_for_text(const char *path, const char *needle, int secs)
{
	return e2e_wait_for_text_from(path, needle, secs, 0);
}

bool e2e_wait_for_text_from(const char *path, const char *needle, int secs, pid_t writer)
{
	struct timespec start, now;
	bool writer_gone = false;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		char buf[65536];
		ssize_t n = 0;
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
		}
		if (n > 0) {
			buf[n] = '\0';
			if (strstr(buf, needle))
				return true;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= secs || writer_gone)
			return false;
		/* Read once more after the writer ended: its last line may be the one. */
		writer_gone = writer > 0 && e2e_exited(writer);
		usleep(20000);
	}
}

long e2e_lines(const char *path)
{
	char buf[65536];
	long lines = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	close(fd);
	return lines;
}

bool e2e_wait_lines(const char *path, long n, int secs)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (e2e_lines(path) < n) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= secs)
			return false;
		usleep(20000);
	}
	return true;
}

/* Start of the mapping of file offset 0 of `file` in pid, or 0. */
static uintptr_t map_base(pid_t pid, const char *file)
{
	char path[64], line[4352], name[4096];
	uintptr_t base = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!base && fgets(line, sizeof(line), f)) {
		unsigned long lo, off;

		if (sscanf(line, "%lx-%*x %*s %lx %*s %*s %4095s", &lo, &off, name) == 3 &&
		    off == 0 && !strcmp(name, file))
			base = lo;
	}
	fclose(f);
	return base;
}

int e2e_libc_first_byte(pid_t pid, const char *fn)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *sym = libc ? dlsym(libc, fn) : NULL;
	char real[4096], mem[64];
	uintptr_t ours, theirs;
	unsigned char byte;
	Dl_info info;
	int fd, ret = -1;

	if (!sym || !dladdr(sym, &info) || !realpath(info.dli_fname, real))
		goto out;
	ours = (uintptr_t)info.dli_fbase;
	theirs = map_base(pid, real);
	if (!theirs)
		goto out;
	snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)pid);
	fd = open(mem, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;
	if (pread(fd, &byte, 1, (off_t)(theirs + ((uintptr_t)sym - ours))) == 1)
		ret = byte;
	close(fd);
out:
	if (libc)
		dlclose(libc);
	return ret;
}

/* Allocator plumbing: frames that name the allocator rather than a call site. */
static const char *const plumbing[] = {
	"malloc",  "calloc",	     "realloc", "reallocarray", "free",	    "posix_memalign",
	"aligned_alloc", "memalign", "valloc",	"pvalloc",	"strdup",   "strndup",
	"asprintf", "vasprintf",     "getline", "getdelim",	"open_memstream",
};

static bool is_plumbing(const char *frame)
{
	if (strstr(frame, "vgpreload"))
		return true;
	for (size_t i = 0; i < sizeof(plumbing) / sizeof(plumbing[0]); i++) {
		size_t n = strlen(plumbing[i]);

		if (!strncmp(frame, plumbing[i], n) && frame[n] == ' ')
			return true;
	}
	return false;
}

static const char *strip_addr(const char *frame)
{
	const char *s = strstr(frame, ": ");

	return s ? s + 2 : frame;
}

size_t e2e_sites(const struct dhat_profile *p, struct site_total **out)
{
	struct site_total *s = calloc(p->pp_cnt + 1, sizeof(*s));
	size_t n = 0;

	for (size_t i = 0; i < p->pp_cnt; i++) {
		const struct dhat_pp *pp = &p->pps[i];
		const char *site = "<unattributed>";
		size_t j;

		for (j = 0; j < pp->fs_cnt; j++) {
			const char *f = strip_addr(dhat_profile__pp_frame(p, pp, j));

			if (!is_plumbing(f)) {
				site = f;
				break;
			}
		}
		for (j = 0; j < n; j++)
			if (!strcmp(s[j].site, site))
				break;
		if (j == n)
			s[n++].site = strdup(site);
		s[j].bytes += pp->tb;
		s[j].blocks += pp->tbk;
		s[j].end_bytes += pp->eb;
		s[j].bytes_var += (double)dhat_profile__pp_est(p, pp).tb_se *
				  (double)dhat_profile__pp_est(p, pp).tb_se;
	}
	*out = s;
	return n;
}

void e2e_sites_free(struct site_total *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].site);
	free(s);
}

const struct site_total *e2e_site_find(const struct site_total *s, size_t n, const char *site)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].site, site))
			return &s[i];
	return NULL;
}

char *e2e_callers(const struct dhat_profile *p, const struct dhat_pp *pp)
{
	size_t first = 0, len = 0;
	char *out;

	for (size_t j = 0; j < pp->fs_cnt; j++)
		if (is_plumbing(strip_addr(dhat_profile__pp_frame(p, pp, j))))
			first = j + 1;
	out = calloc(1, 1);
	for (size_t j = first; out && j < pp->fs_cnt; j++) {
		const char *f = strip_addr(dhat_profile__pp_frame(p, pp, j));
		size_t n = strcspn(f, " @");
		char *grown = realloc(out, len + n + 5);

		if (!grown)
			abort();
		out = grown;
		len += (size_t)sprintf(out + len, "%s%.*s", len ? " <- " : "", (int)n, f);
	}
	if (!out)
		abort();
	return out;
}

const char *e2e_invariants(const struct dhat_profile *p)
{
	if (!p->bklt)
		return "bklt is false";
	if (p->tg > p->te)
		return "tg > te";
	for (size_t i = 0; i < p->pp_cnt; i++) {
		const struct dhat_pp *pp = &p->pps[i];

		if (pp->gb > pp->mb || pp->mb > pp->tb)
			return "gb <= mb <= tb violated";
		if (pp->eb > pp->mb)
			return "eb <= mb violated";
		/* mbk is the block count at the PP's byte peak (dhat-rs, dhat-format.md §6.2), so
		 * gbk or ebk may exceed it (more, smaller blocks at t-gmax or at the end: seen with
		 * a tiny ring buffer). Only the bounds by tbk hold for blocks. */
		if (pp->gbk > pp->tbk || pp->mbk > pp->tbk || pp->ebk > pp->tbk)
			return "block counts: gbk, mbk, ebk <= tbk violated";
		for (size_t j = 0; j < pp->fs_cnt; j++)
			if (dhat_profile__pp_fs(p, pp)[j] == 0 ||
			    dhat_profile__pp_fs(p, pp)[j] >= p->ftbl_cnt)
				return "fs index 0 or out of range";
	}
	return NULL;
}

bool e2e_profile_names(const char *path, const char *name)
{
	struct dhat_profile *p = dhat_profile__load(path, NULL, 0);
	bool named = false;

	for (size_t i = 0; p && i < p->ftbl_cnt && !named; i++)
		named = strstr(p->ftbl[i], name) != NULL;
	dhat_profile__free(p);
	return named;
}

size_t e2e_each_profile(const char *dir,
			bool (*fn)(const char *path, struct dhat_profile *p, void *ctx), void *ctx,
			struct dhat_profile **kept)
{
	struct dirent *de;
	size_t seen = 0;
	DIR *d = opendir(dir);

	cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
	if (kept)
		*kept = NULL;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char path[1200], err[512];
		struct dhat_profile *p;

		/* -o FILE's other images are in FILE.d/ (tracee.h) */
		if (len > 7 && !strcmp(de->d_name + len - 7, ".json.d")) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			seen += e2e_each_profile(path, fn, ctx, kept);
			if (kept && *kept)
				break;
			continue;
		}
		if (len < 5 || strcmp(de->d_name + len - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		p = dhat_profile__load(path, err, sizeof(err));
		cr_assert_not_null(p, "%s", err);
		seen++;
		if (fn(path, p, ctx)) {
			if (kept)
				*kept = p;
			else
				dhat_profile__free(p);
			break;
		}
		dhat_profile__free(p);
	}
	closedir(d);
	return seen;
}

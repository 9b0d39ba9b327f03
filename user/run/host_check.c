// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tracer --check: see host_check.h. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>
#include <linux/bpf.h>

#include "alloc_symbols.h"
#include "debug_file.h"
#include "cfi_table.h"
#include "fp_detect.h"
#include "host_check.h"
#include "json_writer.h"
#include "loader.h"
#include "procmaps.h"
#include "safe_text.h"
#include "tracefs.h"
#include "trap_cost.h"
#include "uprobe_multi.h"

enum level {
	LVL_OK,	     /* works */
	LVL_LIMITED, /* tracing works without it; something is lost (the line says what) */
	LVL_CANNOT,  /* tracing cannot work */
};

static const char *const level_words[] = { "ok", "limited", "missing" };

struct item {
	const char *name;
	enum level level;
	char found[256];  /* what the check saw */
	char advice[320]; /* LIMITED/CANNOT: what is lost and what to do */
};

#define ITEMS_MAX 20

struct checks {
	struct item v[ITEMS_MAX];
	size_t n;
};

static struct item *add(struct checks *c, const char *name, enum level level, const char *found,
			...)
{
	struct item *it = &c->v[c->n < ITEMS_MAX ? c->n++ : ITEMS_MAX - 1];
	va_list ap;

	it->name = name;
	it->level = level;
	va_start(ap, found);
	vsnprintf(it->found, sizeof(it->found), found, ap);
	va_end(ap);
	it->advice[0] = '\0';
	return it;
}

static void advise(struct item *it, enum level level, const char *fmt, ...)
{
	va_list ap;

	it->level = level;
	va_start(ap, fmt);
	vsnprintf(it->advice, sizeof(it->advice), fmt, ap);
	va_end(ap);
}

static void check_kernel(struct checks *c)
{
	struct utsname u;
	struct item *it;

	if (uname(&u)) {
		add(c, "kernel", LVL_OK, "unknown (uname: %s)", strerror(errno));
		return;
	}
	it = add(c, "kernel", LVL_OK, "%s %s %s", u.sysname, u.release, u.machine);
	if (strcmp(u.machine, "x86_64"))
		advise(it, LVL_CANNOT, "the probes decode x86-64 code: trace on an x86-64 host");
}

/* The effective capability set, from /proc/self/status. 0 when unreadable. */
static unsigned long long cap_eff(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long v = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			break;
	fclose(f);
	return v;
}

#define CAP_BIT(n) (1ull << (n))
#define CAP_SYS_PTRACE_ 19
#define CAP_SYS_ADMIN_	21
#define CAP_PERFMON_	38
#define CAP_BPF_	39

static void check_privileges(struct checks *c)
{
	unsigned long long caps = cap_eff();
	static const struct {
		int bit;
		const char *name, *what;
	} need[] = {
		{ CAP_BPF_, "CAP_BPF", "BPF programs" },
		{ CAP_PERFMON_, "CAP_PERFMON", "uprobes" },
		{ CAP_SYS_ADMIN_, "CAP_SYS_ADMIN", "uprobe events, mounting tracefs" },
		{ CAP_SYS_PTRACE_, "CAP_SYS_PTRACE", "reading other users' processes" },
	};
	char missing[128] = "";
	struct item *it;

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!(caps & CAP_BIT(need[i].bit)))
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 "%s%s", *missing ? ", " : "", need[i].name);
	it = add(c, "privileges", LVL_OK, "%s, %s", geteuid() ? "not root" : "root",
		 *missing ? "lacking " : "with CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN, CAP_SYS_PTRACE");
	if (*missing)
		snprintf(it->found + strlen(it->found), sizeof(it->found) - strlen(it->found), "%s",
			 missing);
	if (geteuid())
		advise(it, LVL_CANNOT, "the tracer runs as root: sudo tracer ...");
	else if (!(caps & CAP_BIT(CAP_BPF_)) || !(caps & CAP_BIT(CAP_PERFMON_)))
		advise(it, LVL_CANNOT, "BPF uprobes need CAP_BPF and CAP_PERFMON: run outside "
				       "the container or sandbox that drops them");
	else if (*missing)
		advise(it, LVL_LIMITED, "without CAP_SYS_ADMIN no uprobe events (--pid, "
					"--cgroup); without CAP_SYS_PTRACE no other users' "
					"processes");
}

static void check_btf(struct checks *c)
{
	struct item *it = add(c, "BTF", LVL_OK, "/sys/kernel/btf/vmlinux");

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(it->found, sizeof(it->found), "no /sys/kernel/btf/vmlinux");
		advise(it, LVL_CANNOT, "the BPF programs need the kernel's BTF: a kernel built "
				       "with CONFIG_DEBUG_INFO_BTF=y");
	}
}

static void check_uprobe_pmu(struct checks *c)
{
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "re");
	int type = -1;
	struct item *it;

	if (f) {
		if (fscanf(f, "%d", &type) != 1)
			type = -1;
		fclose(f);
	}
	it = add(c, "uprobe PMU", LVL_OK, "perf event type %d", type);
	if (type < 0) {
		snprintf(it->found, sizeof(it->found), "no /sys/bus/event_source/devices/uprobe");
		advise(it, LVL_CANNOT, "a kernel with CONFIG_UPROBE_EVENTS=y (4.17 or later)");
	}
}

/* uprobe-multi and session links, asked of the kernel. *multi: whether multi links work. */
static void check_links(struct checks *c, bool *multi, bool *session)
{
	int err = trap_cost__try_link(BPF_TRACE_UPROBE_MULTI);
	struct item *it;

	*multi = !err;
	it = add(c, "uprobe-multi", LVL_OK, err ? "refused (%s)" : "links made", strerror(-err));
	if (err)
		advise(it, LVL_LIMITED, "one link per probe instead: attach and detach take "
					"seconds, not milliseconds (kernel 6.6 has them)");
	err = *multi ? trap_cost__try_link(TRACE_UPROBE_SESSION) : -EINVAL;
	*session = !err;
	it = add(c, "session uprobes", LVL_OK, err ? "refused (%s)" : "links made",
		 strerror(-err));
	if (err)
		advise(it, LVL_LIMITED, "every allocator return is trapped, a call costs two "
					"traps (kernel 6.13 has them)");
}

static enum tracefs_via check_tracefs(struct checks *c)
{
	int why = 0;
	enum tracefs_via via = tracefs__probe(&why);
	struct item *it;

	switch (via) {
	case TRACEFS_MOUNTED:
		add(c, "tracefs", LVL_OK, "%s", tracefs__via_name(via));
		break;
	case TRACEFS_DETACHED:
	case TRACEFS_PRIVATE:
		add(c, "tracefs", LVL_OK, "not mounted; the tracer mounts its own, %s",
		    via == TRACEFS_DETACHED ? "detached (fsmount)" : "in a private namespace");
		break;
	default:
		it = add(c, "tracefs", LVL_OK, "not mounted, and no mount of its own (%s)",
			 strerror(why));
		advise(it, LVL_LIMITED, "no inherited probes: --pid and --cgroup cannot attach, "
					"and a -- CMD tree needs session uprobes; mount it "
					"(mount -t tracefs nodev /sys/kernel/tracing)");
	}
	return via;
}

/* The mount point of the first cgroup2 filesystem, into dir. */
static bool cgroup2_mount(char *dir, size_t sz)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[1024], mnt[512], type[64];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %511s %63s", mnt, type) == 2 && !strcmp(type, "cgroup2")) {
			snprintf(dir, sz, "%s", mnt);
			found = true;
		}
	fclose(f);
	return found;
}

/* Does the file at path hold the word w (space-separated)? */
static bool file_has_word(const char *path, const char *w)
{
	FILE *f = fopen(path, "re");
	char word[64];
	bool found = false;

	if (!f)
		return false;
	while (!found && fscanf(f, "%63s", word) == 1)
		found = !strcmp(word, w);
	fclose(f);
	return found;
}

static void check_cgroups(struct checks *c)
{
	char dir[512], path[600];
	bool v1 = !access("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK), v2 = false;
	struct item *it;

	add(c, "cgroup v1 memory", LVL_OK, v1 ? "/sys/fs/cgroup/memory" : "not mounted");
	if (cgroup2_mount(dir, sizeof(dir))) {
		snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
		v2 = file_has_word(path, "memory");
		it = add(c, "cgroup v2 memory", LVL_OK, "%s%s", dir,
			 v2 ? "" : " (no memory controller there)");
	} else {
		it = add(c, "cgroup v2 memory", LVL_OK, "no cgroup2 mounted");
	}
	if (!v1 && !v2)
		advise(it, LVL_LIMITED, "an OOM kill's report cannot name its memory cgroup's "
					"limit (--cgroup still traces a cgroup's processes)");
}

static void check_trap_cost(struct checks *c, bool multi)
{
	double ns = 0;
	char msg[256];
	int err = multi ? trap_cost__measure(&ns) : -EOPNOTSUPP;
	struct item *it;

	if (err) {
		it = add(c, "trap cost", LVL_OK, "not measured (%s)", strerror(-err));
		return;
	}
	it = add(c, "trap cost", LVL_OK, "%.0f ns per uprobe trap", ns);
	if (trap_cost__advice(ns, TRAP_COST_SLOW_NS, msg, sizeof(msg)))
		advise(it, LVL_LIMITED, "%s", msg);
}

/* The C library this process runs (its mappings), into path. */
static bool own_libc(char *path, size_t sz)
{
	struct proc_mapping *maps = NULL;
	size_t n = 0;
	bool found = false;

	if (procmaps__read(getpid(), true, &maps, &n))
		return false;
	for (size_t i = 0; i < n && !found; i++)
		if (strstr(maps[i].path, "/libc.so.6") || strstr(maps[i].path, "/libc-")) {
			snprintf(path, sz, "%s", maps[i].path);
			found = true;
		}
	procmaps__free(maps, n);
	return found;
}

/* glibc's debug info (libc6-dbg): its build-id file under /usr/lib/debug. */
static void check_libc_debug(struct checks *c)
{
	char libc[PATH_MAX], dbg[PATH_MAX];
	const void *id = NULL;
	ssize_t n = -1;
	struct item *it;
	int fd = -1;
	Elf *e = NULL;
	bool named;

	if (own_libc(libc, sizeof(libc)) && elf_version(EV_CURRENT) != EV_NONE &&
	    (fd = open(libc, O_RDONLY | O_CLOEXEC)) >= 0 && (e = elf_begin(fd, ELF_C_READ, NULL)))
		n = dwelf_elf_gnu_build_id(e, &id);
	named = !debug_file__build_id_path("/usr/lib/debug", id, n, dbg, sizeof(dbg));
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	if (named && !access(dbg, R_OK)) {
		add(c, "libc debug info", LVL_OK, "%s", dbg);
		return;
	}
	it = add(c, "libc debug info", LVL_OK, named ? "none for %s" : "cannot tell (%s)",
		 named ? libc : "no build-id read");
	advise(it, LVL_LIMITED, "libc's internal functions show as addresses in stacks: "
				"apt install libc6-dbg");
}

static void check_ringbuf(struct checks *c)
{
	add(c, "ring buffer", LVL_OK, "%u MiB with --unwind fp and kernel, %u MiB with dwarf "
				      "(--ringbuf-size)",
	    LOADER_DEFAULT_RINGBUF_SZ >> 20, LOADER_DEFAULT_DWARF_RINGBUF_SZ >> 20);
}

/* --check --pid: the process, its allocator, the unwinder and the attach path. */
static void check_process(struct checks *c, const struct tracer_opts *o, bool multi,
			  bool session, enum tracefs_via tracefs)
{
	struct alloc_symbols *syms = calloc(1, sizeof(*syms));
	char exe_link[64], exe[PATH_MAX], shown[PATH_MAX];
	struct fp_census census;
	struct cfi_table *table;
	const char *why;
	struct item *it;
	ssize_t n;
	int err;

	snprintf(exe_link, sizeof(exe_link), "/proc/%d/exe", (int)o->pid);
	n = readlink(exe_link, exe, sizeof(exe) - 1);
	if (n < 0) {
		it = add(c, "process", LVL_OK, "pid %d: %s", (int)o->pid, strerror(errno));
		advise(it, LVL_CANNOT, errno == ENOENT ? "no such process" : "cannot read it");
		free(syms);
		return;
	}
	exe[n] = '\0';
	safe_text__copy_term(shown, sizeof(shown), exe); /* the target names its own file */
	add(c, "process", LVL_OK, "pid %d: %s", (int)o->pid, shown);
	err = syms ? alloc_symbols__for_process(o->pid, o->lib, syms) : -ENOMEM;
	if (err) {
		it = add(c, "allocator", LVL_OK, "not found (%s)", strerror(-err));
		advise(it, LVL_CANNOT, "no object of the process defines malloc and free (a "
				       "static stripped executable?); --lib PATH names one");
	} else {
		safe_text__copy_term(shown, sizeof(shown), syms->path);
		add(c, "allocator", LVL_OK, "malloc in %s (%u object%s probed)", shown,
		    syms->obj_cnt, syms->obj_cnt == 1 ? "" : "s");
	}
	free(syms);
	/* auto: what run__choose_unwind picks (kernel unless the BPF unwinder fails to load) */
	table = o->unwind == UNWIND_AUTO ?
			cfi_table__load(exe_link, cfi_table__default_cache_dir(), &why) :
			NULL;
	if (o->unwind != UNWIND_AUTO)
		add(c, "unwinder", LVL_OK, "%s (--unwind)",
		    o->unwind == UNWIND_FP ? "fp" : o->unwind == UNWIND_DWARF ? "dwarf" : "kernel");
	else if (table)
		add(c, "unwinder", LVL_OK, "kernel: the executable has CFI tables (%u rows; dwarf "
					   "copies where they cannot serve)", table->n_rows);
	else if ((err = fp_detect__census(exe_link, &census)))
		add(c, "unwinder", LVL_OK, "dwarf (%s%s)",
		    err == -ENOENT ? "a stripped executable: no function symbols" :
				     "the executable's code unreadable: ",
		    err == -ENOENT ? "" : strerror(-err));
	else
		add(c, "unwinder", LVL_OK, "%s: %zu of %zu functions keep frame pointers%s",
		    fp_detect__has_fp(&census) ? "fp" : "dwarf", census.with_fp, census.funcs,
		    census.rust ? " (Rust)" : "");
	cfi_table__free(table);
	if (o->no_follow) {
		add(c, "attach", LVL_OK, "%s (--no-follow)",
		    session ? "session uprobe-multi links" :
		    multi   ? "uprobe-multi links" :
			      "one link per probe");
	} else {
		it = add(c, "attach", LVL_OK, "inherited perf events: its threads, and what it "
					      "forks from now on");
		if (tracefs == TRACEFS_NONE)
			advise(it, LVL_CANNOT, "inherited probes need tracefs (see above); "
					       "--no-follow attaches without it");
	}
}

static void print_text(const struct checks *c, FILE *f, bool can)
{
	fprintf(f, "tracer --check: what this host supports and what the tracer would use\n");
	for (size_t i = 0; i < c->n; i++) {
		const struct item *it = &c->v[i];

		fprintf(f, "  %-17s %s: %s%s%s\n", it->name, it->found, level_words[it->level],
			it->level == LVL_OK ? "" : ": ", it->advice);
	}
	fprintf(f, "%s\n", can ? "tracing can work on this host" :
				 "tracing cannot work: see the lines marked missing");
}

static int print_json(const struct checks *c, FILE *f, bool can)
{
	struct json_writer *jw = json_writer__new(f, JSON_WRITER_PRETTY);
	int err;

	if (!jw)
		return -ENOMEM;
	json_writer__begin_object(jw, NULL);
	json_writer__bool(jw, "canTrace", can);
	json_writer__begin_array(jw, "checks");
	for (size_t i = 0; i < c->n; i++) {
		json_writer__begin_object(jw, NULL);
		json_writer__string(jw, "name", c->v[i].name);
		json_writer__string(jw, "status", level_words[c->v[i].level]);
		json_writer__string(jw, "found", c->v[i].found);
		if (c->v[i].advice[0])
			json_writer__string(jw, "advice", c->v[i].advice);
		json_writer__end_object(jw);
	}
	json_writer__end_array(jw);
	json_writer__end_object(jw);
	err = json_writer__error(jw);
	json_writer__free(jw);
	fputc('\n', f);
	return err;
}

int host_check__run(const struct tracer_opts *o, FILE *f)
{
	struct checks *c = calloc(1, sizeof(*c));
	bool multi = false, session = false, can = true, privileged = !geteuid();
	enum tracefs_via tracefs = TRACEFS_NONE;

	if (!c)
		return HOST_CHECK_CANNOT;
	check_kernel(c);
	check_privileges(c);
	check_btf(c);
	check_uprobe_pmu(c);
	if (privileged) { /* each asks the kernel for what only root gets */
		check_links(c, &multi, &session);
		tracefs = check_tracefs(c);
	}
	check_cgroups(c);
	if (privileged)
		check_trap_cost(c, multi);
	check_libc_debug(c);
	check_ringbuf(c);
	if (o->pid > 0)
		check_process(c, o, multi, session, tracefs);
	for (size_t i = 0; i < c->n; i++)
		can = can && c->v[i].level != LVL_CANNOT;
	if (o->check_json)
		print_json(c, f, can);
	else
		print_text(c, f, can);
	free(c);
	return can ? HOST_CHECK_OK : HOST_CHECK_CANNOT;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * loader - open -> configure rodata/map sizes -> load -> attach, for one target process.
 *
 * Allocator symbols are resolved here from the libc ELF (.dynsym/.symtab, default versions,
 * file offsets), once, instead of letting libbpf re-parse libc for each of the 33 probes.
 * Two names at one address (glibc 2.36: memalign == aligned_alloc) get ONE probe pair: the
 * first name in enum alloc_fn order owns it and records carry that fn; loader__fn_addr()
 * answers for both names.
 *
 * Return probes are attached before entry probes: a call entering between the two would
 * otherwise leave an entry that never sees its return.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "loader.h" /* first: the skeleton's .bss refers to struct probe_counters */
#include "alloc.skel.h"

#define STACK_MAX_DEPTH 127 /* MAX_STACK_DEPTH in alloc.bpf.c */
#define USDT_PROVIDER	"kaish_workload"

struct loader {
	struct alloc_bpf *skel;
	struct ring_buffer *rb;
	loader_record_fn cb; /* the current loader__poll() callback */
	void *cb_ctx;
	__u32 owner[FN_COUNT]; /* fn whose probe serves fn (itself unless aliased) */
	char libc_path[PATH_MAX];
};

static int loader_verbose;

#define elog(...) fprintf(stderr, "tracer: loader: " __VA_ARGS__)
#define vlog(...)                                                                                  \
	do {                                                                                       \
		if (loader_verbose >= 1)                                                           \
			fprintf(stderr, "tracer: loader: " __VA_ARGS__);                           \
	} while (0)
#define dlog(...)                                                                                  \
	do {                                                                                       \
		if (loader_verbose >= 2)                                                           \
			fprintf(stderr, "tracer: loader: " __VA_ARGS__);                           \
	} while (0)

/* libbpf's own log: warnings at -v, info at -vv, debug (verifier logs) only at -vvv. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if ((level == LIBBPF_WARN && loader_verbose < 1) ||
	    (level == LIBBPF_INFO && loader_verbose < 2) ||
	    (level == LIBBPF_DEBUG && loader_verbose < 3))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* --- environment checks ------------------------------------------------------------------ */

static int check_environment(pid_t pid)
{
	if (geteuid() != 0) {
		elog("must run as root (BPF programs and uprobes need CAP_BPF + CAP_PERFMON)\n");
		return -EPERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		elog("the kernel has no BTF (/sys/kernel/btf/vmlinux): CONFIG_DEBUG_INFO_BTF=y "
		     "is required\n");
		return -EOPNOTSUPP;
	}
	if (access("/sys/bus/event_source/devices/uprobe/type", R_OK) &&
	    access("/sys/kernel/tracing/uprobe_events", F_OK) &&
	    access("/sys/kernel/debug/tracing/uprobe_events", F_OK)) {
		elog("the kernel has no uprobe support (CONFIG_UPROBE_EVENTS)\n");
		return -EOPNOTSUPP;
	}
	if (kill(pid, 0) && errno == ESRCH) {
		elog("process %d does not exist\n", (int)pid);
		return -ESRCH;
	}
	return 0;
}

/* libc.so.6, libc.so, libc-2.31.so; not libcrypt.so or libc_malloc_debug.so. */
static bool is_libc_name(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!strncmp(base, "libc.so", 7))
		return true;
	if (!strncmp(base, "libc-", 5)) {
		size_t n = strlen(base);

		return n > 3 && !strcmp(base + n - 3, ".so");
	}
	return false;
}

/* The libc mapped by pid, as a path this process can open. */
static int find_libc(pid_t pid, char *out, size_t out_sz)
{
	char maps[64], line[PATH_MAX + 256];
	struct stat here, in_root;
	int err = -ENOENT;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f) {
		err = errno == ENOENT ? -ESRCH : -errno;
		elog("cannot read %s: %s\n", maps, strerror(-err));
		return err;
	}
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		if (!path)
			continue;
		path[strcspn(path, "\n")] = '\0';
		if (!is_libc_name(path) || strstr(path, " (deleted)"))
			continue;
		/* The target may live in another mount namespace: the plain path is used when it
		 * is the very file the target mapped, else the target's root's view of it. */
		if (snprintf(out, out_sz, "/proc/%d/root%s", (int)pid, path) >= (int)out_sz ||
		    stat(out, &in_root) ||
		    (!stat(path, &here) && here.st_dev == in_root.st_dev &&
		     here.st_ino == in_root.st_ino))
			snprintf(out, out_sz, "%s", path);
		err = 0;
		break;
	}
	fclose(f);
	if (err)
		elog("no libc in /proc/%d/maps (statically linked target?): use --lib PATH\n",
		     (int)pid);
	return err;
}

/* --- symbol resolution ---------------------------------------------------------------------- */

/*
 * File offsets of the allocator functions in the ELF at path (0: absent). Defined STT_FUNC
 * symbols of .dynsym and .symtab; of several versions of one name, the default one.
 * An STT_GNU_IFUNC is skipped with a warning: probing its resolver would trace nothing.
 */
static int resolve_offsets(const char *path, size_t offs[FN_COUNT])
{
	bool hidden_only[FN_COUNT] = {};
	Elf_Scn *scn = NULL;
	int fd, err = 0;
	Elf *elf;

	memset(offs, 0, sizeof(offs[0]) * FN_COUNT);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		elog("cannot open %s: %s\n", path, strerror(-err));
		return err;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elog("%s is not an ELF file\n", path);
		err = -ENOEXEC;
		goto cleanup;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data, *versym = NULL;
		GElf_Shdr sh;
		size_t n;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		if (sh.sh_type == SHT_DYNSYM) {
			Elf_Scn *vs = NULL;
			GElf_Shdr vsh;

			while ((vs = elf_nextscn(elf, vs)))
				if (gelf_getshdr(vs, &vsh) && vsh.sh_type == SHT_GNU_versym)
					versym = elf_getdata(vs, NULL);
		}
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Versym ver = 0;
			GElf_Shdr tsh;
			GElf_Sym sym;
			const char *name;
			Elf_Scn *text;
			size_t off;
			__u32 fn;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !sym.st_value)
				continue;
			if (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
			    GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name)
				continue;
			for (fn = 0; fn < FN_COUNT; fn++)
				if (!strcmp(name, alloc_fn_name(fn)))
					break;
			if (fn == FN_COUNT)
				continue;
			if (GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC) {
				vlog("%s: %s is an IFUNC: not probed\n", path, name);
				continue;
			}
			if (versym)
				gelf_getversym(versym, (int)i, &ver);
			if (offs[fn] && (!hidden_only[fn] || (ver & 0x8000)))
				continue; /* keep the first default version */
			text = elf_getscn(elf, sym.st_shndx);
			if (!text || !gelf_getshdr(text, &tsh) || sym.st_value < tsh.sh_addr)
				continue;
			off = sym.st_value - tsh.sh_addr + tsh.sh_offset;
			offs[fn] = off;
			hidden_only[fn] = ver & 0x8000;
		}
	}
cleanup:
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

/* --- probes ------------------------------------------------------------------------------ */

struct probe_def {
	struct bpf_program *entry, *ret; /* ret: NULL for free */
	struct bpf_link **entry_link, **ret_link;
};

#define PROBE(name)                                                                                \
	{                                                                                          \
		s->progs.name##_entry, s->progs.name##_return, &s->links.name##_entry,             \
		    &s->links.name##_return                                                        \
	}

static void probe_defs(struct alloc_bpf *s, struct probe_def defs[FN_COUNT])
{
	const struct probe_def d[FN_COUNT] = {
	    [FN_MALLOC] = PROBE(malloc),
	    [FN_CALLOC] = PROBE(calloc),
	    [FN_REALLOC] = PROBE(realloc),
	    [FN_REALLOCARRAY] = PROBE(reallocarray),
	    [FN_FREE] = {s->progs.free_entry, NULL, &s->links.free_entry, NULL},
	    [FN_POSIX_MEMALIGN] = PROBE(posix_memalign),
	    [FN_ALIGNED_ALLOC] = PROBE(aligned_alloc),
	    [FN_MEMALIGN] = PROBE(memalign),
	    [FN_VALLOC] = PROBE(valloc),
	    [FN_PVALLOC] = PROBE(pvalloc),
	    [FN_STRDUP] = PROBE(strdup),
	    [FN_STRNDUP] = PROBE(strndup),
	    [FN_ASPRINTF] = PROBE(asprintf),
	    [FN_VASPRINTF] = PROBE(vasprintf),
	    [FN_GETLINE] = PROBE(getline),
	    [FN_GETDELIM] = PROBE(getdelim),
	    [FN_OPEN_MEMSTREAM] = PROBE(open_memstream),
	};

	memcpy(defs, d, sizeof(d));
}

static int attach_one(struct bpf_program *prog, struct bpf_link **link, bool retprobe, pid_t pid,
		      const char *path, size_t off, __u32 fn)
{
	int err;

	*link = bpf_program__attach_uprobe(prog, retprobe, pid, path, off);
	if (*link)
		return 0;
	err = -errno;
	if (err == -ESRCH || (err == -ENOENT && kill(pid, 0) && errno == ESRCH)) {
		elog("process %d is gone\n", (int)pid);
		return -ESRCH;
	}
	elog("cannot attach %s to %s:%s (offset 0x%zx): %s\n", retprobe ? "uretprobe" : "uprobe",
	     path, alloc_fn_name(fn), off, strerror(-err));
	return err;
}

/* Returns first, then entries (see the header comment). */
static int attach_allocators(struct loader *l, pid_t pid)
{
	struct probe_def defs[FN_COUNT];
	size_t offs[FN_COUNT];
	int err, probes = 0;

	err = resolve_offsets(l->libc_path, offs);
	if (err)
		return err;
	if (!offs[FN_MALLOC] || !offs[FN_FREE] || !offs[FN_REALLOC] || !offs[FN_CALLOC]) {
		elog("%s does not define malloc, calloc, realloc and free\n", l->libc_path);
		return -ENOENT;
	}
	for (__u32 fn = 0; fn < FN_COUNT; fn++) {
		l->owner[fn] = fn;
		for (__u32 prev = 0; prev < fn; prev++) {
			if (offs[fn] && offs[prev] == offs[fn]) {
				l->owner[fn] = prev;
				dlog("%s is an alias of %s: one probe\n", alloc_fn_name(fn),
				     alloc_fn_name(prev));
				break;
			}
		}
		if (!offs[fn])
			vlog("%s: no %s: not probed\n", l->libc_path, alloc_fn_name(fn));
	}
	probe_defs(l->skel, defs);
	for (int pass = 0; pass < 2; pass++) {
		bool ret = pass == 0;

		for (__u32 fn = 0; fn < FN_COUNT; fn++) {
			struct bpf_program *prog = ret ? defs[fn].ret : defs[fn].entry;
			struct bpf_link **link = ret ? defs[fn].ret_link : defs[fn].entry_link;

			if (!prog || !offs[fn] || l->owner[fn] != fn)
				continue;
			err = attach_one(prog, link, ret, pid, l->libc_path, offs[fn], fn);
			if (err)
				return err;
			probes++;
		}
	}
	dlog("%d allocator probes on %s for pid %d\n", probes, l->libc_path, (int)pid);
	return 0;
}

/*
 * The window marks. The binary may not be exec'd yet (the tracer attaches to a held child
 * before exec, when a PIE driver is not in /proc/PID/maps yet), so a per-pid attach that
 * fails is retried for all processes: BPF's tgid filter still keeps other processes out,
 * and only processes running that binary take the (rare) breakpoint.
 */
static int attach_usdt(struct loader *l, pid_t pid, const char *binary)
{
	struct alloc_bpf *s = l->skel;
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
		const char *name;
	} marks[] = {
	    {s->progs.window_begin, &s->links.window_begin, "window_begin"},
	    {s->progs.window_end, &s->links.window_end, "window_end"},
	};
	int err;

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		*marks[i].link = bpf_program__attach_usdt(marks[i].prog, pid, binary, USDT_PROVIDER,
							  marks[i].name, NULL);
		if (!*marks[i].link) {
			dlog("USDT %s:%s for pid %d: %s; retrying for any process\n", binary,
			     marks[i].name, (int)pid, strerror(errno));
			*marks[i].link = bpf_program__attach_usdt(
			    marks[i].prog, -1, binary, USDT_PROVIDER, marks[i].name, NULL);
		}
		if (!*marks[i].link) {
			err = -errno;
			elog("cannot attach USDT %s:%s:%s: %s\n", binary, USDT_PROVIDER,
			     marks[i].name, strerror(-err));
			return err;
		}
	}
	return 0;
}

/* --- DWARF snapshots ---------------------------------------------------------------------- */

/* Largest snapshot records a ring must hold at once, at the least. */
#define DWARF_MIN_RING_RECORDS 64

/* unwind_dwarf: the rodata switch, the copy size and one scratch slot per possible CPU. */
static int configure_dwarf(struct loader *l, const struct loader_opts *opts, size_t rb_sz)
{
	__u32 sz = opts->stack_copy_sz ? opts->stack_copy_sz : LOADER_DEFAULT_STACK_COPY_SZ;
	size_t rec_max = sizeof(struct alloc_event) + sizeof(struct stack_snapshot) + sz;
	int cpus;

	if (!opts->unwind_dwarf)
		return 0; /* the scratch map keeps its one slot */
	if (sz > SNAPSHOT_STACK_MAX) {
		elog("stack copy size %u: at most %u bytes\n", sz, SNAPSHOT_STACK_MAX);
		return -EINVAL;
	}
	if (rb_sz < DWARF_MIN_RING_RECORDS * rec_max) {
		elog("ring buffer of %zu bytes: too small for %u-byte stack copies (at least %zu)\n",
		     rb_sz, sz, DWARF_MIN_RING_RECORDS * rec_max);
		return -EINVAL;
	}
	cpus = libbpf_num_possible_cpus();
	if (cpus <= 0) {
		elog("cannot count the possible CPUs: %s\n", strerror(-cpus));
		return cpus ? cpus : -EINVAL;
	}
	l->skel->rodata->unwind_dwarf = 1;
	l->skel->rodata->stack_copy_sz = sz;
	vlog("DWARF unwinding: %u bytes of stack per event, %d scratch slots\n", sz, cpus);
	return bpf_map__set_max_entries(l->skel->maps.snap_scratch, (__u32)cpus);
}

/* --- public API ------------------------------------------------------------------------- */

static int on_sample(void *ctx, void *data, size_t sz)
{
	struct loader *l = ctx;

	return l->cb ? l->cb(l->cb_ctx, data, sz) : 0;
}

struct loader *loader__new(const struct loader_opts *opts)
{
	size_t rb_sz = opts && opts->ringbuf_sz ? opts->ringbuf_sz : LOADER_DEFAULT_RINGBUF_SZ;
	long page = sysconf(_SC_PAGESIZE);
	struct loader *l = NULL;
	double t0 = mono_ms(), t1;
	int err;

	if (!opts || opts->pid <= 0) {
		elog("no target pid\n");
		err = -EINVAL;
		goto cleanup;
	}
	loader_verbose = opts->verbose;
	libbpf_set_print(libbpf_print);
	if (!opts->ringbuf_sz && opts->unwind_dwarf)
		rb_sz = LOADER_DEFAULT_DWARF_RINGBUF_SZ; /* records carry stack copies */
	if (rb_sz < (size_t)page || (rb_sz & (rb_sz - 1)) || rb_sz > (1u << 30)) {
		elog("ring buffer size %zu: must be a power of two, %ld..%u bytes\n", rb_sz, page,
		     1u << 30);
		err = -EINVAL;
		goto cleanup;
	}
	err = check_environment(opts->pid);
	if (err)
		goto cleanup;

	l = calloc(1, sizeof(*l));
	if (!l) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (opts->libc_path) {
		if (access(opts->libc_path, R_OK)) {
			err = -errno;
			elog("cannot read %s: %s\n", opts->libc_path, strerror(-err));
			goto cleanup;
		}
		snprintf(l->libc_path, sizeof(l->libc_path), "%s", opts->libc_path);
	} else {
		err = find_libc(opts->pid, l->libc_path, sizeof(l->libc_path));
		if (err)
			goto cleanup;
	}
	vlog("probing %s in pid %d\n", l->libc_path, (int)opts->pid);

	/* open -> configure -> load -> attach */
	l->skel = alloc_bpf__open();
	if (!l->skel) {
		err = -errno;
		elog("cannot open the BPF object: %s\n", strerror(-err));
		goto cleanup;
	}
	l->skel->rodata->target_tgid = (__u32)opts->pid;
	l->skel->rodata->window_gated = opts->window_gated;
	/* Wake the consumer early only when a quarter of the ring is waiting. */
	l->skel->rodata->wakeup_threshold = rb_sz / 4;
	err = bpf_map__set_max_entries(l->skel->maps.events, (__u32)rb_sz);
	if (err)
		goto cleanup;
	err = configure_dwarf(l, opts, rb_sz);
	if (err)
		goto cleanup;

	err = alloc_bpf__load(l->skel);
	if (err) {
		elog("cannot load the BPF programs: %s%s\n", strerror(-err),
		     loader_verbose < 3 ? " (-vvv shows the verifier log)" : "");
		goto cleanup;
	}
	t1 = mono_ms();
	dlog("BPF object loaded in %.1f ms\n", t1 - t0);
	l->rb = ring_buffer__new(bpf_map__fd(l->skel->maps.events), on_sample, l, NULL);
	if (!l->rb) {
		err = -errno;
		elog("cannot map the ring buffer: %s\n", strerror(-err));
		goto cleanup;
	}

	err = attach_allocators(l, opts->pid);
	if (err)
		goto cleanup;
	if (opts->usdt_binary) {
		err = attach_usdt(l, opts->pid, opts->usdt_binary);
		if (err)
			goto cleanup;
	}
	dlog("probes attached in %.1f ms\n", mono_ms() - t1);
	return l;

cleanup:
	loader__free(l);
	errno = -err;
	return NULL;
}

void loader__free(struct loader *l)
{
	if (!l)
		return;
	ring_buffer__free(l->rb);
	alloc_bpf__destroy(l->skel); /* detaches every link stored in skel->links */
	free(l);
}

int loader__poll(struct loader *l, int timeout_ms, loader_record_fn fn, void *ctx)
{
	struct epoll_event ev;
	int n;

	if (!l || !fn)
		return -EINVAL;
	/* Records are submitted without wakeups: the epoll wait returns early only for window
	 * marks or a filling ring; either way everything available is consumed after it. */
	if (timeout_ms != 0) {
		n = epoll_wait(ring_buffer__epoll_fd(l->rb), &ev, 1, timeout_ms);
		if (n < 0 && errno != EINTR)
			return -errno;
	}
	l->cb = fn;
	l->cb_ctx = ctx;
	n = ring_buffer__consume(l->rb);
	l->cb = NULL;
	l->cb_ctx = NULL;
	return n;
}

void loader__counters(struct loader *l, struct probe_counters *out)
{
	if (!l) {
		memset(out, 0, sizeof(*out));
		return;
	}
	/* Plain loads of the mmap'ed .bss: each counter is read atomically (aligned u64). */
	*out = *(volatile struct probe_counters *)&l->skel->bss->counters;
}

void loader__snapshot_counters(struct loader *l, struct snapshot_counters *out)
{
	if (!l) {
		memset(out, 0, sizeof(*out));
		return;
	}
	*out = *(volatile struct snapshot_counters *)&l->skel->bss->snap_counters;
}

/* Mirrors struct stack_val in alloc.bpf.c (checked against the map's value size). */
struct stack_val {
	__u32 depth;
	__u32 pad;
	__u64 ips[STACK_MAX_DEPTH];
};

int loader__stack(struct loader *l, __s32 stack_id, __u64 *ips, size_t max)
{
	struct stack_val v;
	size_t n = 0;

	if (!l || (!ips && max))
		return -EINVAL;
	if (stack_id < 0)
		return -ENOENT;
	if (bpf_map__value_size(l->skel->maps.stacks) != sizeof(v))
		return -EPROTO;
	if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.stacks), &stack_id, &v))
		return -errno;
	while (n < max && n < v.depth && n < STACK_MAX_DEPTH && v.ips[n]) {
		ips[n] = v.ips[n];
		n++;
	}
	return (int)n;
}

__u64 loader__fn_addr(struct loader *l, __u32 fn)
{
	if (!l || fn >= FN_COUNT)
		return 0;
	return ((volatile __u64 *)l->skel->bss->fn_addrs)[l->owner[fn]];
}

const char *loader__libc_path(struct loader *l)
{
	return l ? l->libc_path : NULL;
}

__u32 loader__fn_owner(struct loader *l, __u32 fn)
{
	return l && fn < FN_COUNT ? l->owner[fn] : fn;
}

int loader__ringbuf_fd(struct loader *l)
{
	return bpf_map__fd(l->skel->maps.events);
}

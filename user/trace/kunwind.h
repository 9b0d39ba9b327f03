/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * kunwind - what BPF's in-kernel unwinder (--unwind kernel, bpf/unwind.bpf.h) reads: every
 * module's CFI table copied once into the rows array (one copy per file, shared by every
 * traced process that maps it: by file identity, else by build-id), and each traced
 * process's executable mappings with their bias and rows (struct unwind_proc), from
 * /proc/PID/maps at attach, fork, exec and whenever the maps change (dlopen).
 *
 * Tables come from cfi_table__load (user/stacks/cfi_table.h) with the on-disk cache. A
 * module without usable CFI gets n_rows 0, and so does one beyond the rows' capacity
 * (counted): BPF sends the stacks through it as snapshots, unwound in userspace.
 *
 * No libbpf here (unit-testable): the loader hands the memory of the rows array (the
 * mmap'ed BPF array) and a function that writes one process's struct unwind_proc.
 * Not thread-safe.
 */
#ifndef TRACER_KUNWIND_H
#define TRACER_KUNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "unwind_abi.h"

struct kunwind;

/* Where the tables and process descriptions go. */
struct kunwind_sink {
	void *rows;	   /* rows_cap slots of row_stride bytes, each a struct unwind_row */
	size_t row_stride; /* bytes from one slot to the next (>= sizeof(struct unwind_row)) */
	__u32 rows_cap;
	/* Write pid's description (p NULL: delete it). 0 or -errno. */
	int (*set_proc)(void *ctx, pid_t pid, const struct unwind_proc *p);
	/* Write a module's table by file identity (unwind_abi.h). 0 or -errno. */
	int (*set_module)(void *ctx, const struct unwind_module_key *k,
			  const struct unwind_module *m);
	void *ctx;
};

struct kunwind_stats {
	__u64 modules;	      /* distinct files seen in executable mappings */
	__u64 tables;	      /* of those, with rows in the array */
	__u64 no_cfi;	      /* without usable CFI (cfi_table__load said why, at -v) */
	__u64 over_capacity;  /* with CFI, but the rows array was full */
	__u64 shared;	      /* mappings served by a module already loaded (another path,
			       * process or build-id) */
	__u64 rows_used;      /* rows in the array */
	__u64 rows_cap;	      /* its capacity */
	__u64 maps_over;      /* executable mappings beyond UNWIND_MAPPINGS_MAX, left out */
	__u64 updates;	      /* process descriptions written */
	__u64 load_ns;	      /* time spent loading tables (compiling or reading the cache) */
};

/* Tables cached in cache_dir (NULL: none; cfi_table__default_cache_dir()). NULL + errno. */
struct kunwind *kunwind__new(const char *cache_dir);

/* Accepts NULL. Frees the tables still held (prepared, never attached). */
void kunwind__free(struct kunwind *k);

/*
 * Before the rows array exists: load the tables of pid's executable mappings now (held
 * until kunwind__attach), so the array can be sized. Returns the rows they take (0 if pid
 * cannot be read).
 */
__u64 kunwind__prepare(struct kunwind *k, pid_t pid);

/* The rows array exists: write the prepared tables into it. sink is copied. 0 or -errno. */
int kunwind__attach(struct kunwind *k, const struct kunwind_sink *sink);

/*
 * (Re)describe pid from its maps now: new modules' tables loaded and written, its
 * unwind_proc written. Remembered for kunwind__refresh. With scope (a new image: attach,
 * exec), the tables of its whole lookup scope too (alloc_scope__for_exec), so the
 * libraries ld.so maps next are known to BPF by file before they are mapped.
 * 0, -ESRCH (gone: forgotten), or -errno.
 */
int kunwind__update(struct kunwind *k, pid_t pid, bool scope);

/* pid exited: its description deleted (its modules stay: others may map them). */
void kunwind__forget(struct kunwind *k, pid_t pid);

/* kunwind__update of every process described so far (the gone ones are forgotten). */
void kunwind__refresh(struct kunwind *k);

void kunwind__stats(const struct kunwind *k, struct kunwind_stats *st);

#endif

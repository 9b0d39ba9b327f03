/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * procmaps - the /proc reading that the symbolizer and the unwinder share: the target's start
 * time (to detect PID reuse), its mappings from /proc/PID/maps, a way to open a mapped file
 * that still works when the file was deleted or lives in another mount namespace, and reads
 * of the target's memory (vdso).
 * No state: every call goes to /proc again.
 */
#ifndef TRACER_PROCMAPS_H
#define TRACER_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

/* One line of /proc/PID/maps. */
struct proc_mapping {
	__u64 start;  /* first address */
	__u64 end;    /* one past the last address */
	__u64 off;    /* file offset of start */
	__u64 ino;    /* inode from maps (0 for anonymous memory) */
	char *path;   /* path as in maps without " (deleted)"; "" for anonymous memory */
	bool deleted; /* maps marked the path " (deleted)" */
};

/* Field `field` of /proc/PID/stat (1-based, as proc(5) numbers them; 4 and on: the fields
 * after "(comm)", which may hold spaces and parentheses), as a number. 0 if unreadable. */
unsigned long long proc_stat_field(pid_t pid, int field);

/* Field 22 of /proc/PID/stat (start time in clock ticks); 0 if unreadable. */
unsigned long long proc_start_time(pid_t pid);

/*
 * Read /proc/PID/maps into a new array in maps order (sorted by address); with exec_only,
 * only mappings whose permissions include 'x'. Anonymous mappings are kept (path "").
 * On success *out (owned by the caller, release with procmaps__free) and *cnt are set.
 * 0, -ESRCH if the process is gone, or -errno.
 */
int procmaps__read(pid_t pid, bool exec_only, struct proc_mapping **out, size_t *cnt);

/* Free an array from procmaps__read. Accepts NULL. */
void procmaps__free(struct proc_mapping *maps, size_t cnt);

/*
 * Open the file behind mapping m of pid, read-only, through safe_open (regular files only,
 * never blocking, as the sudo user under sudo). Candidates, in order:
 * /proc/PID/map_files/<start>-<end> (the mapped file itself, even deleted), then for
 * absolute paths not marked deleted, <path> resolved inside /proc/PID/root (RESOLVE_IN_ROOT)
 * and <path> as we see it. The first candidate whose inode equals m->ino wins (any, if
 * m->ino is 0); else the first that opened. An fd (owned by the caller) or -errno.
 */
int procmaps__open_file(pid_t pid, const struct proc_mapping *m);

/* Read exactly len bytes at addr from /proc/PID/mem into buf. 0 or -errno (-EIO if short). */
int procmaps__read_mem(pid_t pid, __u64 addr, void *buf, size_t len);

/* Read exactly len bytes at addr of pid's memory into buf with one process_vm_readv (no fd,
 * no open: for the many small reads of a live target's structures). 0, -EFAULT when any
 * of the range is unmapped (or the read came back short), -ESRCH, -EPERM or -errno. */
int procmaps__read_vm(pid_t pid, __u64 addr, void *buf, size_t len);

#endif

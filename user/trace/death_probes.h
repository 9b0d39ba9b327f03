/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * death_probes - how traced processes end (bpf/death.bpf.c): the kernel's OOM-kill, signal
 * and exit events, filtered on the traced processes, as EV_DEATH records in the allocation
 * probes' ring buffer; and, on the same processes, their anonymous mmap/munmap/mremap/brk
 * (bpf/mappings.bpf.c, EV_MAPPING records, user/trace/mappings.h). Optional: a kernel
 * without the events (or their BTF) traces as before, without them.
 */
#ifndef TRACER_DEATH_PROBES_H
#define TRACER_DEATH_PROBES_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

/* Load and attach, sharing the ring buffer ringbuf_fd (loader__ringbuf_fd()). With follow,
 * the children a traced process forks are traced from their fork on (in the kernel, before
 * any record of them is read). NULL + errno on failure. */
struct death_probes *death_probes__new(int ringbuf_fd, bool follow);

/* Trace how process pid (a tgid) ends. Returns 0 or -errno. */
int death_probes__add_pid(struct death_probes *d, pid_t pid);

/* death_probes__new + death_probes__add_pid(pid), logging why when it cannot (the trace goes
 * on without causes of death). NULL on failure. */
struct death_probes *death_probes__start(int ringbuf_fd, pid_t pid, bool follow);

/* Detach and free. Accepts NULL. */
void death_probes__free(struct death_probes *d);

/* Are the mappings probes attached (false for NULL)? */
bool death_probes__has_mappings(const struct death_probes *d);

/* Mapping records (mmap, munmap, mremap, brk) lost because the ring buffer was full: they
 * count as dropped records, like the allocator's (0 for NULL, or without mapping probes). */
__u64 death_probes__mappings_dropped(const struct death_probes *d);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * uprobe_multi - a uprobe-multi or session-uprobe BPF link through a raw BPF_LINK_CREATE:
 * libbpf 1.1 and the Debian 12 uapi headers predate both (kernel >= 6.6 and >= 6.13).
 * Used by the loader (the allocator probes) and trap_cost (its start-up measurement).
 */
#ifndef TRACER_UPROBE_MULTI_H
#define TRACER_UPROBE_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#ifndef BPF_TRACE_UPROBE_MULTI
#define BPF_TRACE_UPROBE_MULTI 48 /* enum bpf_attach_type, kernel >= 6.6 */
#endif
#define TRACE_UPROBE_SESSION 57 /* BPF_TRACE_UPROBE_SESSION, kernel >= 6.13 */

/* Most probe sites one link takes here: an object's entries (loader_attach.h's
 * PLAN_ENTRIES_MAX, pymalloc's inlined copies included) fit. */
#define UPROBE_MULTI_MAX 1024

/* A link of prog_fd on cnt (<= UPROBE_MULTI_MAX) offsets of path with their cookies (NULL:
 * none). attach_type: BPF_TRACE_UPROBE_MULTI or TRACE_UPROBE_SESSION (retprobe: false).
 * pid > 0: that process only. Returns the link fd or -errno. */
int uprobe_multi__link(int prog_fd, __u32 attach_type, const char *path, const size_t *offs,
		       const __u64 *cookies, size_t cnt, bool retprobe, pid_t pid);

#endif

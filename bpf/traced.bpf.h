/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * traced.bpf.h - the two maps the process-event objects (death.bpf.c, mappings.bpf.c)
 * share with the rest of the tracer through bpf_map__reuse_fd before load: the allocation
 * probes' ring buffer, so that their records stay in order with the allocations, and the
 * set of traced processes, filled by userspace (death_probes__add_pid).
 */
#ifndef TRACED_BPF_H
#define TRACED_BPF_H

#include "events.bpf.h"

/* The traced processes: tgid -> 1. The death probes' own; the mappings probes reuse it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

/* Whether the current process is traced. */
static __always_inline int current_is_traced(void)
{
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);

	return bpf_map_lookup_elem(&traced, &tgid) != NULL;
}

#endif

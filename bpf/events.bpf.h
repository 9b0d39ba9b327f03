/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * events.bpf.h - the allocation probes' ring buffer as the other BPF objects (death,
 * mappings, window) declare it: a placeholder that userspace replaces with alloc.bpf.c's
 * ring buffer (bpf_map__reuse_fd) before load, so that their records stay in one order with
 * the allocations.
 */
#ifndef EVENTS_BPF_H
#define EVENTS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

#endif

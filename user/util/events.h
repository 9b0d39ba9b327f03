/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Userspace view of the BPF ABI: size checks and names for enum alloc_fn. */
#ifndef TRACER_EVENTS_H
#define TRACER_EVENTS_H

#include <stddef.h>
#include <string.h>

#include "alloc_events.h"

_Static_assert(sizeof(struct alloc_event) == 56, "alloc_event layout changed: update both sides");
_Static_assert(sizeof(struct window_event) == 64, "window_event layout changed: update both sides");
_Static_assert(sizeof(struct probe_counters) == 56, "probe_counters layout changed");
_Static_assert(sizeof(struct stack_snapshot) == 96, "stack_snapshot layout changed");
_Static_assert(sizeof(struct proc_event) == 24 + PROC_COMM_LEN + PROC_FILENAME_LEN,
	       "proc_event layout changed");
_Static_assert(sizeof(struct snapshot_counters) == 56, "snapshot_counters layout changed");
_Static_assert(sizeof(struct sample_counters) == 24, "sample_counters layout changed");
_Static_assert(sizeof(struct snap_hint_key) == 24 && sizeof(struct snap_hint) ==
							 24 + 2 * SNAP_HINT_MAX + 10 * SNAP_CTL_MAX,
	       "snap_hint layout changed");
_Static_assert(sizeof(struct death_event) == 152, "death_event layout changed");
_Static_assert(sizeof(struct mapping_event) == 64, "mapping_event layout changed");
_Static_assert(sizeof(struct stack_val) == 8 + 8 * STACK_MAX_DEPTH, "stack_val layout changed");
_Static_assert(FN_COUNT - 1 <= 0xff, "enum alloc_fn must fit the probe cookie's 8 bits");

/* Every ring-buffer record starts with its enum event_type: the one field read before the
 * type says which struct the record is. */
_Static_assert(offsetof(struct alloc_event, type) == 0 && offsetof(struct window_event, type) == 0 &&
		       offsetof(struct proc_event, type) == 0 &&
		       offsetof(struct death_event, type) == 0 &&
		       offsetof(struct mapping_event, type) == 0,
	       "a record's type must be its first field");

/* The type of a ring-buffer record of sz bytes (at least 4), read without assuming which
 * struct it is. */
static inline __u32 event__type(const void *data)
{
	__u32 type;

	memcpy(&type, data, sizeof(type));
	return type;
}

/* The C name of each enum alloc_fn value, e.g. alloc_fn_name(FN_CALLOC) == "calloc". */
const char *alloc_fn_name(__u32 fn);

#endif

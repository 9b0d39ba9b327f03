/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* trace_summary - the closing lines of a trace: what the probes, the session and the
 * unwinder counted, and warnings (on stderr) when the profile is incomplete. */
#ifndef TRACER_TRACE_SUMMARY_H
#define TRACER_TRACE_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "dwarf_stacks.h"
#include "py_stacks.h"
#include "events.h"
#include "kunwind.h"
#include "session.h"

struct trace_summary {
	struct probe_counters probes;	    /* the BPF counters (loader__counters) */
	bool dwarf;			    /* --unwind dwarf: the next two are set */
	struct snapshot_counters snapshots; /* loader__snapshot_counters */
	struct dwarf_stacks_stats unwind;   /* dwarf_stacks__stats */
	const struct session_stats *session;
	__u64 cut_short;		    /* program points whose stack stops before the
					     * thread's entry (frames_ctx.cut_short) */
	__u64 stacks;			    /* program points whose stack was judged */
	__u64 sample_bytes;		    /* --sample-bytes (0: exact): the next one is set */
	struct sample_counters sampling;    /* loader__sample_counters */
	bool python;			    /* a CPython image was traced: the next three are set */
	struct py_counters py;		    /* loader__py_counters (BPF's walks) */
	struct py_stacks_stats py_names;    /* tracees__py_stats (naming) */
	__u64 py_mismatched;		    /* frames_ctx.py_mismatched, summed */
	bool kernel;			    /* --unwind kernel: the next two are set, and
					     * snapshots/unwind count its fallbacks */
	struct unwind_counters kunwind;	    /* loader__unwind_counters: BPF's */
	struct kunwind_stats tables;	    /* loader__unwind_counters: the tables' */
};

/* The counters line (and notes on incomplete stacks) to out, unless out is NULL (-q); the
 * warnings (dropped or malformed records) always go to stderr. */
void trace_summary__print(FILE *out, const struct trace_summary *s);

#endif

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The closing lines of a trace: see trace_summary.h. */
#include <stdio.h>

#include "dhat_sampled.h"
#include "log.h"
#include "trace_summary.h"

/* --unwind kernel at -v: why BPF's walks ended, and the tables. */
static void print_kernel(const struct trace_summary *s)
{
	const struct unwind_counters *k = &s->kunwind;
	const struct kunwind_stats *t = &s->tables;

	vlog("kernel unwind: %llu stacks (%.1f frames each): %llu at the outermost frame, %llu "
	     "cut at the depth, %llu at an unreadable word; %llu sent as snapshots: %llu no "
	     "mapping (%llu with the memory map locked by another thread), %llu no table, %llu "
	     "no FDE, %llu unsupported rule; %llu walks of a process not described yet, %llu "
	     "modules found by their VMA (%llu PCs in them served without a lookup)\n",
	     (unsigned long long)k->unwinds,
	     k->unwinds ? (double)k->frames / (double)k->unwinds : 0.0,
	     (unsigned long long)k->ends, (unsigned long long)k->depth_cuts,
	     (unsigned long long)k->read_failures, (unsigned long long)k->fallbacks,
	     (unsigned long long)k->no_mapping, (unsigned long long)k->vma_busy,
	     (unsigned long long)k->no_table,
	     (unsigned long long)k->none_row, (unsigned long long)k->unsupported,
	     (unsigned long long)k->no_proc, (unsigned long long)k->vma_lookups,
	     (unsigned long long)k->vma_reused);
	vlog("kernel unwind memo: %llu stacks finished from the thread's last one (%llu frames "
	     "copied, %llu the same stack, %.0f stack bytes checked each), %llu where a stack "
	     "word had changed since\n",
	     (unsigned long long)k->memo_hits, (unsigned long long)k->memo_frames,
	     (unsigned long long)k->memo_whole,
	     k->memo_hits + k->memo_stale
		     ? (double)k->memo_span / (double)(k->memo_hits + k->memo_stale)
		     : 0.0,
	     (unsigned long long)k->memo_stale);
	vlog("kernel unwind tables: %llu modules, %llu with rows (%llu of %llu rows used), %llu "
	     "without CFI, %llu beyond capacity, %llu mappings shared, %llu over %u per "
	     "process, %llu descriptions written, %.1f ms loading tables\n",
	     (unsigned long long)t->modules, (unsigned long long)t->tables,
	     (unsigned long long)t->rows_used, (unsigned long long)t->rows_cap,
	     (unsigned long long)t->no_cfi, (unsigned long long)t->over_capacity,
	     (unsigned long long)t->shared, (unsigned long long)t->maps_over,
	     UNWIND_MAPPINGS_MAX, (unsigned long long)t->updates, (double)t->load_ns / 1e6);
}

void trace_summary__print(FILE *out, const struct trace_summary *s)
{
	const struct probe_counters *pc = &s->probes;
	const struct snapshot_counters *sc = &s->snapshots;
	const struct dwarf_stacks_stats *ds = &s->unwind;
	const struct session_stats *ss = s->session;
	char unwind[128] = "";

	if (s->kernel) {
		/* in-kernel unwinds; fallbacks: stacks its tables could not serve, sent as
		 * snapshots and unwound here (their failures and early ends as in dwarf mode) */
		snprintf(unwind, sizeof(unwind),
			 ", kernel unwinds %llu, fallbacks %llu, unwind failures %llu, "
			 "unwinds ended early %llu",
			 (unsigned long long)s->kunwind.unwinds,
			 (unsigned long long)s->kunwind.fallbacks,
			 (unsigned long long)(ds->failures + sc->copy_failures + sc->scratch_busy),
			 (unsigned long long)(ds->partial + s->kunwind.read_failures));
	} else if (s->dwarf) {
		/* unwind failures: events left with no stack at all (BPF could not copy, or the
		 * unwinder could not run); ended early: the unwind stopped on an error (copy too
		 * short, no CFI) before the outermost frame. */
		__u64 failures = ds->failures + sc->copy_failures +
				 sc->scratch_busy;

		snprintf(unwind, sizeof(unwind), ", unwind failures %llu, unwinds ended early %llu",
			 (unsigned long long)failures, (unsigned long long)ds->partial);
	}
	if (out) {
		fprintf(out,
			"events %llu, dropped %llu, stack failures %llu, unmatched returns %llu, "
			"unknown frees %llu, stacks cut short %llu of %llu, nested calls %llu%s\n",
			(unsigned long long)pc->events, (unsigned long long)pc->dropped,
			(unsigned long long)pc->stack_failures,
			(unsigned long long)pc->unmatched_returns,
			(unsigned long long)ss->unknown_frees, (unsigned long long)s->cut_short,
			(unsigned long long)s->stacks, (unsigned long long)pc->nested_calls, unwind);
		/* fp: a function without frame pointers ends the walk; dwarf says why below. */
		if (s->cut_short && !s->dwarf)
			fprintf(out,
				"note: %llu program point%s stop%s before the thread's "
				"entry (code without frame pointers); --unwind dwarf may "
				"complete %s\n",
				(unsigned long long)s->cut_short,
				s->cut_short == 1 ? "'s stack" : "s' stacks",
				s->cut_short == 1 ? "s" : "", s->cut_short == 1 ? "it" : "them");
		if (s->dwarf && ds->partial)
			fprintf(out,
				"note: %llu unwinds ended early (a frame beyond the copied stack "
				"or without CFI); a larger --stack-size may complete them\n",
				(unsigned long long)ds->partial);
		if (s->sample_bytes) {
			char label[128];

			dhat_sampled__label(s->sample_bytes, label, sizeof(label));
			fprintf(out,
				"%s: %llu blocks sampled, %llu allocator calls not sampled (no "
				"record), %llu sampled blocks dropped (map full)\n",
				label, (unsigned long long)s->sampling.sampled,
				(unsigned long long)s->sampling.skipped,
				(unsigned long long)s->sampling.overflow);
		}
		if (s->python)
			fprintf(out,
				"python: %llu stacks with Python frames, %llu without: thread state "
				"not found %llu, no Python frame %llu, read failed %llu, stack map full "
				"%llu, cut at %d frames %llu; frames unnamed %llu, stacks unread %llu, "
				"splices unmatched %llu\n",
				(unsigned long long)s->py.stacks,
				(unsigned long long)(s->py.no_tstate + s->py.no_frame +
						     s->py.read_failed + s->py.map_full),
				(unsigned long long)s->py.no_tstate,
				(unsigned long long)s->py.no_frame,
				(unsigned long long)s->py.read_failed,
				(unsigned long long)s->py.map_full, PY_FRAMES_MAX,
				(unsigned long long)s->py.cut,
				(unsigned long long)s->py_names.unnamed,
				(unsigned long long)s->py_names.unread,
				(unsigned long long)s->py_mismatched);
		/* pymalloc's inlined copies (an LTO interpreter): what their probes did */
		if (s->python && (s->py.site_allocs || s->py.site_new_pool || s->py.site_lost))
			fprintf(out,
				"python: inlined pymalloc: %llu blocks read from their pools, %llu "
				"from a new pool (recorded at its return), %llu lost (a pool could "
				"not be read)\n",
				(unsigned long long)s->py.site_allocs,
				(unsigned long long)s->py.site_new_pool,
				(unsigned long long)s->py.site_lost);
		fflush(out);
	}
	if (s->kernel)
		print_kernel(s);
	if (s->dwarf || s->kernel) {
		vlog("dwarf: snapshots %llu (%llu sparse), unwound %llu, stack hints %llu set at "
		     "%zu sites, %llu refused, %llu missed, %llu other paths, short copies %llu, "
		     "scratch busy %llu, distinct stacks %zu, %.1f us/unwind (max %.1f), %.0f stack "
		     "bytes/event\n",
		     (unsigned long long)sc->snapshots, (unsigned long long)ds->sparse,
		     (unsigned long long)ds->unwound, (unsigned long long)ds->hints_set, ds->hint_sites,
		     (unsigned long long)ds->hint_refusals, (unsigned long long)ds->hint_misses,
		     (unsigned long long)sc->hint_mismatches,
		     (unsigned long long)sc->short_copies, (unsigned long long)sc->scratch_busy,
		     ds->distinct,
		     ds->snapshots ? (double)ds->unwind_ns / 1e3 / (double)ds->snapshots : 0.0,
		     (double)ds->max_unwind_ns / 1e3,
		     ds->snapshots ? (double)ds->stack_bytes / (double)ds->snapshots : 0.0);
	}
	if (pc->dropped)
		elog("warning: %llu records dropped (ring buffer full): the profile is incomplete; "
		     "try a larger --ringbuf-size\n",
		     (unsigned long long)pc->dropped);
	if (s->sampling.overflow)
		elog("warning: %llu sampled blocks dropped (BPF's sampled-block map was full): the "
		     "estimates are low; try a larger --sample-bytes\n",
		     (unsigned long long)s->sampling.overflow);
	if (ss->bad_records)
		elog("warning: %llu malformed records ignored\n",
		     (unsigned long long)ss->bad_records);
}

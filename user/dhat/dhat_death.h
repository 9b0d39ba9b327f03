/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dhat_death - how the traced process ended, recorded in the file as one extra top-level
 * object that dh_view ignores (it reads only the keys it knows), written only when the
 * tracer saw the process end (bpf/death.bpf.c):
 *
 *   ,"death":{"cause":"oom-kill","pid":4242,"signal":9,"status":0
 *            ,"oomScope":"memcg","cgroup":"svc","limit":67108864,"usage":67108864}
 *   ,"death":{"cause":"signal","pid":4242,"signal":11,"siCode":1,"faultAddr":"0x10"}
 *   ,"death":{"cause":"exit","pid":4242,"status":3}
 *
 * plus, when the kernel still had the process's memory then, its RSS at that moment in bytes:
 * "rssAnon", "rssFile", "rssShmem", "swap" (for an OOM kill: at the kill).
 *
 * The profile then ends at that moment: te is the death, and the blocks live at te (eb)
 * are the heap at death. Readers treat the object as optional and lenient: members they do
 * not know, or of the wrong type, are skipped, and nothing in it makes a file invalid.
 */
#ifndef TRACER_DHAT_DEATH_H
#define TRACER_DHAT_DEATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dhat_rss.h"

#define DHAT_DEATH_KEY "death"

enum dhat_death_cause {
	DHAT_DEATH_UNKNOWN = 0, /* a "death" object without a cause we know */
	DHAT_DEATH_EXIT,	/* exit() or return from main: status */
	DHAT_DEATH_SIGNAL,	/* a fatal signal: signo, si_code, the faulting address */
	DHAT_DEATH_OOM,		/* the OOM killer: scope, cgroup, limit, usage */
};

enum dhat_oom_scope {
	DHAT_OOM_UNKNOWN = 0, /* the kill was seen, not the constraint */
	DHAT_OOM_MEMCG,	      /* a memory cgroup's limit */
	DHAT_OOM_GLOBAL,      /* system-wide: no memory cgroup was at its limit */
};

struct dhat_death {
	enum dhat_death_cause cause;
	int64_t pid;		   /* the process that ended */
	int status;		   /* EXIT: exit status (0..255) */
	int signo;		   /* SIGNAL, OOM: the signal that ended it (0 if unknown) */
	int si_code;		   /* SIGNAL: its si_code (SEGV_MAPERR = 1, ...) */
	bool core;		   /* SIGNAL: a core was dumped */
	bool has_addr;		   /* SIGNAL: addr is the faulting address (SIGSEGV, SIGBUS, ...) */
	uint64_t addr;		   /* SIGNAL: si_addr */
	enum dhat_oom_scope scope; /* OOM */
	uint64_t limit;		   /* OOM, memcg: the cgroup's limit, bytes */
	uint64_t usage;		   /* OOM, memcg: the cgroup's usage at the kill, bytes */
	char cgroup[64];	   /* OOM, memcg: the cgroup's name, "" if unknown */
	bool has_rss;		   /* rss: the process's RSS at death (rss.t unused: it is te) */
	struct dhat_rss_end rss;
};

struct death_event;

/* The death from an EV_DEATH record (bpf/alloc_events.h). */
void dhat_death__from_event(struct dhat_death *d, const struct death_event *e);

/* Write ,"death":{...} and a newline to f (the writer's comma-first layout). */
void dhat_death__write(FILE *f, const struct dhat_death *d);

/* Reader: one member of the object. str is the value when it is a string (else NULL), u the
 * value when it is a non-negative integer (u_ok). Unknown keys and types are ignored. */
void dhat_death__set(struct dhat_death *d, const char *key, const char *str, bool u_ok, uint64_t u);

/* The report's lead line for humans into buf, e.g. "killed by the OOM killer (memory cgroup
 * limit 64.00 MiB): live heap 61.20 MiB at death"; live_bytes is the heap live then (Σeb);
 * sizes as units__bytes, exact with exact (--bytes). */
void dhat_death__describe(const struct dhat_death *d, uint64_t live_bytes, bool exact, char *buf,
			  size_t sz);

#endif

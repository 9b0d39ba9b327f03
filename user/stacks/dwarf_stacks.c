// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * dwarf_stacks: EV_STACK_SNAPSHOT -> unwinder -> stack_table -> alloc_event.
 *
 * The registers arrive as the uretprobe saw them: ip is a return address. The unwinder
 * treats its first PC as exact (an activation) and looks up the CFI row at ip itself, which
 * after a call may already belong to the next row or even the next function (a call as a
 * function's last instruction). So it is handed ip - 1, inside the call instruction, the
 * same lookup it does for every later return address; ips[0] is put back to ip afterwards
 * so all PCs of a list are return addresses, as frames__describe expects.
 */
#include "dwarf_stacks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "stack_hints.h"
#include "unwind.h"

struct dwarf_stacks {
	pid_t pid;		   /* target */
	struct unwinder *u;	   /* NULL until the target's maps could be read */
	bool gone;		   /* creating the unwinder failed with ESRCH: stop trying */
	struct stack_table *table; /* interned PC lists: the stack ids */
	struct dwarf_stacks_stats st;
	struct stack_hints *hints; /* NULL: learn nothing */
};

/* Create the unwinder if there is none yet; false if the target cannot be read. */
static bool dwarf_stacks__ensure(struct dwarf_stacks *ds)
{
	if (ds->u)
		return true;
	if (ds->gone)
		return false;
	ds->u = unwinder__new(ds->pid);
	if (!ds->u && errno == ESRCH)
		ds->gone = true;
	return ds->u != NULL;
}

struct dwarf_stacks *dwarf_stacks__new(pid_t pid)
{
	struct dwarf_stacks *ds;

	if (pid <= 0) {
		errno = EINVAL;
		return NULL;
	}
	ds = calloc(1, sizeof(*ds));
	if (!ds)
		goto fail;
	ds->pid = pid;
	ds->table = stack_table__new();
	if (!ds->table)
		goto fail;
	/* Best effort now (the process may not have exec'd yet); retried at first use. */
	dwarf_stacks__ensure(ds);
	ds->gone = false;
	return ds;
fail:
	dwarf_stacks__free(ds);
	errno = ENOMEM;
	return NULL;
}

int dwarf_stacks__set_hint_sink(struct dwarf_stacks *ds, stack_hint_fn fn, void *ctx)
{
	if (!ds)
		return -EINVAL;
	stack_hints__free(ds->hints);
	ds->hints = fn ? stack_hints__new(ds->pid, fn, ctx) : NULL;
	return !fn || ds->hints ? 0 : -errno;
}

void dwarf_stacks__free(struct dwarf_stacks *ds)
{
	if (!ds)
		return;
	stack_hints__free(ds->hints);
	unwinder__free(ds->u);
	stack_table__free(ds->table);
	free(ds);
}

int dwarf_stacks__refresh_maps(struct dwarf_stacks *ds)
{
	if (!ds)
		return -EINVAL;
	if (!ds->u) {
		ds->gone = false;
		return dwarf_stacks__ensure(ds) ? 0 : -errno;
	}
	return unwinder__refresh_maps(ds->u);
}

/* A dense copy was unwound: its path becomes one of its site's hints. */
static void hint_learn(struct dwarf_stacks *ds, const struct stack_snapshot *snap,
		       const unsigned char *stack)
{
	struct unwind_reads rd;
	bool told = unwinder__last_reads(ds->u, &rd);

	switch (stack_hints__learn(ds->hints, snap->ip, snap->hint_dist, snap->bp,
				   told ? &rd : NULL, stack, snap->stack_len)) {
	case HINT_NEW:
		ds->st.hints_set++;
		break;
	case HINT_REFUSED:
		ds->st.hint_refusals++;
		break;
	default:
		break;
	}
}

/* Unwind and intern one snapshot (sparse: its words, else the dense copy in stack): the
 * stack id or -errno. */
static __s32 dwarf_stacks__unwind(struct dwarf_stacks *ds, const struct stack_snapshot *snap,
				  const void *stack, const struct unwind_sparse *sparse)
{
	struct unwind_regs regs = {
	    .ip = snap->ip - 1, /* see the header comment */
	    .sp = snap->sp,
	    .bp = snap->bp,
	    .rbx = snap->rbx,
	    .r12 = snap->r12,
	    .r13 = snap->r13,
	    .r14 = snap->r14,
	    .r15 = snap->r15,
	    .has_callee_saved = snap->flags & SNAP_F_CALLEE_SAVED,
	};
	__u64 ips[STACK_MAX_DEPTH];
	struct unwind_stats before, after;
	bool missed = false;
	int n;

	if (!snap->ip)
		return -EINVAL;
	if (!dwarf_stacks__ensure(ds))
		return errno ? -errno : -ESRCH;
	unwinder__stats(ds->u, &before);
	if (sparse) {
		n = unwinder__unwind_sparse(ds->u, &regs, snap->stack_len, sparse, ips,
					    STACK_MAX_DEPTH, &missed);
		/* Offsets out of order: a hint replaced while BPF read it (no stack for this
		 * event, counted as a failure); the site is taught again like after a miss. */
		if (n == -EINVAL)
			missed = true;
		if (missed) {
			ds->st.hint_misses++;
			stack_hints__forget(ds->hints, snap->ip, snap->hint_dist);
		}
	} else {
		n = unwinder__unwind(ds->u, &regs, stack, snap->stack_len, ips, STACK_MAX_DEPTH);
		if (n > 0 && ds->hints && snap->stack_len >= SNAP_SPARSE_MIN) /* else dense */
			hint_learn(ds, snap, stack);
	}
	if (n < 0)
		return n;
	unwinder__stats(ds->u, &after);
	/* A miss cut the list: it ended early as surely as at the end of a short copy. */
	if (after.partial_cnt != before.partial_cnt || missed)
		ds->st.partial++;
	ips[0] = snap->ip;
	ds->st.frames += (__u64)n;
	return stack_table__intern(ds->table, ips, (size_t)n);
}

int dwarf_stacks__resolve(struct dwarf_stacks *ds, const void *data, size_t sz,
			  struct alloc_event *out)
{
	const size_t hdr = sizeof(struct alloc_event) + sizeof(struct stack_snapshot);
	__u16 offs[SNAP_HINT_MAX];
	__u64 words[SNAP_HINT_MAX];
	struct unwind_sparse sp = {.offs = offs, .words = words};
	struct stack_snapshot snap;
	struct alloc_event ev;
	__u64 t0, dt;
	__s32 id;

	if (!ds || !data || !out || sz < hdr)
		return -EINVAL;
	memcpy(&ev, data, sizeof(ev));
	memcpy(&snap, (const char *)data + sizeof(ev), sizeof(snap));
	if (ev.type != EV_STACK_SNAPSHOT ||
	    (snap.ev_type != EV_ALLOC && snap.ev_type != EV_REALLOC))
		return -EINVAL;
	if (snap.flags & SNAP_F_SPARSE) {
		if (snap.n_words > SNAP_HINT_MAX || SNAP_SPARSE_BYTES(snap.n_words) > sz - hdr ||
		    snap.stack_len > SNAPSHOT_STACK_MAX)
			return -EINVAL;
		/* Words past the copy were not sent (SNAP_WORD_ABSENT): reads there fail as
		 * in a dense copy of that length. */
		memcpy(offs, (const char *)data + hdr, snap.n_words * sizeof(*offs));
		memcpy(words, (const char *)data + hdr + SNAP_SPARSE_WORDS_AT,
		       snap.n_words * sizeof(*words));
		for (sp.n = 0; sp.n < snap.n_words && offs[sp.n] != SNAP_WORD_ABSENT; sp.n++)
			;
		ds->st.sparse++;
		ds->st.stack_bytes += sp.n * sizeof(*words);
	} else {
		if (snap.stack_len > sz - hdr)
			return -EINVAL;
		ds->st.stack_bytes += snap.stack_len;
	}

	ds->st.snapshots++;
	if (snap.flags & SNAP_F_SHORT)
		ds->st.short_copies++;
	t0 = clock__mono_ns();
	id = dwarf_stacks__unwind(ds, &snap, (const char *)data + hdr,
				  (snap.flags & SNAP_F_SPARSE) ? &sp : NULL);
	dt = clock__mono_ns() - t0;
	ds->st.unwind_ns += dt;
	if (dt > ds->st.max_unwind_ns)
		ds->st.max_unwind_ns = dt;
	if (id >= 0)
		ds->st.unwound++;
	else
		ds->st.failures++;

	*out = ev;
	out->type = snap.ev_type;
	out->stack_id = id;
	return 0;
}

int dwarf_stacks__stack(void *ctx, __s32 stack_id, __u64 *ips, size_t max)
{
	struct dwarf_stacks *ds = ctx;
	const __u64 *have;
	size_t n;
	int err;

	if (!ds || (!ips && max))
		return -EINVAL;
	err = stack_table__get(ds->table, stack_id, &have, &n);
	if (err)
		return err;
	if (n > max)
		n = max;
	memcpy(ips, have, n * sizeof(*ips));
	return (int)n;
}

void dwarf_stacks__stats(const struct dwarf_stacks *ds, struct dwarf_stacks_stats *st)
{
	if (!ds || !st)
		return;
	*st = ds->st;
	st->distinct = stack_table__cnt(ds->table);
	st->hint_sites = stack_hints__sites(ds->hints);
}

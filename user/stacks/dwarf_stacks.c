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
#include <time.h>

#include "unwind.h"

/* What userspace knows of one hint key. */
enum hint_state {
	HINT_EMPTY = 0, /* free slot of the table */
	HINT_SET,	/* in the sink with the words below */
	HINT_DELETED,	/* taken back after a miss: the next dense snapshot sets it again */
	HINT_REFUSED,	/* too many words, or the sink said no: the key stays dense */
};

struct hint_entry {
	__u64 ip, dist;
	enum hint_state state;
	struct snap_hint h; /* the union of the words every dense unwind of the key read */
};

struct dwarf_stacks {
	pid_t pid;		   /* target */
	struct unwinder *u;	   /* NULL until the target's maps could be read */
	bool gone;		   /* creating the unwinder failed with ESRCH: stop trying */
	struct stack_table *table; /* interned PC lists: the stack ids */
	struct dwarf_stacks_stats st;
	dwarf_stacks_hint_fn hint_fn; /* NULL: learn nothing */
	void *hint_ctx;
	struct hint_entry *hints; /* open addressing by (ip, dist); power-of-two capacity */
	size_t hint_cnt, hint_cap;
};

static size_t hint_slot(__u64 ip, __u64 dist, size_t cap)
{
	__u64 h = (ip ^ (dist * 0x9E3779B97F4A7C15ull)) * 0xff51afd7ed558ccdull;

	return (size_t)(h >> 17) & (cap - 1);
}

/* The entry of (ip, dist), created if absent; NULL when out of memory. */
static struct hint_entry *hint_entry(struct dwarf_stacks *ds, __u64 ip, __u64 dist)
{
	size_t i;

	if (2 * (ds->hint_cnt + 1) > ds->hint_cap) {
		size_t cap = ds->hint_cap ? 2 * ds->hint_cap : 64;
		struct hint_entry *v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t j = 0; j < ds->hint_cap; j++) {
			const struct hint_entry *e = &ds->hints[j];

			if (e->state == HINT_EMPTY)
				continue;
			for (i = hint_slot(e->ip, e->dist, cap); v[i].state != HINT_EMPTY;
			     i = (i + 1) & (cap - 1))
				;
			v[i] = *e;
		}
		free(ds->hints);
		ds->hints = v;
		ds->hint_cap = cap;
	}
	for (i = hint_slot(ip, dist, ds->hint_cap); ds->hints[i].state != HINT_EMPTY;
	     i = (i + 1) & (ds->hint_cap - 1))
		if (ds->hints[i].ip == ip && ds->hints[i].dist == dist)
			return &ds->hints[i];
	ds->hints[i] = (struct hint_entry){.ip = ip, .dist = dist, .state = HINT_DELETED};
	ds->hint_cnt++;
	return &ds->hints[i];
}

static int hint_send(struct dwarf_stacks *ds, const struct hint_entry *e, bool set)
{
	struct snap_hint_key k = {.ip = e->ip, .dist = e->dist, .tgid = (__u32)ds->pid};

	return ds->hint_fn(ds->hint_ctx, &k, set ? &e->h : NULL);
}

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const __u16 *)a - (int)*(const __u16 *)b;
}

/* A dense snapshot of key (ip, dist) was unwound: add the words it read to the key's hint. */
static void hint_learn(struct dwarf_stacks *ds, __u64 ip, __u64 dist)
{
	__u16 words[UNWIND_READS_MAX], merged[SNAP_HINT_MAX];
	const __u16 *reads;
	struct hint_entry *e;
	size_t n, i = 0, j = 0, m = 0;
	bool grown = false;

	if (!unwinder__last_reads(ds->u, &reads, &n) || !n)
		return;
	e = hint_entry(ds, ip, dist);
	if (!e || e->state == HINT_REFUSED)
		return;
	memcpy(words, reads, n * sizeof(*words));
	qsort(words, n, sizeof(*words), cmp_u16);
	/* Merge the sorted, deduplicated reads into the sorted hint. */
	while (i < e->h.n || j < n) {
		__u16 w;

		if (j < n && j && words[j] == words[j - 1]) {
			j++;
			continue;
		}
		if (j == n || (i < e->h.n && e->h.off[i] <= words[j])) {
			w = e->h.off[i];
			if (j < n && words[j] == w)
				j++;
			i++;
		} else {
			w = words[j++];
			grown = true;
		}
		if (m == SNAP_HINT_MAX) { /* too deep a chain to be worth it: stay dense */
			if (e->state == HINT_SET)
				hint_send(ds, e, false);
			e->state = HINT_REFUSED;
			ds->st.hint_refusals++;
			return;
		}
		merged[m++] = w;
	}
	if (!grown && e->state == HINT_SET)
		return;
	memcpy(e->h.off, merged, m * sizeof(*merged));
	e->h.n = (__u32)m;
	if (hint_send(ds, e, true)) {
		e->state = HINT_REFUSED;
		ds->st.hint_refusals++;
		return;
	}
	e->state = HINT_SET;
	ds->st.hints_set++;
}

/* A sparse snapshot of (ip, dist) missed a word: dense again until relearnt. */
static void hint_forget(struct dwarf_stacks *ds, __u64 ip, __u64 dist)
{
	struct hint_entry *e = hint_entry(ds, ip, dist);

	if (e && e->state == HINT_SET) {
		hint_send(ds, e, false);
		e->state = HINT_DELETED;
	}
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

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

void dwarf_stacks__set_hint_sink(struct dwarf_stacks *ds, dwarf_stacks_hint_fn fn, void *ctx)
{
	if (!ds)
		return;
	ds->hint_fn = fn;
	ds->hint_ctx = ctx;
}

void dwarf_stacks__free(struct dwarf_stacks *ds)
{
	if (!ds)
		return;
	for (size_t i = 0; ds->hint_fn && i < ds->hint_cap; i++)
		if (ds->hints[i].state == HINT_SET)
			hint_send(ds, &ds->hints[i], false);
	free(ds->hints);
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
		if (n >= 0 && missed) {
			ds->st.hint_misses++;
			if (ds->hint_fn)
				hint_forget(ds, snap->ip, snap->hint_dist);
		}
	} else {
		n = unwinder__unwind(ds->u, &regs, stack, snap->stack_len, ips, STACK_MAX_DEPTH);
		if (n > 0 && ds->hint_fn && !(snap->flags & SNAP_F_SHORT))
			hint_learn(ds, snap->ip, snap->hint_dist);
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
	t0 = mono_ns();
	id = dwarf_stacks__unwind(ds, &snap, (const char *)data + hdr,
				  (snap.flags & SNAP_F_SPARSE) ? &sp : NULL);
	dt = mono_ns() - t0;
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
}

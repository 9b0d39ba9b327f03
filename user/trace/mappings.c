// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "mappings.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_stacks.h"
#include "events.h"
#include "site.h"

#define PAGE_SZ 4096ull

/* One mapped range, charged to a site. */
struct range {
	__u64 start, end;
	size_t site;
};

/* Everything one stack mapped. */
struct site {
	__s32 stack_id; /* dwarf_stacks id, or -errno: no stack */
	__u64 bytes, peak, count;
};

struct mappings {
	struct dwarf_stacks *ds;
	struct range *ranges;
	size_t range_cnt, range_cap;
	struct site *sites;
	size_t site_cnt, site_cap;
	__u64 bad_records;
	/* A record re-packed as the EV_STACK_SNAPSHOT the unwinder takes. */
	unsigned char
	    buf[sizeof(struct alloc_event) + sizeof(struct stack_snapshot) + MAPPING_STACK_COPY];
};

struct mappings *mappings__new(pid_t pid)
{
	struct mappings *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->ds = dwarf_stacks__new(pid);
	if (!m->ds) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

void mappings__free(struct mappings *m)
{
	if (!m)
		return;
	dwarf_stacks__free(m->ds);
	free(m->ranges);
	free(m->sites);
	free(m);
}

void mappings__refresh_maps(struct mappings *m)
{
	if (m)
		dwarf_stacks__refresh_maps(m->ds);
}

/* The site of stack_id, created on first use; SIZE_MAX when out of memory. */
static size_t site_of(struct mappings *m, __s32 stack_id)
{
	for (size_t i = 0; i < m->site_cnt; i++)
		if (m->sites[i].stack_id == stack_id)
			return i;
	if (grow__array(&m->sites, &m->site_cap, m->site_cnt + 1, sizeof(*m->sites)))
		return SIZE_MAX;
	m->sites[m->site_cnt] = (struct site){.stack_id = stack_id};
	return m->site_cnt++;
}

/* Unmap [start, end) from every range: trim, split or drop what overlaps. */
static int unmap(struct mappings *m, __u64 start, __u64 end)
{
	for (size_t i = 0; i < m->range_cnt; i++) {
		struct range *r = &m->ranges[i];
		__u64 lo = r->start > start ? r->start : start, hi = r->end < end ? r->end : end;

		if (lo >= hi)
			continue;
		m->sites[r->site].bytes -= hi - lo;
		if (r->start < lo && r->end > hi) { /* a hole in the middle: split */
			struct range tail = {hi, r->end, r->site};

			r->end = lo;
			if (grow__array(&m->ranges, &m->range_cap, m->range_cnt + 1,
					sizeof(*m->ranges)))
				return -ENOMEM;
			m->ranges[m->range_cnt++] = tail;
		} else if (r->start < lo) {
			r->end = lo;
		} else if (r->end > hi) {
			r->start = hi;
		} else {
			m->ranges[i--] = m->ranges[--m->range_cnt];
		}
	}
	return 0;
}

/* Map [start, end) for site, replacing what was there. */
static int map(struct mappings *m, __u64 start, __u64 end, size_t site)
{
	struct site *s;
	int err = unmap(m, start, end);

	if (err || start >= end)
		return err;
	if (grow__array(&m->ranges, &m->range_cap, m->range_cnt + 1, sizeof(*m->ranges)))
		return -ENOMEM;
	m->ranges[m->range_cnt++] = (struct range){start, end, site};
	s = &m->sites[site];
	s->bytes += end - start;
	if (s->bytes > s->peak)
		s->peak = s->bytes;
	return 0;
}

/* The stack of the record (registers + copy) unwound and interned: its id or -errno. */
static __s32 unwind(struct mappings *m, const struct mapping_event *e,
		    const struct stack_snapshot *snap, const void *stack)
{
	struct alloc_event hdr = {.type = EV_STACK_SNAPSHOT,
				  .tid = e->tid,
				  .ts_ns = e->ts_ns,
				  .addr = e->addr,
				  .size = e->len,
				  .stack_id = STACK_ID_SNAPSHOT};
	struct stack_snapshot s = *snap;
	struct alloc_event out;

	s.ev_type = EV_ALLOC; /* what the unwinder resolves; the type is ours again below */
	memcpy(m->buf, &hdr, sizeof(hdr));
	memcpy(m->buf + sizeof(hdr), &s, sizeof(s));
	memcpy(m->buf + sizeof(hdr) + sizeof(s), stack, s.stack_len);
	if (dwarf_stacks__resolve(m->ds, m->buf, sizeof(hdr) + sizeof(s) + s.stack_len, &out))
		return -EINVAL;
	return out.stack_id;
}

static __u64 page_up(__u64 n)
{
	return (n + PAGE_SZ - 1) & ~(PAGE_SZ - 1);
}

int mappings__handle(struct mappings *m, const void *data, size_t sz)
{
	const struct mapping_event *e = data;
	const struct stack_snapshot *snap = (const void *)(e + 1);
	size_t site = 0;

	if (!m)
		return 0;
	if (sz < sizeof(*e) + sizeof(*snap) || snap->stack_len > MAPPING_STACK_COPY ||
	    sz < sizeof(*e) + sizeof(*snap) + snap->stack_len) {
		m->bad_records++;
		return -EINVAL;
	}
	if (e->op == MAP_OP_MMAP || e->op == MAP_OP_MREMAP ||
	    (e->op == MAP_OP_BRK && e->addr > e->old_addr)) {
		site = site_of(m, snap->stack_len ? unwind(m, e, snap, snap + 1) : -ENOENT);
		if (site == SIZE_MAX)
			return -ENOMEM;
		m->sites[site].count++;
	}
	switch (e->op) {
	case MAP_OP_MMAP:
		return map(m, e->addr, e->addr + page_up(e->len), site);
	case MAP_OP_MUNMAP:
		return unmap(m, e->addr, e->addr + page_up(e->len));
	case MAP_OP_MREMAP: {
		int err = unmap(m, e->old_addr, e->old_addr + page_up(e->old_len));

		return err ? err : map(m, e->addr, e->addr + page_up(e->len), site);
	}
	case MAP_OP_BRK:
		if (e->addr > e->old_addr)
			return map(m, e->old_addr, e->addr, site);
		return unmap(m, e->addr, e->old_addr);
	default:
		m->bad_records++;
		return -EINVAL;
	}
}

/* The function name of a DHAT frame string: after "0xADDR: ", up to ' ', '(' or '@'. */
static size_t frame_fn(const char *frame, const char **name)
{
	const char *colon = strstr(frame, ": ");

	*name = colon ? colon + 2 : frame;
	return strcspn(*name, " (@");
}

static bool fn_is(const char *frame, const char *const *names, size_t cnt, bool prefix)
{
	const char *name;
	size_t len = frame_fn(frame, &name);

	for (size_t i = 0; i < cnt; i++) {
		size_t n = strlen(names[i]);

		if (prefix ? len >= n && !strncmp(name, names[i], n)
			   : len == n && !strncmp(name, names[i], n))
			return true;
	}
	return false;
}

/* glibc's allocator and what it calls to get memory: arenas, the brk heap, large blocks. */
static const char *const ALLOCATOR_FNS[] = {
    "malloc",
    "calloc",
    "realloc",
    "reallocarray",
    "free",
    "posix_memalign",
    "aligned_alloc",
    "memalign",
    "valloc",
    "pvalloc",
    "sysmalloc",
    "_int_malloc",
    "_int_realloc",
    "_int_memalign",
    "__libc_malloc",
    "__libc_calloc",
    "__libc_realloc",
    "__libc_memalign",
    "new_heap",
    "alloc_new_heap",
    "arena_get2",
    "mremap_chunk",
    "systrim",
    "heap_trim",
    "shrink_heap",
    "tcache_init",
    "ptmalloc_init",
    "__default_morecore",
    "__glibc_morecore",
};

/* The system call wrappers a stack starts in: not worth naming as the site. */
static const char *const WRAPPER_FNS[] = {
    "mmap",	"mmap64", "__mmap", "__mmap64", "__GI___mmap64", "munmap",	   "mremap",
    "__mremap", "brk",	  "__brk",  "sbrk",	"__sbrk",	 "allocate_stack",
};

bool mappings__is_allocator_frame(const char *frame)
{
	return fn_is(frame, ALLOCATOR_FNS, sizeof(ALLOCATOR_FNS) / sizeof(*ALLOCATOR_FNS), false);
}

/* The frames of site s into out (innermost first, cut after main as Valgrind does). */
static int describe(struct mappings *m, struct symbolizer *sym, const struct site *s,
		    struct strvec *out)
{
	__u64 ips[STACK_MAX_DEPTH];
	int n = s->stack_id >= 0 ? dwarf_stacks__stack(m->ds, s->stack_id, ips, STACK_MAX_DEPTH)
				 : -ENOENT;

	if (n <= 0)
		return strvec__push(out, "[no stack]");
	for (int i = 0; i < n; i++) {
		size_t before = out->cnt;
		int err = sym ? symbolizer__frames(sym, ips[i], true, out)
			      : strvec__pushf(out, "0x%llX: ???", (unsigned long long)ips[i]);

		if (err < 0)
			return err;
		for (size_t j = before; j < out->cnt; j++)
			if (fn_is(out->items[j], (const char *const[]){"main"}, 1, false))
				return 0;
	}
	return 0;
}

static int by_bytes(const void *a, const void *b)
{
	const struct dhat_mapping_site *x = a, *y = b;

	return x->bytes != y->bytes ? (x->bytes < y->bytes ? 1 : -1)
	       : x->peak != y->peak ? (x->peak < y->peak ? 1 : -1)
				    : 0;
}

int mappings__summary(struct mappings *m, struct symbolizer *sym, struct dhat_mappings *out)
{
	memset(out, 0, sizeof(*out));
	if (!m || !m->site_cnt)
		return -ENOENT;
	out->sites = calloc(m->site_cnt, sizeof(*out->sites));
	if (!out->sites)
		return -ENOMEM;
	for (size_t i = 0; i < m->site_cnt; i++) {
		struct dhat_mapping_site *d = &out->sites[out->cnt++];
		const char **clean;
		size_t first = 0;
		int err = describe(m, sym, &m->sites[i], &d->frames);

		d->bytes = m->sites[i].bytes;
		d->peak = m->sites[i].peak;
		d->count = m->sites[i].count;
		for (size_t j = 0; j < d->frames.cnt && !d->in_malloc; j++)
			d->in_malloc = mappings__is_allocator_frame(d->frames.items[j]);
		while (first + 1 < d->frames.cnt &&
		       fn_is(d->frames.items[first], WRAPPER_FNS,
			     sizeof(WRAPPER_FNS) / sizeof(*WRAPPER_FNS), false))
			first++;
		clean = calloc(d->frames.cnt + 1, sizeof(*clean));
		if (err < 0 || !clean) {
			free(clean);
			dhat_mappings__release(out);
			return -ENOMEM;
		}
		for (size_t j = first; j < d->frames.cnt; j++)
			clean[j - first] = site__clean_frame(d->frames.items[j]);
		d->site = site__name(clean, d->frames.cnt - first, NULL);
		free(clean);
		if (!d->site) {
			dhat_mappings__release(out);
			return -ENOMEM;
		}
		*(d->in_malloc ? &out->inside_malloc : &out->outside_malloc) += d->bytes;
	}
	qsort(out->sites, out->cnt, sizeof(*out->sites), by_bytes);
	return 0;
}

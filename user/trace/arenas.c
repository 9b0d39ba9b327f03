// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* glibc's arenas of a live target: see arenas.h. The constants are malloc.c's and arena.c's
 * on x86-64 (glibc >= 2.26; heap_info grew a pagesize word in 2.35, told apart by where the
 * arena's malloc_state starts). */
#include "arenas.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heap_chunk.h"
#include "main_arena.h"
#include "procmaps.h"
#include "safe_open.h"

#define PAGE		4096ull
#define HEAP_MAX	(64ull << 20) /* HEAP_MAX_SIZE: 2 * DEFAULT_MMAP_THRESHOLD_MAX */
#define MINSIZE		32ull
#define CHUNK_HDR	16ull /* chunk2mem: the user pointer is 16 bytes into its chunk */
#define MSTATE_SZ	2200ull /* sizeof(struct malloc_state) */
#define MS_FASTBINS	16 /* offsetof(struct malloc_state, fastbinsY) */
#define NFASTBINS	10 /* fastbinsY[]: chunks of 32 to 176 bytes, 16 apart */
#define MS_TOP		96 /* offsetof top */
#define MS_NEXT		2160
#define MS_SYSTEM_MEM	2184
#define TCACHE_BINS	64
#define TCACHE_CHUNK	0x290ull /* sizeof(tcache_perthread_struct) as a chunk, glibc >= 2.30 */
#define MMAP_THRESHOLD	(128ull << 10)
#define WALK_WINDOW	(1ull << 20)
#define RING_MAX	DHAT_ARENAS_MAX

/* One heap of an arena: [start, end) holds chunks from first on. */
struct heap {
	uint64_t start, end, first;
	uint64_t reserve_end; /* the heap's whole reservation, for its Rss */
};

/* One live block of the arena, as a chunk. */
struct live {
	uint64_t start, end; /* its chunk */
	uint64_t size;	     /* requested */
	uint32_t pp;
};

struct arena {
	bool main;
	uint64_t ms;	   /* its malloc_state in the target, 0: not known */
	uint64_t ms_top;   /* malloc_state.top, read */
	uint64_t ms_sys;   /* malloc_state.system_mem, read */
	uint64_t fastbins[NFASTBINS]; /* malloc_state.fastbinsY: each list's first chunk */
	struct heap heaps[64];	   /* its heaps (a chain longer than 64 is cut) */
	size_t heap_cnt;
	struct live *blocks;
	size_t block_cnt, block_cap;
};

struct ctx {
	pid_t pid;
	struct arena *ar;
	size_t ar_cnt;
	bool nomem;
	uint64_t pp_cnt;
	const char *main_checked; /* how the main arena's malloc_state was found, NULL: not */
};

static uint64_t u64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* ---- finding the arenas ---------------------------------------------------------------- */

static struct arena *arena_of_ms(struct ctx *x, uint64_t ms)
{
	for (size_t i = 0; i < x->ar_cnt; i++)
		if (x->ar[i].ms == ms)
			return &x->ar[i];
	return NULL;
}

static struct arena *new_arena(struct ctx *x)
{
	struct arena *grown;

	if (x->ar_cnt >= RING_MAX)
		return NULL;
	grown = realloc(x->ar, (x->ar_cnt + 1) * sizeof(*grown));
	if (!grown) {
		x->nomem = true;
		return NULL;
	}
	x->ar = grown;
	memset(&x->ar[x->ar_cnt], 0, sizeof(*grown));
	return &x->ar[x->ar_cnt++];
}

/* Read a malloc_state at ms into a: top, system_mem; its `next` into *next. */
static bool read_ms(pid_t pid, uint64_t ms, struct arena *a, uint64_t *next)
{
	unsigned char buf[MSTATE_SZ];

	if (procmaps__read_vm(pid, ms, buf, sizeof(buf)))
		return false;
	a->ms = ms;
	a->ms_top = u64_at(buf + MS_TOP);
	a->ms_sys = u64_at(buf + MS_SYSTEM_MEM);
	for (int i = 0; i < NFASTBINS; i++)
		a->fastbins[i] = u64_at(buf + MS_FASTBINS + 8 * i);
	if (next)
		*next = u64_at(buf + MS_NEXT);
	return true;
}

/* heap_info at h: the arena (ar_ptr) and the heap's size, when they look like one. */
static bool read_heap_info(pid_t pid, uint64_t h, uint64_t *ar_ptr, uint64_t *size)
{
	uint64_t hi[4]; /* ar_ptr, prev, size, mprotect_size */

	if (procmaps__read_vm(pid, h, hi, sizeof(hi)))
		return false;
	*ar_ptr = hi[0];
	*size = hi[2];
	return hi[2] && hi[2] <= HEAP_MAX && hi[2] % PAGE == 0 && hi[3] >= hi[2] &&
	       hi[3] <= HEAP_MAX && hi[0] % 16 == 0 && hi[0];
}

/* The 64 MiB-aligned heaps of the non-main arenas among the anonymous mappings. */
static void find_heaps(struct ctx *x, const struct proc_mapping *m, size_t n)
{
	/* The first heap of each arena holds its malloc_state just after heap_info. */
	uint64_t hinfo_sz = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			uint64_t h = (m[i].start + HEAP_MAX - 1) & ~(HEAP_MAX - 1), ar_ptr, size;
			struct arena *a;

			if (*m[i].path || m[i].ino || h >= m[i].end)
				continue;
			if (!read_heap_info(x->pid, h, &ar_ptr, &size))
				continue;
			a = arena_of_ms(x, ar_ptr);
			if (pass == 0) { /* first heaps: ar_ptr just past heap_info */
				if (a || (ar_ptr != h + 32 && ar_ptr != h + 48))
					continue;
				if (!(a = new_arena(x)))
					return;
				if (!read_ms(x->pid, ar_ptr, a, NULL)) {
					x->ar_cnt--;
					continue;
				}
				hinfo_sz = ar_ptr - h;
				a->heaps[0] = (struct heap){ h, h + size, 0, h + HEAP_MAX };
				/* the first chunk: past the malloc_state, its user pointer aligned */
				a->heaps[0].first = (ar_ptr + MSTATE_SZ + CHUNK_HDR + 15) / 16 * 16 -
						    CHUNK_HDR;
				a->heap_cnt = 1;
			} else if (a && ar_ptr != h + hinfo_sz && hinfo_sz &&
				   a->heap_cnt < sizeof(a->heaps) / sizeof(*a->heaps)) {
				a->heaps[a->heap_cnt++] =
					(struct heap){ h, h + size, h + hinfo_sz, h + HEAP_MAX };
			}
		}
}

/* Heaps of an arena by address, so that the one holding top is found by the walk. */
static int cmp_heap(const void *a, const void *b)
{
	const struct heap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The main arena from libc's debug info, where the tracer has it (libc6-dbg): it confirms
 * the ring's (address, top, system_mem) and is preferred when they differ, the ring's being a
 * guess by shape. Without it a lone main arena has no malloc_state: no top, no fastbins. */
static void check_main(struct ctx *x, const struct proc_mapping *m, size_t n, struct arena *a)
{
	struct arena dbg = { 0 };
	uint64_t addr;

	if (main_arena__from_debuginfo(x->pid, m, n, MSTATE_SZ, &addr) ||
	    !read_ms(x->pid, addr, &dbg, NULL)) {
		x->main_checked = a->ms ? "ring" : NULL;
		return;
	}
	if (!a->ms)
		x->main_checked = "debuginfo (no ring)";
	else if (a->ms != dbg.ms || a->ms_top != dbg.ms_top || a->ms_sys != dbg.ms_sys)
		x->main_checked = "debuginfo (ring disagreed)";
	else
		x->main_checked = "debuginfo";
	a->ms = dbg.ms;
	a->ms_top = dbg.ms_top;
	a->ms_sys = dbg.ms_sys;
	memcpy(a->fastbins, dbg.fastbins, sizeof(a->fastbins));
}

/* The main arena: the brk heap, its malloc_state on the arenas' ring when there is one. */
static void find_main(struct ctx *x, const struct proc_mapping *m, size_t n)
{
	uint64_t start_brk = proc_stat_field(x->pid, 47), next = 0;
	struct arena *a = NULL, probe;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].path, "[heap]")) {
			uint64_t s = start_brk >= m[i].start && start_brk < m[i].end ? start_brk :
										       m[i].start;

			if (!(a = new_arena(x)))
				return;
			a->main = true;
			a->heaps[0] = (struct heap){ m[i].start, m[i].end, (s + 15) & ~15ull,
						     m[i].end };
			a->heap_cnt = 1;
			break;
		}
	if (!a)
		return;
	/* The ring: main_arena.next -> newest -> ... -> main_arena; main_arena lives in libc. */
	for (size_t i = 0; i < x->ar_cnt && !a->ms; i++) {
		uint64_t cur = x->ar[i].ms;

		if (x->ar[i].main || !read_ms(x->pid, cur, &probe, &next))
			continue;
		for (int step = 0; step < RING_MAX && next && next != cur; step++) {
			if (!arena_of_ms(x, next)) {
				if (read_ms(x->pid, next, &probe, NULL) &&
				    probe.ms_top >= a->heaps[0].start && probe.ms_top < a->heaps[0].end) {
					a->ms = probe.ms;
					a->ms_top = probe.ms_top;
					a->ms_sys = probe.ms_sys;
					memcpy(a->fastbins, probe.fastbins, sizeof(a->fastbins));
				}
				break;
			}
			if (!read_ms(x->pid, next, &probe, &next))
				break;
		}
	}
	check_main(x, m, n, a);
}

/* ---- the live blocks ------------------------------------------------------------------- */

static void add_block(void *ctx, const struct collector_block *b)
{
	struct ctx *x = ctx;
	uint64_t start = b->addr - CHUNK_HDR;

	if (heap_chunk__glibc_mmapped(b->addr, b->chunk))
		return;
	for (size_t i = 0; i < x->ar_cnt; i++) {
		struct arena *a = &x->ar[i];

		for (size_t h = 0; h < a->heap_cnt; h++) {
			if (start < a->heaps[h].start || start >= a->heaps[h].end)
				continue;
			if (a->block_cnt == a->block_cap) {
				size_t cap = a->block_cap ? 2 * a->block_cap : 256;
				struct live *grown = realloc(a->blocks, cap * sizeof(*grown));

				if (!grown) {
					x->nomem = true;
					return;
				}
				a->blocks = grown;
				a->block_cap = cap;
			}
			a->blocks[a->block_cnt++] =
				(struct live){ start, start + b->chunk, b->size, b->pp };
			return;
		}
	}
}

static int cmp_live(const void *a, const void *b)
{
	const struct live *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The whole pages inside a free run [a, b) that malloc_trim would madvise away: those past
 * the free chunk's own header and list pointers (mtrim: p + sizeof(struct malloc_chunk)). */
static uint64_t free_pages(uint64_t a, uint64_t b)
{
	uint64_t lo = (a + MINSIZE + PAGE - 1) & ~(PAGE - 1), hi = b & ~(PAGE - 1);

	return hi > lo ? hi - lo : 0;
}

/* The top's pages systrim gives back (main arena, pad 0). */
static uint64_t top_trimmable(uint64_t top)
{
	return top > MINSIZE + 1 ? (top - MINSIZE - 1) & ~(PAGE - 1) : 0;
}

/* ---- the walk -------------------------------------------------------------------------- */

struct walk {
	uint64_t free, top, pages;
	bool top_seen;
};

/* Walk heap h's chunks (last: it holds the top). false when the chunks do not chain. */
static bool walk_heap(pid_t pid, const struct heap *h, bool last, uint64_t want_top, bool main,
		      struct walk *w)
{
	static unsigned char buf[WALK_WINDOW + 16];
	uint64_t base = 0, have = 0, p = h->first;

	while (p + CHUNK_HDR <= h->end) {
		uint64_t sz, next_sz;

		/* the window must hold p's size word and the next chunk's */
		if (p + 16 > base + have || p < base) {
			uint64_t len = h->end - p < WALK_WINDOW ? h->end - p : WALK_WINDOW;

			if (procmaps__read_vm(pid, p, buf, len))
				return false;
			base = p;
			have = len;
		}
		sz = u64_at(buf + (p - base) + 8) & ~7ull;
		if (!last && sz <= CHUNK_HDR) /* the fenceposts that end a heap left behind */
			return true;
		/* sz is the target's: compared without p + sz, which a huge size would wrap */
		if (sz < MINSIZE || sz % 16 || sz > h->end - p)
			return false;
		if (p + sz == h->end || (want_top && p == want_top)) { /* the top */
			if (!last || (want_top && p != want_top))
				return false;
			w->top = sz;
			w->free += sz;
			if (main)
				w->pages += top_trimmable(sz);
			w->top_seen = true;
			return true;
		}
		if (p + sz + 16 > base + have) { /* next's size word: read from there */
			base = 0;
			have = 0;
			if (procmaps__read_vm(pid, p + sz + 8, &next_sz, sizeof(next_sz)))
				return false;
		} else {
			next_sz = u64_at(buf + (p + sz - base) + 8);
		}
		if (!(next_sz & 1)) { /* PREV_INUSE clear: p is a free chunk in a bin */
			w->free += sz;
			if (sz > PAGE - 1 + MINSIZE)
				w->pages += free_pages(p, p + sz);
		}
		p += sz;
	}
	return !last;
}

static bool walk_arena(pid_t pid, const struct arena *a, struct walk *w)
{
	*w = (struct walk){ 0 };
	for (size_t h = 0; h < a->heap_cnt; h++) {
		bool last = a->ms_top ? a->ms_top >= a->heaps[h].start && a->ms_top < a->heaps[h].end :
					h == a->heap_cnt - 1;

		if (!walk_heap(pid, &a->heaps[h], last, a->ms_top, a->main, w))
			return false;
	}
	return w->top_seen;
}

/* The fastbins: singly linked lists from malloc_state.fastbinsY, their chunks free for
 * malloc_info ("fast") although the next chunk's PREV_INUSE stays set, so the chunk walk
 * counts them in use. Since glibc 2.32 each fd is mangled (PROTECT_PTR: the fd's own address
 * >> 12, xor'd in). A list is read while its chunks are aligned, inside the arena's heaps and
 * of the bin's size, and for at most as many chunks as the heaps could hold: a list torn by
 * a racing free, or corrupt, ends there and is counted in *cut rather than followed. */
/* Chunks followed on one fastbin list at most: 64 Ki chunks of at most 176 B, more than any
 * list a program keeps; a list that loops (corrupt, or racing frees under --pid) stops here. */
#define FASTBIN_LIST_MAX (1u << 16)

static uint64_t walk_fastbins(pid_t pid, const struct arena *a, uint64_t *cut)
{
	uint64_t total = 0, room = 0;

	for (size_t h = 0; h < a->heap_cnt; h++)
		room += a->heaps[h].end - a->heaps[h].start;
	for (unsigned i = 0; i < NFASTBINS; i++) {
		uint64_t csz = MINSIZE + 16 * i, p = a->fastbins[i], n = 0;

		while (p) {
			uint64_t hdr[3]; /* prev_size, size, fd */
			bool inside = false;

			for (size_t h = 0; h < a->heap_cnt && !inside; h++)
				inside = p >= a->heaps[h].first && a->heaps[h].end >= csz &&
					 p <= a->heaps[h].end - csz; /* p is the target's: no p + csz */
			/* a list that loops on itself ends at FASTBIN_LIST_MAX, counted as cut */
			if (p % 16 || !inside || n >= room / csz || n >= FASTBIN_LIST_MAX ||
			    procmaps__read_vm(pid, p, hdr, sizeof(hdr)) ||
			    (hdr[1] & ~7ull) != csz) {
				(*cut)++;
				break;
			}
			total += csz;
			n++;
			p = ((p + CHUNK_HDR) >> 12) ^ hdr[2];
		}
	}
	return total;
}

/* The tcache of the thread that first used the arena: its tcache_perthread_struct is the
 * arena's first chunk (tcache_init's malloc), counts[64] (uint16) then entries[64]. The
 * chunks it counts are free to the program but in no bin, so malloc_info (and freeBytes)
 * count them in use; they are reported apart. Only trusted when the chunk is 0x290 bytes
 * and in use, and every count agrees with its list head (both zero or both not): a thread
 * that has exited freed its struct, and the chunk is then something else. Other threads'
 * tcaches (sharing the arena, or the pointer only in their TLS) are not found: false. */
static bool read_tcache(pid_t pid, const struct arena *a, uint64_t *bytes)
{
	struct {
		uint64_t prev_size, size;
		uint16_t counts[TCACHE_BINS];
		uint64_t entries[TCACHE_BINS];
	} t;
	uint64_t p = a->heaps[0].first, next_size, sum = 0;

	if (procmaps__read_vm(pid, p, &t, sizeof(t)) || (t.size & ~7ull) != TCACHE_CHUNK ||
	    procmaps__read_vm(pid, p + TCACHE_CHUNK + 8, &next_size, sizeof(next_size)) ||
	    !(next_size & 1))
		return false;
	for (unsigned i = 0; i < TCACHE_BINS; i++) {
		if (!t.counts[i] != !t.entries[i] || t.entries[i] % 16)
			return false;
		sum += t.counts[i] * (MINSIZE + 16 * i);
	}
	*bytes = sum;
	return true;
}

/* ---- per arena ------------------------------------------------------------------------- */

/* The Rss of the mappings inside [start, end), from smaps text. */
static uint64_t rss_in(const char *smaps, uint64_t start, uint64_t end)
{
	uint64_t total = 0, ms = 0, me = 0;
	const char *l = smaps;

	while (l && *l) {
		unsigned long long a, b, kb;

		if (sscanf(l, "%llx-%llx ", &a, &b) == 2) {
			ms = a;
			me = b;
		} else if (sscanf(l, "Rss: %llu kB", &kb) == 1 && ms >= start && me <= end) {
			total += kb << 10;
		}
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return total;
}

/* The whole of a small /proc file, NUL-terminated (and NUL-separated as it is), through
 * safe_open: the target names nothing here, but its environ is only ours to read when it is
 * the sudo user's. NULL when unreadable. */
static char *slurp(pid_t pid, const char *name, size_t max, size_t *len)
{
	char path[64], *buf = NULL;
	size_t cap = 0, n = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	fd = safe_open__read(AT_FDCWD, path, 0, SAFE_OPEN_ANY_SZ);
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t r;

		if (n + 4097 > cap) {
			char *grown;

			if (cap >= max)
				break;
			cap = cap ? 2 * cap : 65536;
			grown = realloc(buf, cap);
			if (!grown)
				break;
			buf = grown;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (buf)
		buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Per program point: the pages its blocks alone keep from being free, and its blocks. */
struct pp_hold {
	uint64_t bytes, blocks;
};

static void fragmenters(const struct arena *a, const struct heap *top_heap, struct pp_hold *hold,
			size_t pp_cnt, struct dhat_arena *out)
{
	memset(hold, 0, pp_cnt * sizeof(*hold));
	for (size_t i = 0; i < a->block_cnt; i++) {
		const struct live *b = &a->blocks[i];
		const struct heap *h = NULL;
		uint64_t lo, hi, kept;

		for (size_t k = 0; k < a->heap_cnt && !h; k++)
			if (b->start >= a->heaps[k].start && b->start < a->heaps[k].end)
				h = &a->heaps[k];
		if (!h || b->pp >= pp_cnt)
			continue;
		lo = i && a->blocks[i - 1].end > h->start ? a->blocks[i - 1].end : h->first;
		hi = i + 1 < a->block_cnt && a->blocks[i + 1].start < h->end ? a->blocks[i + 1].start :
									      h->end;
		/* a heap's end is free only when the top is there */
		if (hi == h->end && h != top_heap)
			hi = b->end;
		kept = free_pages(lo, hi) - free_pages(lo, b->start) - free_pages(b->end, hi);
		hold[b->pp].bytes += kept;
		hold[b->pp].blocks++;
	}
	for (size_t pp = 0; pp < pp_cnt; pp++) {
		size_t j;

		if (!hold[pp].bytes)
			continue;
		if (out->frag_cnt == DHAT_ARENA_FRAG_MAX) {
			if (out->frag[out->frag_cnt - 1].bytes >= hold[pp].bytes)
				continue;
			out->frag_cnt--;
		}
		for (j = out->frag_cnt++; j && out->frag[j - 1].bytes < hold[pp].bytes; j--)
			out->frag[j] = out->frag[j - 1];
		out->frag[j] = (struct dhat_arena_frag){ (int64_t)pp, hold[pp].bytes, hold[pp].blocks };
	}
}

static bool measure_one(struct ctx *x, struct arena *a, const char *smaps, struct pp_hold *hold,
			struct dhat_arena *out)
{
	const struct heap *top_heap = &a->heaps[a->heap_cnt - 1];
	uint64_t sys = 0, gaps = 0, hdr = 0, top_end;
	struct walk w;
	bool walked;

	qsort(a->heaps, a->heap_cnt, sizeof(*a->heaps), cmp_heap);
	if (a->main)
		snprintf(out->name, sizeof(out->name), "main");
	else
		snprintf(out->name, sizeof(out->name), "0x%" PRIx64, a->heaps[0].start);
	for (size_t h = 0; h < a->heap_cnt; h++) {
		sys += a->heaps[h].end - a->heaps[h].start;
		hdr += a->heaps[h].first - a->heaps[h].start;
		out->resident += rss_in(smaps, a->heaps[h].start, a->heaps[h].reserve_end);
		if (a->ms_top >= a->heaps[h].start && a->ms_top < a->heaps[h].end)
			top_heap = &a->heaps[h];
	}
	if (!a->ms_top) /* the top is in the heap of the highest address: the newest */
		top_heap = &a->heaps[a->heap_cnt - 1];
	out->system = a->ms && a->ms_sys ? a->ms_sys : sys;
	qsort(a->blocks, a->block_cnt, sizeof(*a->blocks), cmp_live);
	for (size_t i = 0; i < a->block_cnt; i++)
		out->in_use += a->blocks[i].end - a->blocks[i].start;
	/* The pin: the highest live block of the heap that holds the top. */
	top_end = top_heap->first;
	for (size_t i = a->block_cnt; i-- > 0;)
		if (a->blocks[i].start >= top_heap->start && a->blocks[i].start < top_heap->end) {
			out->pin_pp = a->blocks[i].pp;
			out->pin_bytes = a->blocks[i].size;
			top_end = a->blocks[i].end;
			break;
		}
	walked = walk_arena(x->pid, a, &w);
	if (walked) {
		if (a->ms)
			out->fast = walk_fastbins(x->pid, a, &out->fast_cut);
		out->free = w.free + out->fast;
		out->has_tcache = read_tcache(x->pid, a, &out->tcache);
		out->top_free = w.top;
		out->trimmable = w.pages;
	} else {
		/* The gaps between live blocks: free chunks, and the tcache's and fastbins'. */
		for (size_t i = 0; i < a->block_cnt; i++) {
			uint64_t lo = i ? a->blocks[i - 1].end : a->heaps[0].first;

			if (a->blocks[i].start > lo && lo >= a->heaps[0].start)
				gaps += free_pages(lo, a->blocks[i].start);
		}
		out->top_free = top_heap->end > top_end ? top_heap->end - top_end : 0;
		out->free = out->system > out->in_use + hdr ? out->system - out->in_use - hdr : 0;
		out->trimmable = gaps + (a->main ? top_trimmable(out->top_free) : 0);
	}
	fragmenters(a, top_heap, hold, x->pp_cnt, out);
	return walked;
}

/* ---- settings -------------------------------------------------------------------------- */

/* VAR's value in an environ block (NUL-separated), or in GLIBC_TUNABLES as tunable. */
static bool env_u64(const char *env, size_t len, const char *var, const char *tunable,
		    uint64_t *v, const char **src)
{
	size_t vl = strlen(var);

	for (const char *e = env; e < env + len; e += strlen(e) + 1) {
		const char *t;

		if (!strncmp(e, var, vl) && e[vl] == '=') {
			*v = strtoull(e + vl + 1, NULL, 0);
			*src = var;
			return true;
		}
		if (!strncmp(e, "GLIBC_TUNABLES=", 15) && (t = strstr(e, tunable)) &&
		    t[strlen(tunable)] == '=') {
			*v = strtoull(t + strlen(tunable) + 1, NULL, 0);
			*src = "GLIBC_TUNABLES";
			return true;
		}
	}
	return false;
}

static void settings(pid_t pid, const struct collector *c, struct dhat_arenas *out)
{
	size_t len = 0;
	char *env = slurp(pid, "environ", 1 << 20, &len);
	const char *src = NULL;
	uint64_t v = 0, freed = collector__totals(c)->mmap_freed_max;

	out->has_settings = true;
	if (env && env_u64(env, len, "MALLOC_MMAP_THRESHOLD_", "glibc.malloc.mmap_threshold", &v,
			   &src)) {
		out->mmap_threshold = v;
		snprintf(out->mmap_threshold_src, sizeof(out->mmap_threshold_src), "%s", src);
	} else if (freed > MMAP_THRESHOLD) {
		out->mmap_threshold = freed;
		snprintf(out->mmap_threshold_src, sizeof(out->mmap_threshold_src),
			 "raised by a free");
	} else {
		out->mmap_threshold = MMAP_THRESHOLD;
		snprintf(out->mmap_threshold_src, sizeof(out->mmap_threshold_src), "default");
	}
	if (env && env_u64(env, len, "MALLOC_ARENA_MAX", "glibc.malloc.arena_max", &v, &src) && v) {
		out->arena_max = v;
		snprintf(out->arena_max_src, sizeof(out->arena_max_src), "%s", src);
	}
	free(env);
}

int arenas__measure(pid_t pid, const struct collector *c, struct dhat_arenas *out)
{
	struct ctx x = { .pid = pid };
	struct proc_mapping *maps = NULL;
	struct pp_hold *hold = NULL;
	size_t n = 0, walked = 0;
	char *smaps = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	err = procmaps__read(pid, false, &maps, &n);
	if (err)
		return err;
	find_heaps(&x, maps, n);
	find_main(&x, maps, n);
	procmaps__free(maps, n);
	if (!x.ar_cnt) {
		err = x.nomem ? -ENOMEM : -ENOENT;
		goto out;
	}
	collector__pps(c, &n);
	x.pp_cnt = n;
	hold = calloc(n ? n : 1, sizeof(*hold));
	smaps = slurp(pid, "smaps", 256 << 20, NULL);
	collector__each_block(c, add_block, &x);
	if (!hold || x.nomem) {
		err = -ENOMEM;
		goto out;
	}
	/* main first, then by address */
	for (size_t i = 0; i < x.ar_cnt; i++)
		if (x.ar[i].main && i) {
			struct arena t = x.ar[0];

			x.ar[0] = x.ar[i];
			x.ar[i] = t;
		}
	for (size_t i = 0; i < x.ar_cnt; i++) {
		struct dhat_arena *o = dhat_arenas__add(out);

		if (!o) {
			err = -ENOMEM;
			goto out;
		}
		walked += measure_one(&x, &x.ar[i], smaps ? smaps : "", hold, o);
	}
	snprintf(out->source, sizeof(out->source), "%s",
		 walked == x.ar_cnt ? "chunk walk" : walked ? "chunk walk, part" : "live blocks");
	settings(pid, c, out);
	if (x.main_checked)
		snprintf(out->main_checked, sizeof(out->main_checked), "%s", x.main_checked);
out:
	for (size_t i = 0; i < x.ar_cnt; i++)
		free(x.ar[i].blocks);
	free(x.ar);
	free(hold);
	free(smaps);
	if (err)
		dhat_arenas__release(out);
	return err;
}

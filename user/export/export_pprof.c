// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export_pprof - DHAT profile -> pprof (github.com/google/pprof proto/profile.proto),
 * gzip-compressed, as `go tool pprof`, pprof.me, Pyroscope and Parca read it.
 *
 * A hand-written encoder, because the profile uses four message shapes and two wire types:
 * varint (0) for integers and bools, length-delimited (2) for strings, sub-messages and
 * packed repeated integers. Every integer in the profile is >= 0, so int64 and uint64 encode
 * alike (plain varint, no zigzag). Zero scalars are omitted, as proto3 does.
 *
 * Field numbers used (profile.proto, package perftools.profiles):
 *
 *	Profile   1 sample_type ValueType*   2 sample Sample*        3 mapping Mapping*
 *	          4 location Location*       5 function Function*    6 string_table string*
 *	          9 time_nanos int64        10 duration_nanos int64 11 period_type ValueType
 *	         12 period int64            13 comment int64* (string index)
 *	         14 default_sample_type int64 (string index)
 *	ValueType 1 type (string index)      2 unit (string index)
 *	Sample    1 location_id uint64* (packed, leaf first)   2 value int64* (packed)
 *	Mapping   1 id  2 memory_start  3 memory_limit  4 file_offset  5 filename (string index)
 *	          7 has_functions bool  8 has_filenames bool  9 has_line_numbers bool
 *	         10 has_inline_frames bool
 *	Location  1 id  2 mapping_id  3 address  4 line Line* (innermost first)
 *	Line      1 function_id  2 line int64  3 column int64
 *	Function  1 id  2 name  3 system_name  4 filename (string indices)  5 start_line
 *
 * Mapping of DHAT onto it:
 *  - sample types as a Go heap profile: alloc_objects/count, alloc_space/bytes,
 *    inuse_objects/count, inuse_space/bytes, filled with tbk, tb, ebk, eb ("in use" = still
 *    live at t-end), then gmax_objects/count, gmax_space/bytes = gbk, gb: live at t-gmax,
 *    the heap's peak. default_sample_type inuse_space. period_type space/bytes, period 1:
 *    every allocation was seen.
 *  - allocation plumbing (plumbing.h) is left out of each stack unless keep_plumbing, so that
 *    `pprof -top` ranks the code that allocates, not malloc.
 *  - one sample per PP; its fs (innermost first) is already pprof's leaf-first order.
 *  - consecutive frames with the same address are one return address expanded by inlining
 *    (dhat-format.md §4): one Location, one Line per frame, innermost first, as pprof wants.
 *  - `fn (file:line)`: Function{fn, fn, file}, Line.line; `fn (in /obj)`: Function file /obj
 *    and a Mapping for /obj (its address range is unknown: 0, and it is marked symbolized so
 *    pprof does not try to re-symbolize runtime addresses against the file).
 *  - a PP without frames gets one "[unknown]" location (as in folded output); Mapping 1 is
 *    the traced program, named from cmd, so that pprof shows "File: prog".
 *  - duration_nanos from te when tu is a time unit; time_nanos unknown (DHAT has no clock).
 *  - pprof shows inuse_space (leaks) unless -sample_index=alloc_space etc. is given.
 */
#include "export_int.h"
#include "grow.h"

#include "dhat_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { WT_VARINT = 0, WT_LEN = 2 };

/* Growable byte buffer; a failed allocation is sticky and checked once at the end. With a
 * sink, what it holds goes there whenever it passes PB_FLUSH bytes: the Profile message is
 * a run of top-level fields in any order, so samples need not wait for the end (a whole
 * profile in memory was the largest thing `export --format pprof` held). A failed write is
 * as sticky (werr). */
#define PB_FLUSH (1u << 20)

struct pbuf {
	uint8_t *d;
	size_t len, cap;
	bool oom;
	FILE *sink;
	int werr; /* -errno of the first failed write to sink, else 0 */
};

static void pb_flush(struct pbuf *b)
{
	if (!b->sink || !b->len || b->werr)
		return;
	errno = 0;
	if (fwrite(b->d, 1, b->len, b->sink) != b->len)
		b->werr = errno > 0 ? -errno : -EIO;
	b->len = 0;
}

static void pb_raw(struct pbuf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->sink && b->len + n > PB_FLUSH)
		pb_flush(b);
	if (grow__array(&b->d, &b->cap, b->len + n, 1)) {
		b->oom = true;
		return;
	}
	if (n)
		memcpy(b->d + b->len, p, n);
	b->len += n;
}

static void pb_varint(struct pbuf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_raw(b, tmp, n);
}

static void pb_key(struct pbuf *b, unsigned field, unsigned wt)
{
	pb_varint(b, (uint64_t)field << 3 | wt);
}

/* Scalar field; zero is the proto3 default and is left out. */
static void pb_uint(struct pbuf *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, WT_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct pbuf *b, unsigned field, const void *p, size_t n)
{
	pb_key(b, field, WT_LEN);
	pb_varint(b, n);
	pb_raw(b, p, n);
}

/* Append sub as a sub-message in field, then empty sub for reuse. */
static void pb_msg(struct pbuf *b, unsigned field, struct pbuf *sub)
{
	if (sub->oom)
		b->oom = true;
	pb_bytes(b, field, sub->d, sub->len);
	sub->len = 0;
}

/* Per-frame facts, computed once per ftbl index. */
struct frame_info {
	bool done;
	bool has_addr;
	uint64_t addr;
	uint64_t fn_id, map_id;
	uint64_t line, col;
};

struct pprof_b {
	const struct dhat_profile *p;
	struct strtab *strs; /* string_table */
	struct strtab *fns;  /* "name\x1ffile" -> Function id - 1 */
	struct strtab *locs; /* frame index run -> Location id - 1 */
	struct strtab *maps; /* object path -> Mapping id - 1 */
	struct frame_info *fi;	    /* [ftbl_cnt + 1]: last slot: out-of-range indices */
	struct pbuf out;	    /* Profile: sample types and samples */
	/* Profile fields 3, 4, 5: built while the samples are, appended at the end. */
	struct pbuf mappings, locations, functions;
	struct pbuf msg, sub, packed; /* scratch */
	uint64_t unknown_loc;	      /* Location id of "no frames", 0 until needed */
	bool *plumbing;		      /* per ftbl index; NULL: plumbing kept */
	bool oom;
};

static int64_t str_idx(struct pprof_b *b, const char *s, size_t n)
{
	int64_t k = strtab__intern(b->strs, s, n);

	if (k < 0)
		b->oom = true;
	return k < 0 ? 0 : k;
}

static int64_t str_idx0(struct pprof_b *b, const char *s)
{
	return str_idx(b, s, strlen(s));
}

static void value_type(struct pprof_b *b, struct pbuf *dst, unsigned field, const char *type,
		       const char *unit)
{
	pb_uint(&b->msg, 1, (uint64_t)str_idx0(b, type));
	pb_uint(&b->msg, 2, (uint64_t)str_idx0(b, unit));
	pb_msg(dst, field, &b->msg);
}

/* Mapping id for object path obj[0..n), creating the Mapping on first use. */
static uint64_t mapping_id(struct pprof_b *b, const char *obj, size_t n)
{
	size_t before = b->maps->cnt;
	int64_t k = strtab__intern(b->maps, obj, n);

	if (k < 0) {
		b->oom = true;
		return 0;
	}
	if ((size_t)k == before) {
		pb_uint(&b->msg, 1, (uint64_t)k + 1);
		pb_uint(&b->msg, 5, (uint64_t)str_idx(b, obj, n));
		pb_uint(&b->msg, 7, 1);	 /* has_functions: names from the tracer */
		pb_uint(&b->msg, 8, 1);	 /* has_filenames */
		pb_uint(&b->msg, 9, 1);	 /* has_line_numbers: all there will be */
		pb_uint(&b->msg, 10, 1); /* has_inline_frames */
		pb_msg(&b->mappings, 3, &b->msg);
	}
	return (uint64_t)k + 1;
}

/* Function id for (name, file), creating the Function on first use. */
static uint64_t function_id(struct pprof_b *b, const char *name, const char *file, size_t file_n)
{
	char *key;
	size_t before = b->fns->cnt;
	int64_t k;
	int n;

	n = asprintf(&key, "%s\x1f%.*s", name, (int)file_n, file ? file : "");
	if (n < 0) {
		b->oom = true;
		return 0;
	}
	k = strtab__intern(b->fns, key, (size_t)n);
	free(key);
	if (k < 0) {
		b->oom = true;
		return 0;
	}
	if ((size_t)k == before) {
		int64_t ni = str_idx0(b, name);

		pb_uint(&b->msg, 1, (uint64_t)k + 1);
		pb_uint(&b->msg, 2, (uint64_t)ni);
		pb_uint(&b->msg, 3, (uint64_t)ni);
		if (file)
			pb_uint(&b->msg, 4, (uint64_t)str_idx(b, file, file_n));
		pb_msg(&b->functions, 5, &b->msg);
	}
	return (uint64_t)k + 1;
}

static const struct frame_info *frame_info(struct pprof_b *b, uint32_t idx)
{
	struct frame_info *f = &b->fi[idx < b->p->ftbl_cnt ? idx : b->p->ftbl_cnt];
	struct export_frame ef;
	char *name;

	if (f->done)
		return f;
	export_frame__parse(dhat_profile__frame(b->p, idx), &ef);
	/* The display name of folded output; "???" in a known object names the object. */
	name = export_frame__name(dhat_profile__frame(b->p, idx), false);
	if (!name) {
		b->oom = true;
		return f;
	}
	f->has_addr = ef.has_addr;
	f->addr = ef.addr;
	f->line = ef.line;
	f->col = ef.col;
	if (ef.obj)
		f->map_id = mapping_id(b, ef.obj, ef.obj_len);
	if (ef.file)
		f->fn_id = function_id(b, name, ef.file, ef.file_len);
	else
		f->fn_id = function_id(b, name, ef.obj, ef.obj_len);
	free(name);
	f->done = true;
	return f;
}

/* Location id for frames fs[0..n) (one address, or one address-less frame), creating the
 * Location on first use. */
static uint64_t location_id(struct pprof_b *b, const uint32_t *fs, size_t n)
{
	char key[32 * 12];
	size_t before = b->locs->cnt, kl = 0;
	const struct frame_info *f0 = frame_info(b, fs[0]);
	uint64_t map_id = 0;
	int64_t k;

	/* The key is the frame indices: same text, same location. Runs longer than the key
	 * buffer (never seen: inlining depth > 30) fall back to their first frames. */
	for (size_t i = 0; i < n && kl + 12 < sizeof(key); i++)
		kl += (size_t)snprintf(key + kl, sizeof(key) - kl, "%" PRIu32 ",", fs[i]);
	k = strtab__intern(b->locs, key, kl);
	if (k < 0) {
		b->oom = true;
		return 0;
	}
	if ((size_t)k != before)
		return (uint64_t)k + 1;
	for (size_t i = 0; i < n; i++) {
		const struct frame_info *f = frame_info(b, fs[i]);

		pb_uint(&b->sub, 1, f->fn_id);
		pb_uint(&b->sub, 2, f->line);
		pb_uint(&b->sub, 3, f->col);
		pb_msg(&b->packed, 4, &b->sub);
		if (!map_id)
			map_id = f->map_id;
	}
	pb_uint(&b->msg, 1, (uint64_t)k + 1);
	pb_uint(&b->msg, 2, map_id);
	pb_uint(&b->msg, 3, f0->addr);
	pb_raw(&b->msg, b->packed.d, b->packed.len);
	b->packed.len = 0;
	pb_msg(&b->locations, 4, &b->msg);
	return (uint64_t)k + 1;
}

/* The location of a PP without frames; created on first use. */
static uint64_t unknown_location(struct pprof_b *b)
{
	if (!b->unknown_loc) {
		uint64_t fn = function_id(b, "[unknown]", NULL, 0);
		int64_t k = strtab__intern(b->locs, "[unknown]", 9);

		if (k < 0) {
			b->oom = true;
			return 0;
		}
		b->unknown_loc = (uint64_t)k + 1;
		pb_uint(&b->sub, 1, fn);
		pb_msg(&b->packed, 4, &b->sub);
		pb_uint(&b->msg, 1, b->unknown_loc);
		pb_raw(&b->msg, b->packed.d, b->packed.len);
		b->packed.len = 0;
		pb_msg(&b->locations, 4, &b->msg);
	}
	return b->unknown_loc;
}

static void add_sample(struct pprof_b *b, const struct dhat_pp *pp)
{
	const uint32_t *fs = dhat_profile__pp_fs(b->p, pp);
	struct pbuf ids = {0};
	uint64_t vals[] = {pp->tbk, pp->tb, pp->ebk, pp->eb, pp->gbk, pp->gb};

	/* No frames at all: one "[unknown]" location, as folded output, so that pprof's
	 * nodes still add up to the total. */
	if (!pp->fs_cnt)
		pb_varint(&ids, unknown_location(b));
	for (size_t j = export_plumbing__cut(b->plumbing, b->p, pp); j < pp->fs_cnt;) {
		const struct frame_info *f = frame_info(b, fs[j]);
		size_t n = 1;

		/* Inlined frames: the following frames with this frame's address. */
		while (f->has_addr && j + n < pp->fs_cnt) {
			const struct frame_info *g = frame_info(b, fs[j + n]);

			if (!g->has_addr || g->addr != f->addr)
				break;
			n++;
		}
		pb_varint(&ids, location_id(b, fs + j, n));
		j += n;
	}
	if (ids.oom)
		b->oom = true;
	pb_bytes(&b->sub, 1, ids.d, ids.len);
	free(ids.d);
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		pb_varint(&b->packed, vals[i]);
	pb_msg(&b->sub, 2, &b->packed);
	pb_msg(&b->out, 2, &b->sub);
}

/* te in nanoseconds if tu is a time unit, else 0. */
static uint64_t duration_ns(const struct dhat_profile *p)
{
	static const struct {
		const char *tu;
		uint64_t ns;
	} units[] = {
	    {"ns", 1}, {"us", 1000}, {"\xc2\xb5s", 1000}, {"ms", 1000000}, {"s", 1000000000}};

	for (size_t i = 0; p->tu && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(p->tu, units[i].tu))
			return p->te * units[i].ns;
	return 0;
}

int export__pprof_encode(const struct dhat_profile *p, uint8_t **buf, size_t *len)
{
	return export__pprof_encode_opts(p, NULL, buf, len);
}

/* The Profile into *buf (sink NULL) or written to sink as it is built (*buf stays NULL). */
static int encode(const struct dhat_profile *p, const struct export_opts *opts, FILE *sink,
		  uint8_t **buf, size_t *len)
{
	struct pprof_b b = {.p = p, .out = {.sink = sink}};
	char *comment = NULL, est[160];
	int err;

	*buf = NULL;
	*len = 0;
	b.strs = strtab__new();
	b.fns = strtab__new();
	b.locs = strtab__new();
	b.maps = strtab__new();
	b.fi = calloc(p->ftbl_cnt + 1, sizeof(*b.fi));
	err = export_plumbing__mark(p, opts, &b.plumbing);
	if (err)
		goto cleanup;
	if (!b.strs || !b.fns || !b.locs || !b.maps || !b.fi) {
		err = -ENOMEM;
		goto cleanup;
	}
	str_idx(&b, "", 0); /* string_table[0] must be "" */

	value_type(&b, &b.out, 1, "alloc_objects", "count");
	value_type(&b, &b.out, 1, "alloc_space", "bytes");
	value_type(&b, &b.out, 1, "inuse_objects", "count");
	value_type(&b, &b.out, 1, "inuse_space", "bytes");
	/* Not Go's: the heap at its peak (t-gmax), `go tool pprof -sample_index=gmax_space`. */
	value_type(&b, &b.out, 1, "gmax_objects", "count");
	value_type(&b, &b.out, 1, "gmax_space", "bytes");
	/* Mapping 1: the traced program (cmd's first word). No location points into it (frames
	 * do not say which object they are in unless "(in /obj)"), but pprof names the profile
	 * after its first mapping ("File: prog") rather than after some library. */
	if (p->cmd && *p->cmd && *p->cmd != ' ')
		mapping_id(&b, p->cmd, strcspn(p->cmd, " "));
	for (size_t i = 0; i < p->pp_cnt; i++)
		add_sample(&b, &p->pps[i]);

	pb_raw(&b.out, b.mappings.d, b.mappings.len);
	pb_raw(&b.out, b.locations.d, b.locations.len);
	pb_raw(&b.out, b.functions.d, b.functions.len);
	pb_uint(&b.out, 10, duration_ns(p));
	value_type(&b, &b.out, 11, "space", "bytes");
	pb_uint(&b.out, 12, 1);
	/* Comments (`pprof -comments`): where the data came from. */
	if (asprintf(&comment, "DHAT %s profile of `%s` (pid %" PRId64 "), converted by tracer",
		     p->mode ? p->mode : "?", p->cmd ? p->cmd : "?", p->pid) < 0) {
		comment = NULL;
		err = -ENOMEM;
		goto cleanup;
	}
	pb_key(&b.out, 13, WT_VARINT);
	pb_varint(&b.out, (uint64_t)str_idx0(&b, comment));
	if (*export__estimates(p, "", est, sizeof(est))) { /* --sample-bytes: estimates */
		pb_key(&b.out, 13, WT_VARINT);
		pb_varint(&b.out, (uint64_t)str_idx0(&b, est));
	}
	/* pprof shows the LAST sample type by default: keep that inuse_space (leaks), as for a
	 * Go heap profile, now that gmax_* come after it. */
	pb_uint(&b.out, 14, (uint64_t)str_idx0(&b, "inuse_space"));
	/* Last: every string has been interned by now. */
	for (size_t i = 0; i < b.strs->cnt; i++)
		pb_bytes(&b.out, 6, b.strs->strs[i], strlen(b.strs->strs[i]));

	if (b.oom || b.out.oom || b.mappings.oom || b.locations.oom || b.functions.oom ||
	    b.msg.oom || b.sub.oom || b.packed.oom) {
		err = -ENOMEM;
		goto cleanup;
	}
	pb_flush(&b.out);
	if ((err = b.out.werr))
		goto cleanup;
	if (!sink) {
		*buf = b.out.d;
		*len = b.out.len;
		b.out.d = NULL;
	}
	err = 0;
cleanup:
	free(comment);
	free(b.out.d);
	free(b.mappings.d);
	free(b.locations.d);
	free(b.functions.d);
	free(b.msg.d);
	free(b.sub.d);
	free(b.packed.d);
	free(b.fi);
	free(b.plumbing);
	strtab__free(b.strs);
	strtab__free(b.fns);
	strtab__free(b.locs);
	strtab__free(b.maps);
	return err;
}

int export__pprof_encode_opts(const struct dhat_profile *p, const struct export_opts *opts,
			      uint8_t **buf, size_t *len)
{
	return encode(p, opts, NULL, buf, len);
}

int export__pprof_write(const struct dhat_profile *p, FILE *out, const struct export_opts *opts)
{
	uint8_t *buf;
	size_t len;

	return encode(p, opts, out, &buf, &len);
}

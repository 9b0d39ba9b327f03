/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * export_int - helpers shared by the exporters (export_*.c) only: frame-string parsing,
 * the collapsed-stack set behind both folded output and flame graphs, XML escaping and
 * number formatting. Not a public interface.
 */
#ifndef TRACER_EXPORT_INT_H
#define TRACER_EXPORT_INT_H

#include "export.h"
#include "strtab.h"

struct dhat_pp;

/* One DHAT frame string split into its parts. Pointers are slices of the parsed text (not
 * NUL-terminated at *_len); absent parts are NULL with length 0. */
struct export_frame {
	uint64_t addr;	/* the 0xADDR prefix; 0 if none */
	bool has_addr;	/* text began with "0x<hex>: " */
	const char *fn; /* function name ("???" when unknown), or the whole text */
	size_t fn_len;
	const char *file; /* "(file:line)" / "(file:line:col)": source file */
	size_t file_len;
	uint32_t line, col; /* 0 if absent */
	const char *obj;    /* "(in /obj)": object path; NULL for "(in ???)" */
	size_t obj_len;
	const char *loc; /* the whole " (...)" suffix without the leading space, if any */
	size_t loc_len;
};

/* Split text into f. Never fails: text that matches no known form is all function name.
 * The location suffix is the LAST " (...)" that parses as "in X" or "X:N[:N]", so C++ names
 * with parentheses ("f(int) const", "(anonymous namespace)::g()") stay whole. */
void export_frame__parse(const char *text, struct export_frame *f);

/* Display name of a frame, for folded stacks and flame graphs: the function name (plus the
 * location suffix if location), "[obj-basename]" for "???" in a known object, with ';' made
 * ':' and control characters '?'. Returns a new string or NULL (ENOMEM). */
char *export_frame__name(const char *text, bool location);

/* Which module a frame's code is in, for flame graph colours. */
enum export_module {
	EXPORT_MOD_EXE = 0, /* the traced program (or a frame we cannot place otherwise) */
	EXPORT_MOD_LIBC,    /* libc, libm, libpthread, the dynamic loader */
	EXPORT_MOD_LIB,	    /* any other shared library */
	EXPORT_MOD_UNKNOWN, /* "???" with no object */
	EXPORT_MOD_RUNTIME, /* a language runtime: libpython*, python3* (the interpreter) */
	EXPORT_MOD_CNT,
};

/* A collapsed stack: interned names, outermost first, with its summed weights. There is one
 * per PP at once, so 24 bytes: a name is a 32-bit index into the set's name table, and the
 * frames are an offset into the set's pool or the profile's (read them with
 * export_stack__id/__mod/__name). */
struct export_stack {
	uint32_t off; /* where its frames start: export_stacks' pool, or its fs (see there) */
	uint32_t cnt; /* frames */
	uint64_t w;   /* the chosen weight */
	uint64_t w2;  /* its companion count (blocks for bytes, bytes for blocks) */
};

struct export_stacks {
	struct export_stack *v; /* sorted frame by frame (strcmp), identical stacks merged */
	size_t cnt;
	uint64_t total, total2;	  /* Σw, Σw2 over every PP (zero-weight ones included) */
	const char *unit, *unit2; /* e.g. "bytes", "blocks" (the profile's bsu/bksu if set) */
	struct strtab *names;
	/* Pool-backed (a diff's set): every stack's name indices, outermost first, at off. */
	uint32_t *pool;
	/* Profile-backed (export_stacks__build_opts; pool NULL): a stack's frames are the
	 * profile's frame indices fs[off .. off + cnt), innermost first (its PP's past the
	 * plumbing), named through name_of, so that no second copy of every PP's frames is
	 * made (the reader's memory bound, docs/BENCHMARKS.md); off EXPORT_NO_FRAMES: a PP
	 * without frames, one "[unknown]". Frame indices at or past ftbl_cnt read as ftbl_cnt. */
	const uint32_t *fs;
	size_t ftbl_cnt;
	uint32_t *name_of;     /* [ftbl_cnt + 1]: frame index -> names index + 1 (0: unused) */
	const uint8_t *mod_of; /* [ftbl_cnt + 1]: frame index -> enum export_module */
	uint32_t unknown;      /* names index of "[unknown]" */
};

#define EXPORT_NO_FRAMES UINT32_MAX

/* The slot of frame index f in name_of and mod_of: itself, or ftbl_cnt when out of range. */
static inline uint32_t export_stacks__slot(const struct export_stacks *s, uint32_t f)
{
	return f < s->ftbl_cnt ? f : (uint32_t)s->ftbl_cnt;
}

/* The name_of/mod_of slot of frame j (outermost first) of a profile-backed stack. */
static inline uint32_t export_stack__frame(const struct export_stacks *s,
					   const struct export_stack *st, size_t j)
{
	return export_stacks__slot(s, s->fs[st->off + st->cnt - 1 - j]);
}

/* Name index j (outermost first) of stack st: names->strs[it]. */
static inline uint32_t export_stack__id(const struct export_stacks *s,
					const struct export_stack *st, size_t j)
{
	if (s->pool)
		return s->pool[st->off + j];
	if (st->off == EXPORT_NO_FRAMES)
		return s->unknown;
	return s->name_of[export_stack__frame(s, st, j)] - 1;
}

/* The enum export_module of frame j (its first PP's frame), or -1: none (a diff's set). */
static inline int export_stack__mod(const struct export_stacks *s, const struct export_stack *st,
				    size_t j)
{
	if (s->pool || !s->mod_of)
		return -1;
	if (st->off == EXPORT_NO_FRAMES)
		return EXPORT_MOD_UNKNOWN;
	return s->mod_of[export_stack__frame(s, st, j)];
}

/* Name j (outermost first) of stack st of s. */
static inline const char *export_stack__name(const struct export_stacks *s,
					     const struct export_stack *st, size_t j)
{
	return s->names->strs[export_stack__id(s, st, j)];
}

/* Collapse p's PPs under opts (weight, location, plumbing; NULL: the defaults). Zero-weight
 * stacks are dropped. Returns 0, -EINVAL or -ENOMEM; on success *out is freed with
 * export_stacks__free. */
int export_stacks__build_opts(const struct dhat_profile *p, const struct export_opts *opts,
			      struct export_stacks **out);

/* Plumbing marks of p's frame table under o (export_plumbing.c): *out is a new array of
 * ftbl_cnt + 1 flags, or NULL when o keeps plumbing. Returns 0 or -ENOMEM. */
int export_plumbing__mark(const struct dhat_profile *p, const struct export_opts *o, bool **out);

/* How many innermost frames of pp are plumbing under marks (0 for NULL marks, and 0 when
 * every frame is, so that no sample loses all its frames). */
size_t export_plumbing__cut(const bool *marks, const struct dhat_profile *p,
			    const struct dhat_pp *pp);
void export_stacks__free(struct export_stacks *s);

/* Sort s->v[0..n) frame by frame and merge identical stacks (summing w, w2) into s->cnt. */
void export_stacks__merge(struct export_stacks *s, size_t n);

/* ---- flame graphs (export_svg.c), shared by the plain and the differential one ---------- */

/* One rectangle: a (call path, function), spanning [start, end) of the weight axis. */
struct flame_node {
	const char *name; /* borrowed from the stack set */
	uint8_t mod;	  /* enum export_module of the frame (colour) */
	size_t depth;	  /* 0: "all" */
	uint64_t start, end;
	uint64_t w2; /* Σ companion weight (export_stack.w2) of the stacks below */
};

/* How one frame looks: its fill, and the figures line of its tooltip (after its name). */
struct flame_look {
	char color[32];
	char tip[192];
};

/* Fills *look for nd; NULL in a style: the "mem" palette by name, "W unit (P%), W2 unit2". */
typedef void (*flame_look_fn)(void *ctx, const struct flame_node *nd, const struct export_stacks *s,
			      struct flame_look *look);

struct flame_style {
	const char *title, *subtitle; /* plain text (escaped when written); subtitle wrapped */
	const char *totals;	      /* a line under the subtitle; NULL: none */
	bool module_legend;	      /* a row of the module colours under them */
	const char *empty_what;	      /* "no data: every program point has 0 <empty_what>" */
	flame_look_fn look;
	void *ctx; /* handed to look */
};

/* The frame spans of s, "all" first, in flamegraph.pl's flow order: (*nodes)[0..*cnt), the
 * deepest stack in *max_depth. With prune, only the frames flame__write draws (at least
 * MIN_W px wide) are kept: memory for what is drawn, not for every frame of every stack.
 * Returns 0 or -ENOMEM; *nodes is freed by the caller. */
int flame__layout(const struct export_stacks *s, bool prune, struct flame_node **nodes, size_t *cnt,
		  size_t *max_depth);

/* The self-contained interactive SVG of a layout (see export__flamegraph_svg). Returns 0
 * or -EIO. */
int flame__write(FILE *out, const struct export_stacks *s, const struct flame_node *nodes,
		 size_t cnt, size_t depth, const struct flame_style *st);

/* Write s to out as XML character data / attribute value: & < > " ' escaped, control
 * characters and invalid UTF-8 bytes replaced by '?', so the document stays well-formed. */
void export_xml__puts(FILE *out, const char *s);

/* Layout of text in lines of at most cols bytes, broken after spaces where it can (a word
 * longer than a line is cut at a UTF-8 boundary), at most max_lines (the last one then ends
 * with "..."). If out is not NULL, each line is written as <text ATTRS x=X y=Y+i*LINE_H>.
 * Returns the number of lines (0 for empty text). */
int export_svg__wrap(FILE *out, const char *text, const char *attrs, double x, double y,
		     double line_h, size_t cols, int max_lines);

/* v with thousands separators: "1,234,567". buf needs 27 bytes. Returns buf. */
char *export__fmt_u64(char *buf, uint64_t v);

/* What every export of a sampled profile (--sample-bytes) says about its figures, once:
 * dhat_sampled__label() with sep after it, or "" for an exact profile. buf is returned. */
const char *export__estimates(const struct dhat_profile *p, const char *sep, char *buf,
			      size_t sz);

#endif

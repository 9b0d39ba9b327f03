// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cfi_compile - .eh_frame / .debug_frame -> unwind rows. Two passes over the section: the
 * first lists the FDEs (range and offset), the second runs each one, in pc order, through
 * the DW_CFA interpreter and emits rows. Format: DWARF 5 section 6.4 and the LSB's
 * .eh_frame chapter; pointer encodings as GCC's unwind-pe.h has them.
 */
#include "cfi_compile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hash.h"

/* x86_64 DWARF register numbers. */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RA	16

/* remember_state depth: compilers nest it once or twice; deeper is refused (hostile). */
#define STATE_STACK_MAX 32

/* A bounded reader: a read past end sets bad and yields 0, so callers check once. */
struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t rd_bytes(struct rd *r, unsigned n)
{
	uint64_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return 0;
	}
	for (unsigned i = 0; i < n; i++) /* little-endian: x86_64 only */
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

/* A LEB128 number: its bits (beyond 64 dropped) and, in *last, its last byte; *shift the
 * bits it had. */
static uint64_t rd_leb(struct rd *r, unsigned *shift, uint8_t *last)
{
	uint64_t v = 0;

	*shift = 0;
	*last = 0;
	while (!r->bad) {
		if (r->p >= r->end) {
			r->bad = true;
			break;
		}
		*last = *r->p++;
		if (*shift < 64)
			v |= (uint64_t)(*last & 0x7f) << *shift;
		*shift += 7;
		if (!(*last & 0x80))
			return v;
	}
	return 0;
}

static uint64_t rd_uleb(struct rd *r)
{
	unsigned shift;
	uint8_t last;

	return rd_leb(r, &shift, &last);
}

static int64_t rd_sleb(struct rd *r)
{
	unsigned shift;
	uint8_t last;
	uint64_t v = rd_leb(r, &shift, &last);

	if (!r->bad && shift < 64 && (last & 0x40))
		v |= ~0ULL << shift; /* sign-extend */
	return (int64_t)v;
}

/* DW_EH_PE_* */
#define PE_OMIT	    0xff
#define PE_FMT_MASK 0x0f
#define PE_APP_MASK 0x70
#define PE_PCREL    0x10
#define PE_INDIRECT 0x80

/* A pointer in encoding enc; base is the ELF address of r->p (for pcrel). Encodings we
 * cannot resolve (textrel, datarel, aligned: not used on x86_64) set bad. */
static uint64_t rd_enc(struct rd *r, uint8_t enc, uint64_t base)
{
	uint64_t v;

	if (enc == PE_OMIT)
		return 0;
	switch (enc & PE_FMT_MASK) {
	case 0x00: v = rd_bytes(r, 8); break;			  /* absptr */
	case 0x01: v = rd_uleb(r); break;			  /* uleb128 */
	case 0x02: v = rd_bytes(r, 2); break;			  /* udata2 */
	case 0x03: v = rd_bytes(r, 4); break;			  /* udata4 */
	case 0x04: v = rd_bytes(r, 8); break;			  /* udata8 */
	case 0x09: v = (uint64_t)rd_sleb(r); break;		  /* sleb128 */
	case 0x0a: v = (uint64_t)(int16_t)rd_bytes(r, 2); break; /* sdata2 */
	case 0x0b: v = (uint64_t)(int32_t)rd_bytes(r, 4); break; /* sdata4 */
	case 0x0c: v = rd_bytes(r, 8); break;			  /* sdata8 */
	default: r->bad = true; return 0;
	}
	switch (enc & PE_APP_MASK) {
	case 0x00: return v;
	case PE_PCREL: return v + base;
	default: r->bad = true; return 0;
	}
}

/* A register's rule, for the two registers a row carries (rbp, return address). */
enum rule_kind { RULE_SAME, RULE_UNDEF, RULE_OFFSET, RULE_OTHER };

struct rule {
	uint8_t kind; /* enum rule_kind */
	int64_t n;    /* RULE_OFFSET: saved at CFA + n */
};

enum cfa_kind { CFA_REGOFF, CFA_PLT, CFA_OTHER };

struct state {
	uint8_t cfa_kind; /* enum cfa_kind */
	uint8_t plt_ge;	  /* CFA_PLT: the threshold literal */
	uint64_t cfa_reg; /* CFA_REGOFF: as read (a ULEB128, not cut to 32 bits) */
	int64_t cfa_off;  /* CFA_REGOFF, CFA_PLT */
	struct rule rbp, ra;
};

/* libdw's x86_64 ABI defaults (backends/x86_64_cfi.c), under every CIE. */
static const struct state abi_state = {
	.cfa_kind = CFA_REGOFF,
	.cfa_reg = REG_RSP,
	.cfa_off = 8,
	.rbp = {RULE_SAME, 0},
	.ra = {RULE_OFFSET, -8},
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc;     /* .eh_frame: encoding of the FDE's pc_begin */
	uint8_t addr_sz;     /* .debug_frame: size of an address */
	bool aug_z;	     /* augmentation data present (FDEs carry a length too) */
	bool signal;	     /* 'S': a signal trampoline */
	uint64_t ra_reg;
	const uint8_t *insn, *insn_end;
};

/* One entry's frame: [start, end) in the section, the CIE id/pointer field's offset. */
struct entry {
	size_t start, body, end, id_off;
	uint64_t id;
	bool is64;
};

struct cie_memo;

struct ctx {
	const uint8_t *sec;
	size_t len;
	uint64_t addr;
	bool is_eh;
	struct cfi_rows *out;
	struct cfi_compile_stats *st;
	struct cie_memo *cies; /* every CIE offset asked for, by hash (cie_get) */
	size_t cies_cnt, cies_cap;
};

/* The entry at off: false when its length runs past the section (or it is a terminator). */
static bool entry_at(const struct ctx *c, size_t off, struct entry *e)
{
	struct rd r = {c->sec + off, c->sec + c->len, false};
	uint64_t len = rd_bytes(&r, 4);
	size_t left;

	e->start = off;
	e->is64 = len == 0xffffffffu;
	if (e->is64)
		len = rd_bytes(&r, 8);
	if (r.bad || !len)
		return false;
	left = (size_t)(r.end - r.p);
	if (len > left)
		return false;
	e->body = (size_t)(r.p - c->sec);
	e->end = e->body + (size_t)len;
	e->id_off = e->body;
	r.end = c->sec + e->end;
	e->id = rd_bytes(&r, e->is64 ? 8 : 4);
	return !r.bad;
}

static bool entry_is_cie(const struct ctx *c, const struct entry *e)
{
	if (c->is_eh)
		return e->id == 0;
	return e->is64 ? e->id == ~0ULL : e->id == 0xffffffffu;
}

/* The CIE an FDE names: its section offset, or false when it points outside. */
static bool fde_cie_off(const struct ctx *c, const struct entry *e, size_t *off)
{
	if (c->is_eh) {
		/* .eh_frame: a distance back from the pointer field itself. */
		if (e->id > e->id_off)
			return false;
		*off = e->id_off - (size_t)e->id;
	} else {
		if (e->id >= c->len)
			return false;
		*off = (size_t)e->id;
	}
	return true;
}

/* Parse the CIE at off. false: not a readable CIE. */
static bool parse_cie(const struct ctx *c, size_t off, struct cie *cie)
{
	struct entry e;
	struct rd r;
	const char *aug;
	size_t aug_len;
	uint8_t version;

	if (!entry_at(c, off, &e) || !entry_is_cie(c, &e))
		return false;
	r = (struct rd){c->sec + e.id_off + (e.is64 ? 8 : 4), c->sec + e.end, false};
	memset(cie, 0, sizeof(*cie));
	cie->fde_enc = 0; /* absptr */
	cie->addr_sz = 8;
	version = (uint8_t)rd_bytes(&r, 1);
	if (r.bad || (version != 1 && version != 3 && version != 4))
		return false;
	aug = (const char *)r.p;
	aug_len = strnlen(aug, (size_t)(r.end - r.p));
	if (aug_len == (size_t)(r.end - r.p))
		return false; /* no NUL inside the entry */
	r.p += aug_len + 1;
	if (version == 4) {
		cie->addr_sz = (uint8_t)rd_bytes(&r, 1);
		if (rd_bytes(&r, 1) != 0 || cie->addr_sz != 8) /* segment selectors: never */
			return false;
	}
	cie->code_align = rd_uleb(&r);
	cie->data_align = rd_sleb(&r);
	cie->ra_reg = version == 1 ? rd_bytes(&r, 1) : rd_uleb(&r);
	if (aug[0] == 'z') {
		uint64_t n = rd_uleb(&r);
		const uint8_t *data_end;

		if (r.bad || n > (uint64_t)(r.end - r.p))
			return false;
		data_end = r.p + n;
		cie->aug_z = true;
		for (size_t i = 1; i < aug_len && !r.bad; i++) {
			switch (aug[i]) {
			case 'L': rd_bytes(&r, 1); break; /* the LSDA's encoding: FDE data, skipped */
			case 'R': cie->fde_enc = (uint8_t)rd_bytes(&r, 1); break;
			case 'S': cie->signal = true; break;
			case 'P': {
				uint8_t enc = (uint8_t)rd_bytes(&r, 1);

				/* The personality routine: read to skip it (indirect or not). */
				rd_enc(&r, enc & (uint8_t)~PE_INDIRECT,
				       c->addr + (uint64_t)(r.p - c->sec));
				break;
			}
			default: i = aug_len; break; /* unknown: the length lets us skip it */
			}
		}
		if (r.bad || r.p > data_end)
			return false;
		r.p = data_end;
	} else {
		/* Without 'z' only letters that carry no data can be skipped: gas writes "S" in
		 * .debug_frame. "eh" and other old augmentations: layout unknown. */
		for (size_t i = 0; i < aug_len; i++) {
			if (aug[i] != 'S')
				return false;
			cie->signal = true;
		}
	}
	if (r.bad || !cie->code_align)
		return false;
	cie->insn = r.p;
	cie->insn_end = r.end;
	return true;
}

/* An FDE's range and instructions. false: unreadable. */
struct fde {
	uint64_t begin, end;
	const uint8_t *insn, *insn_end;
};

static bool parse_fde(const struct ctx *c, const struct entry *e, const struct cie *cie,
		      struct fde *f)
{
	struct rd r = {c->sec + e->id_off + (e->is64 ? 8 : 4), c->sec + e->end, false};
	uint64_t range;

	if (c->is_eh) {
		f->begin = rd_enc(&r, cie->fde_enc, c->addr + (uint64_t)(r.p - c->sec));
		/* The range: the same format, never relative to anything. */
		range = rd_enc(&r, cie->fde_enc & PE_FMT_MASK, 0);
	} else {
		f->begin = rd_bytes(&r, cie->addr_sz);
		range = rd_bytes(&r, cie->addr_sz);
	}
	if (cie->aug_z) {
		uint64_t n = rd_uleb(&r);

		if (r.bad || n > (uint64_t)(r.end - r.p))
			return false;
		r.p += n;
	}
	if (r.bad || range > ~0ULL - f->begin)
		return false;
	f->end = f->begin + range;
	f->insn = r.p;
	f->insn_end = r.end;
	return true;
}

static bool fits16(int64_t v)
{
	return v >= INT16_MIN && v <= INT16_MAX;
}

/* The row of a state; *far set when an offset did not fit. */
static struct unwind_row row_of(const struct state *s, bool signal, bool *far)
{
	struct unwind_row row = {0};

	*far = false;
	if (signal)
		goto unsupported;
	if (s->ra.kind == RULE_UNDEF) {
		row.cfa_rule = UNWIND_CFA_END;
		return row;
	}
	if (s->ra.kind != RULE_OFFSET || s->ra.n != -8)
		goto unsupported;
	if (s->cfa_kind == CFA_REGOFF && (s->cfa_reg == REG_RSP || s->cfa_reg == REG_RBP))
		row.cfa_rule = s->cfa_reg == REG_RSP ? UNWIND_CFA_RSP : UNWIND_CFA_RBP;
	else if (s->cfa_kind == CFA_PLT)
		row.cfa_rule = UNWIND_CFA_PLT, row.plt_ge = s->plt_ge;
	else
		goto unsupported;
	if (!fits16(s->cfa_off)) {
		*far = true;
		goto unsupported;
	}
	row.cfa_off = (int16_t)s->cfa_off;
	if (s->rbp.kind == RULE_SAME) {
		row.rbp_rule = UNWIND_RBP_SAME;
	} else if (s->rbp.kind == RULE_OFFSET && fits16(s->rbp.n)) {
		row.rbp_rule = UNWIND_RBP_CFA_OFF;
		row.rbp_off = (int16_t)s->rbp.n;
	} else {
		*far = s->rbp.kind == RULE_OFFSET;
		row.rbp_rule = UNWIND_RBP_UNSUPPORTED;
	}
	return row;
unsupported:
	row = (struct unwind_row){.cfa_rule = UNWIND_CFA_UNSUPPORTED};
	return row;
}

static bool same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->cfa_rule == b->cfa_rule && a->rbp_rule == b->rbp_rule &&
	       a->cfa_off == b->cfa_off && a->rbp_off == b->rbp_off && a->plt_ge == b->plt_ge;
}

/* Append the row for [pc, ...): a row at the same pc is replaced, and a row equal to the
 * one before it is merged into it. */
static int emit(struct ctx *c, uint64_t pc, struct unwind_row row, bool far)
{
	struct cfi_rows *o = c->out;

	row.pc = (uint32_t)pc; /* callers keep pc below 2^32 (fde_far_cnt) */
	if (o->n && o->rows[o->n - 1].pc == row.pc)
		o->n--;
	if (o->n && same_rule(&o->rows[o->n - 1], &row))
		return 0;
	if (grow__array(&o->rows, &o->cap, o->n + 1, sizeof(row)))
		return -ENOMEM;
	o->rows[o->n++] = row;
	if (far)
		c->st->too_far_off_cnt++;
	return 0;
}

static int emit_state(struct ctx *c, uint64_t pc, const struct state *s, bool signal)
{
	bool far;
	struct unwind_row row = row_of(s, signal, &far);

	return emit(c, pc, row, far);
}

/* Is the CFA expression [p, end) the .plt one? Then CFA = rsp + *off + ((rip & 15) >= *ge
 * ? 8 : 0): DW_OP_breg7 N; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_litG; DW_OP_ge;
 * DW_OP_lit3; DW_OP_shl; DW_OP_plus (binutils' eh_frame of .plt). G is 11 in the lazy .plt,
 * 9 in binutils 2.40's IBT .plt (-z ibtplt); any 0..15 has the same meaning. */
static bool plt_expr(const uint8_t *p, const uint8_t *end, int64_t *off, uint8_t *ge)
{
	static const uint8_t tail[] = {0x2a, 0x33, 0x24, 0x22}; /* ge, lit3, shl, plus */
	struct rd r = {p, end, false};

	if (rd_bytes(&r, 1) != 0x77) /* breg7 */
		return false;
	*off = rd_sleb(&r);
	if (rd_bytes(&r, 1) != 0x80 || rd_sleb(&r) != 0) /* breg16 0 */
		return false;
	if (rd_bytes(&r, 1) != 0x3f || rd_bytes(&r, 1) != 0x1a) /* lit15, and */
		return false;
	*ge = (uint8_t)(rd_bytes(&r, 1) - 0x30); /* lit0..lit15 */
	if (r.bad || *ge > 15 || (size_t)(r.end - r.p) != sizeof(tail))
		return false;
	return !memcmp(r.p, tail, sizeof(tail));
}

/* The interpreter's run over one instruction list. */
struct run {
	struct state s, init; /* current; after the CIE's initial instructions */
	struct state stack[STATE_STACK_MAX];
	unsigned depth;
	uint64_t loc, end; /* current location; the FDE's end */
	bool emit;	   /* false while running the CIE's instructions */
	bool signal;
};

static void set_rule(struct run *u, uint64_t reg, uint8_t kind, int64_t n)
{
	struct rule rl = {kind, n};

	if (reg == REG_RBP)
		u->s.rbp = rl;
	else if (reg == REG_RA)
		u->s.ra = rl;
}

static void restore_rule(struct run *u, uint64_t reg)
{
	if (reg == REG_RBP)
		u->s.rbp = u->emit ? u->init.rbp : abi_state.rbp;
	else if (reg == REG_RA)
		u->s.ra = u->emit ? u->init.ra : abi_state.ra;
}

/* Move to loc + delta, emitting the row of [loc, new loc). 1 when past the FDE's end. */
static int advance(struct ctx *c, struct run *u, uint64_t to)
{
	int err;

	if (!u->emit || to <= u->loc)
		return to < u->loc && u->emit ? -EINVAL : 0;
	if (u->loc < u->end) {
		err = emit_state(c, u->loc, &u->s, u->signal);
		if (err)
			return err;
	}
	u->loc = to;
	return u->loc >= u->end ? 1 : 0;
}

/* v * f, or bad (and 0) when it overflows: a factored offset from a hostile file. */
static int64_t mul(struct rd *r, int64_t v, int64_t f)
{
	int64_t out;

	if (__builtin_mul_overflow(v, f, &out)) {
		r->bad = true;
		return 0;
	}
	return out;
}

/* An unsigned operand as a signed offset (bad when it does not fit). */
static int64_t rd_uoff(struct rd *r)
{
	uint64_t v = rd_uleb(r);

	if (v > INT64_MAX) {
		r->bad = true;
		return 0;
	}
	return (int64_t)v;
}

/* A block operand (expression): its bytes, skipped. */
static const uint8_t *rd_block(struct rd *r, const uint8_t **end)
{
	uint64_t n = rd_uleb(r);
	const uint8_t *p = r->p;

	if (r->bad || n > (uint64_t)(r->end - r->p)) {
		r->bad = true;
		return NULL;
	}
	r->p += n;
	*end = r->p;
	return p;
}

/*
 * Run instructions [p, end) of an entry whose CIE is cie. 0 at the end of the list or
 * the FDE's range; -EINVAL on an instruction not understood or cut short; -ENOMEM.
 */
static int run_insns(struct ctx *c, struct run *u, const struct cie *cie, const uint8_t *p,
		     const uint8_t *end)
{
	struct rd r = {p, end, false};
	int err = 0;

	while (!err && r.p < r.end) {
		uint8_t op = (uint8_t)rd_bytes(&r, 1);
		uint64_t reg, delta;
		int64_t off;
		const uint8_t *bp, *bend;

		switch (op >> 6) {
		case 1: /* advance_loc: overflow-checked as advance_loc1..4 */
			if ((op & 0x3fu) > (~0ULL - u->loc) / cie->code_align)
				return -EINVAL;
			err = advance(c, u, u->loc + (op & 0x3fu) * cie->code_align);
			continue;
		case 2: /* offset */
			off = mul(&r, rd_uoff(&r), cie->data_align);
			set_rule(u, op & 0x3fu, RULE_OFFSET, off);
			goto next;
		case 3: /* restore */
			restore_rule(u, op & 0x3fu);
			continue;
		}
		switch (op) {
		case 0x00: break; /* nop */
		case 0x01: /* set_loc */
			delta = c->is_eh ? rd_enc(&r, cie->fde_enc,
						  c->addr + (uint64_t)(r.p - c->sec))
					 : rd_bytes(&r, cie->addr_sz);
			if (!r.bad)
				err = advance(c, u, delta);
			break;
		case 0x02: /* advance_loc1 */
		case 0x03: /* advance_loc2 */
		case 0x04: /* advance_loc4 */
			delta = rd_bytes(&r, op == 0x02 ? 1 : op == 0x03 ? 2 : 4);
			if (!r.bad && delta > (~0ULL - u->loc) / cie->code_align)
				return -EINVAL;
			if (!r.bad)
				err = advance(c, u, u->loc + delta * cie->code_align);
			break;
		case 0x05: /* offset_extended */
			reg = rd_uleb(&r);
			set_rule(u, reg, RULE_OFFSET, mul(&r, rd_uoff(&r), cie->data_align));
			break;
		case 0x11: /* offset_extended_sf */
			reg = rd_uleb(&r);
			set_rule(u, reg, RULE_OFFSET, mul(&r, rd_sleb(&r), cie->data_align));
			break;
		case 0x2f: /* GNU_negative_offset_extended */
			reg = rd_uleb(&r);
			set_rule(u, reg, RULE_OFFSET, mul(&r, -rd_uoff(&r), cie->data_align));
			break;
		case 0x06: /* restore_extended */
			restore_rule(u, rd_uleb(&r));
			break;
		case 0x07: /* undefined */
			set_rule(u, rd_uleb(&r), RULE_UNDEF, 0);
			break;
		case 0x08: /* same_value */
			set_rule(u, rd_uleb(&r), RULE_SAME, 0);
			break;
		case 0x09: /* register */
			reg = rd_uleb(&r);
			set_rule(u, reg, RULE_OTHER, (int64_t)rd_uleb(&r));
			break;
		case 0x14: /* val_offset */
		case 0x15: /* val_offset_sf */
			reg = rd_uleb(&r);
			if (op == 0x14)
				rd_uleb(&r);
			else
				rd_sleb(&r);
			set_rule(u, reg, RULE_OTHER, 0);
			break;
		case 0x10: /* expression */
		case 0x16: /* val_expression */
			reg = rd_uleb(&r);
			rd_block(&r, &bend);
			set_rule(u, reg, RULE_OTHER, 0);
			break;
		case 0x0a: /* remember_state */
			if (u->depth == STATE_STACK_MAX)
				return -EINVAL;
			u->stack[u->depth++] = u->s;
			break;
		case 0x0b: /* restore_state: the CFA too (DWARF 5, 6.4.2.4) */
			if (!u->depth)
				return -EINVAL;
			u->s = u->stack[--u->depth];
			break;
		case 0x0c: /* def_cfa */
		case 0x12: /* def_cfa_sf */
			u->s.cfa_kind = CFA_REGOFF;
			u->s.cfa_reg = rd_uleb(&r);
			u->s.cfa_off = op == 0x0c ? rd_uoff(&r)
						  : mul(&r, rd_sleb(&r), cie->data_align);
			break;
		case 0x0d: /* def_cfa_register: only over a register rule */
			if (u->s.cfa_kind != CFA_REGOFF)
				return -EINVAL;
			u->s.cfa_reg = rd_uleb(&r);
			break;
		case 0x0e: /* def_cfa_offset */
		case 0x13: /* def_cfa_offset_sf */
			if (u->s.cfa_kind == CFA_OTHER)
				return -EINVAL;
			u->s.cfa_off = op == 0x0e ? rd_uoff(&r)
						  : mul(&r, rd_sleb(&r), cie->data_align);
			break;
		case 0x0f: /* def_cfa_expression */
			bp = rd_block(&r, &bend);
			if (bp && plt_expr(bp, bend, &off, &u->s.plt_ge)) {
				u->s.cfa_kind = CFA_PLT;
				u->s.cfa_off = off;
			} else {
				u->s.cfa_kind = CFA_OTHER;
			}
			break;
		case 0x2e: /* GNU_args_size: the caller's business, not the CFA's */
			rd_uleb(&r);
			break;
		default:
			return -EINVAL;
		}
next:
		if (r.bad)
			return -EINVAL;
	}
	return err < 0 ? err : (r.bad ? -EINVAL : 0);
}

/*
 * A CIE's parse and the state after its initial instructions, each worked out once: every
 * FDE may name the same CIE, and a hostile one can be megabytes long (augmentation string,
 * initial instructions), so redoing them per FDE would be quadratic in the section. Only the
 * CIEs of the section's chain of entries are worked out (they do not overlap, so all of them
 * cost one read of the section); an FDE naming any other offset (inside another entry: a
 * hostile file's many CIEs nested in one another) is unreadable.
 */
struct cie_memo {
	size_t key;   /* the CIE's offset + 1; 0: an empty slot */
	bool ok;      /* parse_cie succeeded */
	int init_err; /* run_insns over the initial instructions: 0 or -EINVAL */
	struct cie cie;
	struct state init;
};

static size_t cie_slot(const struct ctx *c, size_t key)
{
	size_t i = (size_t)hash__mix64(key) & (c->cies_cap - 1);

	while (c->cies[i].key && c->cies[i].key != key)
		i = (i + 1) & (c->cies_cap - 1);
	return i;
}

/* The memo of the CIE at off: worked out when add (the chain's CIEs, cies_of_chain), else
 * one that is not ok when off is not a CIE of the chain. -ENOMEM only. */
static int cie_get(struct ctx *c, size_t off, bool add, const struct cie_memo **out)
{
	static const struct cie_memo off_chain = {.ok = false};
	struct cie_memo *m;
	struct run *u;
	size_t i;

	if (c->cies_cap && c->cies[i = cie_slot(c, off + 1)].key) {
		*out = &c->cies[i];
		return 0;
	}
	if (!add) {
		*out = &off_chain;
		return 0;
	}
	if (2 * (c->cies_cnt + 1) > c->cies_cap) { /* at most half full */
		size_t cap = c->cies_cap ? 2 * c->cies_cap : 64;
		struct cie_memo *old = c->cies, *v = calloc(cap, sizeof(*v));
		size_t old_cap = c->cies_cap;

		if (!v)
			return -ENOMEM;
		c->cies = v;
		c->cies_cap = cap;
		for (size_t k = 0; k < old_cap; k++)
			if (old[k].key)
				c->cies[cie_slot(c, old[k].key)] = old[k];
		free(old);
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	m = &c->cies[cie_slot(c, off + 1)];
	m->key = off + 1;
	m->ok = parse_cie(c, off, &m->cie);
	if (m->ok) {
		/* The CIE's instructions (no row: emit is false) from the ABI's defaults. */
		u->s = abi_state;
		u->signal = m->cie.signal;
		m->init_err = run_insns(c, u, &m->cie, m->cie.insn, m->cie.insn_end);
		m->init = u->s;
	}
	free(u);
	c->cies_cnt++;
	*out = m;
	return 0;
}

/* Emit the rows of one FDE [f->begin, f->end); m its CIE's memo. */
static int compile_fde(struct ctx *c, const struct cie_memo *m, const struct fde *f)
{
	const struct cie *cie = &m->cie;
	struct run *u = calloc(1, sizeof(*u));
	int err;

	if (!u)
		return -ENOMEM;
	u->signal = cie->signal;
	if (cie->signal)
		c->st->signal_frame_cnt++;
	err = m->init_err;
	u->s = m->init;
	u->init = u->s;
	u->emit = true;
	u->loc = f->begin;
	u->end = f->end;
	if (!err)
		err = run_insns(c, u, cie, f->insn, f->insn_end);
	if (err == -EINVAL) {
		/* From here on nothing is known: BPF must stop rather than guess. */
		c->st->fde_bad_insn_cnt++;
		struct unwind_row bad = {.cfa_rule = UNWIND_CFA_UNSUPPORTED};

		err = u->loc < u->end ? emit(c, u->loc, bad, false) : 0;
	} else if (err >= 0) {
		c->st->fde_ok_cnt++;
		err = u->loc < u->end ? emit_state(c, u->loc, &u->s, u->signal) : 0;
	}
	free(u);
	return err;
}

struct fde_ref {
	uint64_t begin;
	size_t off;
};

static int fde_ref_cmp(const void *a, const void *b)
{
	const struct fde_ref *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Pass 1: every FDE's begin and offset, in section order; with cies_only, rather every
 * CIE of the chain into the memo (before the FDEs: a .debug_frame FDE may name a later CIE). */
static int list_fdes(struct ctx *c, bool cies_only, struct fde_ref **out, size_t *n_out)
{
	struct fde_ref *v = NULL;
	size_t n = 0, cap = 0, off = 0, cie_off;
	const struct cie_memo *m;
	struct entry e;
	struct fde f;

	while (off + 4 <= c->len) {
		if (!entry_at(c, off, &e)) {
			/* A zero length is .eh_frame's terminator, padding in .debug_frame. */
			bool zero = !memcmp(c->sec + off, "\0\0\0\0", 4);

			if (zero && !c->is_eh) {
				off += 4;
				continue;
			}
			if (!zero) /* a length past the end: what follows cannot be found */
				c->st->cut_bytes = c->len - off;
			break;
		}
		off = e.end;
		if (cies_only) {
			if (entry_is_cie(c, &e) && cie_get(c, e.start, true, &m))
				return -ENOMEM;
			continue;
		}
		if (entry_is_cie(c, &e)) {
			c->st->cie_cnt++;
			continue;
		}
		c->st->fde_cnt++;
		if (!fde_cie_off(c, &e, &cie_off)) {
			c->st->fde_bad_cnt++;
			continue;
		}
		if (cie_get(c, cie_off, false, &m)) {
			free(v);
			return -ENOMEM;
		}
		if (!m->ok || !parse_fde(c, &e, &m->cie, &f)) {
			c->st->fde_bad_cnt++;
			continue;
		}
		if (f.begin == f.end) {
			c->st->fde_empty_cnt++;
			continue;
		}
		if (f.end > UINT32_MAX) {
			c->st->fde_far_cnt++;
			continue;
		}
		if (grow__array(&v, &cap, n + 1, sizeof(*v))) {
			free(v);
			return -ENOMEM;
		}
		v[n++] = (struct fde_ref){f.begin, e.start};
	}
	if (out) {
		*out = v;
		*n_out = n;
	}
	return 0;
}

int cfi_compile(const uint8_t *sec, size_t len, uint64_t sec_addr, bool is_eh,
		struct cfi_rows *out, struct cfi_compile_stats *st)
{
	struct ctx c = {
	    .sec = sec, .len = len, .addr = sec_addr, .is_eh = is_eh, .out = out, .st = st};
	struct unwind_row none = {.cfa_rule = UNWIND_CFA_NONE};
	struct fde_ref *refs;
	size_t n_refs, cie_off;
	uint64_t prev_end = 0;
	int err;

	err = list_fdes(&c, true, NULL, NULL);
	if (!err)
		err = list_fdes(&c, false, &refs, &n_refs);
	if (err) {
		free(c.cies);
		return err;
	}
	if (n_refs) /* qsort(NULL, 0) is undefined */
		qsort(refs, n_refs, sizeof(*refs), fde_ref_cmp);
	for (size_t i = 0; i < n_refs && !err; i++) {
		const struct cie_memo *m;
		struct entry e;
		struct fde f;

		/* Pass 1 read these already: the FDE parses again, its CIE is memoized. */
		if (!entry_at(&c, refs[i].off, &e) || !fde_cie_off(&c, &e, &cie_off) ||
		    cie_get(&c, cie_off, false, &m) || !m->ok || !parse_fde(&c, &e, &m->cie, &f))
			continue;
		if (out->n && f.begin < prev_end) {
			/* Overlap: this FDE wins from its start (libdw's sorted table). */
			st->fde_overlap_cnt++;
			while (out->n && out->rows[out->n - 1].pc >= f.begin)
				out->n--;
		} else if (out->n && f.begin > prev_end) {
			err = emit(&c, prev_end, none, false);
			if (err)
				break;
		}
		err = compile_fde(&c, m, &f);
		prev_end = f.end;
	}
	if (!err && out->n)
		err = emit(&c, prev_end, none, false);
	free(refs);
	free(c.cies);
	if (err)
		return err;
	for (size_t i = 0; i < out->n; i++)
		if (out->rows[i].cfa_rule == UNWIND_CFA_UNSUPPORTED ||
		    out->rows[i].rbp_rule == UNWIND_RBP_UNSUPPORTED)
			st->unsupported_cnt++;
	return out->n ? 0 : -ENOENT;
}

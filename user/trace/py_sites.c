// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where pymalloc's inlined copies can be probed: see py_sites.h. */
#include "py_sites.h"

#include <errno.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_file.h"
#include "py_inline.h"

#define HEAD_BYTES   64		 /* PyObject_Malloc/Free's bytes holding their cmp (py_inline) */
#define POOLS_BYTES  96		 /* _PyObject_Malloc's bytes searched for the usedpools load */
#define CALL_BYTES   256	 /* ... for its first direct call (allocate_from_new_pool) */
#define SLOW_BYTES   128	 /* a slow path's bytes read at a time */
#define WALK_INSNS   24		 /* instructions one slow-path walk decodes at most */
#define WALK_JUMPS   4		 /* jmp rel it follows at most */
#define INSN_MAX     15		 /* the longest x86 instruction */
#define TEXTS_MAX    16		 /* executable sections kept */
#define TEXT_MAX     (64u << 20) /* larger executable sections are not read (as py_inline) */
#define PYMALLOC_MAX 512	 /* SMALL_REQUEST_THRESHOLD: larger requests go to malloc */
#define SITES_SEEN_MAX (8 * PY_SITES_MAX) /* more cmp sites: not a CPython image we know */

/* The kind of a cmp site not probed, listed until sites_emit: its fast path may run into
 * another's moved probe (sites_unmove). */
#define SITE_FENCE 0

#define REG_RSP 4
#define REG_RSI 6

/*
 * A length decoder for the integer and SSE instructions compilers emit in ordinary code:
 * enough to walk _PyObject_Malloc linearly and to know where every slow-path instruction
 * ends. Anything it does not know (three-byte opcodes, VEX, x87...) is len 0: the walks stop.
 */
struct insn {
	size_t len;	 /* 0: not decoded */
	unsigned npfx;	 /* legacy prefixes */
	__u8 pfx;	 /* the last of 0x66 / 0xf2 / 0xf3 among them (SSE's mandatory prefix) */
	__u8 rex;	 /* 0x40..0x4f, or 0 */
	unsigned op;	 /* one-byte opcode, or 0x0f00 | the second byte */
	size_t modrm_at; /* offset of the ModRM byte, 0: none (never at 0: an opcode is first) */
	__u8 modrm;
	size_t imm_at, imm_sz; /* the immediate (or rel8/rel32) */
};

static bool legacy_prefix(__u8 b)
{
	return b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x2e ||
	       b == 0x3e || b == 0x26 || b == 0x36 || b == 0x64 || b == 0x65;
}

/* One-byte opcode op: does a ModRM follow (*modrm), the immediate's size (z: 4, 2 under an
 * operand-size prefix unless REX.W overrides it), or -1: not decoded. F6/F7's test immediate
 * is added by the caller. */
static int op1_shape(unsigned op, bool rex_w, bool o16, bool *modrm)
{
	int z = o16 && !rex_w ? 2 : 4;

	*modrm = false;
	if (op < 0x40) { /* the ALU block: op r/m,r / r,r/m / al,imm8 / eax,imm32 */
		switch (op & 7) {
		case 4:
			return 1;
		case 5:
			return z;
		case 6:
		case 7: /* push/pop segment, daa...: not in 64-bit code (0x0f handled apart) */
			return -1;
		default:
			*modrm = true;
			return 0;
		}
	}
	if ((op >= 0x50 && op <= 0x5f) || (op >= 0x90 && op <= 0x99) || op == 0xc3 || op == 0xc9 ||
	    op == 0xcc)
		return 0;
	if ((op >= 0x70 && op <= 0x7f) || op == 0x6a || op == 0xa8 || op == 0xeb ||
	    (op >= 0xb0 && op <= 0xb7))
		return 1;
	if (op == 0x68 || op == 0xa9)
		return z;
	if (op >= 0xb8 && op <= 0xbf)
		return rex_w ? 8 : z;
	if (op == 0xe8 || op == 0xe9)
		return 4;
	if (op == 0xc2)
		return 2;
	*modrm = true;
	if (op == 0x63 || (op >= 0x84 && op <= 0x8f) || (op >= 0xd0 && op <= 0xd3) || op == 0xf6 ||
	    op == 0xf7 || op == 0xfe || op == 0xff)
		return 0;
	if (op == 0x6b || op == 0x80 || op == 0x83 || op == 0xc0 || op == 0xc1 || op == 0xc6)
		return 1;
	if (op == 0x69 || op == 0x81 || op == 0xc7)
		return z;
	*modrm = false;
	return -1;
}

/* The same for the second byte b of a 0F opcode. */
static int op2_shape(unsigned b, bool *modrm)
{
	*modrm = false;
	if (b == 0x05 || b == 0x0b || b == 0x77 || b == 0xa2 || (b >= 0xc8 && b <= 0xcf))
		return 0; /* syscall, ud2, emms, cpuid, bswap */
	if (b >= 0x80 && b <= 0x8f)
		return 4; /* jcc rel32 */
	*modrm = true;
	if ((b >= 0x70 && b <= 0x73) || b == 0xa4 || b == 0xac || b == 0xba || b == 0xc2 ||
	    (b >= 0xc4 && b <= 0xc6))
		return 1;
	if ((b >= 0x10 && b <= 0x1f) || (b >= 0x28 && b <= 0x2f) || (b >= 0x40 && b <= 0x6f) ||
	    (b >= 0x74 && b <= 0x7f) || (b >= 0x90 && b <= 0x9f) || b == 0xa3 || b == 0xa5 ||
	    b == 0xab || b == 0xad || b == 0xaf || b == 0xb0 || b == 0xb1 || b == 0xb3 ||
	    (b >= 0xb6 && b <= 0xc1) || b == 0xc7 || (b >= 0xd0 && b <= 0xfe))
		return 0;
	*modrm = false;
	return -1; /* 0f 38 / 0f 3a (three-byte) and the rest */
}

/* Bytes of the ModRM at p[0] with its SIB and displacement, p[0..len); 0: cut short. */
static size_t modrm_len(const __u8 *p, size_t len)
{
	unsigned mod, rm;
	size_t n = 1;

	if (!len)
		return 0;
	mod = p[0] >> 6;
	rm = p[0] & 7;
	if (mod != 3 && rm == 4) { /* a SIB byte; base 101 under mod 00: disp32, no base */
		if (len < 2)
			return 0;
		n = (mod == 0 && (p[1] & 7) == 5) ? 6 : 2;
	}
	if (mod == 0 && rm == 5) /* %rip-relative disp32 */
		n += 4;
	else if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return n <= len ? n : 0;
}

/* Decode the instruction at c[0..len): in.len 0 when unknown or cut short. */
static struct insn insn_decode(const __u8 *c, size_t len)
{
	struct insn in = {0};
	bool o16 = false, has_modrm;
	size_t i = 0, n;
	int imm;

	for (; i < len && i < 4 && legacy_prefix(c[i]); i++, in.npfx++) {
		if (c[i] == 0x66 || c[i] == 0xf2 || c[i] == 0xf3)
			in.pfx = c[i];
		o16 |= c[i] == 0x66;
	}
	if (i < len && (c[i] & 0xf0) == 0x40)
		in.rex = c[i++];
	if (i >= len)
		return (struct insn){0};
	in.op = c[i++];
	if (in.op == 0x0f) {
		if (i >= len)
			return (struct insn){0};
		in.op = 0x0f00 | c[i++];
		imm = op2_shape(in.op & 0xff, &has_modrm);
	} else {
		imm = op1_shape(in.op, in.rex & 8, o16, &has_modrm);
	}
	if (imm < 0)
		return (struct insn){0};
	if (has_modrm) {
		if (!(n = modrm_len(c + i, len - i)))
			return (struct insn){0};
		in.modrm_at = i;
		in.modrm = c[i];
		/* test $imm, r/m (F6 /0, F7 /0; /1 its alias) is the group's one with an operand */
		if ((in.op == 0xf6 || in.op == 0xf7) && ((in.modrm >> 3) & 7) < 2)
			imm = in.op == 0xf6 ? 1 : (o16 && !(in.rex & 8) ? 2 : 4);
		i += n;
	}
	if ((size_t)imm > len - i)
		return (struct insn){0};
	in.imm_at = i;
	in.imm_sz = (size_t)imm;
	in.len = i + (size_t)imm;
	return in;
}

/* The immediate of in (at c), sign-extended from its size. */
static __s64 insn_imm(const struct insn *in, const __u8 *c)
{
	__u64 v = 0;

	memcpy(&v, c + in->imm_at, in->imm_sz); /* little-endian host: x86 only */
	if (in->imm_sz && in->imm_sz < 8 && (v >> (in->imm_sz * 8 - 1) & 1))
		v |= ~0ull << (in->imm_sz * 8);
	return (__s64)v;
}

/* ModRM's fields with REX's extensions. */
static unsigned modrm_mod(const struct insn *in)
{
	return in->modrm >> 6;
}

static unsigned modrm_reg(const struct insn *in)
{
	return ((in->modrm >> 3) & 7) | (in->rex & 4 ? 8 : 0);
}

static unsigned modrm_rm(const struct insn *in)
{
	return (in->modrm & 7) | (in->rex & 1 ? 8 : 0);
}

/*
 * The symbolic walk over a slow path: what each register holds in terms of the registers
 * at the walk's start (which are those at the fast path's first instruction).
 */
enum val_kind {
	VAL_UNKNOWN = 0,
	VAL_ENTRY, /* register reg's value at the start (low32: its low 32 bits) */
	VAL_CONST, /* imm */
};

struct val {
	enum val_kind kind;
	__u8 reg;
	bool low32;
	__u64 imm;
};

struct walk {
	struct val reg[16];
	unsigned insns, jumps;
	__u64 next; /* WALK_OUT: the address to go on from */
};

enum walk_end {
	WALK_FAIL,  /* an instruction not modelled, or the budget spent */
	WALK_FOUND, /* *site set */
	WALK_OUT,   /* the path goes on at w->next, outside the code given */
};

static void walk_init(struct walk *w)
{
	memset(w, 0, sizeof(*w));
	for (__u8 r = 0; r < 16; r++)
		w->reg[r] = (struct val){VAL_ENTRY, r, false, 0};
}

/* dst = src's 32 bits, zero-extended: what every 32-bit register write does. */
static void copy32(struct walk *w, unsigned dst, unsigned src)
{
	struct val v = w->reg[src];

	if (v.kind == VAL_ENTRY)
		v.low32 = true;
	v.imm &= 0xffffffffu;
	w->reg[dst] = v;
}

static void set_const(struct walk *w, unsigned dst, __u64 imm)
{
	w->reg[dst] = (struct val){VAL_CONST, 0, false, imm};
}

static bool rsi_value(const struct walk *w, struct py_site *site)
{
	const struct val *v = &w->reg[REG_RSI];

	if (v->kind == VAL_ENTRY) {
		site->is_imm = false;
		site->reg = v->reg;
		site->low32 = v->low32;
		site->imm = 0;
		return true;
	}
	if (v->kind != VAL_CONST || v->imm > UINT32_MAX)
		return false;
	site->is_imm = true;
	site->reg = 0;
	site->low32 = false;
	site->imm = (__u32)v->imm;
	return true;
}

/* A legacy prefix the walk accepts: 66 on stores (and SSE's 66/F3 forms), nothing else. */
static bool prefix_ok(const struct insn *in)
{
	bool mem = in->modrm_at && modrm_mod(in) != 3;

	if (!in->npfx)
		return true;
	if (in->npfx > 1)
		return false;
	if (in->pfx == 0x66)
		return mem &&
		       (in->op == 0x89 || in->op == 0xc7 || in->op == 0x0fd6 || in->op == 0x0f7f);
	return in->pfx == 0xf3 && mem && in->op == 0x0f7f;
}

/* One modelled instruction's effect on w: false when not modelled. */
static bool walk_step(struct walk *w, const struct insn *in, const __u8 *c)
{
	bool mem = in->modrm_at && modrm_mod(in) != 3, rex_w = in->rex & 8;
	unsigned r = in->modrm_at ? modrm_reg(in) : 0, b = in->modrm_at ? modrm_rm(in) : 0;

	if (!prefix_ok(in))
		return false;
	switch (in->op) {
	case 0x88: /* mov r8, r/m8: a store, or a partial register write */
		if (!mem)
			w->reg[b].kind = VAL_UNKNOWN;
		return true;
	case 0x89: /* mov r, r/m */
		if (!mem && rex_w)
			w->reg[b] = w->reg[r];
		else if (!mem)
			copy32(w, b, r);
		return true;
	case 0x8a: /* mov r/m8, r8 */
		w->reg[r].kind = VAL_UNKNOWN;
		return true;
	case 0x8b: /* mov r/m, r: a load, or a copy */
		if (mem)
			w->reg[r].kind = VAL_UNKNOWN;
		else if (rex_w)
			w->reg[r] = w->reg[b];
		else
			copy32(w, r, b);
		return true;
	case 0x8d: /* lea */
		if (!mem)
			return false;
		w->reg[r].kind = VAL_UNKNOWN;
		return true;
	case 0x31: /* xor r, r/m */
	case 0x33: /* xor r/m, r */
		if (!mem && r == b)
			set_const(w, r, 0); /* the zeroing idiom, 32- or 64-bit */
		else if (in->op == 0x33 || !mem)
			w->reg[in->op == 0x33 ? r : b].kind = VAL_UNKNOWN;
		return true;
	case 0xc6: /* movb $imm8, r/m8 */
		if ((r & 7) != 0)
			return false;
		if (!mem)
			w->reg[b].kind = VAL_UNKNOWN;
		return true;
	case 0xc7: /* mov $imm32, r/m (sign-extended to 64 bits under REX.W) */
		if ((r & 7) != 0)
			return false;
		if (!mem)
			set_const(w, b, rex_w ? (__u64)insn_imm(in, c) : (__u32)insn_imm(in, c));
		return true;
	case 0x0f29: /* movaps xmm, m128 */
	case 0x0f11: /* movups xmm, m128 */
		return mem && !in->npfx;
	case 0x0fd6: /* movq xmm, m64 (66) */
		return mem && in->pfx == 0x66;
	case 0x0f7f: /* movdqa (66) / movdqu (f3) xmm, m128 */
		return mem && in->npfx;
	}
	if (in->op >= 0xb8 && in->op <= 0xbf) { /* mov $imm32, r32 / $imm64, r64 */
		set_const(w, (in->op & 7) | (in->rex & 1 ? 8u : 0u),
			  rex_w ? (__u64)insn_imm(in, c) : (__u32)insn_imm(in, c));
		return true;
	}
	if (in->op >= 0x50 && in->op <= 0x5f) { /* push / pop: rsp moves */
		if (in->op >= 0x58)
			w->reg[(in->op & 7) | (in->rex & 1 ? 8u : 0u)].kind = VAL_UNKNOWN;
		w->reg[REG_RSP].kind = VAL_UNKNOWN;
		return true;
	}
	return false;
}

/*
 * Walk code[0..len) (code[0] at address base) from w's state: the value of rsi at the first
 * indirect call or jump. WALK_OUT when the path leaves the buffer (a jmp, or running into
 * its end with less than an instruction's worth left): the caller may read on from w->next.
 */
static enum walk_end walk(struct walk *w, const __u8 *code, size_t len, __u64 base,
			  struct py_site *site)
{
	size_t at = 0;

	while (w->insns < WALK_INSNS) {
		struct insn in;

		if (at >= len) {
			w->next = base + at;
			return WALK_OUT;
		}
		in = insn_decode(code + at, len - at);
		if (!in.len) {
			if (len - at >= INSN_MAX)
				return WALK_FAIL;
			w->next = base + at; /* maybe cut short by the buffer's end */
			return WALK_OUT;
		}
		w->insns++;
		if (in.op == 0xff) { /* call *r/m (/2) or jmp *r/m (/4): the allocator's call */
			unsigned g = (in.modrm >> 3) & 7;

			return (g == 2 || g == 4) && !in.npfx && rsi_value(w, site) ? WALK_FOUND
										    : WALK_FAIL;
		}
		if (in.op == 0xeb || in.op == 0xe9) {
			__u64 to = base + at + in.len + (__u64)insn_imm(&in, code + at);

			if (in.npfx || ++w->jumps > WALK_JUMPS)
				return WALK_FAIL;
			if (to >= base && to - base < len) {
				at = (size_t)(to - base);
				continue;
			}
			w->next = to;
			return WALK_OUT;
		}
		if (!walk_step(w, &in, code + at))
			return WALK_FAIL;
		at += in.len;
	}
	return WALK_FAIL;
}

bool py_sites__slow_value(const __u8 *code, size_t len, __u64 base, struct py_site *site)
{
	struct walk w;

	walk_init(&w);
	return walk(&w, code, len, base, site) == WALK_FOUND;
}

/*
 * The walk forward along a fast path (py_sites__advance). The kernel's x86 uprobes emulate
 * push r64 (REX.B its one prefix allowed), jmp rel8/rel32, call rel32 and jcc rel8/rel32
 * with no 0x66 (arch/x86/kernel/uprobes.c); any other instruction under the breakpoint is
 * single-stepped out of line, a second trap. Legacy prefixes refused outright.
 */
static bool emulated(const struct insn *in)
{
	if (in->npfx)
		return false;
	if (in->op >= 0x50 && in->op <= 0x57)
		return !in->rex || in->rex == 0x41;
	return !in->rex &&
	       ((in->op >= 0x70 && in->op <= 0x7f) || in->op == 0xeb || in->op == 0xe9 ||
		in->op == 0xe8 || (in->op >= 0x0f80 && in->op <= 0x0f8f));
}

/* The bit of register r written; without REX, byte registers 4..7 are %ah..%bh. */
static __u16 reg_bit(const struct insn *in, unsigned r, bool byte)
{
	if (byte && !in->rex && r >= 4 && r < 8)
		r -= 4;
	return (__u16)(1u << r);
}

/* A destination in ModRM's r/m: a register's bit added to *writes, or false: memory. */
static bool rm_dest(const struct insn *in, bool byte, __u16 *writes)
{
	if (modrm_mod(in) != 3)
		return false;
	*writes |= reg_bit(in, modrm_rm(in), byte);
	return true;
}

/*
 * An instruction the walk passes over, with the general registers it writes (any width;
 * flags aside) in *writes: the ALU, shift, move, lea, extend, test and nop forms fast paths
 * are made of. false for anything else, and for every write to memory: a store passed over
 * could be pymalloc's own (its pop of the free list) before the probe has read the pool.
 * 0x66 only on a one-byte opcode (an operand size there, another instruction on 0F's SSE).
 */
static bool fast_pass(const struct insn *in, __u16 *writes)
{
	unsigned op = in->op, g = in->modrm_at ? (in->modrm >> 3) & 7 : 0;
	bool mem = in->modrm_at && modrm_mod(in) != 3, byte = !(op & 1);

	*writes = 0;
	if (in->npfx && op != 0x0f1f && (in->npfx > 1 || in->pfx != 0x66 || op > 0xff))
		return false;
	if (op < 0x40 && (op & 7) < 6) { /* add/or/adc/sbb/and/sub/xor/cmp, all six forms */
		if (op >> 3 == 7)
			return true;
		if ((op & 7) < 2)
			return rm_dest(in, byte, writes);
		*writes = reg_bit(in, (op & 7) < 4 ? modrm_reg(in) : 0, byte);
		return true;
	}
	if (op >= 0xb0 && op <= 0xbf) { /* mov $imm, r */
		*writes = reg_bit(in, (op & 7) | (in->rex & 1 ? 8u : 0u), op < 0xb8);
		return true;
	}
	if (op >= 0x0f40 && op <= 0x0f4f) { /* cmovcc */
		*writes = reg_bit(in, modrm_reg(in), false);
		return true;
	}
	if (op >= 0x0f90 && op <= 0x0f9f) /* setcc */
		return rm_dest(in, true, writes);
	switch (op) {
	case 0x84: /* test */
	case 0x85:
	case 0xa8:
	case 0xa9:
	case 0x0f1f: /* nop r/m */
		return true;
	case 0x80: /* group 1, $imm: /7 is cmp */
	case 0x81:
	case 0x83:
		return g == 7 || rm_dest(in, op == 0x80, writes);
	case 0xc0: /* shifts and rotates */
	case 0xc1:
	case 0xd0:
	case 0xd1:
	case 0xd2:
	case 0xd3:
	case 0x88: /* mov r, r/m */
	case 0x89:
		return rm_dest(in, byte, writes);
	case 0xc6: /* mov $imm, r/m (/0) */
	case 0xc7:
		return g == 0 && rm_dest(in, byte, writes);
	case 0xf6: /* test $imm, r/m (/0, /1): not, neg, mul, div left out */
	case 0xf7:
		return g < 2;
	case 0xfe: /* inc, dec (/0, /1): the indirect call and jmp, push m left out */
	case 0xff:
		return g < 2 && rm_dest(in, op == 0xfe, writes);
	case 0x8d: /* lea: the memory form only */
		if (!mem)
			return false;
		/* fall through */
	case 0x8a: /* mov r/m, r: a load or a copy */
	case 0x8b:
	case 0x63: /* movsxd */
	case 0x69: /* imul $imm */
	case 0x6b:
	case 0x0faf: /* imul */
	case 0x0fb6: /* movzx, movsx */
	case 0x0fb7:
	case 0x0fbe:
	case 0x0fbf:
		*writes = reg_bit(in, modrm_reg(in), op == 0x8a);
		return true;
	}
	return false;
}

/*
 * Nothing passed over has touched the value's register or memory, and no branch: the moved
 * probe fires on exactly the executions of the fast start (jumps into the path aside, see
 * sites_unmove) and reads the same value. A push probed is not yet executed: %rsp intact.
 */
size_t py_sites__advance(const __u8 *code, size_t len, const struct py_site *site)
{
	size_t at = 0;

	for (unsigned n = 0; n < PY_ADVANCE_INSNS && at < len; n++) {
		struct insn in = insn_decode(code + at, len - at);
		__u16 writes;

		if (!in.len)
			return 0;
		if (emulated(&in))
			return at;
		if (!fast_pass(&in, &writes) || (!site->is_imm && (writes >> site->reg & 1)))
			return 0;
		at += in.len;
	}
	return 0;
}

/* The image analysed: its executable sections (the PLT's left out) and the functions the
 * loader probes whole. */
struct text {
	__u64 addr;
	size_t off, size;
};

struct image {
	struct elf_file f;
	struct text text[TEXTS_MAX];
	size_t text_cnt;
	size_t skip_lo[8], skip_hi[8]; /* file offsets [lo, hi) */
	size_t skip_cnt;
};

static const char *const probed_whole[] = {
    "PyObject_Malloc", "PyObject_Calloc", "PyObject_Realloc", "PyObject_Free",
    "PyMem_Malloc",    "PyMem_Calloc",	  "PyMem_Realloc",    "PyMem_Free",
};

static int image_texts(struct image *im)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	struct stat st;
	__u64 file_sz;

	if (elf_getshdrstrndx(im->f.elf, &shstrndx) || fstat(im->f.fd, &st) || st.st_size <= 0)
		return -ENOENT;
	file_sz = (__u64)st.st_size;
	while ((scn = elf_nextscn(im->f.elf, scn)) && im->text_cnt < TEXTS_MAX) {
		const char *name;

		/* a section wholly in the file and the address space: no file offset computed
		 * from an address in it wraps (into bytes of another section, say) */
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size || sh.sh_offset > file_sz ||
		    sh.sh_size > file_sz - sh.sh_offset || sh.sh_addr > UINT64_MAX - sh.sh_size ||
		    !(name = elf_strptr(im->f.elf, shstrndx, sh.sh_name)) ||
		    !strncmp(name, ".plt", 4))
			continue;
		im->text[im->text_cnt++] = (struct text){sh.sh_addr, sh.sh_offset, sh.sh_size};
	}
	return im->text_cnt ? 0 : -ENOENT;
}

/* The file offset of address addr in an executable section, with the bytes of the section
 * from there in *avail; NULL section: not in one. */
static const struct text *image_text(const struct image *im, __u64 addr, size_t *off, size_t *avail)
{
	for (size_t i = 0; i < im->text_cnt; i++) {
		const struct text *t = &im->text[i];

		if (addr >= t->addr && addr - t->addr < t->size) {
			*off = t->off + (size_t)(addr - t->addr);
			*avail = t->size - (size_t)(addr - t->addr);
			return t;
		}
	}
	return NULL;
}

/* Read up to n bytes of code at address addr (never past its section): the count, 0 when
 * addr is not code or the read fails. */
static size_t image_read(const struct image *im, __u64 addr, __u8 *buf, size_t n)
{
	size_t off, avail;
	ssize_t got;

	if (!image_text(im, addr, &off, &avail))
		return 0;
	got = pread(im->f.fd, buf, n < avail ? n : avail, (off_t)off);
	return got > 0 ? (size_t)got : 0;
}

/* The address an exported allocator compares the allocator pointer with at its head: the
 * out-of-line pymalloc function; 0 when none. */
static __u64 head_cmp(const struct image *im, const char *name)
{
	__u8 head[HEAD_BYTES];
	size_t off, sz;
	ssize_t got;

	if (py_inline__symbol_offset(im->f.elf, name, &off, &sz))
		return 0;
	got = pread(im->f.fd, head, sizeof(head), (off_t)off);
	return got > 0 ? py_inline__cmp_imm(head, (size_t)got) : 0;
}

/*
 * usedpools and allocate_from_new_pool from the out-of-line _PyObject_Malloc, decoded
 * linearly: the first `mov disp32(,%idx,8),%r64` (pool = usedpools[...], a SIB with no base)
 * within POOLS_BYTES, the first `call rel32` within CALL_BYTES into the executable's own
 * text (the empty pool's refill; the malloc@plt fallback, laid out before or after it
 * depending on the build, is not it).
 */
static void malloc_body(const struct image *im, __u64 addr, struct py_sites *out)
{
	__u8 code[CALL_BYTES];
	size_t n = image_read(im, addr, code, sizeof(code)), at = 0, off, avail;

	while (at < n && (!out->usedpools || !out->new_pool_off)) {
		struct insn in = insn_decode(code + at, n - at);
		const __u8 *m = code + at + in.modrm_at;

		if (!in.len)
			break;
		if (!out->usedpools && at < POOLS_BYTES && in.op == 0x8b && (in.rex & 8) &&
		    m[0] >> 6 == 0 && (m[0] & 7) == 4 && m[1] >> 6 == 3 && (m[1] & 7) == 5 &&
		    (((m[1] >> 3) & 7) != 4 || (in.rex & 2))) {
			__s32 disp;

			memcpy(&disp, m + 2, sizeof(disp));
			if (disp > 0)
				out->usedpools = (__u64)disp;
		}
		if (in.op == 0xe8 && !out->new_pool_off) {
			__u64 to = addr + at + in.len + (__u64)insn_imm(&in, code + at);

			/* malloc@plt comes first in some builds (3.11.2-6+deb12u9): passed */
			if (image_text(im, to, &off, &avail))
				out->new_pool_off = off;
		}
		at += in.len;
	}
}

/* The slow path's value from address addr, reading on from the file across jumps and
 * buffer ends (bounded by the walk's budget). */
static bool slow_value_at(const struct image *im, __u64 addr, struct py_site *site)
{
	__u8 code[SLOW_BYTES];
	struct walk w;
	size_t n;

	walk_init(&w);
	while ((n = image_read(im, addr, code, sizeof(code)))) {
		enum walk_end e = walk(&w, code, n, addr, site);

		if (e != WALK_OUT || w.next == addr) /* no progress: the section's end */
			return e == WALK_FOUND;
		addr = w.next;
	}
	return false;
}

/* s's probe (s->off: the fast start at address addr) moved forward where it may be. */
static void site_advance(const struct image *im, __u64 addr, struct py_site *s)
{
	__u8 code[PY_ADVANCE_INSNS * INSN_MAX];
	size_t n = image_read(im, addr, code, sizeof(code));

	s->fast_off = s->off;
	s->off += py_sites__advance(code, n, s);
}

static bool skipped(const struct image *im, size_t off)
{
	for (size_t i = 0; i < im->skip_cnt; i++)
		if (off >= im->skip_lo[i] && off < im->skip_hi[i])
			return true;
	return false;
}

/* A growing array of sites before the sort and cap. */
struct site_vec {
	struct py_site *v;
	size_t cnt, cap;
};

static int vec_push(struct site_vec *sv, const struct py_site *s)
{
	if (sv->cnt == sv->cap) {
		size_t cap = sv->cap ? 2 * sv->cap : 256;
		struct py_site *v = realloc(sv->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sv->v = v;
		sv->cap = cap;
	}
	sv->v[sv->cnt++] = *s;
	return 0;
}

/* The jne/je after a cmp at t[i] (its length in *jlen, its target's displacement in *rel);
 * 0: none, else the opcode's condition (0x75 jne, 0x74 je). */
static unsigned jcc_at(const __u8 *t, size_t n, size_t i, size_t *jlen, __s64 *rel)
{
	__s32 r32;

	if (i + 2 <= n && (t[i] == 0x75 || t[i] == 0x74)) {
		*jlen = 2;
		*rel = (__s8)t[i + 1];
		return t[i];
	}
	if (i + 6 <= n && t[i] == 0x0f && (t[i + 1] == 0x85 || t[i + 1] == 0x84)) {
		*jlen = 6;
		memcpy(&r32, t + i + 2, sizeof(r32));
		*rel = r32;
		return t[i + 1] - 0x10u;
	}
	return 0;
}

/* The sites in t[0..n), the bytes of executable section sec. */
static int scan_text(const struct image *im, const struct text *sec, const __u8 *t, size_t n,
		     __u64 malloc_addr, __u64 free_addr, struct site_vec *sv, struct py_sites *out)
{
	size_t imm_at, jlen, off, avail;
	__s64 rel;

	for (size_t i = 0; i < n; i++) {
		struct py_site s = {0};
		__u64 imm, next, fast, slow;
		__u32 v;
		unsigned cc;

		if (!py_inline__cmp_at(t, n, i, &imm_at))
			continue;
		memcpy(&v, t + imm_at, sizeof(v));
		imm = v;
		if ((imm != malloc_addr && imm != free_addr) ||
		    !(cc = jcc_at(t, n, imm_at + 4, &jlen, &rel)) || skipped(im, sec->off + i))
			continue;
		out->found++;
		s.kind = imm == malloc_addr ? PY_SITE_MALLOC : PY_SITE_FREE;
		next = sec->addr + imm_at + 4 + jlen;
		fast = cc == 0x75 ? next : next + (__u64)rel;
		slow = cc == 0x75 ? next + (__u64)rel : next;
		if (!image_text(im, fast, &off, &avail)) {
			out->unresolved++;
			continue;
		}
		s.off = s.fast_off = off;
		s.cmp_addr = sec->addr + i;
		s.slow_addr = slow;
		if (!slow_value_at(im, slow, &s)) {
			out->unresolved++;
			s.kind = SITE_FENCE;
		} else if (s.kind == PY_SITE_MALLOC && s.is_imm &&
			   (s.imm == 0 || s.imm > PYMALLOC_MAX)) {
			s.kind = SITE_FENCE; /* a constant size pymalloc does not serve: malloc's */
		} else if (s.kind == PY_SITE_FREE && s.is_imm) {
			/* free(NULL) is a no-op, any other constant no block of pymalloc's (and
			 * more than the cookie's 16 bits of immediate): nothing to record */
			s.kind = SITE_FENCE;
		} else {
			site_advance(im, fast, &s);
		}
		if (sv->cnt >= SITES_SEEN_MAX)
			return -ENOENT; /* and sites_unmove's passes stay short */
		if (vec_push(sv, &s))
			return -ENOMEM;
	}
	return 0;
}

/* The site of an out-of-line function at addr (file offset off): its argument %rsi. */
static int push_entry(const struct image *im, __u64 addr, size_t off, __u8 kind,
		      struct site_vec *sv)
{
	struct py_site s = {.off = off, .kind = kind, .reg = REG_RSI};

	site_advance(im, addr, &s);
	return vec_push(sv, &s);
}

static int site_cmp(const void *a, const void *b)
{
	const struct py_site *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static bool same_value(const struct py_site *a, const struct py_site *b)
{
	return a->kind == b->kind && a->is_imm == b->is_imm && a->reg == b->reg &&
	       a->low32 == b->low32 && a->imm == b->imm;
}

/*
 * A site moved past the fast start of another (equal starts included) has that path run
 * into its probe: right only when the other's probe is the same instruction, where
 * sites_emit then requires the same value. Else (a fence: a cmp site not probed, among
 * them) it goes back to its fast start, which can break the agreement of another moved
 * there: repeated until nothing changes.
 */
static void sites_unmove(struct site_vec *sv)
{
	bool changed = true;

	while (changed) {
		changed = false;
		for (size_t i = 0; i < sv->cnt; i++) {
			struct py_site *a = &sv->v[i];

			for (size_t j = 0; j < sv->cnt && a->off != a->fast_off; j++) {
				const struct py_site *b = &sv->v[j];

				if (j != i && b->fast_off >= a->fast_off && b->fast_off <= a->off &&
				    b->off != a->off) {
					a->off = a->fast_off;
					changed = true;
				}
			}
		}
	}
}

/* Sort sv into out: one site per offset; sites sharing a fast path but not the value's
 * source cannot share its probe and are dropped (unresolved); capped at PY_SITES_MAX.
 * The fences left out once they have kept the moves right. */
static void sites_emit(struct site_vec *sv, struct py_sites *out)
{
	size_t kept = 0;

	sites_unmove(sv);
	for (size_t i = 0; i < sv->cnt; i++)
		if (sv->v[i].kind != SITE_FENCE)
			sv->v[kept++] = sv->v[i];
	sv->cnt = kept;
	qsort(sv->v, sv->cnt, sizeof(*sv->v), site_cmp);
	for (size_t i = 0, j; i < sv->cnt; i = j) {
		bool agree = true;

		for (j = i + 1; j < sv->cnt && sv->v[j].off == sv->v[i].off; j++)
			agree &= same_value(&sv->v[i], &sv->v[j]);
		if (!agree)
			out->unresolved += j - i;
		else if (out->cnt < PY_SITES_MAX)
			out->site[out->cnt++] = sv->v[i];
		else
			out->unresolved++;
	}
}

int py_sites__find(const char *path, struct py_sites *out)
{
	struct site_vec sv = {0};
	struct image im = {0};
	__u64 malloc_addr, free_addr;
	size_t avail;
	GElf_Ehdr eh;
	__u8 *t = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	err = elf_file__open(path, &im.f);
	if (err)
		return err;
	if (!gelf_getehdr(im.f.elf, &eh) || eh.e_type != ET_EXEC || eh.e_machine != EM_X86_64 ||
	    image_texts(&im)) {
		err = -ENOENT;
		goto cleanup;
	}
	malloc_addr = head_cmp(&im, "PyObject_Malloc");
	free_addr = head_cmp(&im, "PyObject_Free");
	if (!malloc_addr || !free_addr || !image_text(&im, malloc_addr, &out->malloc_off, &avail) ||
	    !image_text(&im, free_addr, &out->free_off, &avail)) {
		err = -ENOENT;
		goto cleanup;
	}
	malloc_body(&im, malloc_addr, out);
	if (!out->usedpools) {
		err = -ENOENT;
		goto cleanup;
	}
	for (size_t i = 0; i < sizeof(probed_whole) / sizeof(probed_whole[0]); i++) {
		size_t off, sz;

		if (py_inline__symbol_offset(im.f.elf, probed_whole[i], &off, &sz))
			continue;
		im.skip_lo[im.skip_cnt] = off;
		im.skip_hi[im.skip_cnt++] = off + sz;
	}
	for (size_t i = 0; i < im.text_cnt; i++) {
		const struct text *sec = &im.text[i];

		if (sec->size > TEXT_MAX)
			continue;
		if (!(t = malloc(sec->size))) {
			err = -ENOMEM;
			goto cleanup;
		}
		if (pread(im.f.fd, t, sec->size, (off_t)sec->off) == (ssize_t)sec->size &&
		    (err = scan_text(&im, sec, t, sec->size, malloc_addr, free_addr, &sv, out)))
			goto cleanup;
		free(t);
		t = NULL;
	}
	/* The out-of-line functions themselves: the size or pointer is their argument. */
	if ((err = push_entry(&im, malloc_addr, out->malloc_off, PY_SITE_MALLOC, &sv)) ||
	    (err = push_entry(&im, free_addr, out->free_off, PY_SITE_FREE, &sv)))
		goto cleanup;
	sites_emit(&sv, out);
cleanup:
	free(t);
	free(sv.v);
	elf_file__close(&im.f);
	return err;
}

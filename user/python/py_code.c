/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_code - code objects of a live CPython to frame names (py_code.h). Every size read from
 * the target (string lengths, bytes sizes, instruction offsets) is checked against a bound
 * before it sizes a read or a buffer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procmaps.h"
#include "py_code.h"
#include "py_linetable.h"
#include "safe_text.h"

#define CACHE_SLOTS   4096u
#define HEAD_MAX      256u	 /* the code object bytes we compare: past every field we use */
#define STR_CHARS_MAX 1024u	 /* characters of a name or file name read */
#define TABLE_MAX     (1u << 20) /* the largest line table read */
#define CODE_MAX      (1u << 26) /* the largest instruction array believed */

struct code_entry {
	__u64 addr;	 /* 0: empty slot */
	__u64 fields[5]; /* filename, name, qualname, linetable, code pointers */
	int firstlineno;
	__u64 code_bytes;      /* instruction bytes (to bound an offset); 0 if unknown */
	char *qualname, *file; /* UTF-8 as read (sanitized when printed) */
	__u8 *table;
	size_t table_len;
};

struct py_code_cache {
	struct code_entry slot[CACHE_SLOTS];
	struct py_code_stats stats;
};

struct py_code_cache *py_code_cache__new(void)
{
	return calloc(1, sizeof(struct py_code_cache));
}

static void entry_clear(struct code_entry *e)
{
	free(e->qualname);
	free(e->file);
	free(e->table);
	memset(e, 0, sizeof(*e));
}

void py_code_cache__free(struct py_code_cache *c)
{
	if (!c)
		return;
	for (unsigned int i = 0; i < CACHE_SLOTS; i++)
		entry_clear(&c->slot[i]);
	free(c);
}

void py_code_cache__stats(const struct py_code_cache *c, struct py_code_stats *out)
{
	*out = c->stats;
}

/* The 8-byte word at off of a copied object head; 0 when the field is NONE. */
static __u64 head_u64(const __u8 *head, __u16 off)
{
	__u64 v = 0;

	if (off != PY_LAYOUT_NONE && off + 8u <= HEAD_MAX)
		memcpy(&v, head + off, sizeof(v));
	return v;
}

/* Append code point cp to out as UTF-8 (at most 4 bytes; the caller keeps room). */
static size_t put_utf8(char *out, __u32 cp)
{
	if (cp >= 0xd800 && cp < 0xe000)
		cp = '?'; /* a lone surrogate is not text */
	if (cp > 0x10ffff)
		cp = 0xfffd; /* beyond Unicode (a kind-4 str holds any 32 bits): 3 bytes below */
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* How much of a str's head holds the fields read_str reads there. 3.13's fields come from
 * the target's own _Py_DebugOffsets, bounded only by the struct size it claims: a field past
 * the head read is refused, never read from beyond it. */
static size_t str_head_len(const struct py_code_layout *c)
{
	size_t n = c->str_compact_data;

	if (c->ob_type + 8u > n)
		n = c->ob_type + 8u;
	if (c->str_length + 8u > n)
		n = c->str_length + 8u;
	if (c->str_state + 4u > n)
		n = c->str_state + 4u;
	return n;
}

/* The str at addr as a new UTF-8 string (the first STR_CHARS_MAX characters), or NULL when
 * it is not a compact str (every name and file name of a code object is one). */
static char *read_str(const struct py_code_target *t, __u64 addr)
{
	const struct py_code_layout *c = &t->l->code;
	__u8 head[128], *data = NULL;
	__u32 state, kind;
	__u64 type = 0, length = 0, data_off;
	char *out = NULL;
	size_t o = 0, n = str_head_len(c);

	if (!addr || n > sizeof(head) || procmaps__read_vm(t->pid, addr, head, n))
		return NULL;
	memcpy(&type, head + c->ob_type, sizeof(type));
	if (t->unicode_type && type != t->unicode_type)
		return NULL;
	memcpy(&length, head + c->str_length, sizeof(length));
	memcpy(&state, head + c->str_state, sizeof(state));
	if (!(state >> c->str_compact_bit & 1))
		return NULL;
	kind = state >> c->str_kind_shift & 7;
	if (state >> c->str_ascii_bit & 1) {
		kind = 1;
		data_off = c->str_ascii_data;
	} else {
		data_off = c->str_compact_data;
	}
	if (kind != 1 && kind != 2 && kind != 4)
		return NULL;
	if (length > STR_CHARS_MAX)
		length = STR_CHARS_MAX;
	data = malloc(length * kind + 1);
	out = malloc(length * 4 + 1);
	if (!data || !out || procmaps__read_vm(t->pid, addr + data_off, data, length * kind)) {
		free(data);
		free(out);
		return NULL;
	}
	for (__u64 i = 0; i < length; i++) {
		__u32 cp = 0;

		memcpy(&cp, data + i * kind, kind); /* little-endian: the low bytes */
		o += put_utf8(out + o, cp ? cp : '?');
	}
	out[o] = 0;
	free(data);
	return out;
}

/* The bytes object at addr: its length into *len, a new copy (at most max bytes) or NULL. */
static __u8 *read_bytes(const struct py_code_target *t, __u64 addr, size_t max, __u64 *len)
{
	const struct py_code_layout *c = &t->l->code;
	__s64 size = 0;
	__u8 *out;

	if (!addr || procmaps__read_vm(t->pid, addr + c->ob_size, &size, sizeof(size)) ||
	    size < 0 || (__u64)size > max)
		return NULL;
	*len = (__u64)size;
	out = malloc((size_t)size + 1);
	if (out && procmaps__read_vm(t->pid, addr + c->bytes_sval, out, (size_t)size)) {
		free(out);
		return NULL;
	}
	return out;
}

/* How much of a code object's head holds every field we read. */
static size_t head_len(const struct py_code_layout *c)
{
	const __u16 off[] = {c->ob_type,     c->ob_size,	c->co_filename,	 c->co_name,
			     c->co_qualname, c->co_firstlineno, c->co_linetable, c->co_code};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		if (off[i] != PY_LAYOUT_NONE && off[i] + 8u > n)
			n = off[i] + 8u;
	return n;
}

/* The code object's head at addr, checked to be a code object; its fields into e (without
 * the strings). false if unreadable or not a code object. */
static bool read_head(const struct py_code_target *t, __u64 addr, struct code_entry *e)
{
	const struct py_code_layout *c = &t->l->code;
	__u8 head[HEAD_MAX];
	__s64 units;
	size_t n = head_len(c);

	memset(e, 0, sizeof(*e));
	if (!addr || n > sizeof(head) || procmaps__read_vm(t->pid, addr, head, n) ||
	    head_u64(head, c->ob_type) != t->code_type)
		return false;
	e->addr = addr;
	e->fields[0] = head_u64(head, c->co_filename);
	e->fields[1] = head_u64(head, c->co_name);
	e->fields[2] = head_u64(head, c->co_qualname);
	e->fields[3] = head_u64(head, c->co_linetable);
	e->fields[4] = head_u64(head, c->co_code);
	memcpy(&e->firstlineno, head + c->co_firstlineno, sizeof(int));
	if (c->co_code_adaptive != PY_LAYOUT_NONE) {
		/* 3.11+: a variable-size object whose ob_size counts its code units. */
		units = (__s64)head_u64(head, c->ob_size);
		e->code_bytes = units > 0 && units < CODE_MAX ? 2 * (__u64)units : 0;
	}
	return true;
}

/* Fill e (its head already read) with its strings, table and (3.8-3.10) code length. */
static bool fill(const struct py_code_target *t, struct code_entry *e)
{
	__u64 len = 0;

	e->file = read_str(t, e->fields[0]);
	e->qualname = read_str(t, e->fields[2] ? e->fields[2] : e->fields[1]);
	e->table = read_bytes(t, e->fields[3], TABLE_MAX, &len);
	e->table_len = (size_t)len;
	if (e->fields[4]) {
		__s64 size = 0;

		if (!procmaps__read_vm(t->pid, e->fields[4] + t->l->code.ob_size, &size,
				       sizeof(size)) &&
		    size > 0 && size < CODE_MAX)
			e->code_bytes = (__u64)size;
	}
	return e->file && e->qualname && e->table;
}

/* The byte offset of f's instruction in its code; -1 before the first instruction (a frame
 * just set up: CPython gives it the first line), -2 when out of the code. */
static long long instr_offset(const struct py_code_target *t, const struct code_entry *e,
			      const struct py_frame *f)
{
	long long off;

	switch (t->l->frames.instr_kind) {
	case PY_INSTR_LASTI_BYTES:
		off = (__s32)f->instr;
		break;
	case PY_INSTR_LASTI_UNITS:
		off = 2ll * (__s32)f->instr;
		break;
	default:
		off = (long long)(f->instr - (e->addr + t->l->code.co_code_adaptive));
		break;
	}
	if (off < 0)
		return off >= -2 ? -1 : -2;
	/* Without the code's length (3.11+: an ob_size not believed) the pointer is still
	 * bounded: an offset past what a line table can address is out of the code, not one
	 * cut to 32 bits. */
	if (off >= (long long)CODE_MAX)
		return -2;
	return e->code_bytes && (__u64)off >= e->code_bytes ? -2 : off;
}

bool py_code__name(struct py_code_cache *c, const struct py_code_target *t,
		   const struct py_frame *f, char *buf, size_t len)
{
	struct code_entry *e = &c->slot[(f->code >> 4) % CACHE_SLOTS], now;
	char name[1024], file[2048];
	long long off;
	int line;

	buf[0] = 0;
	if (!read_head(t, f->code, &now)) {
		c->stats.refused++;
		return false;
	}
	/* 3.11+: the code's length is in the head too (another code object at a reused
	 * address, of other length, may have every pointer field alike: interned strings, a
	 * line table allocated where the old one was). */
	if (e->addr == now.addr && !memcmp(e->fields, now.fields, sizeof(now.fields)) &&
	    e->firstlineno == now.firstlineno &&
	    (t->l->code.co_code_adaptive == PY_LAYOUT_NONE || e->code_bytes == now.code_bytes)) {
		c->stats.hits++;
	} else {
		entry_clear(e);
		if (!fill(t, &now)) {
			entry_clear(&now);
			c->stats.refused++;
			return false;
		}
		*e = now;
		c->stats.fills++;
	}
	off = instr_offset(t, e, f);
	if (off == -1)
		line = e->firstlineno;
	else if (off < 0)
		line = 0;
	else
		line = py_linetable__line(py_linetable__kind(t->l->frames.version), e->table,
					  e->table_len, e->firstlineno, (__u32)off);
	safe_text__copy_term(name, sizeof(name), e->qualname);
	safe_text__copy_term(file, sizeof(file), e->file);
	snprintf(buf, len, "py: %s (%s:%d)", name, file, line < 0 ? 0 : line);
	return true;
}

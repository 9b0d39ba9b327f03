// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "dhat_fixture.h"

#include <stdlib.h>

#define LIBC "(in /usr/lib/x86_64-linux-gnu/libc.so.6)"

void fixture_feed(struct collector *c, struct alloc_event e)
{
	if (collector__handle(c, &e))
		abort();
}

static struct alloc_event a(__u64 us, __u64 addr, __u64 size, __s32 stack, __u32 fn)
{
	return (struct alloc_event){ .type = EV_ALLOC, .ts_ns = FIX_T0 + us * 1000, .addr = addr,
				     .size = size, .stack_id = stack, .fn = fn };
}

static struct alloc_event f(__u64 us, __u64 addr)
{
	return (struct alloc_event){ .type = EV_FREE, .ts_ns = FIX_T0 + us * 1000, .addr = addr };
}

static struct alloc_event r(__u64 us, __u64 old, __u64 addr, __u64 size)
{
	return (struct alloc_event){ .type = EV_REALLOC, .ts_ns = FIX_T0 + us * 1000,
				     .addr = addr, .old_addr = old, .size = size,
				     .stack_id = 40, .fn = FN_REALLOC };
}

struct collector *fixture_prog_c(void)
{
	struct collector *c = collector__new(FIX_T0, NULL);

	if (!c)
		abort();
	fixture_feed(c, a(3, 0x4a4a040, 80, FIX_TABLE, FN_CALLOC));
	fixture_feed(c, a(9, 0x4a4a0d0, 100, FIX_BUF, FN_MALLOC));
	fixture_feed(c, r(25, 0x4a4a0d0, 0x4a4a180, 200));
	fixture_feed(c, r(31, 0x4a4a180, 0x4a4a180, 50));
	fixture_feed(c, a(40, 0x4a4a290, 32, FIX_LOOP, FN_MALLOC));
	fixture_feed(c, a(41, 0x4a4a2f0, 32, FIX_LOOP, FN_MALLOC));
	fixture_feed(c, a(42, 0x4a4a350, 32, FIX_LOOP, FN_MALLOC));
	fixture_feed(c, f(50, 0x4a4a290));
	fixture_feed(c, f(51, 0x4a4a2f0));
	fixture_feed(c, f(60, 0x4a4a040));
	fixture_feed(c, f(70, 0x4a4a180));
	collector__finish(c, FIX_T0 + 162000);
	return c;
}

int fixture_frames(void *ctx, const struct pp_stats *pp, struct strvec *out)
{
	(void)ctx;
	switch (pp->stack_id) {
	case FIX_TABLE:
		return strvec__push(out, "0x4849E60: calloc " LIBC) ?:
		       strvec__push(out, "0x10918F: make_table (prog.c:21)") ?:
		       strvec__push(out, "0x1091FE: main (prog.c:35)");
	case FIX_BUF:
		return strvec__push(out, "0x48467A0: malloc " LIBC) ?:
		       strvec__push(out, "0x1091AB: grow_buffer (prog.c:27)") ?:
		       strvec__push(out, "0x109208: main (prog.c:36)");
	case FIX_LOOP:
		return strvec__push(out, "0x48467A0: malloc " LIBC) ?:
		       strvec__push(out, "0x109230: main (prog.c:39)");
	default:
		return strvec__pushf(out, "0x0: ??? (stack %d)", pp->stack_id);
	}
}

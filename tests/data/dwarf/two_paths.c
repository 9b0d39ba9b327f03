// SPDX-License-Identifier: MIT
/*
 * two_paths - one allocation site reached by two call chains that meet it at the same
 * stack depth: main -> wide_a -> narrow_g -> site and main -> narrow_a -> wide_g -> site,
 * where wide frames hold 160 more bytes than narrow ones. site's SP (the stack hint's key,
 * with its return address) is the same on both paths, but the frames above it lie at
 * other places, so a hint learnt on one path names the wrong words for the other: the
 * tracer must tell them apart by the return addresses, not send one path's words for the
 * other. Built -O2 -fomit-frame-pointer like the other DWARF fixtures. Alternates the two
 * paths ROUNDS times (argv[1], default 100000) under a 4 KiB frame. Exit status 0.
 */
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static void *volatile sink;
static volatile char byte_sink;

NOINLINE static void site(void)
{
	void *p = malloc(24);

	sink = p;
	free(p);
}

/* A frame of N bytes the compiler cannot drop. */
#define FRAME(n)                                                                           \
	volatile char pad[n];                                                              \
	memset((char *)pad, 1, sizeof(pad))

NOINLINE static void narrow_g(void)
{
	FRAME(32);
	site();
	byte_sink = pad[1];
}

NOINLINE static void wide_g(void)
{
	FRAME(192);
	site();
	byte_sink = pad[1];
}

NOINLINE static void wide_a(void)
{
	FRAME(192);
	narrow_g();
	byte_sink = pad[1];
}

NOINLINE static void narrow_a(void)
{
	FRAME(32);
	wide_g();
	byte_sink = pad[1];
}

/* 4 KiB of frame under the paths: the stack copies are long enough to be sent sparse
 * (SNAP_SPARSE_MIN). */
NOINLINE static void rounds_of(long rounds)
{
	FRAME(4096);
	for (long i = 0; i < rounds; i++) {
		if (i & 1)
			narrow_a();
		else
			wide_a();
	}
	byte_sink = pad[1];
}

int main(int argc, char **argv)
{
	rounds_of(argc > 1 ? atol(argv[1]) : 100000);
	return 0;
}

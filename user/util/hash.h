/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * hash - FNV-1a, written once: the hash of the string and sequence tables (strtab,
 * seq_intern: frame lists, stacks) and of the SVG export's colours. Fast on short keys and
 * good enough for open addressing with a load factor under 1/2; not for anything an
 * attacker could steer into collisions at scale (our tables compare the keys on a hash
 * match, so collisions cost time, never correctness).
 */
#ifndef TRACER_HASH_H
#define TRACER_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV64_BASIS 14695981039346656037ull
#define HASH_FNV64_PRIME 1099511628211ull
#define HASH_FNV32_BASIS 2166136261u
#define HASH_FNV32_PRIME 16777619u

/* 64-bit FNV-1a of the n bytes at data. */
static inline uint64_t hash__fnv1a64(const void *data, size_t n)
{
	const unsigned char *s = data;
	uint64_t h = HASH_FNV64_BASIS;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= HASH_FNV64_PRIME;
	}
	return h;
}

/* One 64-bit FNV-1a step over a whole word rather than its bytes: one multiply instead of
 * eight, for keys made of integers (frame indices, PCs). Its low bits see only the words'
 * low bits: finish with hash__mix64 before masking. */
static inline uint64_t hash__fnv1a64_word(uint64_t h, uint64_t w)
{
	return (h ^ w) * HASH_FNV64_PRIME;
}

/* Murmur3's 64-bit finalizer: every bit of h reaches the low bits a table masks. */
static inline uint64_t hash__mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* 32-bit FNV-1a of the NUL-terminated string s (the SVG colours depend on its exact
 * values: one function keeps one colour from run to run). */
static inline uint32_t hash__fnv1a32_str(const char *s)
{
	uint32_t h = HASH_FNV32_BASIS;

	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		h = (h ^ *c) * HASH_FNV32_PRIME;
	return h;
}

#endif

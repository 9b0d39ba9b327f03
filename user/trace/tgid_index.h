/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tgid_index - which entry of an append-only array is a process's newest: tgid -> index,
 * overwritten when a newer entry of the tgid is appended. The tracer's images (tracee.c)
 * are found by the tgid of every record; a scan from the newest image found a long-lived
 * parent's image only past every child image opened since, so a parent allocating after
 * thousands of short children paid thousands of steps a record.
 */
#ifndef TRACER_TGID_INDEX_H
#define TRACER_TGID_INDEX_H

#include <stddef.h>
#include <sys/types.h>

struct tgid_index {
	struct tgid_slot *slots; /* open addressing, linear probing; tgid 0 = empty */
	size_t cap, cnt;	 /* cap: 0 or a power of two */
};

/* The index last set for tgid, or -1. */
long tgid_index__get(const struct tgid_index *x, pid_t tgid);

/* tgid's newest entry is idx from now on. 0, or -ENOMEM (nothing changed); tgid must be > 0. */
int tgid_index__set(struct tgid_index *x, pid_t tgid, size_t idx);

/* Frees the table (x itself is the caller's). */
void tgid_index__release(struct tgid_index *x);

#endif

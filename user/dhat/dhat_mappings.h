/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dhat_mappings - memory the traced process mapped itself (anonymous mmap, mremap, brk),
 * kept apart from the heap's blocks: one extra top-level object that dh_view ignores, so the
 * DHAT program points and totals stay the heap's (equal to Valgrind's):
 *
 *   ,"mappings":{"outsideMalloc":104857600,"insideMalloc":135168
 *     ,"sites":[{"site":"map_pool (mmap_prog.c:20)  <-  main (mmap_prog.c:41)"
 *               ,"bytes":104857600,"peak":104857600,"count":1,"inMalloc":false
 *               ,"frames":["0x4011d6: map_pool (mmap_prog.c:20)",...]}
 *              ,...]}
 *
 * bytes: mapped by the site and still mapped at te; peak: the most it had mapped at once;
 * count: its calls. A site is "in malloc" when its stack passes through the allocator
 * (arenas, the brk heap, malloc's own mmap of large blocks): those bytes are the heap's
 * backing store, already counted as blocks. Sizes are virtual: a mapping is resident only as
 * far as it was touched. Readers treat the object as optional and lenient.
 */
#ifndef TRACER_DHAT_MAPPINGS_H
#define TRACER_DHAT_MAPPINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "strvec.h"

#define DHAT_MAPPINGS_KEY "mappings"

struct dhat_mapping_site {
	char *site;	      /* the report's site name (site__name), owned */
	uint64_t bytes;	      /* mapped at te */
	uint64_t peak;	      /* most mapped at once */
	uint64_t count;	      /* system calls that mapped memory */
	bool in_malloc;	      /* the stack passes through the allocator */
	struct strvec frames; /* DHAT frame strings, innermost first (writer only) */
};

struct dhat_mappings {
	struct dhat_mapping_site *sites; /* by bytes at te, largest first */
	size_t cnt;
	uint64_t outside_malloc; /* Σ bytes of the sites not in malloc */
	uint64_t inside_malloc;	 /* Σ bytes of the sites in malloc */
};

/* Write ,"mappings":{...} and a newline to f. */
void dhat_mappings__write(FILE *f, const struct dhat_mappings *m);

/* Free what m owns (sites, their strings and frames); m itself stays. Accepts NULL. */
void dhat_mappings__release(struct dhat_mappings *m);

/* Reader: the object's scalar members. Unknown keys and types are ignored. */
void dhat_mappings__set(struct dhat_mappings *m, const char *key, bool u_ok, uint64_t u);

/* Reader: one member of a site (str: its value when a string). */
void dhat_mapping_site__set(struct dhat_mapping_site *s, const char *key, const char *str,
			    bool u_ok, uint64_t u, bool is_bool, bool b);

/* The report's section, indented two spaces: the sites outside malloc by bytes at te
 * (at most top rows); nothing when there are none. when: "death", "exit" or "end". Bytes
 * in human units as the report's other rows, exact with exact_bytes (--bytes). */
void dhat_mappings__print(FILE *out, const struct dhat_mappings *m, size_t top, const char *when,
			  bool exact_bytes);

#endif

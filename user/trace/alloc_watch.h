/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * alloc_watch - notices a library mapped during the trace (dlopen) that exports a malloc of
 * its own: not in the image's lookup scope, so calls to malloc do not reach it and its
 * probes are not attached, but code that calls into it directly (dlsym, RTLD_DEEPBIND, its
 * own users) allocates unseen. Reported once per object on stderr.
 */
#ifndef TRACER_ALLOC_WATCH_H
#define TRACER_ALLOC_WATCH_H

#include <sys/types.h>

#include "alloc_symbols.h"

struct alloc_watch;

/* Watch pid, whose probes are syms (copied), and look at its maps a first time (as
 * alloc_watch__refresh). NULL and errno on failure. */
struct alloc_watch *alloc_watch__new(pid_t pid, const struct alloc_symbols *syms);

/* Read pid's maps again and warn about each new object that defines malloc and is neither
 * probed nor in the scope. Returns the number of such objects found now (0 if pid is gone). */
int alloc_watch__refresh(struct alloc_watch *w);

/* Accepts NULL. */
void alloc_watch__free(struct alloc_watch *w);

#endif

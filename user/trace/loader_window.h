/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * loader_window - `--start-at SYMBOL` / `--stop-at SYMBOL`: uprobes on functions of the
 * target that emit window marks into the allocation probes' ring buffer (bpf/window.bpf.c).
 * A symbol is `NAME` (in the target's executable) or `PATH:NAME` (in that file), NAME mangled
 * or demangled (window_symbol.h).
 */
#ifndef TRACER_LOADER_WINDOW_H
#define TRACER_LOADER_WINDOW_H

#include <sys/types.h>

struct window_probes_opts {
	pid_t pid;		/* target process */
	int ringbuf_fd;		/* loader__ringbuf_fd() */
	const char *executable; /* the target's executable, for bare NAMEs */
	const char *start;	/* symbol spec, or NULL */
	const char *stop;	/* symbol spec, or NULL */
};

/* Load and attach. NULL + errno on failure (ENOENT: no such symbol or file), logged. */
struct window_probes *window_probes__new(const struct window_probes_opts *opts);
/* Detach and free. Accepts NULL. */
void window_probes__free(struct window_probes *w);

#endif

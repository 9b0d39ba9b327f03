// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "loader_window.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "demangle.h"
#include "events.h"
#include "log.h"
#include "safe_open.h"
#include "window.skel.h"
#include "window_symbol.h"
#include "safe_text.h"

struct window_probes {
	struct window_bpf *skel;
	struct bpf_link *start_link, *stop_link;
};

static struct bpf_link *attach_symbol(struct bpf_program *prog, pid_t pid, const char *spec,
				      const char *executable)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uopts);
	char binary[4096], sym[DEMANGLE_MAX_IN];
	struct bpf_link *link;
	const char *func;
	int ambiguous, err;

	window_symbol__split(spec, executable, binary, sizeof(binary), &func);
	/* a demangled name ("app::leak_some") attaches to its ELF symbol */
	err = window_symbol__resolve(binary, func, sym, sizeof(sym), &ambiguous);
	if (err == -ENOENT || err == -ENOEXEC) {
		elog("cannot attach to %s in %s: no such function or file\n", safe_text__term(func),
		     safe_text__term(binary));
		errno = ENOENT;
		return NULL;
	}
	if (err) {
		elog("cannot attach to %s in %s: %s\n", safe_text__term(func), safe_text__term(binary),
		     safe_open__strerror(err));
		errno = -err;
		return NULL;
	}
	if (ambiguous)
		elog("warning: %s names several functions in %s; using %s\n", safe_text__term(func),
		     safe_text__term(binary), safe_text__term(sym));
	uopts.func_name = sym;
	link = bpf_program__attach_uprobe_opts(prog, pid, binary, 0, &uopts);
	if (!link) {
		err = errno;
		elog("cannot attach to %s in %s: %s\n", func, binary,
		     err == ENOENT || err == ESRCH ? "no such function or file" : strerror(err));
		errno = err;
	}
	return link;
}

/* The window's name: the function part of the spec, truncated to fit. */
static void set_name(volatile char *dst, const char *spec)
{
	char path[4096];
	const char *name;
	size_t i;

	window_symbol__split(spec, "", path, sizeof(path), &name);
	for (i = 0; i + 1 < WINDOW_NAME_LEN && name[i]; i++)
		dst[i] = name[i];
	dst[i] = '\0';
}

struct window_probes *window_probes__new(const struct window_probes_opts *opts)
{
	struct window_probes *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return NULL;
	w->skel = window_bpf__open();
	if (!w->skel) {
		err = -errno;
		goto cleanup;
	}
	w->skel->rodata->target_tgid = (__u32)opts->pid;
	if (opts->start)
		set_name(w->skel->rodata->start_name, opts->start);
	if (opts->stop)
		set_name(w->skel->rodata->stop_name, opts->stop);
	/* One stream: marks go into the allocation probes' ring buffer, in order. */
	err = bpf_map__reuse_fd(w->skel->maps.events, opts->ringbuf_fd);
	if (err)
		goto cleanup;
	err = window_bpf__load(w->skel);
	if (err)
		goto cleanup;
	if (opts->start) {
		w->start_link = attach_symbol(w->skel->progs.window_start, opts->pid, opts->start,
					      opts->executable);
		if (!w->start_link) {
			err = -errno;
			goto cleanup;
		}
	}
	if (opts->stop) {
		w->stop_link = attach_symbol(w->skel->progs.window_stop, opts->pid, opts->stop,
					     opts->executable);
		if (!w->stop_link) {
			err = -errno;
			goto cleanup;
		}
	}
	return w;
cleanup:
	window_probes__free(w);
	errno = -err;
	return NULL;
}

void window_probes__free(struct window_probes *w)
{
	if (!w)
		return;
	bpf_link__destroy(w->start_link);
	bpf_link__destroy(w->stop_link);
	window_bpf__destroy(w->skel);
	free(w);
}

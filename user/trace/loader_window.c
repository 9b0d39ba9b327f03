// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "loader_window.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "events.h"
#include "log.h"
#include "window.skel.h"

struct window_probes {
	struct window_bpf *skel;
	struct bpf_link *start_link, *stop_link;
};

/* Split "PATH:NAME" (or "NAME", in the executable) into a binary and a function name. */
static void split_symbol(const char *spec, const char *executable, char *binary, size_t bsz,
			 const char **func)
{
	const char *colon = strrchr(spec, ':');

	if (colon && colon != spec) {
		snprintf(binary, bsz, "%.*s", (int)(colon - spec), spec);
		*func = colon + 1;
	} else {
		snprintf(binary, bsz, "%s", executable);
		*func = spec;
	}
}

static struct bpf_link *attach_symbol(struct bpf_program *prog, pid_t pid, const char *spec,
				      const char *executable)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uopts);
	char binary[4096];
	struct bpf_link *link;
	const char *func;

	split_symbol(spec, executable, binary, sizeof(binary), &func);
	uopts.func_name = func;
	link = bpf_program__attach_uprobe_opts(prog, pid, binary, 0, &uopts);
	if (!link) {
		int err = errno;

		elog("cannot attach to %s in %s: %s\n", func, binary,
		     err == ENOENT || err == ESRCH ? "no such function or file" : strerror(err));
		errno = err;
	}
	return link;
}

/* The window's name: the function part of the spec, truncated to fit. */
static void set_name(volatile char *dst, const char *spec)
{
	const char *colon = strrchr(spec, ':');
	const char *name = colon && colon != spec ? colon + 1 : spec;
	size_t i;

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

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "death_probes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "clock.h"
#include "environment.h"
#include "events.h"
#include "log.h"
#include "death.skel.h"
#include "mappings.skel.h"

#define MAPPING_PROGS 2

struct death_probes {
	struct death_bpf *skel;
	struct bpf_link *links[4];
	struct mappings_bpf *maps; /* the mappings probes, NULL if not loaded */
	struct bpf_link *map_links[MAPPING_PROGS];
};

static void mappings_stop(struct death_probes *d)
{
	for (int i = 0; i < MAPPING_PROGS; i++)
		bpf_link__destroy(d->map_links[i]);
	memset(d->map_links, 0, sizeof(d->map_links));
	mappings_bpf__destroy(d->maps);
	d->maps = NULL;
}

/* The mappings probes (bpf/mappings.bpf.c) on the same traced processes and ring buffer.
 * Optional: without them the report has no "mapped outside malloc" section, and the
 * tracer says so. */
static int mappings_start(struct death_probes *d, int ringbuf_fd)
{
	struct bpf_program *prog;
	int err, i = 0;

	if (env_refuses("syscall_tp")) /* tests: as a kernel refusing the raw tracepoints */
		return -EOPNOTSUPP;
	d->maps = mappings_bpf__open();
	if (!d->maps)
		return -errno;
	err = bpf_map__reuse_fd(d->maps->maps.events, ringbuf_fd);
	if (!err)
		err = bpf_map__reuse_fd(d->maps->maps.traced, bpf_map__fd(d->skel->maps.traced));
	if (!err)
		err = mappings_bpf__load(d->maps);
	bpf_object__for_each_program(prog, d->maps->obj)
	{
		if (err || i == MAPPING_PROGS)
			break;
		d->map_links[i] = bpf_program__attach(prog);
		if (!d->map_links[i++])
			err = -errno;
	}
	if (err)
		mappings_stop(d);
	return err;
}

struct death_probes *death_probes__new(int ringbuf_fd, bool follow)
{
	struct death_probes *d = calloc(1, sizeof(*d));
	struct bpf_program *progs[4];
	long page = sysconf(_SC_PAGESIZE);
	int err;

	if (!d)
		return NULL;
	d->skel = death_bpf__open();
	if (!d->skel) {
		err = -errno;
		goto cleanup;
	}
	d->skel->rodata->page_size = page > 0 ? (__u64)page : 4096;
	d->skel->rodata->follow = follow;
	/* One stream: the death comes after the process's last allocation record. */
	err = bpf_map__reuse_fd(d->skel->maps.events, ringbuf_fd);
	if (err)
		goto cleanup;
	err = death_bpf__load(d->skel);
	if (err)
		goto cleanup;
	progs[0] = d->skel->progs.death_exit;
	progs[1] = d->skel->progs.death_signal;
	progs[2] = d->skel->progs.death_mark_victim;
	progs[3] = d->skel->progs.death_fork;
	for (int i = 0; i < 4; i++) {
		d->links[i] = bpf_program__attach(progs[i]);
		if (!d->links[i]) {
			err = -errno;
			goto cleanup;
		}
	}
	err = mappings_start(d, ringbuf_fd);
	if (err)
		ilog("tracer: warning: not recording memory mapped outside malloc (mmap, brk): "
		     "%s\n", strerror(-err));
	return d;
cleanup:
	death_probes__free(d);
	errno = -err;
	return NULL;
}

int death_probes__add_pid(struct death_probes *d, pid_t pid)
{
	__u32 key = (__u32)pid;
	__u8 one = 1;

	if (bpf_map__update_elem(d->skel->maps.traced, &key, sizeof(key), &one, sizeof(one),
				 BPF_ANY))
		return -errno;
	return 0;
}

struct death_probes *death_probes__start(int ringbuf_fd, pid_t pid, bool follow)
{
	__u64 t0 = clock__mono_ns();
	struct death_probes *d = death_probes__new(ringbuf_fd, follow);
	int err;

	vlog("death and mappings probes loaded in %.1f ms\n",
	     (double)(clock__mono_ns() - t0) / 1e6);
	if (!d) {
		err = errno;
		ilog("not recording how the process ends (%s)\n", strerror(err));
		return NULL;
	}
	err = death_probes__add_pid(d, pid);
	if (err) {
		ilog("not recording how the process ends (%s)\n", strerror(-err));
		death_probes__free(d);
		return NULL;
	}
	return d;
}

void death_probes__free(struct death_probes *d)
{
	if (!d)
		return;
	mappings_stop(d);
	for (int i = 0; i < 4; i++)
		bpf_link__destroy(d->links[i]);
	death_bpf__destroy(d->skel);
	free(d);
}

bool death_probes__has_mappings(const struct death_probes *d)
{
	return d && d->maps;
}

__u64 death_probes__mappings_dropped(const struct death_probes *d)
{
	if (!d || !d->maps)
		return 0;
	/* A plain load of the mmap'ed .bss (an aligned u64: read whole). */
	return *(volatile __u64 *)&d->maps->bss->mappings_dropped;
}

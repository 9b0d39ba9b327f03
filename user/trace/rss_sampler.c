// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "rss_sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rss_sampler {
	int fd;		      /* /proc/PID/status, kept open: re-read from offset 0 */
	uint64_t interval_ns; /* RSS_SAMPLE_NS, doubled at each thinning */
	uint64_t last_ns;     /* when the last sample was taken */
	size_t cnt, cap;
	struct dhat_rss_sample *s; /* grows to RSS_SAMPLES_MAX: one per traced process */
};

#define RSS_SAMPLES_MIN 64 /* ~1 s at the first interval */

struct rss_sampler *rss_sampler__new(pid_t pid)
{
	struct rss_sampler *s = calloc(1, sizeof(*s));
	char path[64];

	if (!s)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		int err = errno;

		free(s);
		errno = err;
		return NULL;
	}
	s->interval_ns = RSS_SAMPLE_NS;
	return s;
}

void rss_sampler__free(struct rss_sampler *s)
{
	if (!s)
		return;
	close(s->fd);
	free(s->s);
	free(s);
}

/* The value of "Name:   123 kB" in bytes, or -1 when the line is missing. */
static long long kb_field(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, name, len) && l[len] == ':')
			return strtoll(l + len + 1, NULL, 10) * 1024;
	return -1;
}

int rss_sampler__parse(const char *text, struct dhat_rss_sample *out)
{
	long long anon = kb_field(text, "RssAnon"), file = kb_field(text, "RssFile");
	long long shmem = kb_field(text, "RssShmem"), swap = kb_field(text, "VmSwap");

	if (anon < 0 || file < 0 || shmem < 0)
		return -ENOENT;
	out->anon = (uint64_t)anon;
	out->file = (uint64_t)file;
	out->shmem = (uint64_t)shmem;
	out->swap = swap < 0 ? 0 : (uint64_t)swap;
	return 0;
}

/* Full: keep every other sample (the newest stays) and sample half as often. */
static void thin(struct rss_sampler *s)
{
	size_t kept = 0;

	for (size_t i = s->cnt % 2 ? 0 : 1; i < s->cnt; i += 2)
		s->s[kept++] = s->s[i];
	s->cnt = kept;
	s->interval_ns *= 2;
}

/* Room for more samples, up to RSS_SAMPLES_MAX. Returns 0 or -ENOMEM. */
static int grow(struct rss_sampler *s)
{
	size_t cap = s->cap ? s->cap * 2 : RSS_SAMPLES_MIN;
	struct dhat_rss_sample *n;

	if (cap > RSS_SAMPLES_MAX)
		cap = RSS_SAMPLES_MAX;
	n = realloc(s->s, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	s->s = n;
	s->cap = cap;
	return 0;
}

bool rss_sampler__tick(struct rss_sampler *s, uint64_t now_ns)
{
	char buf[4096];
	ssize_t n;

	if (!s || (s->cnt && now_ns - s->last_ns < s->interval_ns))
		return false;
	n = pread(s->fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (s->cnt == RSS_SAMPLES_MAX)
		thin(s);
	if (s->cnt == s->cap && grow(s))
		return false;
	if (rss_sampler__parse(buf, &s->s[s->cnt]))
		return false;
	s->s[s->cnt++].t_ns = now_ns;
	s->last_ns = now_ns;
	return true;
}

uint64_t rss_sampler__rss(const struct rss_sampler *s)
{
	const struct dhat_rss_sample *l = s && s->cnt ? &s->s[s->cnt - 1] : NULL;

	return l ? l->anon + l->file + l->shmem : 0;
}

const struct dhat_rss_sample *rss_sampler__samples(const struct rss_sampler *s, size_t *cnt)
{
	*cnt = s ? s->cnt : 0;
	return s ? s->s : NULL;
}

#include "e2e_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

bool e2e_in_ci(void)
{
	const char *ci = getenv("CI");

	return ci && !strcmp(ci, "true");
}

const char *e2e_cannot_trace(void)
{
	if (geteuid() != 0)
		return "not running as root";
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return "kernel has no BTF";
	if (access("/sys/bus/event_source/devices/uprobe", F_OK))
		return "kernel has no uprobes";
	return NULL;
}

int e2e_run(const char *cmd, char **out)
{
	FILE *p = popen(cmd, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	char chunk[4096];
	size_t n;
	int st;

	if (!p)
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0) {
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	if (buf)
		buf[len] = '\0';
	st = pclose(p);
	if (out)
		*out = buf ? buf : strdup("");
	else
		free(buf);
	return st == -1 ? -1 : WEXITSTATUS(st);
}

char *e2e_tmpdir(const char *tag)
{
	char *path;

	if (asprintf(&path, "%s/%s-XXXXXX", TESTS_BIN_DIR, tag) < 0)
		abort();
	if (!mkdtemp(path))
		abort();
	return path;
}

/* Allocator plumbing: frames that name the allocator rather than a call site. */
static const char *const plumbing[] = {
	"malloc",  "calloc",	     "realloc", "reallocarray", "free",	    "posix_memalign",
	"aligned_alloc", "memalign", "valloc",	"pvalloc",	"strdup",   "strndup",
	"asprintf", "vasprintf",     "getline", "getdelim",	"open_memstream",
};

static bool is_plumbing(const char *frame)
{
	if (strstr(frame, "vgpreload"))
		return true;
	for (size_t i = 0; i < sizeof(plumbing) / sizeof(plumbing[0]); i++) {
		size_t n = strlen(plumbing[i]);

		if (!strncmp(frame, plumbing[i], n) && frame[n] == ' ')
			return true;
	}
	return false;
}

static const char *strip_addr(const char *frame)
{
	const char *s = strstr(frame, ": ");

	return s ? s + 2 : frame;
}

size_t e2e_sites(const struct dhat_profile *p, struct site_total **out)
{
	struct site_total *s = calloc(p->pp_cnt + 1, sizeof(*s));
	size_t n = 0;

	for (size_t i = 0; i < p->pp_cnt; i++) {
		const struct dhat_pp *pp = &p->pps[i];
		const char *site = "<unattributed>";
		size_t j;

		for (j = 0; j < pp->fs_cnt; j++) {
			const char *f = strip_addr(dhat_profile__frame(p, pp->fs[j]));

			if (!is_plumbing(f)) {
				site = f;
				break;
			}
		}
		for (j = 0; j < n; j++)
			if (!strcmp(s[j].site, site))
				break;
		if (j == n)
			s[n++].site = strdup(site);
		s[j].bytes += pp->tb;
		s[j].blocks += pp->tbk;
		s[j].end_bytes += pp->eb;
	}
	*out = s;
	return n;
}

void e2e_sites_free(struct site_total *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].site);
	free(s);
}

const struct site_total *e2e_site_find(const struct site_total *s, size_t n, const char *site)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].site, site))
			return &s[i];
	return NULL;
}

char *e2e_callers(const struct dhat_profile *p, const struct dhat_pp *pp)
{
	size_t first = 0, len = 0;
	char *out;

	for (size_t j = 0; j < pp->fs_cnt; j++)
		if (is_plumbing(strip_addr(dhat_profile__frame(p, pp->fs[j]))))
			first = j + 1;
	out = calloc(1, 1);
	for (size_t j = first; out && j < pp->fs_cnt; j++) {
		const char *f = strip_addr(dhat_profile__frame(p, pp->fs[j]));
		size_t n = strcspn(f, " @");
		char *grown = realloc(out, len + n + 5);

		if (!grown)
			abort();
		out = grown;
		len += (size_t)sprintf(out + len, "%s%.*s", len ? " <- " : "", (int)n, f);
	}
	if (!out)
		abort();
	return out;
}

const char *e2e_invariants(const struct dhat_profile *p)
{
	if (!p->bklt)
		return "bklt is false";
	if (p->tg > p->te)
		return "tg > te";
	for (size_t i = 0; i < p->pp_cnt; i++) {
		const struct dhat_pp *pp = &p->pps[i];

		if (pp->gb > pp->mb || pp->mb > pp->tb)
			return "gb <= mb <= tb violated";
		if (pp->eb > pp->mb)
			return "eb <= mb violated";
		/* mbk is the block count at the PP's byte peak (dhat-rs, dhat-format.md §6.2), so
		 * gbk or ebk may exceed it (more, smaller blocks at t-gmax or at the end: seen with
		 * a tiny ring buffer). Only the bounds by tbk hold for blocks. */
		if (pp->gbk > pp->tbk || pp->mbk > pp->tbk || pp->ebk > pp->tbk)
			return "block counts: gbk, mbk, ebk <= tbk violated";
		for (size_t j = 0; j < pp->fs_cnt; j++)
			if (pp->fs[j] == 0 || pp->fs[j] >= p->ftbl_cnt)
				return "fs index 0 or out of range";
	}
	return NULL;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The "death" object of a DHAT file: see dhat_death.h. */
#include "dhat_death.h"

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "dhat_json.h"
#include "events.h"
#include "units.h"

static const char *const CAUSES[] = {
    [DHAT_DEATH_UNKNOWN] = "unknown",
    [DHAT_DEATH_EXIT] = "exit",
    [DHAT_DEATH_SIGNAL] = "signal",
    [DHAT_DEATH_OOM] = "oom-kill",
};

static const char *const SCOPES[] = {
    [DHAT_OOM_UNKNOWN] = "unknown",
    [DHAT_OOM_MEMCG] = "memcg",
    [DHAT_OOM_GLOBAL] = "global",
};

void dhat_death__from_event(struct dhat_death *d, const struct death_event *e)
{
	int sig = e->exit_code & 0x7f;

	memset(d, 0, sizeof(*d));
	d->pid = e->tgid;
	if (!sig) {
		d->cause = DHAT_DEATH_EXIT;
		d->status = (e->exit_code >> 8) & 0xff;
	} else {
		d->cause = DHAT_DEATH_SIGNAL;
		d->signo = sig;
		d->core = e->exit_code & 0x80;
		/* The last signal delivered is the fatal one only if it is the same signal. */
		if (e->flags & DEATH_F_SIGNAL && e->signo == sig) {
			d->si_code = e->si_code;
			d->has_addr = e->flags & DEATH_F_FAULT_ADDR;
			d->addr = e->fault_addr;
		}
	}
	/* The OOM killer's SIGKILL, unless the process died of something else meanwhile. */
	if (e->flags & DEATH_F_OOM && sig == SIGKILL) {
		d->cause = DHAT_DEATH_OOM;
		d->scope = e->flags & DEATH_F_OOM_MEMCG	   ? DHAT_OOM_MEMCG
			   : e->flags & DEATH_F_OOM_GLOBAL ? DHAT_OOM_GLOBAL
							   : DHAT_OOM_UNKNOWN;
		d->limit = e->oom_limit;
		d->usage = e->oom_usage;
		memcpy(d->cgroup, e->oom_cgroup, sizeof(d->cgroup) - 1);
		d->cgroup[sizeof(d->cgroup) - 1] = '\0';
	}
	if (e->flags & DEATH_F_RSS) {
		d->has_rss = true;
		d->rss.anon = e->rss_anon;
		d->rss.file = e->rss_file;
		d->rss.shmem = e->rss_shmem;
		d->rss.swap = e->swap;
	}
}

void dhat_death__write(FILE *f, const struct dhat_death *d)
{
	unsigned c = d->cause < sizeof(CAUSES) / sizeof(*CAUSES) ? d->cause : 0;

	fprintf(f, ",\"" DHAT_DEATH_KEY "\":{\"cause\":\"%s\",\"pid\":%" PRId64, CAUSES[c], d->pid);
	if (d->cause == DHAT_DEATH_EXIT)
		fprintf(f, ",\"status\":%d", d->status);
	else
		fprintf(f, ",\"signal\":%d", d->signo);
	if (d->cause == DHAT_DEATH_SIGNAL) {
		fprintf(f, ",\"siCode\":%d,\"core\":%s", d->si_code < 0 ? 0 : d->si_code,
			d->core ? "true" : "false");
		if (d->has_addr) /* a string: 64-bit addresses do not survive a JSON double */
			fprintf(f, ",\"faultAddr\":\"0x%" PRIx64 "\"", d->addr);
	}
	if (d->cause == DHAT_DEATH_OOM) {
		fprintf(f, ",\"oomScope\":\"%s\"",
			SCOPES[d->scope <= DHAT_OOM_GLOBAL ? d->scope : 0]);
		if (d->scope == DHAT_OOM_MEMCG) {
			fprintf(f, ",\"limit\":%" PRIu64 ",\"usage\":%" PRIu64 ",\"cgroup\":",
				d->limit, d->usage);
			dhat__json_str(f, d->cgroup);
		}
	}
	if (d->has_rss)
		fprintf(f,
			",\"rssAnon\":%" PRIu64 ",\"rssFile\":%" PRIu64 ",\"rssShmem\":%" PRIu64
			",\"swap\":%" PRIu64,
			d->rss.anon, d->rss.file, d->rss.shmem, d->rss.swap);
	fputs("}\n", f);
}

/* The index of s in names[cnt], or 0. */
static unsigned lookup(const char *const *names, unsigned cnt, const char *s)
{
	for (unsigned i = 0; i < cnt; i++)
		if (!strcmp(names[i], s))
			return i;
	return 0;
}

void dhat_death__set(struct dhat_death *d, const char *key, const char *str, bool u_ok, uint64_t u)
{
	int small = u_ok && u <= 0x7fffffff ? (int)u : 0;

	if (str && !strcmp(key, "cause"))
		d->cause = lookup(CAUSES, sizeof(CAUSES) / sizeof(*CAUSES), str);
	else if (str && !strcmp(key, "oomScope"))
		d->scope = lookup(SCOPES, sizeof(SCOPES) / sizeof(*SCOPES), str);
	else if (str && !strcmp(key, "cgroup"))
		snprintf(d->cgroup, sizeof(d->cgroup), "%s", str);
	else if (str && !strcmp(key, "faultAddr"))
		d->has_addr = sscanf(str, "0x%" SCNx64, &d->addr) == 1;
	else if (u_ok && !strcmp(key, "pid"))
		d->pid = (int64_t)(u & INT64_MAX);
	else if (u_ok && !strcmp(key, "status"))
		d->status = small;
	else if (u_ok && !strcmp(key, "signal"))
		d->signo = small;
	else if (u_ok && !strcmp(key, "siCode"))
		d->si_code = small;
	else if (u_ok && !strcmp(key, "limit"))
		d->limit = u;
	else if (u_ok && !strcmp(key, "usage"))
		d->usage = u;
	else if (u_ok && !strcmp(key, "rssAnon"))
		d->rss.anon = u, d->has_rss = true; /* rssAnon is the one that must be there */
	else if (u_ok && !strcmp(key, "rssFile"))
		d->rss.file = u;
	else if (u_ok && !strcmp(key, "rssShmem"))
		d->rss.shmem = u;
	else if (u_ok && !strcmp(key, "swap"))
		d->rss.swap = u;
}

/* "SIGSEGV", "signal 42" when the C library has no name for it, "a signal" if unknown. */
static void sig_name(int signo, char *buf, size_t sz)
{
	const char *abbrev = signo > 0 ? sigabbrev_np(signo) : NULL;

	if (abbrev)
		snprintf(buf, sz, "SIG%s", abbrev);
	else if (signo > 0)
		snprintf(buf, sz, "signal %d", signo);
	else
		snprintf(buf, sz, "a signal");
}

void dhat_death__describe(const struct dhat_death *d, uint64_t live_bytes, bool exact, char *buf,
			  size_t sz)
{
	char live[UNITS_BYTES_SZ], limit[UNITS_BYTES_SZ], sig[32], how[128] = "";

	units__bytes(live_bytes, exact, live, sizeof(live));
	units__bytes(d->limit, exact, limit, sizeof(limit));
	sig_name(d->signo, sig, sizeof(sig));
	switch (d->cause) {
	case DHAT_DEATH_EXIT:
		snprintf(buf, sz, "exited with status %d: live heap %s at exit", d->status, live);
		return;
	case DHAT_DEATH_OOM:
		if (d->scope == DHAT_OOM_MEMCG)
			snprintf(how, sizeof(how), " (memory cgroup limit %s)", limit);
		else if (d->scope == DHAT_OOM_GLOBAL)
			snprintf(how, sizeof(how), " (system-wide: no memory cgroup at its limit)");
		snprintf(buf, sz, "killed by the OOM killer%s: live heap %s at death", how, live);
		return;
	case DHAT_DEATH_SIGNAL:
		if (d->has_addr)
			snprintf(how, sizeof(how), " at address 0x%" PRIx64, d->addr);
		snprintf(buf, sz, "killed by %s%s%s: live heap %s at death", sig, how,
			 d->core ? " (core dumped)" : "", live);
		return;
	default:
		snprintf(buf, sz, "ended (cause unknown): live heap %s at death", live);
	}
}

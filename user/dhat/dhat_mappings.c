// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The "mappings" object of a DHAT file: see dhat_mappings.h. */
#include "dhat_mappings.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dhat_json.h"
#include "safe_text.h"
#include "units.h"

void dhat_mappings__write(FILE *f, const struct dhat_mappings *m)
{
	fprintf(f,
		",\"" DHAT_MAPPINGS_KEY "\":{\"outsideMalloc\":%" PRIu64
		",\"insideMalloc\":%" PRIu64 "\n  ,\"sites\":[",
		m->outside_malloc, m->inside_malloc);
	for (size_t i = 0; i < m->cnt; i++) {
		const struct dhat_mapping_site *s = &m->sites[i];

		fputs(i ? "\n   ,{\"site\":" : "{\"site\":", f);
		dhat__json_str(f, s->site ? s->site : "");
		fprintf(f,
			",\"bytes\":%" PRIu64 ",\"peak\":%" PRIu64 ",\"count\":%" PRIu64
			",\"inMalloc\":%s,\"frames\":[",
			s->bytes, s->peak, s->count, s->in_malloc ? "true" : "false");
		for (size_t j = 0; j < s->frames.cnt; j++) {
			if (j)
				fputc(',', f);
			dhat__json_str(f, s->frames.items[j]);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
}

void dhat_mappings__release(struct dhat_mappings *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->cnt; i++) {
		free(m->sites[i].site);
		strvec__release(&m->sites[i].frames);
	}
	free(m->sites);
	m->sites = NULL;
	m->cnt = 0;
}

void dhat_mappings__set(struct dhat_mappings *m, const char *key, bool u_ok, uint64_t u)
{
	if (u_ok && !strcmp(key, "outsideMalloc"))
		m->outside_malloc = u;
	else if (u_ok && !strcmp(key, "insideMalloc"))
		m->inside_malloc = u;
}

void dhat_mapping_site__set(struct dhat_mapping_site *s, const char *key, const char *str,
			    bool u_ok, uint64_t u, bool is_bool, bool b)
{
	if (str && !strcmp(key, "site") && !s->site)
		s->site = strdup(str);
	else if (u_ok && !strcmp(key, "bytes"))
		s->bytes = u;
	else if (u_ok && !strcmp(key, "peak"))
		s->peak = u;
	else if (u_ok && !strcmp(key, "count"))
		s->count = u;
	else if (is_bool && !strcmp(key, "inMalloc"))
		s->in_malloc = b;
}

/* Whether a (outside malloc, with bytes at te) is shown under the same text as b. */
static bool same_site(const struct dhat_mapping_site *a, const struct dhat_mapping_site *b)
{
	return !a->in_malloc && a->bytes && !strcmp(a->site ? a->site : "<unattributed>",
						    b->site ? b->site : "<unattributed>");
}

void dhat_mappings__print(FILE *out, const struct dhat_mappings *m, size_t top, const char *when,
			  bool exact_bytes)
{
	size_t shown = 0;
	char c[UNITS_BYTES_SZ];

	for (size_t i = 0; i < m->cnt && shown < top; i++) {
		const struct dhat_mapping_site *s = &m->sites[i];
		uint64_t bytes = s->bytes, count = s->count;
		bool seen = false;

		if (s->in_malloc || !s->bytes)
			continue;
		/* Stacks that differ below the site name one site: one row, their sums (the
		 * site text is all a reader can tell them by; several identical rows read as a
		 * bug). At the row of the largest, which comes first. */
		for (size_t j = 0; j < i && !seen; j++)
			seen = same_site(&m->sites[j], s);
		if (seen)
			continue;
		for (size_t j = i + 1; j < m->cnt; j++)
			if (same_site(&m->sites[j], s)) {
				bytes += m->sites[j].bytes;
				count += m->sites[j].count;
			}
		if (!shown++)
			fprintf(out,
				"\n  memory mapped outside malloc at %s (anonymous, virtual)\n",
				when);
		/* Names come from the target's symbols: shown terminal-safe. */
		/* 14 columns: the report's byte cells above */
		fprintf(out, "    %14s  %9" PRIu64 " maps    ",
			units__bytes(bytes, exact_bytes, c, sizeof(c)), count);
		safe_text__fputs_term(out, s->site ? s->site : "<unattributed>");
		fputc('\n', out);
	}
}

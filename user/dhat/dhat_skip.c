// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The recorded --skip patterns (dhat_skip.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dhat_json.h"
#include "dhat_skip.h"
#include "grow.h"

void dhat_skip__write(FILE *f, const char *const *pat, size_t cnt)
{
	if (!cnt)
		return;
	fputs(",\"" DHAT_SKIP_KEY "\":[", f);
	for (size_t i = 0; i < cnt; i++) {
		if (i)
			fputc(',', f);
		dhat__json_str(f, pat[i]);
	}
	fputs("]\n", f);
}

int dhat_skip__add(struct dhat_skip *s, const char *pat)
{
	/* the file's: as many as the command line takes, the rest ignored (each pattern is
	 * matched against every frame) */
	if (s->cnt >= DHAT_SKIP_MAX)
		return 0;
	if (grow__array((void **)&s->pat, &s->cap, s->cnt + 1, sizeof(*s->pat)))
		return -ENOMEM;
	s->pat[s->cnt] = strdup(pat);
	if (!s->pat[s->cnt])
		return -ENOMEM;
	s->cnt++;
	return 0;
}

void dhat_skip__release(struct dhat_skip *s)
{
	for (size_t i = 0; i < s->cnt; i++)
		free(s->pat[i]);
	free(s->pat);
	s->pat = NULL;
	s->cnt = 0;
	s->cap = 0;
}

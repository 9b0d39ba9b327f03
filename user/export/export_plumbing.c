// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export_plumbing - which frames the exporters leave out: the allocation plumbing of
 * plumbing.h (plus --skip patterns), judged once per frame-table entry by report's own
 * rule, so that a flame graph, a folded stack and a pprof sample start at the same frame
 * report names as the site.
 */
#include "export_int.h"

#include <errno.h>
#include <stdlib.h>

#include "dhat_reader.h"
#include "site.h"

int export_plumbing__mark(const struct dhat_profile *p, const struct export_opts *o, bool **out)
{
	bool *marks;

	*out = NULL;
	if (o && o->keep_plumbing)
		return 0;
	marks = calloc(p->ftbl_cnt + 1, sizeof(*marks));
	if (!marks)
		return -ENOMEM;
	for (size_t i = 0; i < p->ftbl_cnt; i++)
		marks[i] = site__is_plumbing(site__clean_frame(p->ftbl[i]), o ? o->skip : NULL);
	*out = marks;
	return 0;
}

size_t export_plumbing__cut(const bool *marks, const struct dhat_profile *p,
			    const struct dhat_pp *pp)
{
	const uint32_t *fs;
	size_t n = 0;

	if (!marks)
		return 0;
	fs = dhat_profile__pp_fs(p, pp);
	while (n < pp->fs_cnt && fs[n] < p->ftbl_cnt && marks[fs[n]])
		n++;
	/* All plumbing (an allocator calling itself from nowhere we know): keep it whole
	 * rather than lose the sample's only frames. */
	return n == pp->fs_cnt ? 0 : n;
}

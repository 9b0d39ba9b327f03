// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The reader's --skip patterns with the file's recorded ones (recorded_skip.h). */
#include <errno.h>
#include <stdlib.h>

#include "recorded_skip.h"

int recorded_skip__merge(const struct dhat_profile *p, const struct site_opts *given,
			 bool use_recorded, struct site_opts *out)
{
	size_t own = given ? given->skip_cnt : 0;
	size_t rec = use_recorded ? p->skip.cnt : 0;
	const char **v;

	*out = given ? *given : (struct site_opts){ 0 };
	out->skip = NULL;
	out->skip_cnt = 0;
	if (!own + !rec == 2)
		return 0;
	v = calloc(own + rec, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < own; i++)
		v[i] = given->skip[i];
	for (size_t i = 0; i < rec; i++)
		v[own + i] = p->skip.pat[i];
	out->skip = v;
	out->skip_cnt = own + rec;
	return 0;
}

void recorded_skip__release(struct site_opts *out)
{
	free((void *)out->skip);
	out->skip = NULL;
	out->skip_cnt = 0;
}

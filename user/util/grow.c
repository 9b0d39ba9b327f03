// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int grow__array(void *items, size_t *cap, size_t need, size_t elem_sz)
{
	size_t n = *cap ? *cap : GROW_MIN_CAP;
	void *old, *p;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (elem_sz && n > SIZE_MAX / elem_sz)
		return -ENOMEM;
	/* items points at a T *: read and written as bytes, so any T * works without the
	 * aliasing trouble of a cast to void **. */
	memcpy(&old, items, sizeof(old));
	p = realloc(old, n * elem_sz);
	if (!p)
		return -ENOMEM;
	memcpy(items, &p, sizeof(p));
	*cap = n;
	return 0;
}

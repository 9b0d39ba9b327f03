/*
 * wrapped - every allocation goes through one wrapper, my_alloc, called from two sites
 * (make_names, make_tables): without --skip my_alloc every row of a report is the wrapper's,
 * with it the rows name the callers (feedback_e2e).
 */
#include <stdlib.h>

__attribute__((noinline)) void *my_alloc(size_t n);
__attribute__((noinline)) void make_names(void);
__attribute__((noinline)) void make_tables(void);

void *my_alloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		abort();
	return p;
}

void make_names(void)
{
	for (int i = 0; i < 10; i++)
		free(my_alloc(100));
}

void make_tables(void)
{
	for (int i = 0; i < 5; i++)
		free(my_alloc(5000));
}

int main(void)
{
	make_names();
	make_tables();
	return 0;
}

/* Leaks at one site (leak_some, 40 blocks never freed) while another site (churn) allocates
 * more but frees everything: the summary's still-live section must name leak_some. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *kept[40];

__attribute__((noinline)) static void leak_some(int i)
{
	kept[i] = malloc(256);
	memset(kept[i], i, 256);
}

__attribute__((noinline)) static void churn(int i)
{
	char *p = malloc(4096);

	memset(p, i, 4096);
	free(p);
}

int main(void)
{
	for (int i = 0; i < 40; i++) {
		leak_some(i);
		churn(i);
	}
	printf("%p\n", (void *)kept[0]);
	return 0;
}

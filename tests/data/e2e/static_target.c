// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* static_target - a statically linked process with no libc mapping; exits at EOF on stdin. */
#include <unistd.h>

int main(void)
{
	char c;

	while (read(STDIN_FILENO, &c, 1) > 0)
		;
	return 0;
}

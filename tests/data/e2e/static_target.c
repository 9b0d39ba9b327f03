// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* static_target - a statically linked process with no libc mapping: echoes stdin to stdout
 * (a byte back tells a test that the exec is complete and main runs), exits at EOF. */
#include <unistd.h>

int main(void)
{
	char c;

	while (read(STDIN_FILENO, &c, 1) > 0)
		if (write(STDOUT_FILENO, &c, 1) != 1)
			return 1;
	return 0;
}

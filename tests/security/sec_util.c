// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "sec_util.h"

#include <errno.h>
#include <fcntl.h>
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int sec_tmpdir(char *out, size_t sz, const char *tag, mode_t mode)
{
	snprintf(out, sz, "/tmp/tracer-sec-%s-XXXXXX", tag);
	if (!mkdtemp(out) || chmod(out, mode))
		return -errno;
	return 0;
}

void sec_rmtree(const char *path)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd)) {
		/* best effort: a leftover /tmp directory is not a test failure */
	}
}

int sec_copy(const char *src, const char *dst, mode_t mode)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC), out, err = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			err = -EIO;
			break;
		}
	if (n < 0)
		err = -errno;
	close(in);
	if (close(out) && !err)
		err = -errno;
	if (!err && chmod(dst, mode))
		err = -errno;
	return err;
}

bool sec_has_byte(const char *buf, size_t len, unsigned char b)
{
	return memchr(buf, b, len) != NULL;
}

bool sec_valid_utf8(const char *buf, size_t len)
{
	iconv_t cd = iconv_open("UTF-8", "UTF-8");
	char out[4096], *in = (char *)buf;
	size_t left = len;
	bool ok = true;

	if (cd == (iconv_t)-1)
		return false;
	while (left && ok) {
		char *o = out;
		size_t oleft = sizeof(out);

		if (iconv(cd, &in, &left, &o, &oleft) == (size_t)-1 && errno != E2BIG)
			ok = false; /* EILSEQ or EINVAL: not UTF-8 */
	}
	iconv_close(cd);
	return ok;
}

int sec_target__start(struct sec_target *t, const char *exe)
{
	int in[2], out[2];
	char line[128];
	FILE *f;
	int err = 0;

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return -errno;
	t->pid = fork();
	if (t->pid < 0)
		return -errno;
	if (t->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(exe, exe, "wait", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	t->in_fd = in[1];
	f = fdopen(out[0], "r");
	if (!f || !fgets(line, sizeof(line), f) ||
	    sscanf(line, "ready %llx", (unsigned long long *)&t->addr) != 1)
		err = -EIO;
	if (f)
		fclose(f);
	return err;
}

void sec_target__stop(struct sec_target *t)
{
	int st;

	if (t->pid <= 0)
		return;
	close(t->in_fd);
	waitpid(t->pid, &st, 0);
	t->pid = 0;
}

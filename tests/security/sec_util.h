/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers of the security suites: scratch directories outside the build tree (so that an
 * unprivileged "sudo user" can reach them), file copies, a waiting target. */
#ifndef TESTS_SEC_UTIL_H
#define TESTS_SEC_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

/* mkdtemp under /tmp, then chmod mode. The path is written to out. 0 or -errno. */
int sec_tmpdir(char *out, size_t sz, const char *tag, mode_t mode);
/* rm -rf path. */
void sec_rmtree(const char *path);
/* Copy src to dst with mode. 0 or -errno. */
int sec_copy(const char *src, const char *dst, mode_t mode);
/* Does buf hold byte b? */
bool sec_has_byte(const char *buf, size_t len, unsigned char b);
/* Is buf valid UTF-8 (iconv's judgement)? */
bool sec_valid_utf8(const char *buf, size_t len);

/* A running "named_alloc wait": its pid, the address it reported, the pipe that keeps it. */
struct sec_target {
	pid_t pid;
	__u64 addr;
	int in_fd; /* its stdin: closing it ends the program */
};
/* Start exe with argument "wait" and read its "ready ADDR". 0 or -errno. */
int sec_target__start(struct sec_target *t, const char *exe);
/* Close its stdin and reap it. */
void sec_target__stop(struct sec_target *t);

#endif

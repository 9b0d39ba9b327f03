/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* environment - can this process trace at all: privileges, kernel features, the target. */
#ifndef TRACER_ENVIRONMENT_H
#define TRACER_ENVIRONMENT_H

#include <sys/types.h>

/*
 * Check, in this order, that we run as root, that the kernel has BTF and uprobe support,
 * and (pid > 0) that process pid exists. The first failure is logged with what to do and
 * returned: -EPERM (not root), -EOPNOTSUPP (no BTF or no uprobes), -ESRCH (no such
 * process). 0: all good.
 */
int env_check(pid_t pid);

#endif

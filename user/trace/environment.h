/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* environment - can this process trace at all: privileges, kernel features, the target. */
#ifndef TRACER_ENVIRONMENT_H
#define TRACER_ENVIRONMENT_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Check, in this order, that we run as root, that the kernel has BTF and uprobe support,
 * and (pid > 0) that process pid exists. The first failure is logged with what to do and
 * returned: -EPERM (not root), -EOPNOTSUPP (no BTF or no uprobes), -ESRCH (no such
 * process). 0: all good.
 */
int env_check(pid_t pid);

/*
 * Is feature in TRACER_REFUSE (a comma-separated list, hidden, for tests)? The tracer then
 * takes that kernel feature as refused, so the fallback an older or smaller host gets is
 * what runs here:
 *   session  session uprobes (also TRACER_NO_SESSION=refused)
 *   multi    uprobe-multi links (sessions too: they are uprobe-multi links)
 *   tracefs  a mounted tracefs (tracefs.h then mounts its own)
 *   fsmount  fsopen/fsmount (tracefs.h then mounts in a private mount namespace)
 *   privatens  that private mount namespace too: no tracefs at all (inherited probes fail)
 *   syscall_tp the raw sys_enter/sys_exit tracepoints (no mmap tracking)
 */
bool env_refuses(const char *feature);

#endif

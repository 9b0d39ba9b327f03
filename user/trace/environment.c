// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "environment.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

int env_check(pid_t pid)
{
	if (geteuid() != 0) {
		elog("must run as root: BPF uprobes need CAP_BPF and CAP_PERFMON "
		     "(try: sudo tracer ...)\n");
		return -EPERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		elog("this kernel has no BTF (/sys/kernel/btf/vmlinux missing): "
		     "CONFIG_DEBUG_INFO_BTF is required\n");
		return -EOPNOTSUPP;
	}
	/* The uprobe PMU (kernel >= 4.17): libbpf creates uprobes through its perf type. */
	if (access("/sys/bus/event_source/devices/uprobe/type", R_OK)) {
		elog("this kernel has no uprobe support (CONFIG_UPROBE_EVENTS)\n");
		return -EOPNOTSUPP;
	}
	if (pid > 0 && kill(pid, 0) && errno == ESRCH) {
		elog("process %d does not exist\n", (int)pid);
		return -ESRCH;
	}
	return 0;
}

bool env_refuses(const char *feature)
{
	const char *list = getenv("TRACER_REFUSE");
	size_t n = strlen(feature);

	for (const char *p = list; p && *p; p += strcspn(p, ","), p += *p == ',')
		if (!strncmp(p, feature, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

#!/usr/bin/env bash
# leftovers.sh BUILD_DIR - fail if the test suite left anything behind: a process running a
# program of the build tree, a test memory cgroup, or a tracer's uprobe events. Each e2e
# test's helpers are SIGKILLed by its guard (tests/e2e_util.h).
set -uo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
bad=0
sleep 2 # a guard that just fired is still reaping
if pgrep -af -- "^$build/" >&2; then
	echo "leftovers.sh: processes of $build still running (above)" >&2
	bad=1
fi
for d in /sys/fs/cgroup/memory/tracer-* /sys/fs/cgroup/unified/tracer-* /sys/fs/cgroup/tracer-*; do
	[ -d "$d" ] || continue
	echo "leftovers.sh: test cgroup left: $d" >&2
	bad=1
done
# uprobe_events is the kernel's, one list whichever mount shows it: look through a mount
# of our own (host.sh), so that it is read whether or not this host mounts tracefs.
events=$("$(dirname "$0")/host.sh" tracefs cat /sys/kernel/tracing/uprobe_events | grep ':tracer_')
if [ -n "$events" ]; then
	echo "leftovers.sh: uprobe events left:" >&2
	echo "$events" >&2
	bad=1
fi
[ "$bad" = 0 ] && echo "leftovers.sh: nothing left behind"
exit "$bad"

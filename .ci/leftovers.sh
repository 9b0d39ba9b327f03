#!/usr/bin/env bash
# leftovers.sh BUILD_DIR - fail if the test suite left anything behind: a process running a
# program of the build tree, a test memory cgroup, or a tracer's uprobe events. Each e2e
# test's helpers are SIGKILLed by its guard (tests/e2e_util.h); a SIGKILLed tracer's carrier
# deletes its events within seconds (user/trace/loader_inherit.c): both are waited for.
set -uo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
here=$(dirname "$0")
# uprobe_events is the kernel's, one list whichever mount shows it: read through a mount of
# our own (host.sh), so that it is read whether or not this host mounts tracefs.
events() {
	"$here/host.sh" tracefs cat /sys/kernel/tracing/uprobe_events >"$tmp" ||
		{ echo "leftovers.sh: cannot read uprobe_events" >&2; return 2; }
	grep ':tracer_' "$tmp"
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for _ in $(seq 20); do # at most ~10 s for a guard or a carrier still at work
	procs=$(pgrep -af -- "^$build/") || true
	ev=$(events)
	[ $? -eq 2 ] && exit 1
	[ -z "$procs" ] && [ -z "$ev" ] && break
	sleep 0.5
done
bad=0
if [ -n "$procs" ]; then
	echo "leftovers.sh: processes of $build still running:" >&2
	echo "$procs" >&2
	bad=1
fi
for d in /sys/fs/cgroup/memory/tracer-* /sys/fs/cgroup/unified/tracer-* /sys/fs/cgroup/tracer-*; do
	[ -d "$d" ] || continue
	echo "leftovers.sh: test cgroup left: $d" >&2
	bad=1
done
if [ -n "$ev" ]; then
	echo "leftovers.sh: uprobe events left:" >&2
	echo "$ev" >&2
	bad=1
fi
[ "$bad" = 0 ] && echo "leftovers.sh: nothing left behind"
exit "$bad"

#!/usr/bin/env bash
# host.sh bare|tracefs CMD [ARGS...] - run CMD as on another kind of host, in a private mount
# namespace of its own (the host's mounts are never touched):
#   bare     tracefs unmounted (/sys/kernel/tracing and /sys/kernel/debug/tracing), as on a
#            fresh minimal VM: the tracer must reach tracefs by itself (user/trace/tracefs.h);
#   tracefs  tracefs mounted at /sys/kernel/tracing, as on a host that mounts it at boot.
set -euo pipefail
mode=${1:-}
shift || true
case "$mode" in
bare | tracefs) ;;
*)
	echo "usage: $0 bare|tracefs CMD [ARGS...]" >&2
	exit 2
	;;
esac
# shellcheck disable=SC2016
exec unshare -m --propagation private bash -c '
	set -euo pipefail
	mode=$1
	shift
	for m in /sys/kernel/debug/tracing /sys/kernel/tracing; do
		while grep -q " $m tracefs " /proc/self/mounts; do umount -l "$m"; done
	done
	[ "$mode" = bare ] || mount -t tracefs nodev /sys/kernel/tracing
	if [ "$mode" = bare ] && grep -qw tracefs /proc/self/mounts; then
		echo "host.sh: tracefs is still mounted" >&2
		exit 1
	fi
	echo "host.sh: $mode host: $(grep -cw tracefs /proc/self/mounts) tracefs mount(s)"
	exec "$@"' host.sh "$mode" "$@"

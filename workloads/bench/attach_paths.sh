#!/usr/bin/env bash
# attach_paths.sh [-n RUNS] [-t THREADS] - what each way of attaching costs on one live
# process of many threads: `tracer -vv --pid PID --duration 1` on many_threads with THREADS
# threads (default 64) each allocating every 10 ms, its "probes attached in" and
# "detached in" times, RUNS
# rounds (default 5) with the paths interleaved, medians printed side by side. Paths:
#   mounted   inherited perf events, tracefs mounted (.ci/host.sh tracefs): the old path
#   detached  inherited perf events, tracefs unmounted: a detached mount of the tracer's own
#   private   inherited perf events, tracefs in a private namespace (TRACER_REFUSE=fsmount)
#   nofollow  --no-follow: session uprobe-multi links (no perf events, no tracefs)
# Root. Absolute times vary with the host; compare the columns of one run.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=workloads/bench/lib.sh
. "$here/workloads/bench/lib.sh"
build=${BUILD_DIR:-$here/build}
runs=5 threads=64
while getopts n:t: o; do
	case $o in
	n) runs=$OPTARG ;;
	t) threads=$OPTARG ;;
	*) exit 2 ;;
	esac
done
tmp=$(mktemp -d)
trap 'kill "$emb" 2>/dev/null; rm -rf "$tmp"' EXIT
"$build/workloads/bench/many_threads" "$threads" "$tmp/ready" &
emb=$!
while [ ! -s "$tmp/ready" ]; do sleep 0.1; done
echo "many_threads pid $emb: $(ls /proc/$emb/task | wc -l) threads"

one() { # path -> "attach_ms detach_ms"
	local log=$tmp/$1.log
	case $1 in
	mounted) "$here/.ci/host.sh" tracefs "$build/user/tracer" -vv --pid "$emb" --duration 1 -o "$tmp/p.json" >/dev/null 2>"$log" ;;
	detached) "$here/.ci/host.sh" bare "$build/user/tracer" -vv --pid "$emb" --duration 1 -o "$tmp/p.json" >/dev/null 2>"$log" ;;
	private) "$here/.ci/host.sh" bare env TRACER_REFUSE=fsmount "$build/user/tracer" -vv --pid "$emb" --duration 1 -o "$tmp/p.json" >/dev/null 2>"$log" ;;
	nofollow) "$here/.ci/host.sh" bare "$build/user/tracer" -vv --no-follow --pid "$emb" --duration 1 -o "$tmp/p.json" >/dev/null 2>"$log" ;;
	esac
	echo "$(sed -n 's/.*probes attached in \([0-9.]*\) ms.*/\1/p' "$log" | head -1) $(sed -n 's/.*detached in \([0-9.]*\) ms.*/\1/p' "$log" | head -1)"
}

paths="mounted detached private nofollow"
for p in $paths; do : >"$tmp/$p.times"; done
for r in $(seq "$runs"); do
	for p in $paths; do one "$p" >>"$tmp/$p.times"; done
done
printf '%-10s %12s %12s   (%s runs, ms, medians)\n' path attach detach "$runs"
for p in $paths; do
	printf '%-10s %12s %12s\n' "$p" "$(cut -d' ' -f1 "$tmp/$p.times" | median)" \
		"$(cut -d' ' -f2 "$tmp/$p.times" | median)"
done

#!/usr/bin/env bash
# fork_cost.sh [-n FORKS] [-r RUNS] - what following a process tree costs a fork-heavy
# program: fork_loop's own loop time (N forks, each child one malloc/free) untraced, under
# `tracer -- ` (children followed: per-process session links), `--no-follow`, and with the
# inherited probes (TRACER_NO_SESSION=1), RUNS rounds interleaved, medians side by side.
# Also the tracer's whole wall time (its start and stop included). Root.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=workloads/bench/lib.sh
. "$here/workloads/bench/lib.sh"
build=${BUILD_DIR:-$here/build}
forks=30 runs=5
while getopts n:r: o; do
	case $o in
	n) forks=$OPTARG ;;
	r) runs=$OPTARG ;;
	*) exit 2 ;;
	esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
loop=$build/workloads/bench/fork_loop
one() { # mode -> "loop_ms wall_s"
	local t0 t1 out
	t0=$(date +%s.%N)
	case $1 in
	untraced) out=$("$loop" "$forks" 2>&1) ;;
	follow) out=$("$build/user/tracer" -q -o "$tmp/p-%p.json" -- "$loop" "$forks" 2>&1) ;;
	nofollow) out=$("$build/user/tracer" -q --no-follow -o "$tmp/p.json" -- "$loop" "$forks" 2>&1) ;;
	inherited) out=$(TRACER_NO_SESSION=1 "$build/user/tracer" -q -o "$tmp/p-%p.json" -- "$loop" "$forks" 2>&1) ;;
	esac
	t1=$(date +%s.%N)
	rm -f "$tmp"/p*.json
	echo "$(sed -n 's/.* forks in \([0-9.]*\) ms.*/\1/p' <<<"$out")" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')"
}
modes="untraced follow nofollow inherited"
for m in $modes; do : >"$tmp/$m"; done
for r in $(seq "$runs"); do
	for m in $modes; do one "$m" >>"$tmp/$m"; done
done
printf '%-10s %14s %16s   (%s forks, %s runs, medians)\n' mode "loop ms" "tracer wall s" "$forks" "$runs"
for m in $modes; do
	printf '%-10s %14s %16s\n' "$m" "$(cut -d' ' -f1 "$tmp/$m" | median)" "$(cut -d' ' -f2 "$tmp/$m" | median)"
done

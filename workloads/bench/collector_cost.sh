#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# collector_cost.sh - the tracer's own CPU per record, split into what one more record costs
# (the slope) and what a run costs before its first record (the intercept: the BPF programs'
# load, the unwind tables, symbols and JSON at the end). Each real-program row of run.sh
# (sed, jq, sqlite3) is traced at two input sizes, 1x and 4x, in every mode, the runs
# interleaved (mode by mode, size by size, round by round) so the host's noise falls on all
# of them alike.
#
#   tracer CPU = the tracer's own user + sys (bench_timer.so preloaded into it), without
#                the target's (which holds the BPF programs' time)
#   slope      = (CPU at 4x - CPU at 1x) / (records at 4x - records at 1x), µs per record
#   intercept  = CPU at 1x - slope * records at 1x, ms
#
# Usage: collector_cost.sh [-b BUILD] [-r ROUNDS] [-m MODES] [-R ROWS] [-x OLD_TRACER]
#   defaults: -b build -r 3 -m kernel,dwarf,fp -R sed,jq,sqlite; medians of the rounds.
#   -x: every mode also with another tracer binary (rows "MODE@x"), for before/after in one run.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=workloads/bench/lib.sh
. "$here/workloads/bench/lib.sh"
BUILD=build REPS=3 MODES=kernel,dwarf,fp ROWSEL=sed,jq,sqlite XTRACER=
while [ $# -gt 0 ]; do
	case $1 in
	-b) BUILD=$2; shift 2 ;;
	-r) REPS=$2; shift 2 ;;
	-m) MODES=$2; shift 2 ;;
	-R) ROWSEL=$2; shift 2 ;;
	-x) XTRACER=$(realpath "$2"); shift 2 ;;
	-h|--help) sed -n '3,19p' "$0"; exit 0 ;;
	*) echo "collector_cost.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "collector_cost.sh: needs root" >&2; exit 1; }
BUILD=$(cd "$BUILD" && pwd)
TRACER=$BUILD/user/tracer TIMER=$BUILD/workloads/bench/bench_timer.so
for f in "$TRACER" "$TIMER" ${XTRACER:+"$XTRACER"}; do
	[ -e "$f" ] || { echo "collector_cost.sh: missing $f" >&2; exit 1; }
done
for p in sed jq sqlite3; do
	command -v $p >/dev/null || { echo "collector_cost.sh: missing $p" >&2; exit 1; }
done
WORK=$(mktemp -d /tmp/collector-cost.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

mkdir "$WORK/1" "$WORK/4"
declare -A CMD EXE=([sed]=sed [jq]=jq [sqlite]=sqlite3)
for s in 1 4; do
	real_program_inputs "$WORK/$s" $s
	for row in sed jq sqlite; do
		CMD[$row.$s]=$(real_program_cmd $row "$WORK/$s")
	done
done
IFS=, read -ra ROWS <<<"$ROWSEL"
IFS=, read -ra MODE_LIST <<<"$MODES"
if [ -n "$XTRACER" ]; then
	for m in "${MODE_LIST[@]}"; do MODE_LIST+=("$m@x"); done
fi

# One traced run: appends "records tracer_cpu_s" to $WORK/r.ROW.MODE.SCALE. MODE@x: -x's tracer.
one() {
	local row=$1 mode=${2%@x} s=$3 tracer=$TRACER total target records
	[ "$mode" = "$2" ] || tracer=$XTRACER
	rm -f "$WORK/self"
	# bench_timer.so in the tracer itself: its own user + sys (RUSAGE_SELF, every thread,
	# not the target it waits for), written at its exit.
	BENCH_TIME_FILE=$WORK/self BENCH_TIME_EXE=$(basename "$tracer") LD_PRELOAD=$TIMER \
		"$tracer" -v --unwind "$mode" -o "$WORK/out.json" -- ${CMD[$row.$s]} \
		>/dev/null 2>"$WORK/err"
	records=$(sed -n 's/^events \([0-9]*\),.*/\1/p' "$WORK/err" | tail -1)
	[ -n "$records" ] && [ -s "$WORK/self" ] ||
		{ echo "collector_cost.sh: no 'events' line or no CPU time:" >&2; cat "$WORK/err" >&2; exit 1; }
	echo "$records $(awk '{ print $2 + $3 }' "$WORK/self")" >>"$WORK/r.$row.$2.$s"
}

for r in $(seq "$REPS"); do
	for row in "${ROWS[@]}"; do
		for mode in "${MODE_LIST[@]}"; do
			for s in 1 4; do
				one "$row" "$mode" "$s"
			done
		done
	done
	echo "round $r of $REPS done" >&2
done

echo "Tracer CPU: one more record (slope, µs) and a run's fixed part (intercept, ms);"
echo "median of $REPS interleaved rounds, inputs at 1x and 4x ($(date -u +%FT%TZ))"
echo
echo "| row | mode | records 1x | records 4x | CPU 1x (s) | CPU 4x (s) | µs/record (slope) | fixed (ms) | µs/record at 1x, all in |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for row in "${ROWS[@]}"; do
	for mode in "${MODE_LIST[@]}"; do
		n1=$(cut -d' ' -f1 "$WORK/r.$row.$mode.1" | median)
		n4=$(cut -d' ' -f1 "$WORK/r.$row.$mode.4" | median)
		c1=$(cut -d' ' -f2 "$WORK/r.$row.$mode.1" | median)
		c4=$(cut -d' ' -f2 "$WORK/r.$row.$mode.4" | median)
		awk -v row="$row" -v mode="$mode" -v n1="$n1" -v n4="$n4" -v c1="$c1" -v c4="$c4" 'BEGIN {
			slope = (c4 - c1) / (n4 - n1)
			printf "| %s | %s | %d | %d | %.2f | %.2f | %.2f | %.0f | %.2f |\n", row, mode, n1, n4,
				c1, c4, slope * 1e6, (c1 - slope * n1) * 1e3, c1 / n1 * 1e6 }'
	done
done

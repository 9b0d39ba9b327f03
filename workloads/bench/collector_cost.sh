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
#   tracer CPU = /usr/bin/time of tracer + target, less the target's own (bench_timer.so)
#   slope      = (CPU at 4x - CPU at 1x) / (records at 4x - records at 1x), µs per record
#   intercept  = CPU at 1x - slope * records at 1x, ms
#
# Usage: collector_cost.sh [-b BUILD] [-r ROUNDS] [-m MODES] [-R ROWS]
#   defaults: -b build -r 3 -m kernel,dwarf,fp -R sed,jq,sqlite; medians of the rounds.
set -euo pipefail

BUILD=build REPS=3 MODES=kernel,dwarf,fp ROWSEL=sed,jq,sqlite
while [ $# -gt 0 ]; do
	case $1 in
	-b) BUILD=$2; shift 2 ;;
	-r) REPS=$2; shift 2 ;;
	-m) MODES=$2; shift 2 ;;
	-R) ROWSEL=$2; shift 2 ;;
	-h|--help) sed -n '3,18p' "$0"; exit 0 ;;
	*) echo "collector_cost.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "collector_cost.sh: needs root" >&2; exit 1; }
BUILD=$(cd "$BUILD" && pwd)
TRACER=$BUILD/user/tracer TIMER=$BUILD/workloads/bench/bench_timer.so
for f in "$TRACER" "$TIMER" /usr/bin/time; do
	[ -e "$f" ] || { echo "collector_cost.sh: missing $f" >&2; exit 1; }
done
for p in sed jq sqlite3; do
	command -v $p >/dev/null || { echo "collector_cost.sh: missing $p" >&2; exit 1; }
done
WORK=$(mktemp -d /tmp/collector-cost.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# The inputs of run.sh's rows, at scale S (1 or 4): the same generators, S times the items.
inputs() {
	local s=$1
	awk -v n=$((8000 * s)) 'BEGIN { srand(42); for (i = 0; i < n; i++) { printf "id%d", i
		for (j = 0; j < 6; j++) printf " k%c%c=%d", 97 + int(rand() * 26), 97 + int(rand() * 26), int(rand() * 100000)
		print "" } }' >"$WORK/sed.$s.txt"
	awk -v n=$((18000 * s)) 'BEGIN { srand(42); printf "["; for (i = 0; i < n; i++) { if (i) printf ","
		printf "{\"id\":%d,\"name\":\"n%x\",\"tags\":[\"t%d\",\"t%d\"],\"vals\":[%d,%d,%d,%d]}", i,
			int(rand() * 1e6), int(rand() * 50), int(rand() * 50), int(rand() * 1000),
			int(rand() * 1000), int(rand() * 1000), int(rand() * 1000) }
		print "]" }' >"$WORK/in.$s.json"
	cat >"$WORK/ins.$s.sql" <<SQL
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, grp INTEGER, v REAL);
CREATE INDEX t_name ON t(name);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $((60000 * s)))
INSERT INTO t SELECT i, printf('n%08x', (i * 2654435761) % 4294967296), i % 97,
	(i * 7919 % 10007) / 10007.0 FROM c;
SELECT grp, count(*), sum(v), group_concat(substr(name, 1, 4)) FROM t GROUP BY grp ORDER BY 3 DESC LIMIT 3;
SQL
}
inputs 1
inputs 4
echo 's/([a-z]+)=([0-9]+)/\2:\1/g' >"$WORK/sed.script"
echo 'group_by(.tags[0]) | map({tag: .[0].tags[0], n: length, sum: (map(.vals | add) | add),
	names: (map(.name) | join(","))})' >"$WORK/prog.jq"

declare -A CMD EXE=([sed]=sed [jq]=jq [sqlite]=sqlite3)
for s in 1 4; do
	CMD[sed.$s]="sed -E -f $WORK/sed.script $WORK/sed.$s.txt"
	CMD[jq.$s]="jq -c -f $WORK/prog.jq $WORK/in.$s.json"
	CMD[sqlite.$s]="sqlite3 -batch -init $WORK/ins.$s.sql :memory: .quit"
done
IFS=, read -ra ROWS <<<"$ROWSEL"
IFS=, read -ra MODE_LIST <<<"$MODES"

# One traced run: appends "records tracer_cpu_s" to $WORK/r.ROW.MODE.SCALE.
one() {
	local row=$1 mode=$2 s=$3 total target records
	rm -f "$WORK/target"
	BENCH_TIME_FILE=$WORK/target BENCH_TIME_EXE=${EXE[$row]} LD_PRELOAD=$TIMER \
		/usr/bin/time -f "%U %S" -o "$WORK/time" \
		"$TRACER" -v --unwind "$mode" -o "$WORK/out.json" -- ${CMD[$row.$s]} \
		>/dev/null 2>"$WORK/err"
	total=$(awk '{ print $1 + $2 }' "$WORK/time")
	target=$(awk '{ print $2 + $3 }' "$WORK/target")
	records=$(sed -n 's/^events \([0-9]*\),.*/\1/p' "$WORK/err" | tail -1)
	[ -n "$records" ] || { echo "collector_cost.sh: no 'events' line:" >&2; cat "$WORK/err" >&2; exit 1; }
	echo "$records $(awk -v a="$total" -v b="$target" 'BEGIN { print a - b }')" \
		>>"$WORK/r.$row.$mode.$s"
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

med() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "Tracer CPU: one more record (slope, µs) and a run's fixed part (intercept, ms);"
echo "median of $REPS interleaved rounds, inputs at 1x and 4x ($(date -u +%FT%TZ))"
echo
echo "| row | mode | records 1x | records 4x | CPU 1x (s) | CPU 4x (s) | µs/record (slope) | fixed (ms) | µs/record at 1x, all in |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for row in "${ROWS[@]}"; do
	for mode in "${MODE_LIST[@]}"; do
		n1=$(cut -d' ' -f1 "$WORK/r.$row.$mode.1" | med)
		n4=$(cut -d' ' -f1 "$WORK/r.$row.$mode.4" | med)
		c1=$(cut -d' ' -f2 "$WORK/r.$row.$mode.1" | med)
		c4=$(cut -d' ' -f2 "$WORK/r.$row.$mode.4" | med)
		awk -v row="$row" -v mode="$mode" -v n1="$n1" -v n4="$n4" -v c1="$c1" -v c4="$c4" 'BEGIN {
			slope = (c4 - c1) / (n4 - n1)
			printf "| %s | %s | %d | %d | %.2f | %.2f | %.2f | %.0f | %.2f |\n", row, mode, n1, n4,
				c1, c4, slope * 1e6, (c1 - slope * n1) * 1e3, c1 / n1 * 1e6 }'
	done
done

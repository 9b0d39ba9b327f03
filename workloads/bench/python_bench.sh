#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# python_bench.sh - what Python-level heap profiles cost (issue #32), side by side in one run:
# a pure-Python allocation-heavy script (py_alloc.py) untraced, under tracemalloc (-X
# tracemalloc), traced by the tracer exact, and traced with --sample-bytes N; then the
# sampled profile's per-line estimates against the exact profile's, for its top 10 Python
# lines by total bytes (sample_py_lines.py). Kept out of the test suite; needs root.
#
#   workloads/bench/python_bench.sh [-b BUILD_DIR] [-p PYTHON] [-r REPS] [-s N] [-n ROUNDS]
#
#   -b BUILD_DIR  CMake build dir holding user/tracer (default: ./build)
#   -p PYTHON     the interpreter (default: pyenv's newest 3.12, else python3; Debian's own
#                 python3.11 inlines pymalloc: its copies are probed, see docs/ACCURACY.md)
#   -r REPS       runs per cell, the median reported (default 3)
#   -s N          --sample-bytes of the sampled column (default 16K)
#   -n ROUNDS     py_alloc.py's rounds (default 10)
#
# Each cell is the script's own time for its work (it prints work_s: start-up, the tracer's
# attach and the profile's writing excluded) divided by the untraced run's.
set -euo pipefail

BUILD=./build REPS=3 SAMPLE=16K ROUNDS=10 PY=
while [ $# -gt 0 ]; do
	case $1 in
	-b) BUILD=$2; shift 2 ;;
	-p) PY=$2; shift 2 ;;
	-r) REPS=$2; shift 2 ;;
	-s) SAMPLE=$2; shift 2 ;;
	-n) ROUNDS=$2; shift 2 ;;
	-h|--help) sed -n '3,20p' "$0"; exit 0 ;;
	*) echo "python_bench.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "python_bench.sh: needs root" >&2; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
TRACER=$(cd "$BUILD" && pwd)/user/tracer
if [ -z "$PY" ]; then
	PY=$(ls -d /root/.pyenv/versions/3.12.*/bin/python3.12 2>/dev/null | tail -1)
	PY=${PY:-python3}
fi
WORK=$(mktemp -d /tmp/python_bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# work_s of one run of "$@" (the script's stdout), the tracer's stderr to $WORK/log.
work_s() {
	"$@" 2>"$WORK/log" | awk '/^work_s/ { print $2 }'
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

cell() { # name, command...
	local name=$1 t
	shift
	for _ in $(seq "$REPS"); do
		t=$(work_s "$@")
		[ -n "$t" ] || { echo "python_bench.sh: $name gave no time:" >&2; cat "$WORK/log" >&2; exit 1; }
		echo "$t"
	done | median
}

SCRIPT=$HERE/py_alloc.py
base=$(cell untraced "$PY" "$SCRIPT" "$ROUNDS")
tm=$(cell tracemalloc "$PY" -X tracemalloc "$SCRIPT" "$ROUNDS")
exact=$(cell exact "$TRACER" -q -o "$WORK/exact.json" -- "$PY" "$SCRIPT" "$ROUNDS")
sampled=$(cell sampled "$TRACER" -q --sample-bytes "$SAMPLE" -o "$WORK/sampled.json" -- \
	"$PY" "$SCRIPT" "$ROUNDS")
ver=$("$PY" -c 'import sys; print(sys.version.split()[0])')
echo "| $PY ($ver), $ROUNDS rounds, median of $REPS | work (s) | vs untraced |"
echo "|---|---:|---:|"
for row in "untraced:$base" "tracemalloc (-X tracemalloc):$tm" "tracer, exact:$exact" \
	"tracer --sample-bytes $SAMPLE:$sampled"; do
	printf '| %s | %.3f | %.2fx |\n' "${row%%:*}" "${row##*:}" \
		"$(echo "${row##*:} / $base" | bc -l)"
done
echo
"$PY" "$HERE/sample_py_lines.py" "$WORK/exact.json" "$WORK/sampled.json" 10 0.15

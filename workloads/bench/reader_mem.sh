#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# reader_mem.sh - peak RSS and wall time of `tracer report` and `tracer export` on DHAT files,
# as ratios to each file's uncompressed size. Kept out of the test suite (a measurement).
#
#   workloads/bench/reader_mem.sh [-t TRACER] [-c report,folded,svg,pprof,timeline] FILE...
#
# Files come from workloads/bench/gen_dhat.py. A .gz file's ratio is against its
# uncompressed size (gzip -l cannot tell above 4 GiB: sizes come from zcat | wc -c).
# Prints one markdown row per (file, command): file, MB, command, exit, wall and user CPU
# seconds, peak MB, peak / file size. -c picks the commands (default all five).
set -euo pipefail

TRACER=./build/user/tracer CMDS=report,folded,svg,pprof,timeline
while [ $# -gt 0 ]; do
	case $1 in
	-t) TRACER=$2; shift 2 ;;
	-c) CMDS=$2; shift 2 ;;
	*) break ;;
	esac
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

row() { # FILE SIZE LABEL CMD...
	local f=$1 size=$2 label=$3 st
	shift 3
	st=0
	/usr/bin/time -v -o "$out/time" "$@" >/dev/null 2>"$out/err" || st=$?
	awk -v f="$(basename "$f")" -v size="$size" -v label="$label" -v st="$st" '
		/Maximum resident set size/ { kb = $NF }
		/User time/ { u = $NF }
		/Elapsed \(wall clock\)/ { n = split($NF, a, ":"); s = 0
			for (i = 1; i <= n; i++) s = s * 60 + a[i] }
		END { printf "| %s | %.0f | %s | %d | %.1f | %.1f | %.0f | %.2f |\n", f, size / 1e6,
			label, st, s, u, kb * 1024 / 1e6, kb * 1024 / size }' "$out/time"
	[ "$st" = 0 ] || sed 's/^/    /' "$out/err" | head -2 >&2
}

echo "| file | MB | command | exit | wall s | user s | peak MB | peak/size |"
echo "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |"
for f in "$@"; do
	case $f in
	*.gz) size=$(zcat "$f" | wc -c) ;;
	*) size=$(stat -c %s "$f") ;;
	esac
	for c in ${CMDS//,/ }; do
		case $c in
		report) row "$f" "$size" report "$TRACER" report "$f" ;;
		*) row "$f" "$size" "export $c" "$TRACER" export "$f" --format "$c" -o "$out/o" ;;
		esac
	done
done

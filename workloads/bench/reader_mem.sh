#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# reader_mem.sh - peak RSS and wall time of `tracer report` and `tracer export` on DHAT files,
# as ratios to each file's uncompressed size. Kept out of the test suite (a measurement).
#
#   workloads/bench/reader_mem.sh [-t TRACER] FILE...
#
# Files come from workloads/bench/gen_dhat.py. A .gz file's ratio is against its
# uncompressed size (gzip -l cannot tell above 4 GiB: sizes come from zcat | wc -c).
# Prints one markdown row per (file, command): file, MB, command, exit, seconds, peak MB,
# peak / file size.
set -euo pipefail

TRACER=./build/user/tracer
[ "${1:-}" = -t ] && { TRACER=$2; shift 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

row() { # FILE SIZE LABEL CMD...
	local f=$1 size=$2 label=$3 st
	shift 3
	st=0
	/usr/bin/time -v -o "$out/time" "$@" >/dev/null 2>"$out/err" || st=$?
	awk -v f="$(basename "$f")" -v size="$size" -v label="$label" -v st="$st" '
		/Maximum resident set size/ { kb = $NF }
		/Elapsed \(wall clock\)/ { n = split($NF, a, ":"); s = 0
			for (i = 1; i <= n; i++) s = s * 60 + a[i] }
		END { printf "| %s | %.0f | %s | %d | %.1f | %.0f | %.2f |\n", f, size / 1e6,
			label, st, s, kb * 1024 / 1e6, kb * 1024 / size }' "$out/time"
	[ "$st" = 0 ] || sed 's/^/    /' "$out/err" | head -2 >&2
}

echo "| file | MB | command | exit | s | peak MB | peak/size |"
echo "| --- | ---: | --- | ---: | ---: | ---: | ---: |"
for f in "$@"; do
	case $f in
	*.gz) size=$(zcat "$f" | wc -c) ;;
	*) size=$(stat -c %s "$f") ;;
	esac
	row "$f" "$size" report "$TRACER" report "$f"
	for fmt in folded svg pprof timeline; do
		row "$f" "$size" "export $fmt" "$TRACER" export "$f" --format "$fmt" -o "$out/o"
	done
done

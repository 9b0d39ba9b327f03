#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bpf_stats.sh - the BPF time the tracer's allocator programs take per allocator call, per
# --unwind mode, on one command (kernel.bpf_stats_enabled: run_time_ns and run_cnt of each
# program). Kept out of the test suite; needs root.
#
#   workloads/bench/bpf_stats.sh [-b BUILD_DIR] [-m MODES] [-r REPS] -- COMMAND...
#
#   -m MODES   comma list of --unwind modes (default fp,kernel,dwarf)
#   -r REPS    runs per mode; the median is printed (default 3)
#
# The programs are sampled (bpftool prog show) every 50 ms while the tracer runs, and only
# the tracer's own (the program fds it holds): other tracers on the host do not count. The last sample
# before the programs go misses at most 50 ms of calls, in every mode alike; the figure
# printed is run_time_ns / run_cnt of alloc_session, alloc_return and alloc_entry together,
# and run_time_ns / the tracer's events (records sent: one per allocation or free).
# bpf_stats itself adds ~20 ns per program run (two clock reads); it is switched back off at
# the end if it was off.
set -euo pipefail

BUILD=./build MODES=fp,kernel,dwarf REPS=3
while [ $# -gt 0 ]; do
	case $1 in
	-b) BUILD=$2; shift 2 ;;
	-m) MODES=$2; shift 2 ;;
	-r) REPS=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: $0 [-b BUILD_DIR] [-m MODES] [-r REPS] -- COMMAND..." >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "$0: no command" >&2; exit 2; }
TRACER=$BUILD/user/tracer
WORK=$(mktemp -d)
WAS=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled=$WAS; rm -rf "$WORK"' EXIT
sysctl -qw kernel.bpf_stats_enabled=1

# sample PID: run_time_ns and run_cnt summed over PID's allocator programs (the programs
# whose fds it holds: /proc/PID/fdinfo's prog_id), "0 0" if none.
sample() {
	bpftool prog show -j 2>/dev/null | python3 -c '
import glob, json, sys
ids = set()
for f in glob.glob("/proc/%s/fdinfo/*" % sys.argv[1]):
    try:
        for line in open(f):
            if line.startswith("prog_id:"):
                ids.add(int(line.split()[1]))
    except OSError:
        pass
ns = cnt = 0
for p in json.load(sys.stdin):
    if p.get("id") in ids and p.get("name") in ("alloc_session", "alloc_return", "alloc_entry"):
        ns += p.get("run_time_ns", 0)
        cnt += p.get("run_cnt", 0)
print(ns, cnt)' "$1"
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]; else print "nan"}'; }

echo "| mode | records | BPF runs | ns/run | BPF ns/record |"
echo "|---|---:|---:|---:|---:|"
IFS=, read -r -a MODEV <<<"$MODES"
for mode in "${MODEV[@]}"; do
	: >"$WORK/$mode"
	for rep in $(seq 1 "$REPS"); do
		"$TRACER" -v --unwind "$mode" -o "$WORK/out.json" -- "$@" >/dev/null 2>"$WORK/err" &
		tpid=$!
		last="0 0"
		while kill -0 $tpid 2>/dev/null; do
			s=$(sample $tpid)
			[ "$s" = "0 0" ] || last=$s
			sleep 0.05
		done
		wait $tpid || true
		ev=$(sed -n 's/^events \([0-9]*\),.*/\1/p' "$WORK/err" | tail -1)
		echo "$last ${ev:-0}" >>"$WORK/$mode"
	done
	awk -v m="$mode" '{ if ($2 > 0 && $3 > 0) print $1 / $2, $1 / $3, $2, $3 }' "$WORK/$mode" >"$WORK/$mode.r"
	printf '| %s | %s | %s | %.0f | %.0f |\n' "$mode" "$(tail -1 "$WORK/$mode.r" | cut -d' ' -f4)" \
		"$(tail -1 "$WORK/$mode.r" | cut -d' ' -f3)" "$(cut -d' ' -f1 "$WORK/$mode.r" | median)" \
		"$(cut -d' ' -f2 "$WORK/$mode.r" | median)"
done

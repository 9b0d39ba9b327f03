#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# run.sh - overhead, throughput and accuracy of the tracer, side by side with a no-op probe
# set, bcc memleak, a bpftrace memleak-style script, heaptrack and Valgrind DHAT, on
# micro-benchmarks, the kaish workloads and real Debian programs (sed, jq, sqlite3, xz -T2);
# then what one uprobe trap costs on this host (trap_bench).
# Kept out of the test suite. Needs root (BPF) and installs its own tools with apt-get
# (bpfcc-tools bpftrace heaptrack valgrind linux-headers-amd64 time jq sqlite3 xz-utils).
#
#   workloads/bench/run.sh [-b BUILD_DIR] [-r REPS] [-n PAIRS] [-t TOOLS] [-R ROWS] [-s N] [-o OUT.md]
#                          [--no-install] [--markdown] [-u DOC.md]
#
#   -b BUILD_DIR  CMake build dir holding user/tracer, workloads/... (default: ./build)
#   -r REPS       runs per cell; the median is reported (default 3)
#   -n PAIRS      malloc/free pairs of the micro-benchmarks (default 1000000)
#   -t TOOLS      comma list of untraced,tracer,tracer_nf,noop,noop_entry,cut_records,cut_stacks,
#                 cut_walk,cut_ring,full,memleak,bpftrace,bpftrace_realloc,heaptrack,dhat,sampled,
#                 dense,kernel,dwarf,fp,kfull,kcut_walk (kernel, dwarf, fp: the tracer with
#                 that --unwind; kfull, kcut_walk: bench-trace --unwind-kernel, full or
#                 without the unwind;
#                 full, cut_*, noop*:
#                 bench-trace, the loader alone; tracer_nf: tracer --no-follow, the uprobe-multi
#                 path of noop and full; sampled: the tracer with --sample-bytes N, and
#                 dense: with --dense-stacks, not in the default list). A tool with the suffix _nosess runs with
#                 TRACER_NO_SESSION=1: the fallback without session uprobes, the "before";
#                 with _nomemo (kernel_nomemo), TRACER_NO_MEMO=1: --unwind kernel walking
#                 every stack through the tables, the "before" of the memo; with _nomaps
#                 (kernel_nomaps), TRACER_REFUSE=syscall_tp: no mmap/brk tracking, whose raw
#                 system-call tracepoints also run on every uretprobe return (a system call).
#   -R ROWS       comma list of rows: pairs,mt,realloc,workloads,sed,jq,sqlite,xz_mt (default:
#                 all)
#   -s N          --sample-bytes of the sampled column (default 64K)
#   -o OUT.md     also write the tables there (default: stdout only)
#   -x PATH       also run another tracer binary (e.g. an older build) as column "tracer_x"
#   --no-install  use the tools already installed (a tool that is missing gives "-" cells)
#   --markdown    print only the current-results block of docs/BENCHMARKS.md (the build's
#                 commit and date, host, command, one table of ratios), markers included
#   -u DOC.md     with --markdown: also replace the block between the markers in DOC.md
#                 (docs/BENCHMARKS.md); regenerating the doc's table is this one command
#
# Every cell is the TARGET's own wall time (bench_timer.so, LD_PRELOAD'ed, measures from its
# constructor to exit) divided by the untraced run's, all measured in this one run. The
# tools' start-up (bcc compiles for seconds) and tear-down (symbolization, JSON) are
# reported separately. memleak and bpftrace attach with -p to a process held before exec
# (memleak -c starts the command before compiling its program, so it would miss it).
set -euo pipefail

BUILD=./build REPS=3 PAIRS=1000000 OUT= INSTALL=1 TRACER_X= SAMPLE_BYTES=64K MARKDOWN=0 UPDATE=
ARGV_SEEN="$*"
# The source tree as the run starts (the build measured is assumed to be of it): its commit,
# and whether the code (not the docs) differs from that commit.
SRC=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=workloads/bench/lib.sh
. "$SRC/workloads/bench/lib.sh"
COMMIT=$(git -C "$SRC" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
COMMIT_DATE=$(git -C "$SRC" log -1 --format=%cs 2>/dev/null || echo unknown)
[ -z "$(git -C "$SRC" status --porcelain -- user bpf workloads kernel-under-test cmake CMakeLists.txt 2>/dev/null)" ] ||
	COMMIT="$COMMIT with uncommitted code changes"
STARTED=$(date -u '+%F %H:%M')
ROWSEL=pairs,mt,realloc,workloads,sed,jq,sqlite,xz_mt
TOOLS=untraced,tracer,noop,cut_records,cut_stacks,full,memleak,bpftrace,bpftrace_realloc,heaptrack,dhat
while [ $# -gt 0 ]; do
	case $1 in
	-b) BUILD=$2; shift 2 ;;
	-r) REPS=$2; shift 2 ;;
	-n) PAIRS=$2; shift 2 ;;
	-t) TOOLS=$2; shift 2 ;;
	-R) ROWSEL=$2; shift 2 ;;
	-o) OUT=$2; shift 2 ;;
	-x) TRACER_X=$2; shift 2 ;;
	-s) SAMPLE_BYTES=$2; shift 2 ;;
	--no-install) INSTALL=0; shift ;;
	--markdown) MARKDOWN=1; shift ;;
	-u) UPDATE=$2; MARKDOWN=1; shift 2 ;;
	-h|--help) sed -n '3,33p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -z "$TRACER_X" ] || TOOLS=$TOOLS,tracer_x
BUILD=$(cd "$BUILD" && pwd)
[ "$(id -u)" = 0 ] || { echo "run.sh: needs root" >&2; exit 1; }

TRACER=$BUILD/user/tracer
DRIVER=$BUILD/workloads/kaish-workloads
ABENCH=$BUILD/workloads/bench/alloc_bench
BTRACE=$BUILD/workloads/bench/bench-trace
TIMER=$BUILD/workloads/bench/bench_timer.so
TBENCH=$BUILD/workloads/bench/trap_bench
for f in "$TRACER" "$DRIVER" "$ABENCH" "$BTRACE" "$TIMER" "$TBENCH"; do
	[ -e "$f" ] || { echo "run.sh: missing $f (build first)" >&2; exit 1; }
done

# --- benchmark-only dependencies ---------------------------------------------------------------
if [ $INSTALL = 1 ]; then
	need=()
	command -v memleak-bpfcc >/dev/null || need+=(bpfcc-tools)
	command -v bpftrace >/dev/null || need+=(bpftrace)
	command -v heaptrack >/dev/null || need+=(heaptrack)
	command -v valgrind >/dev/null || need+=(valgrind)
	ls -d /usr/src/linux-headers-*-amd64 >/dev/null 2>&1 || need+=(linux-headers-amd64)
	command -v /usr/bin/time >/dev/null || need+=(time)
	# the real-program rows
	command -v jq >/dev/null || need+=(jq)
	command -v sqlite3 >/dev/null || need+=(sqlite3)
	command -v xz >/dev/null || need+=(xz-utils)
	if [ ${#need[@]} -gt 0 ]; then
		apt-get update -q >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null
	fi
fi
WORK=$(mktemp -d /tmp/tracer-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# bcc needs kernel headers. Debian 12 ships 6.1's (they build memleak for newer kernels too),
# split in an -amd64 tree (generated files) and a -common tree: bcc wants them as one tree.
if [ -z "${BCC_KERNEL_SOURCE:-}" ] && [ ! -d /lib/modules/$(uname -r)/build ]; then
	kh=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -1 || true)
	if [ -n "$kh" ]; then
		cp -rs "${kh%-amd64}-common" "$WORK/kheaders"
		cp -rsf "$kh/." "$WORK/kheaders/"
		export BCC_KERNEL_SOURCE=$WORK/kheaders
	fi
fi
LIBC=$(ldd "$ABENCH" | awk '/libc.so/ {print $3}')

# --- rows ------------------------------------------------------------------------------------
IFS=, read -r -a ROWS <<<"$ROWSEL"
for row in "${ROWS[@]}"; do
	case $row in
	pairs|mt|realloc|workloads|sed|jq|sqlite|xz_mt) ;;
	*) echo "run.sh: unknown row $row" >&2; exit 2 ;;
	esac
done
declare -A CMD EXE EVENTS
CMD[pairs]="$ABENCH pairs $PAIRS"
CMD[mt]="$ABENCH mt 2 $((PAIRS / 2))"
CMD[realloc]="$ABENCH realloc $((PAIRS / 10))"
CMD[workloads]="$DRIVER --quiet all"
EXE[pairs]=alloc_bench EXE[mt]=alloc_bench EXE[realloc]=alloc_bench EXE[workloads]=kaish-workloads
EVENTS[pairs]=$((2 * PAIRS)) EVENTS[mt]=$((2 * PAIRS)) EVENTS[realloc]=$PAIRS

# Real programs nobody here wrote (Debian's), on inputs generated with fixed seeds (the same
# bytes every run), each ~0.2-0.7 s untraced on a 2-CPU host (lib.sh). Commands hold no
# quoted arguments (scripts go in files): CMD is word-split, and the gated tools exec it from
# bash. Their allocator calls (EVENTS) are counted by bench-trace's record pass below.
real_program_inputs "$WORK" 1
awk 'BEGIN { srand(7); for (i = 0; i < 400000; i++)
	printf "%d %x %s\n", i, int(rand() * 1e9), (rand() < 0.5 ? "alpha beta" : "gamma delta epsilon") }' >"$WORK/xz.txt"
CMD[sed]=$(real_program_cmd sed "$WORK")
CMD[jq]=$(real_program_cmd jq "$WORK")
CMD[sqlite]=$(real_program_cmd sqlite "$WORK")
CMD[xz_mt]="xz -T2 -1 -c $WORK/xz.txt" # 2 threads compressing ~1.2 s of CPU, few allocations
# (heaptrack's script runs sed on its -o argument, before the target: the target's timing line
# is the last, the one one() keeps.)
EXE[sed]=sed EXE[jq]=jq EXE[sqlite]=sqlite3 EXE[xz_mt]=xz

BPFT_SCRIPT=$WORK/memleak.bt
cat >"$BPFT_SCRIPT" <<BT
BEGIN { printf("READY\\n"); }
uprobe:$LIBC:malloc { @size[tid] = arg0; }
uretprobe:$LIBC:malloc /@size[tid]/ {
	@live[retval] = @size[tid];
	@bytes_by_stack[ustack] = sum(@size[tid]);
	delete(@size[tid]);
}
uprobe:$LIBC:free { delete(@live[arg0]); }
BT
# The same script with realloc traced too (a memleak-style script that sees realloc'd blocks): the
# issue's script above does not see the realloc row's reallocs at all.
BPFT_REALLOC_SCRIPT=$WORK/memleak-realloc.bt
{ sed '/^uprobe:.*:free/d' "$BPFT_SCRIPT"; cat <<BT
uprobe:$LIBC:realloc { @rold[tid] = arg0; @rsize[tid] = arg1; }
uretprobe:$LIBC:realloc /@rsize[tid]/ {
	delete(@live[@rold[tid]]);
	@live[retval] = @rsize[tid];
	@bytes_by_stack[ustack] = sum(@rsize[tid]);
	delete(@rold[tid]);
	delete(@rsize[tid]);
}
uprobe:$LIBC:free { delete(@live[arg0]); }
BT
} >"$BPFT_REALLOC_SCRIPT"

# wait_for FILE PATTERN SECONDS PID: until FILE shows PATTERN; fails if PID dies first.
wait_for() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		kill -0 "$4" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# gated ROW READY TOOL-ARGV... : the target starts held (bash reading a FIFO, then exec), the
# tool attaches with -p PID, the target is released once the tool says it is attached
# (READY: a line the tool prints only after attaching all its probes).
# Debian 12's bcc 0.26 sometimes passes a garbage uprobe ref_ctr_offset to perf_event_open
# (EINVAL, then a tracefs fallback that does not exist here): such a failed attach is retried.
gated() {
	local row=$1 ready=$2; shift 2
	local fifo=$WORK/gate log=$WORK/tool.log tpid tool try
	for try in 1 2 3 4 5 6 7 8; do
		rm -f "$fifo"; mkfifo "$fifo"
		bash -c 'read -r _ <"$0"; exec "$@"' "$fifo" ${CMD[$row]} >/dev/null 2>&1 &
		tpid=$!
		"$@" -p $tpid >"$log" 2>&1 &
		tool=$!
		if wait_for "$log" "$ready" 120 $tool; then
			sleep 0.5
			kill -0 $tool 2>/dev/null && break
		fi
		echo "run.sh: $1 did not attach (try $try): $(grep -m1 -i 'exception\|error' "$log")" >&2
		kill $tool 2>/dev/null; wait $tool 2>/dev/null
		echo x >"$fifo" & # release the held shell into a run nobody times
		wait $tpid 2>/dev/null; rm -f "$BENCH_TIME_FILE"
		tool=
	done
	[ -n "$tool" ] || return 1
	echo go >"$fifo"
	wait $tpid || true
	kill -TERM $tool 2>/dev/null || true # background jobs ignore SIGINT
	wait $tool 2>/dev/null || true
}

# one ROW TOOL: run once, append the target's "wall user sys maxrss" to $WORK/t.ROW.TOOL and
# the tool's own figures to $WORK/x.ROW.TOOL.
one() {
	local row=$1 tool=$2 tf=$WORK/t.$1.$2 xf=$WORK/x.$1.$2 st rc=0 base=${2%_nosess}
	base=${base%_nomemo}
	base=${base%_nomaps}
	export BENCH_TIME_FILE=$tf.cur BENCH_TIME_EXE=${EXE[$row]} LD_PRELOAD=$TIMER
	[ "${tool%_nosess}" = "$tool" ] || export TRACER_NO_SESSION=1
	[ "${tool%_nomemo}" = "$tool" ] || export TRACER_NO_MEMO=1
	[ "${tool%_nomaps}" = "$tool" ] || export TRACER_REFUSE=syscall_tp
	rm -f "$tf.cur"
	case $base in
	untraced) ${CMD[$row]} >/dev/null ;;
	tracer)
		st=$(date +%s.%N)
		/usr/bin/time -f "%e %U %S %M" -o "$WORK/time" \
			"$TRACER" -v -o "$WORK/out.json" -- ${CMD[$row]} >/dev/null 2>"$WORK/tracer.err" || rc=$?
		;;
	# the tracer in one unwinding mode (auto picks per program): kernel (issue #33) against
	# dwarf, its "before", and fp
	kernel|dwarf|fp)
		/usr/bin/time -f "%e %U %S %M" -o "$WORK/time" \
			"$TRACER" -v --unwind "$base" -o "$WORK/out.json" -- ${CMD[$row]} >/dev/null \
			2>"$WORK/tracer.err" || rc=$?
		;;
	tracer_x)
		"$TRACER_X" -q -o "$WORK/out.json" -- ${CMD[$row]} >/dev/null 2>&1 || rc=$?
		echo "rc=$rc" >>"$xf"
		;;
	# the real tracer on the uprobe-multi path (session links when the kernel has them)
	tracer_nf)
		"$TRACER" -q --no-follow -o "$WORK/out.json" -- ${CMD[$row]} >/dev/null 2>&1 || rc=$?
		echo "rc=$rc" >>"$xf"
		;;
	# the tracer with every DWARF stack copy sent whole: the "before" of stack hints
	dense)
		"$TRACER" -q --dense-stacks -o "$WORK/out.json" -- ${CMD[$row]} >/dev/null 2>&1 || rc=$?
		echo "rc=$rc" >>"$xf"
		;;
	sampled)
		"$TRACER" -q --sample-bytes "$SAMPLE_BYTES" -o "$WORK/out.json" -- ${CMD[$row]} \
			>/dev/null 2>&1 || rc=$?
		echo "rc=$rc" >>"$xf"
		;;
	noop) "$BTRACE" --noop -- ${CMD[$row]} >>"$xf" ;;
	# entry and free traps only, no return probe: the floor of an allocation whose return
	# is skipped
	noop_entry) "$BTRACE" --noop-entry -- ${CMD[$row]} >>"$xf" ;;
	full) "$BTRACE" -- ${CMD[$row]} >>"$xf" ;;
	# where the time goes: the tracer's probes with part of the work left out
	cut_records) "$BTRACE" --cut records -- ${CMD[$row]} >>"$xf" ;;
	cut_stacks) "$BTRACE" --cut stacks -- ${CMD[$row]} >>"$xf" ;;
	cut_walk) "$BTRACE" --cut walk -- ${CMD[$row]} >>"$xf" ;;
	cut_ring) "$BTRACE" --cut ring -- ${CMD[$row]} >>"$xf" ;;
	# the same with --unwind kernel's walk (kcut_walk: the PC alone, no unwind)
	kfull) "$BTRACE" --unwind-kernel -- ${CMD[$row]} >>"$xf" ;;
	kcut_walk) "$BTRACE" --unwind-kernel --cut walk -- ${CMD[$row]} >>"$xf" ;;
	# memleak prints its first report one interval after ALL its probes are attached;
	# bpftrace runs BEGIN after attaching.
	memleak) gated "$row" "Top 10 stacks" memleak-bpfcc 3 ;;
	bpftrace) gated "$row" "READY" bpftrace "$BPFT_SCRIPT" ;;
	bpftrace_realloc) gated "$row" "READY" bpftrace "$BPFT_REALLOC_SCRIPT" ;;
	heaptrack) heaptrack -o "$WORK/ht" ${CMD[$row]} >/dev/null 2>&1; rm -f "$WORK"/ht* ;;
	dhat) valgrind -q --tool=dhat --dhat-out-file="$WORK/dhat.json" ${CMD[$row]} >/dev/null 2>&1 ;;
	esac
	unset LD_PRELOAD BENCH_TIME_FILE BENCH_TIME_EXE TRACER_NO_SESSION TRACER_NO_MEMO TRACER_REFUSE
	# After the unset: the sed row's timer would count this sed too.
	# -v adds the "timing:" line: symbolization and JSON write times (the report and the
	# counters, on stderr under -- CMD, go to tracer.err with it).
	case $base in tracer|kernel|dwarf|fp)
		echo "rc=$rc json_bytes=$(stat -c %s "$WORK/out.json" 2>/dev/null || echo 0)" \
			"time=$(tr ' ' , <"$WORK/time")" \
			"events=$(sed -n 's/^events \([0-9]*\),.*/\1/p' "$WORK/tracer.err" | tail -1)" \
			"snapshot_bytes=$(sed -n 's/.*, \([0-9.]*\) stack bytes\/event$/\1/p' "$WORK/tracer.err" | tail -1)" \
			"snapshots=$(sed -n 's/^dwarf: snapshots \([0-9]*\) .*/\1/p' "$WORK/tracer.err" | tail -1)" \
			"$(sed -n 's/^timing: [^:]*: /timing: /p' "$WORK/tracer.err" | tail -1)" >>"$xf"
	esac
	[ -s "$tf.cur" ] && tail -1 "$tf.cur" >>"$tf" || echo "run.sh: no timing for $row/$tool" >&2
}

# kv KEY FILE: the last KEY=value of FILE's key=value lines ("-" when absent).
kv() { grep -oE "(^| )$1=[^ ]*" "$2" 2>/dev/null | tail -1 | cut -d= -f2 | grep . || echo -; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]; else print "nan"}'; }
col() { if [ -s "$2" ]; then awk -v c=$1 '{print $c}' "$2" | median; else echo nan; fi; }
# cpu FILE: the median of user + sys.
cpu() { if [ -s "$1" ]; then awk '{print $2 + $3}' "$1" | median; else echo nan; fi; }

IFS=, read -r -a TOOLV <<<"$TOOLS"
for rep in $(seq 1 "$REPS"); do
	for row in "${ROWS[@]}"; do
		for tool in "${TOOLV[@]}"; do
			echo "run.sh: rep $rep/$REPS $row $tool" >&2
			one "$row" "$tool" || echo "run.sh: $row/$tool failed" >&2
		done
	done
done

# --- the loader alone: rates, drops, attach/detach, raw stream and offline replay ----------
for row in "${ROWS[@]}"; do
	"$BTRACE" --record "$WORK/rec.$row" -- ${CMD[$row]} >"$WORK/rec.$row.txt"
	"$BTRACE" --replay "$WORK/rec.$row" >>"$WORK/rec.$row.txt"
	# a real program's allocator calls: one record each
	[ -n "${EVENTS[$row]:-}" ] || EVENTS[$row]=$(kv records "$WORK/rec.$row.txt")
done
# The pairs row again at half the records: the collector's memory must not follow them.
CMD[pairs_half]="$ABENCH pairs $((PAIRS / 2))"
if [[ " ${ROWS[*]} " == *" pairs "* ]]; then
	"$BTRACE" --record "$WORK/rec.pairs_half" -- ${CMD[pairs_half]} >"$WORK/rec.pairs_half.txt"
	"$BTRACE" --replay "$WORK/rec.pairs_half" --passes 1 >>"$WORK/rec.pairs_half.txt"
fi

# --- what one trap costs: trap_bench (thread CPU time per call, best of 5 rounds) untraced and
# under a bpftrace no-op uprobe / uretprobe, on a site the kernel emulates (push, as malloc's
# entry and free's probe site) and one it single-steps (test, as free's first instruction);
# a getppid() syscall for scale; and the tracer's own start-up figure (-v, trap_cost.c).
trap_run() { # MODE CALLS [PROBE]
	if [ -z "${3:-}" ]; then "$TBENCH" "$1" "$2"
	else bpftrace -e "$3:$TBENCH:trap_bench_$1 {}" -c "$TBENCH $1 $2" 2>/dev/null | grep calls=
	fi
}
{
	for m in push test; do
		n=20000; [ $m = test ] && n=2000 # single-stepped hits cost ~25 us on some hosts
		echo "$m untraced $(trap_run $m 200000)"
		echo "$m uprobe $(trap_run $m $n uprobe)"
		echo "$m uretprobe $(trap_run $m $n uretprobe)"
	done
	echo "syscall - $(trap_run syscall 200000)"
	"$TRACER" -v -o "$WORK/trap.json" -- true 2>&1 | sed -n 's/.*trap cost: \([0-9]*\) ns per uprobe trap/tracer_startup - ns_per_call=\1/p'
} >"$WORK/traps.txt"

# --- report ------------------------------------------------------------------------------------
wall() { col 1 "$1"; }
# ratio_table MEASURE: each tool's MEASURE (wall or cpu) over untraced's, every row.
ratio_table() {
	local base row tool t
	printf '| row |'; for tool in "${TOOLV[@]}"; do printf ' %s |' "$tool"; done; echo
	printf '|---|'; for tool in "${TOOLV[@]}"; do printf -- '---:|'; done; echo
	for row in "${ROWS[@]}"; do
		base=$($1 "$WORK/t.$row.untraced")
		printf '| %s |' "$row"
		for tool in "${TOOLV[@]}"; do
			t=$($1 "$WORK/t.$row.$tool")
			if [ "$tool" = untraced ]; then printf ' %.3f s |' "$base"
			else awk -v t="$t" -v b="$base" 'BEGIN {if (t == "nan" || b <= 0) printf " - |"; else printf " %.2f |", t / b}'
			fi
		done
		echo
	done
}
# cost_table MEASURE: µs per event over untraced's MEASURE, every row (a real program's and the
# workloads' events: bench-trace's records; EVENTS is filled by the record pass).
cost_table() {
	local base row tool t
	printf '| row | events |'; for tool in "${TOOLV[@]}"; do [ $tool = untraced ] || printf ' %s |' "$tool"; done; echo
	printf '|---|---:|'; for tool in "${TOOLV[@]}"; do [ $tool = untraced ] || printf -- '---:|'; done; echo
	for row in "${ROWS[@]}"; do
		base=$($1 "$WORK/t.$row.untraced")
		printf '| %s | %d |' "$row" "${EVENTS[$row]:-0}"
		for tool in "${TOOLV[@]}"; do
			[ $tool = untraced ] && continue
			t=$($1 "$WORK/t.$row.$tool")
			awk -v t="$t" -v b="$base" -v n="${EVENTS[$row]:-0}" \
				'BEGIN {if (t == "nan" || n <= 0) printf " - |"; else printf " %.2f |", (t - b) / n * 1e6}'
		done
		echo
	done
}
# unwind_modes: per row and unwinding mode (tools kernel, dwarf, fp run), the tracer's own CPU
# per event ((tracer + target) user + sys from /usr/bin/time, minus the target's own, per
# record the tracer counted; median of the reps), the records that carried a stack copy, and
# the ring bytes per record: 64 (a 56-byte record and the ring's 8-byte header) for every
# record, plus each snapshot's 96-byte header and its stack bytes (a sparse snapshot reserves
# 1432 bytes of ring whatever it writes: not counted here).
unwind_modes() {
	local row tool any=0
	for tool in kernel dwarf fp; do [[ ",$TOOLS," == *",$tool,"* ]] && any=1; done
	[ $any = 1 ] || return 0
	echo "Unwinding modes (tracer's own CPU per record, µs, median of $REPS; stack copies; ring bytes per record):"
	echo
	echo "| row | mode | records | tracer CPU µs/record | snapshots | ring B/record | peak RSS KiB |"
	echo "|---|---|---:|---:|---:|---:|---:|"
	for row in "${ROWS[@]}"; do
		for tool in kernel dwarf fp; do
			[ -s "$WORK/x.$row.$tool" ] || continue
			# per rep: "cpu_us_per_record records snapshots ring_bytes_per_record maxrss_kb"
			# (maxrss: /usr/bin/time's, the tracer's or the target's, whichever is larger)
			paste -d' ' "$WORK/x.$row.$tool" "$WORK/t.$row.$tool" | awk '
				{ for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) v[kv[1]] = kv[2]
				  split(v["time"], tt, ","); n = v["events"] + 0; sn = v["snapshots"] + 0
				  # the t line follows the x line: wall user sys maxrss
				  if (n > 0) printf "%f %d %d %f %d\n", (tt[2] + tt[3] - $(NF - 2) - $(NF - 1)) / n * 1e6,
					n, sn, 64 + sn * (96 + v["snapshot_bytes"]) / n, tt[4] }' >"$WORK/um.$row.$tool"
			[ -s "$WORK/um.$row.$tool" ] || continue
			printf '| %s | %s | %s | %.2f | %s | %.0f | %s |\n' "$row" "$tool" \
				"$(tail -1 "$WORK/um.$row.$tool" | cut -d' ' -f2)" "$(col 1 "$WORK/um.$row.$tool")" \
				"$(tail -1 "$WORK/um.$row.$tool" | cut -d' ' -f3)" "$(tail -1 "$WORK/um.$row.$tool" | cut -d' ' -f4)" \
				"$(tail -1 "$WORK/um.$row.$tool" | cut -d' ' -f5)"
		done
	done
	echo
}
report() {
	local base row tool t
	echo "Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"\
		"kernel $(uname -r), $(. /etc/os-release; echo "$PRETTY_NAME")"
	echo "Versions: $(ldd --version | head -1 | sed 's/.*) //') glibc; libbpf $(pkg-config --modversion libbpf);"\
		"$(bpftrace --version); bcc $(dpkg-query -W -f '${Version}' bpfcc-tools 2>/dev/null);"\
		"heaptrack $(dpkg-query -W -f '${Version}' heaptrack 2>/dev/null); $(valgrind --version)"
	echo "Command: workloads/bench/run.sh -r $REPS -n $PAIRS -R $ROWSEL -t $TOOLS ($(date -u +%FT%TZ))"
	echo
	echo "Target wall time / untraced (median of $REPS; untraced column in seconds):"
	echo
	ratio_table wall
	echo
	echo "Cost per event (target time over untraced / allocator calls, µs; a real program's calls"\
		"are bench-trace's records):"
	echo
	cost_table wall
	echo
	echo "The same from the target's CPU time (user + sys): a trap's kernel work is the target's"\
		"sys time, so this is less sensitive than wall time to other load on a shared machine."\
		"CPU time / untraced's, then µs per event:"
	echo
	ratio_table cpu
	echo
	cost_table cpu
	echo
	echo "tracer runs (last rep): exit status, JSON size, /usr/bin/time 'wall user sys maxrss_kb' of tracer+target; target's own 'wall user sys maxrss_kb':"
	echo
	for row in "${ROWS[@]}"; do
		echo "- $row: $(tail -1 "$WORK/x.$row.tracer" 2>/dev/null) target=$(tail -1 "$WORK/t.$row.tracer" 2>/dev/null | tr ' ' ,)"
	done
	echo
	unwind_modes
	echo "Loader alone (bench-trace: full probes, records consumed and saved raw; then collector replay on one core):"
	echo
	for row in "${ROWS[@]}"; do
		echo "- $row: $(tr '\n' ' ' <"$WORK/rec.$row.txt")"
	done
	echo
	echo "Collector memory (KiB): the collector's own accounting (collector__memory, peak) in a"\
		"streamed replay of the recorded stream, that replay's maxrss before and after it, and"\
		"the tracer's peak RSS (tracer+target, last rep; ring buffer and symbolizer included):"
	echo
	echo "| row | records | collector peak | replay maxrss before | after | tracer peak RSS |"
	echo "|---|---:|---:|---:|---:|---:|"
	for row in pairs_half "${ROWS[@]}"; do
		t=$WORK/rec.$row.txt
		[ -e "$t" ] || continue
		echo "| $row | $(kv replay_records "$t") | $(kv collector_peak_kb "$t") |"\
			"$(kv stream_base_maxrss_kb "$t") | $(kv stream_maxrss_kb "$t") |"\
			"$(kv time "$WORK/x.$row.tracer" | cut -d, -f4) |"
	done
	echo
	echo "One trap (trap_bench: thread CPU ns per call, best of 5 rounds; wall in brackets):"
	echo
	echo "| site | untraced | uprobe | uretprobe |"
	echo "|---|---:|---:|---:|"
	for m in push test; do
		printf '| %s |' $m
		for p in untraced uprobe uretprobe; do
			grep "^$m $p " "$WORK/traps.txt" | awk '{for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) v[kv[1]] = kv[2]}
				END {if ("ns_per_call" in v) printf " %s ns (%s) |", v["ns_per_call"], v["wall_ns_per_call"]; else printf " - |"}'
		done
		echo
	done
	echo
	echo "getppid(): $(kv ns_per_call <(grep '^syscall' "$WORK/traps.txt")) ns CPU per call;"\
		"the tracer's own start-up measure (trap_cost.c, push site, CPU): $(kv ns_per_call <(grep '^tracer_startup' "$WORK/traps.txt")) ns per trap"
}
# markdown_block: what docs/BENCHMARKS.md shows as today's figures, between its markers: where
# and from what the figures come, then one table: per row, the allocator calls, the untraced
# wall time, each tool's wall time over untraced's and the tracer's cost per call.
MARK_BEGIN='<!-- bench:begin (generated by workloads/bench/run.sh --markdown; do not edit) -->'
MARK_END='<!-- bench:end -->'
markdown_block() {
	local row tool t base
	echo "$MARK_BEGIN"
	echo "Build: commit \`$COMMIT\` ($COMMIT_DATE), measured $STARTED–$(date -u '+%H:%M') UTC."
	echo "Host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"\
		"kernel $(uname -r), $(. /etc/os-release; echo "$PRETTY_NAME"), glibc $(ldd --version | head -1 | sed 's/.*) //')."
	echo "Command: \`workloads/bench/run.sh $ARGV_SEEN\` (median of $REPS runs per cell)."
	echo
	printf '| row | allocator calls | untraced |'
	for tool in "${TOOLV[@]}"; do [ "$tool" = untraced ] || printf ' %s |' "$tool"; done
	echo ' tracer µs/call |'
	printf '|---|---:|---:|'
	for tool in "${TOOLV[@]}"; do [ "$tool" = untraced ] || printf -- '---:|'; done
	echo '---:|'
	for row in "${ROWS[@]}"; do
		base=$(wall "$WORK/t.$row.untraced")
		printf '| %s | %d | %.3f s |' "$row" "${EVENTS[$row]:-0}" "$base"
		for tool in "${TOOLV[@]}"; do
			[ "$tool" = untraced ] && continue
			t=$(wall "$WORK/t.$row.$tool")
			awk -v t="$t" -v b="$base" 'BEGIN {if (t == "nan" || b <= 0) printf " - |"; else printf " %.2fx |", t / b}'
		done
		t=$(wall "$WORK/t.$row.tracer")
		awk -v t="$t" -v b="$base" -v n="${EVENTS[$row]:-0}" \
			'BEGIN {if (t == "nan" || n < 10000) print " - |"; else printf " %.2f |\n", (t - b) / n * 1e6}'
	done
	echo
	echo "One uprobe trap on this host (trap_bench, CPU ns per call): untraced push site" \
		"$(kv ns_per_call <(grep '^push untraced' "$WORK/traps.txt")) ns; the tracer's own start-up" \
		"measure $(kv ns_per_call <(grep '^tracer_startup' "$WORK/traps.txt")) ns per trap."
	echo "$MARK_END"
}
if [ "$MARKDOWN" = 1 ]; then
	[ -z "$OUT" ] || report >"$OUT"
	markdown_block | tee "$WORK/block.md"
	if [ -n "$UPDATE" ]; then
		grep -qF "$MARK_BEGIN" "$UPDATE" && grep -qF "$MARK_END" "$UPDATE" ||
			{ echo "run.sh: $UPDATE has no bench:begin/bench:end markers" >&2; exit 1; }
		awk -v b="$MARK_BEGIN" -v e="$MARK_END" -v f="$WORK/block.md" '
			$0 == b {while ((getline l < f) > 0) print l; skip = 1; next}
			$0 == e {skip = 0; next}
			!skip' "$UPDATE" >"$WORK/doc.md" && cat "$WORK/doc.md" >"$UPDATE"
		echo "run.sh: updated $UPDATE" >&2
	fi
elif [ -n "$OUT" ]; then report | tee "$OUT"; else report; fi

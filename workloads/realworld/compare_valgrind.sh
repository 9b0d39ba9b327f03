#!/usr/bin/env bash
# compare_valgrind.sh: the tracer side by side with Valgrind DHAT on programs nobody here wrote.
#
# For each program that is installed (the others are listed as skipped), one small deterministic
# command runs twice, on identical inputs this script creates in a temporary directory, with the
# same fixed environment (env -i, LC_ALL=C, TZ=UTC, hash seeds pinned, fixed git identity/dates):
#   tracer -o T.json -- CMD                       (stdout and stderr to LOGDIR/NAME.tracer.log)
#   valgrind --tool=dhat --dhat-out-file=V.%p.json CMD   (gcc: --trace-children=yes)
# and prints one Markdown table row per program: total blocks and bytes, blocks and bytes live
# at t-gmax and at t-end (each cell "tracer / valgrind"), the tracer's counters line, both exit
# codes, and whether the figures match. Both files are read with the same parser,
# `tracer report --json`.
#
# The tracer runs without -q: -q also hides its counters line (dropped, unknown frees, ...), which
# the table needs. Its summary goes to the log, never into the table.
#
# Each program is resolved to the ELF it really runs (a pyenv shim or a rustup proxy is a launcher
# that execs the real binary; the binary is what is compared; the Binary column names it).
# When a tool wrote more than one profile (gcc's cc1 and as: the tracer follows children by
# default, Valgrind with --trace-children=yes), the row sums the totals over all of them (peaks
# and ends of separate processes do not add: "-") and a second row compares the first process
# alone.
#
# Per program, LOGDIR holds NAME.tracer.{json,log}, NAME.vg.PID.json, NAME.valgrind.{log,stdout},
# NAME.diff.txt (`tracer diff`) and NAME.sites.txt (site_totals.py: totals per allocation site).
#
# Usage (as root):
#   workloads/realworld/compare_valgrind.sh [-t TRACER] [-l LOGDIR] [-x VGOPT]... [NAME...]
#   -t TRACER  tracer binary (default build/user/tracer)
#   -l LOGDIR  per-program logs, profiles and `tracer diff` outputs (default ./compare-logs)
#   -x VGOPT   one more Valgrind option, repeatable; e.g. `-x --run-libc-freeres=no
#              -x --run-cxx-freeres=no` keeps Valgrind from freeing libc's and libstdc++'s
#              internal blocks at exit, which the tracer's t-end counts as live
#   -e         give the tracer's run the variables Valgrind adds to the environment (its
#              wrapper's LD_LIBRARY_PATH and PWD, GLIBCXX_FORCE_NEW, GLIBCPP_FORCE_NEW; its
#              LD_PRELOAD as XX_PRELOAD, same size, not loaded), so programs that copy or
#              parse their environment allocate the same
#   NAME...    a subset of: python3 sqlite3 jq xz sort mawk sed perl git gcc cmake cargo rustc
# Exit status: 0 table printed (whatever it shows), 2 bad arguments or missing tracer/valgrind.
set -u

ALL_PROGS="python3 sqlite3 jq xz sort mawk sed perl git gcc cmake cargo rustc"
TRACER=build/user/tracer
LOGDIR=./compare-logs
VGEXTRA=()
MIMIC_ENV=0
TIMEOUT_S=600 # hang guard per run; every command here finishes in seconds natively

while getopts "t:l:x:eh" opt; do
	case $opt in
	t) TRACER=$OPTARG ;;
	l) LOGDIR=$OPTARG ;;
	x) VGEXTRA+=("$OPTARG") ;;
	e) MIMIC_ENV=1 ;;
	h) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
PROGS=${*:-$ALL_PROGS}
for name in $PROGS; do
	case " $ALL_PROGS " in *" $name "*) ;; *) echo "compare_valgrind: unknown program $name" >&2; exit 2 ;; esac
done

[ -x "$TRACER" ] || { echo "compare_valgrind: no tracer at $TRACER (-t)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "compare_valgrind: valgrind not installed" >&2; exit 2; }
command -v python3 >/dev/null || { echo "compare_valgrind: python3 is needed to read totals" >&2; exit 2; }
TRACER=$(readlink -f "$TRACER")
VALGRIND=$(command -v valgrind)
mkdir -p "$LOGDIR" && LOGDIR=$(readlink -f "$LOGDIR")
WORK=$(mktemp -d /tmp/compare-vg.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# The one environment both runs see. HOME is the run's own directory so no user config leaks in.
run_env() { # DIR
	echo PATH=/usr/local/bin:/usr/bin:/bin HOME="$1" LC_ALL=C TZ=UTC TERM=dumb \
		PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 \
		GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.org \
		GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@example.org \
		GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
		CARGO_HOME="$1/.cargo" RUSTUP_HOME=/nonexistent
}

# vg_env DIR: the variables Valgrind adds to run_env's, asked of Valgrind itself.
vg_env() {
	(cd "$1" && env -i $(run_env "$1") "$VALGRIND" -q --tool=dhat --dhat-out-file=/dev/null /usr/bin/env) |
		grep -v -x -F -f <(run_env "$1" | tr ' ' '\n') | sed 's/^LD_PRELOAD=/XX_PRELOAD=/'
}

is_elf() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]; }

# resolve NAME: print the ELF that `NAME` on PATH ends up running, or fail.
resolve() {
	local p
	p=$(command -v "$1") || return 1
	# A launcher (rustup's proxy is an ELF, a pyenv shim a script): ask it which binary it execs.
	case $p in
	*/.pyenv/shims/*) p=$(pyenv which "$1" 2>/dev/null) ;;
	esac
	p=$(readlink -f "$p")
	case $p in
	*/rustup) p=$(rustup which "$1" 2>/dev/null) && p=$(readlink -f "$p") ;;
	esac
	is_elf "$p" && echo "$p"
}

# Shared inputs, created once per run directory.
make_inputs() { # DIR
	local d=$1 i
	for ((i = 0; i < 3000; i++)); do
		echo "k$((i * 7919 % 503)) $((i * 104729 % 10007)) line-$i"
	done >"$d/data.txt"
	{
		echo '{"items": ['
		for ((i = 0; i < 300; i++)); do
			printf '{"id": %d, "name": "n%d", "tags": ["a%d", "b"], "v": %d.5},\n' \
				$i $((i * 37 % 101)) $((i % 7)) $((i * 13))
		done
		echo '{"id": -1}], "ok": true}'
	} >"$d/data.json"
	printf '#include <stdio.h>\nstruct p { int x, y; };\nstatic int f(struct p *q) { return q->x * q->y; }\nint main(void) { struct p q = { 6, 7 }; printf("%%d\\n", f(&q)); return 0; }\n' >"$d/x.c"
}

# setup_NAME DIR: prepare DIR beyond the shared inputs (run natively, not measured).
setup_git() {
	(cd "$1" && env -i $(run_env "$1") git init -q repo && cp data.txt x.c repo/ &&
		cd repo && env -i $(run_env "$1") git add data.txt x.c) >/dev/null 2>&1
}

# cmd_NAME BIN: print nothing, set CMD (array) to the measured command.
cmd_for() { # NAME BIN
	local n=$1 b=$2
	case $n in
	python3) CMD=("$b" -c 'import json; d = {str(i): list(range(i % 50)) for i in range(400)}; print(len(json.dumps(d, sort_keys=True)))') ;;
	sqlite3) CMD=("$b" -batch -init /dev/null :memory: 'create table t(a, b); with recursive c(x) as (select 1 union all select x + 1 from c where x < 2000) insert into t select x % 97, printf("%08d", x * 7919 % 10007) from c; create index i on t(b); select a, count(*), max(b) from t group by a order by a limit 5;') ;;
	jq) CMD=("$b" -S . data.json) ;;
	xz) CMD=("$b" -c -6 data.txt) ;;
	sort) CMD=("$b" -k2,2n data.txt) ;;
	mawk) CMD=("$b" '{ s[$1] += $2 } END { n = 0; for (k in s) n++; print n }' data.txt) ;;
	sed) CMD=("$b" -e 's/[0-9][0-9]*/N/g' -e '/k1/d' data.txt) ;;
	perl) CMD=("$b" -e 'my %h; $h{$_ % 97} .= "x$_" for 1 .. 5000; print scalar(keys %h), "\n"') ;;
	git) CMD=("$b" -C repo -c maintenance.auto=false -c gc.auto=0 commit -q -m msg) ;;
	gcc) CMD=("$b" -O1 -c x.c -o x.o) ;;
	cmake | cargo | rustc) CMD=("$b" --version) ;;
	esac
}

# totals FILE...: print "blocks bytes gblocks gbytes eblocks ebytes" summed over FILEs.
totals() {
	python3 - "$TRACER" "$@" <<'PY'
import json, subprocess, sys
s = [0] * 6
for f in sys.argv[2:]:
    d = json.loads(subprocess.run([sys.argv[1], "report", "--json", f], check=True,
                                  capture_output=True, text=True).stdout)
    s = [a + d[k][u] for a, (k, u) in zip(s, [(k, u) for k in ("totals", "peak", "end")
                                              for u in ("blocks", "bytes")])]
print(*s)
PY
}

cell() { [ "$1" = "$2" ] && echo "$1" || echo "**$1 / $2**"; } # equal figures print once

# row NAME BIN TRACER_TOTALS VG_TOTALS COUNTERS EXITS [PEAKS_COMPARABLE]
row() {
	local t=($3) v=($4) i cells="" match=exact
	for i in 0 1 2 3 4 5; do
		if [ $i -ge 2 ] && [ "${7:-1}" = 0 ]; then cells+=" - |"; continue; fi
		cells+=" $(cell "${t[$i]}" "${v[$i]}") |"
		if [ "${t[$i]}" != "${v[$i]}" ]; then
			[ $i -lt 2 ] && match=no
			[ $i -ge 2 ] && [ $match = exact ] && match=totals
		fi
	done
	echo "| $1 | \`$2\` |$cells $6 | $5 | $match |"
}

echo "| Program | Binary | Blocks | Bytes | t-gmax blocks | t-gmax bytes | t-end blocks | t-end bytes | Exit (tracer / vg) | Tracer counters | Match |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
skipped=""
for name in $PROGS; do
	if ! bin=$(resolve "$name"); then skipped+=" $name"; continue; fi
	# Same-length directory names, so paths in argv and in the environment have equal sizes.
	rm -rf "$WORK/t" "$WORK/v" && mkdir -p "$WORK/t" "$WORK/v"
	for d in "$WORK/t" "$WORK/v"; do
		make_inputs "$d"
		[ "$(type -t "setup_$name")" = function ] && "setup_$name" "$d"
	done
	cmd_for "$name" "$bin"
	vgopts=(--tool=dhat "${VGEXTRA[@]}")
	[ "$name" = gcc ] && vgopts+=(--trace-children=yes)
	rm -f "$LOGDIR/$name".*

	tenv=$(run_env "$WORK/t")
	[ $MIMIC_ENV = 1 ] && tenv+=" $(vg_env "$WORK/t" | tr '\n' ' ')"
	(cd "$WORK/t" && exec env -i $tenv timeout $TIMEOUT_S \
		"$TRACER" -o "$LOGDIR/$name.tracer.json" -- "${CMD[@]}") \
		>"$LOGDIR/$name.tracer.log" 2>&1
	trc=$?
	(cd "$WORK/v" && exec env -i $(run_env "$WORK/v") timeout $TIMEOUT_S \
		"$VALGRIND" "${vgopts[@]}" --dhat-out-file="$LOGDIR/$name.vg.%p.json" "${CMD[@]}") \
		>"$LOGDIR/$name.valgrind.stdout" 2>"$LOGDIR/$name.valgrind.log"
	vrc=$?
	# The first process is the one whose pid Valgrind printed first in its log.
	vpid=$(grep -a -m1 -o '^==[0-9]*==' "$LOGDIR/$name.valgrind.log" | tr -d =)
	vfiles=("$LOGDIR/$name".vg.*.json)
	counters=$(tr '\r' '\n' <"$LOGDIR/$name.tracer.log" | grep -a -o 'events [0-9]*, dropped.*' | tail -1)
	if [ ! -s "$LOGDIR/$name.tracer.json" ] || [ ! -s "${vfiles[0]}" ]; then
		echo "| $name | \`$bin\` | no profile (tracer exit $trc, valgrind exit $vrc; see $name.*.log) ||||||||"
		continue
	fi
	# The tracer follows children too: one profile per process image, the first at -o, the
	# others next to it (NAME.tracer.PID.PROG.json).
	tfiles=("$LOGDIR/$name.tracer.json")
	for f in "$LOGDIR/$name".tracer.*.json; do [ -e "$f" ] && tfiles+=("$f"); done
	tt=$(totals "${tfiles[@]}")
	vt=$(totals "${vfiles[@]}")
	if [ ${#vfiles[@]} -gt 1 ] || [ ${#tfiles[@]} -gt 1 ]; then
		row "$name (${#tfiles[@]} / ${#vfiles[@]} processes)" "$bin" "$tt" "$vt" "$counters" \
			"$trc / $vrc" 0
		tt=$(totals "$LOGDIR/$name.tracer.json")
		vt=$(totals "$LOGDIR/$name.vg.$vpid.json")
		row "$name (first process)" "$bin" "$tt" "$vt" "$counters" "$trc / $vrc"
	else
		row "$name" "$bin" "$tt" "$vt" "$counters" "$trc / $vrc"
	fi
	# Per-call-site differences, for the investigation of every mismatch: whole stacks (`tracer
	# diff`) and groups by the first function below the allocator (site_totals.py).
	"$TRACER" diff "$LOGDIR/$name.tracer.json" "$LOGDIR/$name.vg.$vpid.json" --top 40 \
		>"$LOGDIR/$name.diff.txt" 2>&1
	python3 "$(dirname "$0")/site_totals.py" "$LOGDIR/$name.tracer.json" \
		"$LOGDIR/$name.vg.$vpid.json" 1 40 >"$LOGDIR/$name.sites.txt" 2>&1
done
echo
echo "Cells: equal figures once, else **tracer / valgrind**. Match: exact = all six figures equal;"
echo "totals = blocks and bytes equal; no = totals differ. Logs, profiles and diffs: $LOGDIR"
[ -n "$skipped" ] && echo "Skipped (not installed or no ELF binary found):$skipped"
exit 0

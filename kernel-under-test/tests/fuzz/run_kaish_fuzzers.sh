#!/usr/bin/env bash
# run_kaish_fuzzers.sh - build the kaish libFuzzer targets with clang and run each for a
# bounded time on a copy of its seed corpus.
#
#   kernel-under-test/tests/fuzz/run_kaish_fuzzers.sh [SECONDS_PER_TARGET] [TARGET...]
#
# Default 60 s per target; targets: fuzz_kaish_parse fuzz_kaish_exec. Exit status 0 when no
# target crashed, 1 when one did (its reproducer is left as crash-*/leak-*/timeout-* in
# $FUZZ_OUT/<target>/ and the command to replay it is printed); 2 on a build failure.
# New corpus entries go to $FUZZ_OUT/<target>/corpus, never into the source tree: minimize and
# copy interesting ones (and every crasher, after its fix) into corpus/<target>/ beside this
# script, where ../kaish_fuzz_regress_unit.c replays them in the unit suite.
#
# Environment: FUZZ_BUILD_DIR (default ./build-fuzz), FUZZ_OUT (default $FUZZ_BUILD_DIR/
# fuzz-out), FUZZ_JOBS (parallel fuzzing processes per target, default 1).
set -uo pipefail

here=$(cd "$(dirname "$0")/../../.." && pwd)
fuzz_dir=$here/kernel-under-test/tests/fuzz
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_kaish_parse fuzz_kaish_exec)
build_dir=${FUZZ_BUILD_DIR:-$here/build-fuzz}
out=${FUZZ_OUT:-$build_dir/fuzz-out}
jobs=${FUZZ_JOBS:-1}

if ! CC=clang cmake -S "$here" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DTRACER_FUZZ=ON >"${TMPDIR:-/tmp}/kaish-fuzz-configure.log" 2>&1; then
	cat "${TMPDIR:-/tmp}/kaish-fuzz-configure.log" >&2
	exit 2
fi
if ! cmake --build "$build_dir" -j2 --target "${targets[@]}"; then
	echo "run_kaish_fuzzers.sh: build failed (libFuzzer missing? apt-get install libclang-rt-14-dev)" >&2
	exit 2
fi

# UBSan findings must stop the fuzzer (they are compiled non-recoverable); ASan leaks count.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

rc=0
for t in "${targets[@]}"; do
	bin=$(find "$build_dir" -type f -name "$t" -perm -u+x | head -n 1)
	seeds=$fuzz_dir/corpus/$t
	dir=$out/$t
	mkdir -p "$dir/corpus"
	cp -n "$seeds"/* "$dir/corpus/" 2>/dev/null || true
	echo "== $t: ${secs}s, corpus $(ls "$dir/corpus" | wc -l) files"
	# -timeout / -report_slow_units: a hang guard, not a speed bound. The slowest input of a
	# CI run here takes under 1 s (stat::slowest_unit_time_sec 0; the exec target's request
	# timeout is 200 ms, but a single builtin is not interruptible), so 60 s holds on a host
	# 5x slower under the sanitizers with room to spare (issue #22). -rss_limit_mb bounds
	# `seq 1 1e9`-style inputs.
	(cd "$dir" && "$bin" -max_total_time="$secs" -timeout=60 -report_slow_units=60 \
		-rss_limit_mb=2048 \
		-max_len=4096 -jobs="$jobs" -workers="$jobs" -print_final_stats=1 \
		-dict="$fuzz_dir/kaish.dict" corpus "$seeds") >"$dir/fuzz.log" 2>&1
	st=$?
	tail -n 20 "$dir/fuzz.log"
	crashes=$(ls "$dir" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' || true)
	if [ $st -ne 0 ] || [ -n "$crashes" ]; then
		echo "!! $t failed (status $st); reproducers in $dir:" >&2
		for c in $crashes; do
			echo "   $bin $dir/$c" >&2
		done
		rc=1
	fi
done
exit $rc

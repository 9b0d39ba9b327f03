#!/bin/sh
# Build the libFuzzer targets with clang in a separate build dir and run each one for a
# bounded time. Exits non-zero if any target crashed (the crashing input is kept as
# BUILD/fuzz-artifacts/TARGET-crash-*: copy it into the target's seed directory once fixed,
# tests/fuzz/corpus/dhat_reader/ (replayed by report_unit), corpus/fuzz_demangle/
# (replayed by demangle_unit), corpus/cfi_compile/ (replayed by cfi_table_unit) or
# corpus/py_sites/ (replayed by py_sites_unit), so that the unit suite replays it forever).
#
# usage: tests/fuzz/run_fuzzers.sh [SECONDS_PER_TARGET]     (default 60; or FUZZ_SECONDS)
#        FUZZ_BUILD_DIR=... to build elsewhere than ./build-fuzz
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-${FUZZ_SECONDS:-60}}
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
targets="fuzz_dhat_reader fuzz_dhat_diff fuzz_json_reader fuzz_demangle fuzz_cfi_compile fuzz_py_sites"

CC=clang cmake -S "$root" -B "$build" -DTRACER_FUZZ=ON -DTRACER_TESTS=OFF \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build.cmake.log" 2>&1 ||
	{ cat "$build.cmake.log"; exit 2; }
# shellcheck disable=SC2086
cmake --build "$build" -j2 --target $targets

mkdir -p "$build/fuzz-artifacts"
status=0
for t in $targets; do
	case $t in
	fuzz_demangle) seeds=$root/tests/fuzz/corpus/fuzz_demangle ;;
	fuzz_cfi_compile) seeds=$root/tests/fuzz/corpus/cfi_compile ;;
	fuzz_py_sites) seeds=$root/tests/fuzz/corpus/py_sites ;;
	*) seeds=$root/tests/fuzz/corpus/dhat_reader ;; # fuzz_json_reader too: JSON texts
	esac
	# New inputs go to a scratch corpus in the build dir, never into the source tree.
	work=$build/fuzz-corpus/$t
	mkdir -p "$work"
	echo "== $t: ${secs}s"
	# -timeout: a hang guard, not a speed bound (inputs here take milliseconds; 60 s holds on
	# a host 5x slower under the sanitizers, issue #22).
	if ! "$build/tests/fuzz/$t" -max_total_time="$secs" -timeout=60 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-" \
		"$work" "$seeds"; then
		echo "== $t: CRASH, see $build/fuzz-artifacts/" >&2
		status=1
	fi
done
exit $status

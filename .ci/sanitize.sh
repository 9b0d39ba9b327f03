#!/usr/bin/env bash
# sanitize.sh - build userspace with AddressSanitizer + UndefinedBehaviorSanitizer in a build
# directory of its own and run the whole unit suite (ctest -L unit) under them.
#
# Any sanitizer report fails the run: UBSan is compiled with -fno-sanitize-recover, ASan aborts
# on its first error, and LeakSanitizer reports leaks at exit (a leak is an error too).
#
# Environment: SAN_BUILD_DIR (default ./build-sanitize), JOBS (default: nproc, at most 2 here).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${SAN_BUILD_DIR:-$here/build-sanitize}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# halt_on_error: stop at the first report; detect_leaks: LeakSanitizer at exit;
# abort_on_error=0 + exitcode: a clear non-zero status instead of a core dump;
# print_stacktrace: UBSan reports come with a stack.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:abort_on_error=0:exitcode=86:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:exitcode=87}
export LSAN_OPTIONS=${LSAN_OPTIONS:-exitcode=88}

cmake -S "$here" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRACER_SANITIZE=ON
cmake --build "$build_dir" -j"$jobs"

log="$build_dir/sanitize.log"
set +e
ctest --test-dir "$build_dir" -L unit --output-on-failure -j1 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
# A sanitizer report inside a test that still "passed" (say, a forked child whose status
# nobody checks) must fail the run too.
if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$log"; then
	echo "sanitize.sh: sanitizer reports found in $log" >&2
	rc=1
fi
exit "$rc"

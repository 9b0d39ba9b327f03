#!/usr/bin/env bash
# build.sh - one entry point for set-up, build, demo and tests (the build itself is CMake).
#
#   ./build.sh demo    install missing packages, build, run `tracer --workload scatter-gather`
#   ./build.sh test    install missing packages, build, run every test (ctest)
#   ./build.sh build   build only (no package installation)
#   ./build.sh deps    install missing Debian packages only (root)
#
# Environment: BUILD_DIR (default ./build), CMAKE_ARGS (extra configure flags),
# CI=true (BPF end-to-end tests must run: a skip fails the suite).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build_dir=${BUILD_DIR:-$here/build}
jobs=$(nproc 2>/dev/null || echo 2)

# Install whichever packages of deps/debian-packages.txt are missing.
deps() {
	local missing=()
	while read -r pkg; do
		pkg=${pkg%%#*}
		pkg=${pkg//[[:space:]]/}
		[ -n "$pkg" ] || continue
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$pkg")
	done <"$here/deps/debian-packages.txt"
	if [ ${#missing[@]} -eq 0 ]; then
		echo "build.sh: all packages present"
		return
	fi
	if [ "$(id -u)" -ne 0 ]; then
		echo "build.sh: missing packages: ${missing[*]} (run as root to install them)" >&2
		exit 1
	fi
	echo "build.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
	# shellcheck disable=SC2086
	cmake -S "$here" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CMAKE_ARGS:-}
	cmake --build "$build_dir" -j"$jobs"
}

run_tests() {
	local log="$build_dir/ctest.log"
	ctest --test-dir "$build_dir" --output-on-failure -j1 2>&1 | tee "$log"
	local rc=${PIPESTATUS[0]}
	if [ "${CI:-}" = "true" ]; then
		# The suite must have traced something: BPF tests registered and run.
		local bpf_cnt
		bpf_cnt=$(ctest --test-dir "$build_dir" -N -L bpf | sed -n 's/^Total Tests: //p')
		if [ "${bpf_cnt:-0}" -eq 0 ]; then
			echo "build.sh: CI=true but no BPF end-to-end test is registered" >&2
			rc=1
		fi
	fi
	return "$rc"
}

case "${1:-}" in
deps) deps ;;
build) build ;;
demo)
	deps
	build
	cd "$here"
	"$build_dir/user/tracer" --workload scatter-gather
	;;
test)
	deps
	build
	run_tests
	;;
*)
	sed -n '2,12p' "$0" >&2
	exit 2
	;;
esac

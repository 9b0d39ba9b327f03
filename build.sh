#!/usr/bin/env bash
# build.sh - one entry point for set-up, build, demo and tests (the build itself is CMake).
#
#   ./build.sh demo    install missing packages, build, run `tracer --workload scatter-gather`
#   ./build.sh test    install missing packages, build, run every test (ctest)
#   ./build.sh build   build only (no package installation)
#   ./build.sh deps    install missing Debian packages only (root)
#   ./build.sh install-check  build, install into a temporary prefix and trace from there,
#                      install the tracer component alone (no kaish), build the .deb (the
#                      tracer alone) and trace from its unpacked files (root; CI)
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

# Fail with a message.
die() {
	echo "build.sh: install-check: $*" >&2
	exit 1
}

# Trace scatter-gather with the tracer under ROOT (ROOT/bin/tracer), run from / so nothing
# is found through the cwd, and check that the profile names ROOT's own libexec driver.
trace_from() {
	local root=$1 out=$2
	(cd / && "$root/bin/tracer" --workload scatter-gather -o "$out") ||
		die "$root/bin/tracer --workload scatter-gather failed"
	[ -s "$out" ] || die "no profile at $out"
	grep -qF "\"cmd\":\"$root/libexec/kaish-alloc-tracer/kaish-workloads " "$out" ||
		die "$out: the driver traced is not $root/libexec/kaish-alloc-tracer/kaish-workloads"
	"$root/bin/tracer" report "$out" >/dev/null || die "$out is not a readable DHAT file"
}

# `tracer --workload` without the kaish component under ROOT: one line naming it, exit 3.
no_workloads_from() {
	local root=$1 rc=0 err
	err=$(cd / && "$root/bin/tracer" --workload scatter-gather -o "$root/none.json" 2>&1) ||
		rc=$?
	[ "$rc" -eq 3 ] || die "$root/bin/tracer --workload without kaish-workloads: exit $rc, not 3"
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] &&
		printf '%s' "$err" | grep -q -- "--component kaish" ||
		die "$root/bin/tracer --workload without kaish-workloads said: $err"
}

# The Depends dpkg-shlibdeps and deps/debian-runtime.txt agree: every package named is
# listed (a library the tracer came to link that the list, and so the docs, miss).
depends_listed() {
	local depends=$1 pkg
	for pkg in $(printf '%s' "$depends" | tr ',' '\n' | sed 's/(.*)//; s/|.*//; s/[[:space:]]//g'); do
		grep -qx "$pkg" "$here/deps/debian-runtime.txt" ||
			die "the package depends on $pkg, which deps/debian-runtime.txt lacks"
	done
}

# What docs/USAGE.md ("Installing") promises: `cmake --install` and the Debian package
# both give a working `tracer --workload scatter-gather`, the package and `--component
# tracer` with the profiler alone (the shell kernel and its workloads are component kaish).
# The package is checked with dpkg-deb and unpacked with dpkg -x, never installed: CI must
# not change the machine.
install_check() {
	local tmp deb f depends
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	cmake --install "$build_dir" --prefix "$tmp/prefix"
	for f in bin/tracer bin/kaish libexec/kaish-alloc-tracer/kaish-workloads \
		share/man/man1/tracer.1 share/bash-completion/completions/tracer; do
		[ -e "$tmp/prefix/$f" ] || die "cmake --install did not install $f"
	done
	trace_from "$tmp/prefix" "$tmp/x.json"

	# The profiler alone, then the kaish component added to it.
	cmake --install "$build_dir" --prefix "$tmp/split" --component tracer
	for f in bin/kaish libexec/kaish-alloc-tracer/kaish-workloads; do
		[ ! -e "$tmp/split/$f" ] || die "--component tracer installed $f"
	done
	[ -e "$tmp/split/bin/tracer" ] || die "--component tracer did not install bin/tracer"
	no_workloads_from "$tmp/split"
	cmake --install "$build_dir" --prefix "$tmp/split" --component kaish
	[ ! -e "$tmp/split/bin/kaish" ] && die "--component kaish did not install bin/kaish"
	trace_from "$tmp/split" "$tmp/z.json"

	(cd "$build_dir" && cpack -G DEB -B "$tmp/pkg")
	deb=$(echo "$tmp"/pkg/tracer_*.deb)
	[ -f "$deb" ] || die "cpack made no tracer_*.deb"
	dpkg-deb -I "$deb"
	dpkg-deb -c "$deb" >"$tmp/contents"
	for f in ./usr/bin/tracer ./usr/share/man/man1/tracer.1; do
		grep -q " $f\$" "$tmp/contents" || die "$deb lacks $f"
	done
	for f in ./usr/bin/kaish ./usr/libexec/kaish-alloc-tracer/kaish-workloads; do
		grep -q " $f\$" "$tmp/contents" && die "$deb holds $f (component kaish)"
	done
	depends=$(dpkg-deb -f "$deb" Depends)
	[ -n "$depends" ] || die "$deb has no Depends"
	case ",$depends" in
	*-dev[\ ,]* | *-dev) die "$deb depends on a -dev package: $depends" ;;
	esac
	depends_listed "$depends"
	dpkg -x "$deb" "$tmp/root"
	no_workloads_from "$tmp/root/usr"
	cmake --install "$build_dir" --prefix "$tmp/root/usr" --component kaish
	trace_from "$tmp/root/usr" "$tmp/y.json"
	echo "build.sh: install-check passed: $(basename "$deb") (without kaish), Depends: $depends"
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
install-check)
	build
	install_check
	;;
*)
	sed -n '2,15p' "$0" >&2
	exit 2
	;;
esac

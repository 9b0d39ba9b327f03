#!/bin/sh
# Peak RSS of loading a big DHAT file (hundreds of MB) with dhat_profile__load + report:
# generates a ~225 MB Valgrind-layout file with 500k PPs (gen_big_dhat.py), gzips a copy,
# and runs report_bench on both. The reader streams (no whole text, no JSON tree), so peak
# RSS is the profile's structs: about 1.5x the plain file size here (it was 8.2x with the
# earlier read-whole-text + cJSON-tree reader).
#
# usage: tests/data/report/rss_bench.sh BUILD_DIR [PP_COUNT]    (needs python3, gzip)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: rss_bench.sh BUILD_DIR [PP_COUNT]}
n=${2:-500000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --build "$build" --target report_bench >/dev/null
python3 "$here/gen_big_dhat.py" "$tmp/big.json" "$n"
gzip -1 -k "$tmp/big.json"
"$build/tests/report_bench" "$tmp/big.json"
"$build/tests/report_bench" "$tmp/big.json.gz"

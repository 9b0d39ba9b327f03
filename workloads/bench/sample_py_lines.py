# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# sample_py_lines.py - a sampled profile's per-Python-line estimates against an exact one's
# (python_bench.sh, issue #32): total bytes per line, the line being each program point's
# innermost "py: QUALNAME (FILE:LINE)" frame, as tracemalloc's 'lineno' statistics group.
#
#   sample_py_lines.py EXACT.json SAMPLED.json [TOP] [TOLERANCE]
#
# Prints a Markdown table of the TOP lines of the exact profile by total bytes, and exits 1
# when one estimate is off by more than TOLERANCE (a fraction).
import gzip
import json
import sys


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def per_line(profile):
    ftbl, lines = profile["ftbl"], {}
    for pp in profile["pps"]:
        for i in pp["fs"]:
            if ftbl[i].startswith("py: "):
                lines[ftbl[i]] = lines.get(ftbl[i], 0) + pp["tb"]
                break
    return lines


exact, sampled = load(sys.argv[1]), load(sys.argv[2])
top = int(sys.argv[3]) if len(sys.argv) > 3 else 10
tol = float(sys.argv[4]) if len(sys.argv) > 4 else 0.15
ex, sa = per_line(exact), per_line(sampled)
worst, bad = 0.0, 0
print("| Python line (top %d by total bytes, exact) | exact | sampled | error |" % top)
print("|---|---:|---:|---:|")
for line, b in sorted(ex.items(), key=lambda kv: -kv[1])[:top]:
    est = sa.get(line, 0)
    err = (est - b) / b if b else 0.0
    worst = max(worst, abs(err))
    bad += abs(err) > tol
    print("| `%s` | %d | %d | %+.1f%% |" % (line[4:], b, est, 100 * err))
print()
print("worst error %.1f%%: %s" % (100 * worst, "within %.0f%%" % (100 * tol) if not bad
                                 else "%d lines beyond %.0f%%" % (bad, 100 * tol)))
sys.exit(1 if bad else 0)

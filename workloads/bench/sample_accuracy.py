#!/usr/bin/env python3
"""Accuracy of a --sample-bytes profile against an exact one of the same program.

usage: sample_accuracy.py [--depth D] EXACT SAMPLED [TOP]

EXACT and SAMPLED are profiles, or directories of profiles (tracer --workload all -o DIR):
a directory's profiles are summed, its sites named by file.

Prints one line: total bytes and blocks (estimate / exact - 1) and, over the exact
profile's TOP (default 10) sites by total bytes, the worst site error and how many sites
are within 15%. A site is a program point's frame list with the addresses removed (they
differ between runs under ASLR), so the two profiles' program points match by name; with
--depth D only its D innermost frames (the allocator's, then its caller's...): --depth 2
is the call site of the allocator, which is also where a sampled profile charges a realloc
(exact mode charges it to the block's first allocation, often the same line).
"""
import gzip
import json
import os
import re
import sys
from collections import defaultdict

ADDR = re.compile(r"^0x[0-9A-Fa-f]+: ")
AT = re.compile(r"\s*\[at 0x[0-9A-Fa-f]+\]")


def load_one(path, tag, sites):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        d = json.load(f)
    tb = tbk = 0
    for pp in d["pps"]:
        fs = pp["fs"][:DEPTH] if DEPTH else pp["fs"]
        key = (tag,) + tuple(AT.sub("", ADDR.sub("", d["ftbl"][i])) for i in fs)
        sites[key] += pp["tb"]
        tb += pp["tb"]
        tbk += pp["tbk"]
    return d, tb, tbk


def load(path):
    sites = defaultdict(int)
    if not os.path.isdir(path):
        d, tb, tbk = load_one(path, "", sites)
        return d, tb, tbk, sites
    tb = tbk = 0
    d = {}
    for name in sorted(os.listdir(path)):
        if name.endswith(".json"):
            d, b, k = load_one(os.path.join(path, name), name, sites)
            tb += b
            tbk += k
    return d, tb, tbk, sites


DEPTH = 0


def main():
    global DEPTH
    if sys.argv[1] == "--depth":
        DEPTH = int(sys.argv[2])
        del sys.argv[1:3]
    exact, tb, tbk, sites = load(sys.argv[1])
    sampled, stb, stbk, ssites = load(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    rank = sorted(sites.items(), key=lambda kv: -kv[1])[:top]
    errs = [ssites.get(k, 0) / v - 1 for k, v in rank if v]
    worst = max(errs, key=abs) if errs else 0.0
    within = sum(1 for e in errs if abs(e) <= 0.15)
    print(f"mean={sampled.get('sampled', {}).get('meanBytes', 0)} "
          f"bytes {stb}/{tb} {100 * (stb / tb - 1):+.2f}% "
          f"blocks {stbk}/{tbk} {100 * (stbk / tbk - 1):+.2f}% "
          f"top{len(errs)} worst {100 * worst:+.1f}% within15% {within}/{len(errs)}")


if __name__ == "__main__":
    main()

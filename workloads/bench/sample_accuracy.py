#!/usr/bin/env python3
"""Accuracy of a --sample-bytes profile against an exact one of the same program.

usage: sample_accuracy.py EXACT.json SAMPLED.json [TOP]

Prints one line: total bytes and blocks (estimate / exact - 1) and, over the exact
profile's TOP (default 10) sites by total bytes, the worst site error and how many sites
are within 15%. A site is a program point's frame list with the addresses removed (they
differ between runs under ASLR), so the two profiles' program points match by name.
"""
import gzip
import json
import re
import sys
from collections import defaultdict

ADDR = re.compile(r"^0x[0-9A-Fa-f]+: ")
AT = re.compile(r"\s*\[at 0x[0-9A-Fa-f]+\]")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        d = json.load(f)
    sites = defaultdict(int)
    tb = tbk = 0
    for pp in d["pps"]:
        key = tuple(AT.sub("", ADDR.sub("", d["ftbl"][i])) for i in pp["fs"])
        sites[key] += pp["tb"]
        tb += pp["tb"]
        tbk += pp["tbk"]
    return d, tb, tbk, sites


def main():
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

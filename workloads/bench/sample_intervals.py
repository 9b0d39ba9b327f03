#!/usr/bin/env python3
"""Do a sampled profile's intervals hold the exact figures? (tracer --sample-bytes N)

usage: sample_intervals.py [--top K] EXACT SAMPLED...

EXACT is an exact profile of a program, each SAMPLED a sampled profile of the same run
(profiles, or directories of profiles as `tracer --workload all -o DIR` writes, summed
per file). For each sampled profile: z = (estimate - exact) / se, with se the standard
error the file gives (tbSe, tbkSe: sqrt of their sums), for its total bytes and blocks and
for the exact profile's top K sites by bytes (default 10). A site is a program point's
frames without addresses and without the allocator's own frame (a sampled realloc(NULL, n)
is recorded as the malloc it jumps to), so runs under ASLR match.

Sites are split by what the sampled profile says of them: "marked" when at least 1% of
their bytes came by realloc (tbRealloc) or of their blocks were realloc'd (tbkReallocd),
as `tracer report` marks them; "absent" when the sampled profile has no such site at all.
Prints, per group, how many estimates lie within their 95% interval (|z| <= 1.96), the
root mean square of z (about 1 when the standard errors are right) and the largest |z|.
"""
import json
import math
import os
import re
import sys

ADDR = re.compile(r"^0x[0-9A-Fa-f]+: ")
AT = re.compile(r"\s*\[at 0x[0-9A-Fa-f]+\]")


def load_one(path, tag, sites):
    with open(path) as f:
        d = json.load(f)
    for pp in d["pps"]:
        key = (tag,) + tuple(AT.sub("", ADDR.sub("", d["ftbl"][i])) for i in pp["fs"][1:])
        s = sites.setdefault(key, {"tb": 0, "tbk": 0, "vb": 0.0, "vk": 0.0, "re": 0, "rd": 0})
        s["tb"] += pp["tb"]
        s["tbk"] += pp["tbk"]
        s["vb"] += pp.get("tbSe", 0) ** 2
        s["vk"] += pp.get("tbkSe", 0) ** 2
        s["re"] += pp.get("tbRealloc", 0)
        s["rd"] += pp.get("tbkReallocd", 0)


def load(path):
    sites = {}
    if os.path.isdir(path):
        for name in sorted(os.listdir(path)):
            if name.endswith(".json"):
                load_one(os.path.join(path, name), name, sites)
    else:
        load_one(path, "", sites)
    return sites


def z_of(est, exact, var):
    if var > 0:
        return (est - exact) / math.sqrt(var)
    return 0.0 if est == exact else math.inf


def main():
    args = sys.argv[1:]
    top = 10
    if args and args[0] == "--top":
        top = int(args[1])
        args = args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    exact = load(args[0])
    ranked = sorted(exact.items(), key=lambda kv: -kv[1]["tb"])[:top]
    tb = sum(s["tb"] for s in exact.values())
    tbk = sum(s["tbk"] for s in exact.values())
    groups = {"total bytes": [], "total blocks": [], "sites": [], "marked sites": [],
              "absent sites": []}
    for path in args[1:]:
        sampled = load(path)
        groups["total bytes"].append(z_of(sum(s["tb"] for s in sampled.values()), tb,
                                          sum(s["vb"] for s in sampled.values())))
        groups["total blocks"].append(z_of(sum(s["tbk"] for s in sampled.values()), tbk,
                                           sum(s["vk"] for s in sampled.values())))
        for key, ex in ranked:
            s = sampled.get(key)
            if not s:
                groups["absent sites"].append(math.inf)
                continue
            marked = s["re"] >= 0.01 * s["tb"] or s["rd"] >= 0.01 * s["tbk"]
            groups["marked sites" if marked else "sites"].append(z_of(s["tb"], ex["tb"], s["vb"]))
    for name, zs in groups.items():
        if not zs:
            continue
        finite = [z for z in zs if math.isfinite(z)]
        rms = math.sqrt(sum(z * z for z in finite) / len(finite)) if finite else math.nan
        within = sum(1 for z in zs if abs(z) <= 1.96)
        print(f"{name:13s} {within:4d} of {len(zs):3d} within the 95% interval, "
              f"rms z {rms:6.2f}, largest |z| {max(abs(z) for z in zs):.1f}")


if __name__ == "__main__":
    main()

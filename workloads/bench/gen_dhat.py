#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""gen_dhat.py - a large, deterministic DHAT file for measuring the reader (not a test).

    workloads/bench/gen_dhat.py [--pps N | --size SIZE] [--depth MIN-MAX] [--repeat FRAC]
                                [--repeat-out OUT2] [--gzip] [--seed S] [--small-counts] [--compact] -o OUT

The layout is the tracer's own (dhat_writer.c: one key per line group, pps before ftbl,
bklt true). Stacks are MIN-MAX frames deep (default 10-30) and share frames the way real
ones do: the outer part is one of 256 call chains from main, the inner part names callers
from a pool of about N/8 frames. fs[1..2] (the report's "site": the allocating function and
its caller) is one of about N/16 pairs, so that about 16 PPs share each site, and fs[3..5]
spell the PP's index in base-pool digits so that no two PPs have equal fs. --repeat FRAC gives the PP at FRAC of the way through
(default none) the fs of PP 0, the "repeated location" the reader must reject; with
--repeat-out it is that file that has it, and OUT is the valid twin (one pass). --size
picks N for about that many bytes (e.g. 100M, 1G). The same arguments give the same bytes.
"""
import argparse
import gzip
import random
import sys

BYTES_PER_PP_GUESS = 237  # for --size; measured on depth 10-30


def parse_size(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(s[:-1]) * mult[s[-1].upper()]) if s[-1].upper() in mult else int(s)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pps", type=int)
    ap.add_argument("--size")
    ap.add_argument("--depth", default="10-30")
    ap.add_argument("--repeat", type=float)
    ap.add_argument("--repeat-out")
    ap.add_argument("--gzip", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--compact", action="store_true",
                    help="one line per PP (no indentation): fewer bytes per PP, the reader's worst ratio")
    ap.add_argument("--small-counts", action="store_true",
                    help="1-20 blocks of 8-64 bytes per PP: short numbers, ~100 B per PP at depth 6")
    ap.add_argument("-o", required=True)
    a = ap.parse_args()
    lo, hi = (int(x) for x in a.depth.split("-"))
    if lo < 6:
        sys.exit("gen_dhat.py: --depth must be at least 6 (alloc fn, site, 3 unique callers)")
    n = a.pps if a.pps else parse_size(a.size or "100M") // BYTES_PER_PP_GUESS
    rng = random.Random(a.seed)

    # ftbl: [root], 3 allocator frames, the caller pool, the chain frames.
    pool = max(64, n // 8)
    chain_frames = 2048
    ftbl = ['"[root]"']
    for name in ("malloc", "calloc", "realloc"):
        ftbl.append('"0x48%05X: %s (in /usr/lib/x86_64-linux-gnu/libc.so.6)"'
                    % (rng.randrange(1 << 20), name))
    pool_base = len(ftbl)
    for i in range(pool):
        ftbl.append('"0x%X: fn_%d (src/mod_%d.c:%d)"'
                    % (0x400000 + i * 48, i, i % 97, 10 + i % 900))
    chain_base = len(ftbl)
    for i in range(chain_frames):
        ftbl.append('"0x%X: chain_%d (src/main_%d.c:%d)"'
                    % (0x800000 + i * 64, i, i % 13, 20 + i % 400))
    sites = [(pool_base + rng.randrange(pool), pool_base + rng.randrange(pool))
             for _ in range(max(8, n // 16))]
    chains = []
    for _ in range(256):
        d = rng.randint(min(2, hi - 5), max(2, hi - 5))
        chains.append([chain_base + rng.randrange(chain_frames) for _ in range(d)])

    repeat_at = int(n * a.repeat) if a.repeat is not None else -1
    if repeat_at == 0:
        repeat_at = 1
    def opener(path):
        return gzip.open(path, "wt", compresslevel=1) if a.gzip else open(path, "w")

    outs = [opener(a.o)] + ([opener(a.repeat_out)] if a.repeat_out else [])

    def w(text, which=None):
        for i, o in enumerate(outs):
            if which is None or which == i:
                o.write(text)

    w('{"dhatFileVersion":2\n,"mode":"ebpf-heap","verb":"Allocated"\n'
      ',"bklt":true,"bkacc":false\n,"tu":"\\u00b5s","Mtu":"s"\n,"tuth":500\n'
      ',"cmd":"./gen_dhat %d"\n,"pid":4242\n,"te":%d\n,"tg":%d\n,"pps":\n'
      % (n, 10 * n + 100, 5 * n))
    first_fs = None
    buf = []
    for k in range(n):
        depth = rng.randint(lo, hi)
        fs = [1 + k % 3]
        fs += sites[rng.randrange(len(sites))]
        x = k
        for _ in range(3):
            fs.append(pool_base + x % pool)
            x //= pool
        chain = chains[rng.randrange(256)]
        inner = depth - 6 - len(chain)
        fs += [pool_base + rng.randrange(pool) for _ in range(max(0, inner))]
        fs += chain[: max(0, depth - len(fs))]
        if k == repeat_at and not a.repeat_out:
            fs = first_fs
        if k == 0:
            first_fs = fs
        tbk = rng.randint(1, 20 if a.small_counts else 5000)
        tb = tbk * (rng.randint(8, 64) if a.small_counts else rng.randint(8, 4096))
        mbk = rng.randint(1, tbk)
        gbk = rng.randint(0, mbk)
        ebk = rng.randint(0, gbk)
        per = tb // tbk
        tl = tbk * rng.randint(1, 100 if a.small_counts else 100000)
        text = ('%s{"tb":%d,"tbk":%d\n  ,"tl":%d\n  ,"mb":%d,"mbk":%d\n  ,"gb":%d,"gbk":%d\n'
                '  ,"eb":%d,"ebk":%d\n  ,"fs":[%s]\n  }\n'
                % (" [" if k == 0 else " ,", tb, tbk, tl,
                   mbk * per, mbk, gbk * per, gbk, ebk * per, ebk, ",".join(map(str, fs))))
        if a.compact:
            text = text.replace("\n  ", "")
        if k == repeat_at and a.repeat_out:
            # the twins part here: OUT keeps this PP, OUT2 gets PP 0's fs instead
            w("".join(buf))
            buf = []
            w(text, 0)
            w(text[: text.index('"fs":[') + 6] + ",".join(map(str, first_fs)) + "]\n  }\n", 1)
            continue
        buf.append(text)
        if len(buf) >= 4096:
            w("".join(buf))
            buf = []
    w("".join(buf))
    w(" ]\n" if n else " [\n ]\n")
    w(',"ftbl":\n [' + "\n ,".join(ftbl) + "\n ]\n")
    # the live-heap series of `export --format timeline`, as long as the writer's longest
    w(',"heapTimeline":\n {"t":[%s]\n ,"b":[%s]}\n}\n'
      % (",".join(str(i * 5 * n // 2048) for i in range(2048)),
         ",".join(str(rng.randrange(1 << 30)) for _ in range(2048))))
    for o in outs:
        o.close()


if __name__ == "__main__":
    main()

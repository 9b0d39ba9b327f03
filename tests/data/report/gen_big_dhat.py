#!/usr/bin/env python3
"""Write a large synthetic DHAT v2 heap file (Valgrind layout) for the reader's RSS bench.

usage: gen_big_dhat.py OUT [PP_COUNT]   (default 500000 PPs: about 200 MB)

Each PP has 8 frames: 4 shared "plumbing/library" frames and 4 frames unique to it, so the
frame table grows with the PP count, as in a real large profile. Deterministic output.
"""
import sys

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 500000
shared = ["0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_dhat-amd64-linux.so)",
          "0x4A1B2C3: xmalloc_wrapper_for_the_bench (util/alloc_helpers.c:118)",
          "0x4A1C000: container_grow_storage (util/containers/vector.c:342)",
          "0x4A1D111: main (app/main.c:77)"]
ftbl = ["[root]"] + shared
with open(out, "w") as f:
    f.write('{"dhatFileVersion":2\n,"mode":"heap","verb":"Allocated"\n,"bklt":true,"bkacc":true\n'
            ',"tu":"instrs","Mtu":"Minstr"\n,"tuth":500\n,"cmd":"./bench big"\n,"pid":4242\n'
            ',"te":%d\n,"tg":%d\n,"pps":\n [' % (n * 1000, n * 500))
    for i in range(n):
        base = len(ftbl)
        for j in range(4):
            ftbl.append("0x%X: generated_function_%d_%d (src/module_%d/file_%d.c:%d)"
                        % (0x400000 + i * 64 + j, i, j, i % 97, j, 10 + (i * 7 + j) % 900))
        fs = [1, 2, 3] + list(range(base, base + 4)) + [4]
        tb = 16 * (i % 1000 + 1)
        f.write('%s{"tb":%d,"tbk":%d,"tl":%d\n  ,"mb":%d,"mbk":1\n  ,"gb":%d,"gbk":%d\n'
                '  ,"eb":%d,"ebk":%d\n  ,"rb":%d,"wb":%d\n  ,"fs":[%s]\n  }\n'
                % ("" if i == 0 else " ,", tb, i % 13 + 1, i * 3, tb // 2, 16 * (i % 3),
                   i % 3 and 1, 16 * (i % 5), i % 5 and 1, tb // 3, tb // 4,
                   ",".join(map(str, fs))))
    f.write(' ]\n,"ftbl":\n [')
    for i, s in enumerate(ftbl):
        f.write('%s"%s"\n' % ("" if i == 0 else " ,", s))
    f.write(' ]\n}\n')

#!/usr/bin/env python3
"""site_totals.py: compare two DHAT files per allocation site, for compare_valgrind.sh's diffs.

`tracer diff` matches whole stacks; between the tracer and Valgrind those rarely match (Valgrind
DHAT keeps 12 frames by default, the tracer the whole stack), so every stack shows as added or
removed. This groups program points by the first K function names below the allocator (the
allocator's own frames and source positions dropped) and prints the groups whose totals differ.

Usage: site_totals.py TRACER.json VALGRIND.json [K (default 2)] [ROWS (default 30)]
Columns: blocks, bytes, blocks and bytes live at t-end, each for the first file then the second.
"""
import collections
import json
import re
import sys

ALLOCATOR = re.compile(r'^(malloc|calloc|realloc|free|posix_memalign|memalign|aligned_alloc|valloc'
                       r'|reallocarray|__libc_\w+|operator (new|delete).*|_Zn[wa]m.*|__rg_\w+'
                       r'|__rust_\w+)$')


def function(frame):
    """'0x12: f (file.c:3)' or '0x12: f (in /lib/x.so)' -> 'f'."""
    frame = re.sub(r'^0x[0-9A-Fa-f]+: ', '', frame)
    m = re.match(r'^(.*?) \((?:in )?[^()]*\)$', frame)
    return m.group(1) if m else frame


def load(path, k):
    with open(path) as f:
        d = json.load(f)
    groups = collections.defaultdict(lambda: [0, 0, 0, 0])
    for pp in d['pps']:
        names = [function(d['ftbl'][i]) for i in pp['fs']]
        while names and ALLOCATOR.match(names[0]):
            names.pop(0)
        g = groups[' <- '.join(names[:k]) or '[no frames]']
        for i, key in enumerate(('tbk', 'tb', 'ebk', 'eb')):
            g[i] += pp.get(key, 0)
    return groups


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    k = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    rows = int(sys.argv[4]) if len(sys.argv) > 4 else 30
    a, b = load(sys.argv[1], k), load(sys.argv[2], k)
    zero = [0, 0, 0, 0]
    diff = [(s, a.get(s, zero), b.get(s, zero)) for s in set(a) | set(b)
            if a.get(s, zero) != b.get(s, zero)]
    diff.sort(key=lambda r: (-abs(r[1][0] - r[2][0]), -abs(r[1][1] - r[2][1]), r[0]))
    print('%-13s %-19s %-11s %-15s  site (first %d functions)'
          % ('blocks', 'bytes', 'end blocks', 'end bytes', k))
    for site, x, y in diff[:rows]:
        print('%-13s %-19s %-11s %-15s  %s' % ('%d/%d' % (x[0], y[0]), '%d/%d' % (x[1], y[1]),
                                               '%d/%d' % (x[2], y[2]), '%d/%d' % (x[3], y[3]),
                                               site[:160]))


if __name__ == '__main__':
    main()

# py_lines.py - for python_unit: every code object compiled from FILE (the module and all the
# code nested in it), as the interpreter running this script sees it:
#   KIND FIRSTLINENO TABLE_HEX LINES
# KIND is lnotab (3.8, 3.9), pep626 (3.10) or locations (3.11+); LINES holds, comma-separated,
# the line of each code unit (offsets 0, 2, 4, ...; -1 for none) as the interpreter's own
# tools give it: dis.findlinestarts (3.8, 3.9), co_lines() (3.10), co_positions() (3.11+).
import dis
import sys


def lines_of(code):
    n = len(code.co_code) // 2
    if sys.version_info >= (3, 11):
        return [-1 if p[0] is None else p[0] for p in code.co_positions()][:n]
    out = [-1] * n
    if sys.version_info >= (3, 10):
        for start, end, line in code.co_lines():
            for off in range(start, end, 2):
                out[off // 2] = -1 if line is None else line
        return out
    starts = sorted(dis.findlinestarts(code))
    line = -1
    k = 0
    for off in range(0, 2 * n, 2):
        while k < len(starts) and starts[k][0] <= off:
            line = starts[k][1]
            k += 1
        out[off // 2] = line
    return out


def walk(code):
    yield code
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            yield from walk(c)


def main():
    path = sys.argv[1]
    with open(path) as f:
        top = compile(f.read(), path, "exec")
    if sys.version_info >= (3, 11):
        kind, table = "locations", "co_linetable"
    elif sys.version_info >= (3, 10):
        kind, table = "pep626", "co_linetable"
    else:
        kind, table = "lnotab", "co_lnotab"
    for code in walk(top):
        hexed = getattr(code, table).hex() or "-"
        print(kind, code.co_firstlineno, hexed, ",".join(map(str, lines_of(code))))


main()

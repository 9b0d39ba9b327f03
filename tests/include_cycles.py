#!/usr/bin/env python3
"""include_cycles.py USER_DIR [--graph]: fail when the modules of user/ include each other in
a circle.

A module is a .c file and its .h (report.c + report.h). Module A uses module B when A's .c or
.h includes B's header. A circle (dhat_mappings -> report -> dhat_reader -> dhat_mappings)
means neither side can be understood, tested or moved without the other, and the folders'
libraries could not keep their link-time layering. Exits 1 and prints each circle found;
--graph prints the edges, "A -> B" a line, for the closing note or a dot file.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def modules(root):
    """module name -> set of header names its files include"""
    uses = {}
    for folder, _, files in os.walk(root):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            with open(os.path.join(folder, f), encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            mod = f[:-2]
            uses.setdefault(mod, set()).update(
                os.path.basename(h)[:-2] for h in INCLUDE.findall(text) if h.endswith(".h"))
    # only edges between modules of this tree, and not a module to itself
    return {m: sorted(u for u in deps if u in uses and u != m) for m, deps in uses.items()}


def circles(graph):
    """every elementary circle found by a depth-first search, each once"""
    found, seen = [], set()
    state = {}

    def visit(m, path):
        state[m] = 1
        path.append(m)
        for n in graph[m]:
            if state.get(n) == 1:
                c = path[path.index(n):]
                key = frozenset(c)
                if key not in seen:
                    seen.add(key)
                    found.append(c + [n])
            elif n not in state:
                visit(n, path)
        path.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    return found


def main():
    if len(sys.argv) < 2:
        print("usage: include_cycles.py USER_DIR [--graph]", file=sys.stderr)
        return 2
    graph = modules(sys.argv[1])
    if "--graph" in sys.argv[2:]:
        for m in sorted(graph):
            for n in graph[m]:
                print(f"{m} -> {n}")
    found = circles(graph)
    for c in found:
        print("include circle: " + " -> ".join(c), file=sys.stderr)
    if not found:
        edges = sum(len(v) for v in graph.values())
        print(f"no include circle among {len(graph)} modules ({edges} edges)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

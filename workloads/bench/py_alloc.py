# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# py_alloc.py - a pure-Python allocation-heavy workload for python_bench.sh (issue #32):
# ten lines that allocate at different rates and sizes, most objects short-lived, some kept.
# Prints the work's own wall time ("work_s N") on stdout, start-up and tear-down excluded, so
# the tracer's attach and write are not in it.
#
#   python3 py_alloc.py [ROUNDS]
import sys
import time

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 40


def dicts(n):
    return [{"a": i, "b": i + 1} for i in range(n)]  # line: dicts


def tuples(n):
    return [(i, i + 1, i + 2) for i in range(n)]  # line: tuples


def strings(n):
    return ["item-%d" % i for i in range(n)]  # line: strings


def lists(n):
    return [[i] * 8 for i in range(n)]  # line: lists


def floats(n):
    return [i * 0.5 for i in range(n)]  # line: floats


def blobs(n):
    return [bytes(600 + (i & 255)) for i in range(n // 8)]  # line: blobs


def sets(n):
    return [{i, i + 1} for i in range(n // 2)]  # line: sets


def joined(n):
    return ",".join(str(i) for i in range(n))  # line: joined


def nested(n):
    return {i: [i, str(i)] for i in range(n // 2)}  # line: nested


def ints(n):
    return [i * 1000003 for i in range(n)]  # line: ints


kept = []
start = time.perf_counter()
for r in range(ROUNDS):
    n = 5000
    out = (dicts(n), tuples(n), strings(n), lists(n), floats(n), blobs(n), sets(n),
           joined(n), nested(n), ints(n))
    if r % 10 == 0:
        kept.append(out)
print("work_s %.6f" % (time.perf_counter() - start))

# Allocations at known lines, for python_e2e (tests/python_e2e.c). Run twice: once under
# tracemalloc, once traced by `tracer --pid`; both report the live blocks of each line of
# this file at the same point (after the work, while `kept` and `bigs` are alive).
#
#   alloc_lines.py MODE DIR     MODE: "tracemalloc" or "traced"; DIR: the handshake files
#
# DIR/ready   written when the interpreter is up; the work waits for DIR/go (the tracer
#             attached meanwhile)
# DIR/lines.json  {"keep": L, "churn": L, "big": L}: the lines below, found by their marker
# DIR/snap.json   (tracemalloc) {"LINE": [bytes, blocks]} of this file's lines
# DIR/done    written after the work; the script then waits for DIR/end (the tracer stops
#             meanwhile, its profile's live blocks taken as they are now)
import json
import os
import sys
import time

MODE, DIR = sys.argv[1], sys.argv[2]
N_LISTS, M_DICTS = 40, 250  # 10,000 dicts kept
CHURN = 20000  # dicts built and dropped
N_BIGS = 64  # bytes objects over pymalloc's 512 B


def wait_for(name):
    while not os.path.exists(os.path.join(DIR, name)):
        time.sleep(0.01)


def touch(name, text=""):
    tmp = os.path.join(DIR, name + ".tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, os.path.join(DIR, name))


def keep_dicts():
    kept = []
    for i in range(N_LISTS):
        kept.append([{"k": j, "v": i} for j in range(M_DICTS)])  # MARK:keep
    return kept


def churn():
    total = 0
    for i in range(CHURN):
        d = {"i": i, "j": i + 1}  # MARK:churn
        total += len(d)
    return total


def big():
    return [bytes(4096 + i) for i in range(N_BIGS)]  # MARK:big


def marker_lines():
    lines = {}
    with open(__file__) as f:
        for n, text in enumerate(f, 1):
            if "# MARK:" in text and "text" not in text:
                lines[text.split("# MARK:")[1].strip()] = n
    return lines


if MODE == "tracemalloc":
    import tracemalloc

    tracemalloc.start(1)
touch("lines.json", json.dumps(marker_lines()))
touch("ready")
wait_for("go")
kept = keep_dicts()
churn()
bigs = big()
if MODE == "tracemalloc":
    snap = tracemalloc.take_snapshot()
    me = os.path.abspath(__file__)
    stats = {}
    for s in snap.statistics("lineno"):
        frame = s.traceback[0]
        if os.path.abspath(frame.filename) == me:
            stats[str(frame.lineno)] = [s.size, s.count]
    touch("snap.json", json.dumps(stats))
touch("done")
wait_for("end")

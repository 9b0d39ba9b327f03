# A Python process already busy when the tracer attaches (python_e2e's busy_attach): it
# keeps a ring of 2,000 dicts, replacing one per turn (so frees of blocks made before the
# attach keep coming), and writes DIR/ready once the ring is full. Runs until killed.
#   busy.py DIR
import os
import sys

ring = [None] * 2000
i = 0


def turn(i):
    ring[i % len(ring)] = {"turn": i, "text": "t%d" % i}  # MARK:turn


while True:
    turn(i)
    i += 1
    if i == len(ring):
        open(os.path.join(sys.argv[1], "ready"), "w").close()

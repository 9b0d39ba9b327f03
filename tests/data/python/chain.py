# chain.py - for python_live_unit: enters <module> -> f -> C.g -> h and blocks in h reading
# stdin, after writing "ready THREAD_IDENT VERSION" to stdout. The test reads the stack from
# outside and expects each function at the line tagged "# at:NAME" below. With the argument
# "thread" the chain runs in a second thread (the main one waits in join); with "deep", under
# 100 calls of deep() (more frames than the tracer keeps). Runs on 2.7 too (the
# unsupported-version case).
import os
import platform
import sys
import threading

try:
    from threading import get_ident
except ImportError:
    from thread import get_ident


def h():
    os.write(1, ("ready %d %s\n" % (get_ident(), platform.python_version())).encode())
    return os.read(0, 1)  # at:h


class C(object):
    def g(self):
        data = h()  # at:g
        return data


def f():
    return [C().g(),  # at:f
            None]


def deep(n):
    return deep(n - 1) if n else f()  # at:deep


if sys.argv[1:] == ["deep"]:
    deep(100)
elif sys.argv[1:] == ["thread"]:
    t = threading.Thread(target=f)
    t.start()
    t.join()
else:
    f()  # at:<module>
sys.exit(0)

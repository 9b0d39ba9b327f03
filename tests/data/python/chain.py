# chain.py - for python_runtime_e2e: enters <module> -> f -> g -> h and blocks in h reading
# stdin, after writing "ready THREAD_IDENT VERSION" to stdout. The test reads the stack from
# outside and expects each function at the line tagged "# at:NAME" below. Runs on 2.7 too
# (the unsupported-version case).
import os
import platform
import sys

try:
    from threading import get_ident
except ImportError:
    from thread import get_ident


def h():
    os.write(1, ("ready %d %s\n" % (get_ident(), platform.python_version())).encode())
    return os.read(0, 1)  # at:h


def g():
    data = h()  # at:g
    return data


def f():
    return [g(),  # at:f
            None]


f()  # at:<module>
sys.exit(0)

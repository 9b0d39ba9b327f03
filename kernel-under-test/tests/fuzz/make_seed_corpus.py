#!/usr/bin/env python3
"""make_seed_corpus.py - seed corpora for the kaish fuzzers from the kernel test tables.

Every C string literal that is the script of a table row ({ "name", setup, "script", ...} in
kernel_lang_unit.c and kernel_builtins_unit.c, in kernel-under-test/tests/) or the argument of
expect_run(...) in kernel_vfs_unit.c becomes one seed file, named seed-<sha1 prefix>, in both
corpus/fuzz_kaish_parse/ and corpus/fuzz_kaish_exec/. Setup scripts are seeds too, and
"setup; script" joined. Re-running is idempotent (content-addressed names).

Usage: kernel-under-test/tests/fuzz/make_seed_corpus.py
"""
import hashlib
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
TARGETS = ["fuzz_kaish_parse", "fuzz_kaish_exec"]

STR = r'"(?:[^"\\\n]|\\.)*"'
# A literal or a run of adjacent literals (C concatenation), or NULL.
ARG = r'(?:NULL|(?:%s\s*)+)' % STR


def c_unescape(lits):
    out = bytearray()
    for lit in re.findall(STR, lits):
        body = lit[1:-1]
        i = 0
        while i < len(body):
            c = body[i]
            if c != '\\':
                out += c.encode()
                i += 1
                continue
            n = body[i + 1]
            i += 2
            simple = {'n': b'\n', 't': b'\t', 'r': b'\r', '\\': b'\\', '"': b'"',
                      "'": b"'", '0': b'\0', 'a': b'\a', 'b': b'\b', 'e': b'\x1b'}
            if n == 'x':
                m = re.match(r'[0-9a-fA-F]{1,2}', body[i:])
                out.append(int(m.group(0), 16))
                i += len(m.group(0))
            elif n in '01234567' and re.match(r'[0-7]{1,3}', body[i - 1:]):
                m = re.match(r'[0-7]{1,3}', body[i - 1:])
                out.append(int(m.group(0), 8) & 0xff)
                i += len(m.group(0)) - 1
            else:
                out += simple.get(n, n.encode())
    return bytes(out)


def scripts():
    seen = []
    row = re.compile(r'\{\s*' + STR + r'\s*,\s*(' + ARG + r')\s*,\s*(' + ARG + r')\s*,')
    for name in ("kernel_lang_unit.c", "kernel_builtins_unit.c"):
        text = open(os.path.join(TESTS, name)).read()
        for m in row.finditer(text):
            setup = None if m.group(1) == 'NULL' else c_unescape(m.group(1))
            script = c_unescape(m.group(2))
            seen.append(script)
            if setup:
                seen.append(setup)
                seen.append(setup + b"\n" + script)
    run = re.compile(r'expect_run\(\s*(' + ARG + r')\s*,')
    for name in ("kernel_vfs_unit.c", "kernel_workloads_unit.c"):
        path = os.path.join(TESTS, name)
        if os.path.exists(path):
            for m in run.finditer(open(path).read()):
                seen.append(c_unescape(m.group(1)))
    return seen


def main():
    n = 0
    for s in scripts():
        if not s:
            continue
        h = hashlib.sha1(s).hexdigest()[:16]
        for t in TARGETS:
            d = os.path.join(HERE, "corpus", t)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "seed-" + h), "wb") as f:
                f.write(s)
        n += 1
    print("%d seed scripts written to corpus/{%s}" % (n, ",".join(TARGETS)))


if __name__ == "__main__":
    main()

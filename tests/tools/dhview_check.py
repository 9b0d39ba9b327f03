#!/usr/bin/env python3
"""dhview_check.py - does the real DHAT viewer (Valgrind's dh_view.html) accept these files?

Method B of ../shared/docs/dhat-format.md §9.3: a wrapper page loads the installed
dh_view.js, embeds the file's text, runs the same sequence as the viewer's loadFile()
(JSON.parse, buildTree, displayTree), switches through every enabled sort metric to exercise
every display path, and headless Chromium dumps the resulting DOM. A file is rejected exactly
when the viewer shows a span.error.

Usage: dhview_check.py [--show] FILE...
Prints `ACCEPTED FILE  <root Total line>` or `REJECTED FILE  viewer says: <text>` per file.
Exit status: 0 every file accepted, 1 any rejected, 2 harness problem (no Chromium, ...).
"""
import gzip
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

DH_VIEW_JS = "/usr/libexec/valgrind/dh_view.js"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--virtual-time-budget=5000"]

WRAPPER = """<!DOCTYPE html>
<html><head><meta charset="UTF-8"><script src="file://%(js)s"></script></head>
<body><script>
const text = %(text)s;
onLoad();
tryFunc(() => {
  gData = JSON.parse(text);
  buildTree();
  displayTree(0, 0, 0);
  // Every enabled sort metric, as a user switching the menu would.
  for (let i = 0; i < gSelect.options.length; i++) {
    if (gSelect.options[i].disabled) continue;
    gSelect.selectedIndex = i;
    changeSortMetric();
  }
  gSelect.selectedIndex = 1;
  changeSortMetric();
});
document.title = "DHVIEW-DONE";
</script></body></html>
"""


def read_text(path):
    raw = open(path, "rb").read()
    if path.endswith(".gz"):
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8")  # as FileReader.readAsText does
    return text[1:] if text.startswith("\ufeff") else text


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def check(chromium, path, show):
    text = read_text(path)
    # A JS string literal that cannot close the <script> element.
    literal = json.dumps(text).replace("<", "\\u003c")
    with tempfile.TemporaryDirectory(prefix="dhview-") as tmp:
        page = os.path.join(tmp, "wrapper.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write(WRAPPER % {"js": DH_VIEW_JS, "text": literal})
        proc = subprocess.run([chromium, *CHROMIUM_FLAGS, "--user-data-dir=" + tmp + "/profile",
                               "--dump-dom", "file://" + page],
                              capture_output=True, text=True, timeout=120)
    dom = proc.stdout
    if "DHVIEW-DONE" not in dom and "<title>" not in dom:
        print("HARNESS %s  chromium produced no DOM: %s" % (path, proc.stderr.strip()[-300:]))
        return None
    m = re.search(r'<span class="error">(.*?)</span>', dom, re.S)
    if m:
        print("REJECTED %s  viewer says: %s" % (path, html.unescape(m.group(1)).strip()))
        return False
    body = html.unescape(re.sub(r"<[^>]+>", "", dom))
    total = re.search(r"Total:[^\n]*", body)
    if not total:
        print("REJECTED %s  viewer rendered no tree" % path)
        return False
    print("ACCEPTED %s  %s" % (path, " ".join(total.group(0).split())))
    if show:
        print(body)
    return True


def main(argv):
    show = "--show" in argv
    files = [a for a in argv if a != "--show"]
    if not files:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    chromium = find_chromium()
    if not chromium or not os.path.exists(DH_VIEW_JS):
        print("dhview_check: needs chromium and valgrind's %s" % DH_VIEW_JS, file=sys.stderr)
        return 2
    results = [check(chromium, f, show) for f in files]
    if any(r is None for r in results):
        return 2
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

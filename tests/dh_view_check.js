// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// dh_view_check.js - does Valgrind's DHAT viewer accept these files? (dhat-format.md §9.4,
// "Method C": the installed dh_view.js run under node:vm with a minimal fake DOM.)
//
//   node dh_view_check.js [--viewer PATH/dh_view.js] FILE|DIR...   (DIR: its *.json[.gz])
//
// Runs the viewer's own load sequence (onLoad, JSON.parse, buildTree, displayTree) for each
// file, then switches through every enabled sort metric. Prints ACCEPTED/REJECTED per file.
// Exit 0: all accepted; 1: some rejected; 2: harness problem (e.g. viewer not found).
"use strict";
const fs = require("fs");
const vm = require("vm");
const zlib = require("zlib");

let viewer = "/usr/libexec/valgrind/dh_view.js";
const files = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--viewer") viewer = args[++i];
  else if (fs.existsSync(args[i]) && fs.statSync(args[i]).isDirectory())
    fs.readdirSync(args[i]).filter((f) => /\.json(\.gz)?$/.test(f)).sort()
      .forEach((f) => files.push(`${args[i]}/${f}`));
  else files.push(args[i]);
}

class Node {
  constructor(tag) {
    this.tagName = tag;
    this.childNodes = [];
    this.parentNode = null;
    this._text = "";
    this.className = "";
    const self = this;
    this.classList = {
      contains: (c) => self.className.split(/\s+/).includes(c),
      toggle: (c) => {
        const l = self.className.split(/\s+/).filter((x) => x);
        const i = l.indexOf(c);
        if (i >= 0) l.splice(i, 1); else l.push(c);
        self.className = l.join(" ");
      },
      add: (c) => { if (!self.classList.contains(c)) self.className += " " + c; },
    };
  }
  appendChild(c) { c.parentNode = this; this.childNodes.push(c); return c; }
  replaceChild(n, o) {
    const i = this.childNodes.indexOf(o);
    this.childNodes[i] = n; n.parentNode = this; o.parentNode = null; return o;
  }
  cloneNode() { const n = new Node(this.tagName); n.className = this.className; return n; }
  get textContent() { return this._text + this.childNodes.map((c) => c.textContent).join(""); }
  set textContent(t) { this._text = String(t); this.childNodes = []; }
  get nextSibling() {
    const p = this.parentNode; if (!p) return null;
    return p.childNodes[p.childNodes.indexOf(this) + 1] || null;
  }
  get selectedIndex() {
    let idx = 0;
    this.childNodes.forEach((c, i) => { if (c.selected) idx = i; });
    return idx;
  }
  set selectedIndex(v) { this.childNodes.forEach((c, i) => { c.selected = i === v; }); }
  querySelectorAll(cls) {
    const out = [];
    const walk = (n) => { if (n.classList && n.classList.contains(cls)) out.push(n); n.childNodes.forEach(walk); };
    walk(this);
    return out;
  }
}

function run(file) {
  let buf = fs.readFileSync(file);
  if (file.endsWith(".gz")) buf = zlib.gunzipSync(buf);
  let text = buf.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // FileReader drops a BOM

  const body = new Node("body");
  const document = {
    body, title: "", location: { search: "" },
    createElement: (t) => new Node(t),
    createTextNode: (t) => { const n = new Node("#text"); n._text = String(t); return n; },
  };
  const ctx = vm.createContext({ document, performance, URLSearchParams, Intl, console });
  vm.runInContext(fs.readFileSync(viewer, "utf8"), ctx, { filename: viewer });
  ctx.__text = text;
  try {
    vm.runInContext(`
      onLoad();
      tryFunc(() => { gData = JSON.parse(__text); buildTree(); displayTree(); });
      for (let i = 0; i < gSelect.childNodes.length; i++) {
        if (gSelect.childNodes[i].disabled) continue;
        gSelect.selectedIndex = i;
        tryFunc(() => displayTree());
      }`, ctx);
  } catch (e) {
    const err = body.querySelectorAll("error")[0];
    return err ? err.textContent : String(e);
  }
  const err = body.querySelectorAll("error")[0];
  return err ? err.textContent : null;
}

if (!fs.existsSync(viewer)) {
  console.error(`dh_view_check: viewer not found: ${viewer}`);
  process.exit(2);
}
let rejected = 0;
for (const f of files) {
  let why;
  try { why = run(f); } catch (e) { console.error(`dh_view_check: ${f}: ${e}`); process.exit(2); }
  if (why === null) console.log(`ACCEPTED ${f}`);
  else { console.log(`REJECTED ${f}  viewer says: ${why}`); rejected++; }
}
process.exit(rejected ? 1 : 0);

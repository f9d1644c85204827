#!/usr/bin/env python3
"""The module graph of src/ by #include "...": a module is a .c/.h pair
(foo.c + foo.h), a template header counts as part of its includer.

    python3 test/tools/module_graph.py [--dot]

Checks that the modules form no cycle and that DEVELOPMENT.md's source map
names every module; prints "N passed, N failed"."""
import os
import re
import sys

top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
src = os.path.join(top, "src")
inc = re.compile(r'^#include "([^"]+)"', re.M)


def module(name):
    return re.sub(r"\.(c|h)$", "", name)


edges = {}
for f in sorted(os.listdir(src)):
    if not f.endswith((".c", ".h")):
        continue
    m = module(f)
    if m.endswith("_template"):
        continue
    deps = edges.setdefault(m, set())
    text = open(os.path.join(src, f)).read()
    for h in inc.findall(text):
        if not os.path.exists(os.path.join(src, h)):
            continue
        d = module(h)
        if d.endswith("_template"):
            continue
        if d != m:
            deps.add(d)

if "--dot" in sys.argv:
    print("digraph src {")
    for m in sorted(edges):
        for d in sorted(edges[m]):
            print(f'  "{m}" -> "{d}";')
    print("}")
    sys.exit(0)

passed = failed = 0
# cycles: depth-first search
state = {}
cycle = None


def visit(m, path):
    global cycle
    state[m] = 1
    for d in sorted(edges.get(m, ())):
        if cycle:
            return
        if state.get(d) == 1:
            cycle = path[path.index(d):] + [d] if d in path else path + [d]
            return
        if d not in state:
            visit(d, path + [d])
    state[m] = 2


for m in sorted(edges):
    if m not in state and not cycle:
        visit(m, [m])
if cycle:
    print("FAIL: module cycle: " + " -> ".join(cycle))
    failed += 1
else:
    print(f"ok: {len(edges)} modules of src/ form no cycle by their includes")
    passed += 1

readme = open(os.path.join(top, "DEVELOPMENT.md")).read()
missing = [m for m in sorted(edges) if not re.search(r"`(src/)?" + re.escape(m) + r"(\.[ch])?`", readme)]
if missing:
    print("FAIL: DEVELOPMENT.md's source map does not name: " + ", ".join(missing))
    failed += 1
else:
    print("ok: DEVELOPMENT.md names every module")
    passed += 1
print(f"modules: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)

#!/usr/bin/env bash
# The modules of src/ form no cycle by their includes, and DEVELOPMENT.md's source
# map names every one (test/tools/module_graph.py).  No server needed.
cd "$(dirname "$0")/../.."
python3 test/tools/module_graph.py

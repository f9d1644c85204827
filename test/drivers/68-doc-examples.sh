#!/usr/bin/env bash
# The documentation's examples, run: every ```sql block of README.md and
# docs/*.md followed by a ```text block is run (the blocks of one file in
# order, in one session, in a fresh database with the extension created)
# and must print exactly its text block (test/tools/doc_examples.py has the
# convention).  And docs/reference.md must document every user-facing
# function, aggregate, operator and setting of the installed extension, each
# under a heading with a checked example, and every SQLSTATE src/ raises; and
# the relative links of README.md, docs/*.md, DEVELOPMENT.md, CHANGELOG.md and
# bench/results/HISTORY.md must resolve (files and headings), and
# DEVELOPMENT.md must describe every test driver and pg_regress test.
#
# Uses the cluster from test/run-all.sh (PGHOST, PGPORT, ...,
# CD_CLUSTER_BINDIR, PG_CONFIG).  Prints "N passed, N failed" last; exits
# non-zero on any failure.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${CD_CLUSTER_BINDIR:-$(dirname "$(command -v psql)")}
PG_CONFIG=${PG_CONFIG:-$BIN/pg_config}
command -v python3 >/dev/null || { apt-get install -y -qq python3 >/dev/null 2>&1 || true; }
command -v python3 >/dev/null || { echo "doc-examples: python3 is missing"; echo "0 passed, 1 failed"; exit 1; }
inc=$("$PG_CONFIG" --includedir-server 2>/dev/null) \
    || { echo "doc-examples: no pg_config"; echo "0 passed, 1 failed"; exit 1; }
cd "$here" || exit 1
exec python3 test/tools/doc_examples.py --psql "$BIN/psql" --root "$here" \
    --reference docs/reference.md --includedir-server "$inc" README.md docs/*.md \
    --tests-table DEVELOPMENT.md --links DEVELOPMENT.md CHANGELOG.md bench/results/HISTORY.md

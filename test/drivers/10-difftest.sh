#!/usr/bin/env bash
# Randomized differential test of the count_distinct family against native
# COUNT(DISTINCT) / array_agg(DISTINCT) (see test/difftest.py).
#
# Uses the cluster from test/run-all.sh (PGHOST, PGPORT, ..., CD_CLUSTER_BINDIR).
#   CD_DIFFTEST_SEED   seed (default 1; long mode: the current time)
#   CD_DIFFTEST_CASES  number of cases in the bounded run (default 100)
#   CD_LONG=1          run for CD_DIFFTEST_MINUTES (default 30) instead
# Only python3 (standard library) and psql are needed.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || { apt-get install -y -qq python3 >/dev/null 2>&1 || true; }
command -v python3 >/dev/null || { echo "difftest: python3 is missing"; echo "difftest: 0 passed, 1 failed"; exit 1; }

if [ "${CD_LONG:-0}" = 1 ]; then
    seed=${CD_DIFFTEST_SEED:-$(date +%s)}
    exec python3 "$here/difftest.py" --seed "$seed" --minutes "${CD_DIFFTEST_MINUTES:-30}"
fi
exec python3 "$here/difftest.py" --seed "${CD_DIFFTEST_SEED:-1}" --cases "${CD_DIFFTEST_CASES:-100}"

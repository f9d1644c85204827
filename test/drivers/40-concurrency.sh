#!/usr/bin/env bash
# Concurrency: pgbench (from the cluster's bindir) runs the scripts in
# test/pgbench/ with many clients for a bounded time.  Every query checks
# its count_distinct-family results against native SQL in the same query
# and divides by zero on a mismatch, so any error fails the driver.
#
# Uses the cluster from test/run-all.sh (PGHOST, PGPORT, ..., CD_CLUSTER_BINDIR).
#   CD_CONC_CLIENTS (8)  CD_CONC_SECONDS (20; CD_LONG=1: 300)
set -u
dir=$(cd "$(dirname "$0")/../pgbench" && pwd)
BIN=${CD_CLUSTER_BINDIR:-$(dirname "$(command -v psql)")}
PGBENCH=$BIN/pgbench
[ -x "$PGBENCH" ] || PGBENCH=$(command -v pgbench)
clients=${CD_CONC_CLIENTS:-8}
secs=${CD_CONC_SECONDS:-20}
[ "${CD_LONG:-0}" = 1 ] && secs=${CD_CONC_SECONDS:-300}
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
out=$(mktemp)
trap 'rm -f "$out"' EXIT

"$BIN/psql" -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION IF NOT EXISTS count_distinct" -f "$dir/setup.sql" \
    || { echo "concurrency: 0 passed, 1 failed"; exit 1; }

"$PGBENCH" -n -c "$clients" -j 2 -T "$secs" \
    -f "$dir/one-group.sql@4" -f "$dir/grouped-parallel.sql@2" -f "$dir/grouped-spill.sql@1" \
    -f "$dir/elements-window.sql@2" -f "$dir/write.sql@2" >"$out" 2>&1
rc=$?
grep -v '^pgbench: client [0-9]* executing' "$out" | head -60

passed=0
failed=0
txns=$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$out")
nfail=$(sed -nE 's/^number of failed transactions: ([0-9]+).*/\1/p' "$out")
if [ "$rc" -ne 0 ] || grep -qE 'ERROR|aborted|FATAL' "$out"; then
    echo "FAIL: pgbench reported errors (exit $rc)"
    failed=1
elif [ -z "$txns" ] || [ "$txns" -eq 0 ] || [ "${nfail:-0}" -ne 0 ]; then
    echo "FAIL: no transactions, or failed transactions"
    failed=1
else
    echo "ok: $txns transactions by $clients clients in $secs s, no errors"
    passed=1
fi
"$BIN/psql" -X -q -c "DROP TABLE IF EXISTS cd_bench" >/dev/null 2>&1
echo "concurrency: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

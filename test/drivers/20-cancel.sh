#!/usr/bin/env bash
# Cancellation: queries building one group of tens of millions of values are
# cancelled by statement_timeout and by pg_cancel_backend() from another
# session; each must end with the ordinary cancel error (SQLSTATE 57014)
# within a generous bound, and the same session must stay usable.
#
# Uses the cluster from test/run-all.sh (PGHOST, PGPORT, ..., CD_CLUSTER_BINDIR).
# No latency is asserted beyond a generous bound (slow, noisy machines).
set -u
BIN=${CD_CLUSTER_BINDIR:-$(dirname "$(command -v psql)")}
PSQL="$BIN/psql -X -q -A -t -v VERBOSITY=verbose"
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
BOUND=${CD_CANCEL_BOUND:-180}   # seconds a cancelled query may take to stop
N=${CD_CANCEL_ROWS:-50000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }

$PSQL -c "CREATE EXTENSION IF NOT EXISTS count_distinct" >/dev/null || { echo "0 passed, 1 failed"; exit 1; }

# one group of N values, scattered (so compaction and sorting have work)
Q_COUNT="SELECT count_distinct(((i::int8 * 7919) % 50000017)::int4) FROM generate_series(1, $N) i"
Q_ARRAY="SELECT cardinality(array_agg_distinct(i::int8 * 7919)) FROM generate_series(1, $N) i"
Q_ELEMS="SELECT count_distinct_elements(ARRAY[i, -i, i * 3]) FROM generate_series(1, $N) i"

# run_timeout NAME QUERY: statement_timeout cancels it; the session survives
run_timeout() {
    local name=$1 q=$2 t0 t1
    t0=$(date +%s)
    timeout $((BOUND + 60)) $PSQL -v ON_ERROR_STOP=0 \
        -c "SET statement_timeout = '2s'" -c "$q" -c "RESET statement_timeout" \
        -c "SELECT 'alive:' || count_distinct(x) FROM generate_series(1, 1000) x" \
        >"$tmp/out" 2>"$tmp/err"
    t1=$(date +%s)
    if ! grep -q "ERROR:  57014" "$tmp/err"; then
        bad "$name: statement_timeout did not give SQLSTATE 57014"; cat "$tmp/err" "$tmp/out"; return
    fi
    if ! grep -q "canceling statement due to statement timeout" "$tmp/err"; then
        bad "$name: not the ordinary statement timeout message"; cat "$tmp/err"; return
    fi
    if [ $((t1 - t0)) -gt "$BOUND" ]; then
        bad "$name: cancellation took $((t1 - t0)) s (bound $BOUND s)"; return
    fi
    if ! grep -q "^alive:1000$" "$tmp/out"; then
        bad "$name: the session was not usable after the timeout"; cat "$tmp/out" "$tmp/err"; return
    fi
    ok "$name: statement_timeout -> 57014 after $((t1 - t0)) s, session usable"
}

# run_cancel NAME QUERY: pg_cancel_backend() from another session
run_cancel() {
    local name=$1 q=$2 app="cd_cancel_$$_$RANDOM" pid="" i t0 t1 bg
    PGAPPNAME=$app timeout $((BOUND + 120)) $PSQL -v ON_ERROR_STOP=0 -c "$q" \
        -c "SELECT 'alive:' || count_distinct(x) FROM generate_series(1, 1000) x" \
        >"$tmp/out" 2>"$tmp/err" &
    bg=$!
    # wait until the query is running (up to 60 s), then let it work a moment
    for i in $(seq 1 120); do
        pid=$($PSQL -c "SELECT pid FROM pg_stat_activity WHERE application_name = '$app' AND state = 'active' AND query LIKE '%generate_series%'")
        [ -n "$pid" ] && break
        sleep 0.5
    done
    if [ -z "$pid" ]; then
        bad "$name: the query never showed up in pg_stat_activity"; kill "$bg" 2>/dev/null; wait "$bg"; return
    fi
    sleep 1.5
    t0=$(date +%s)
    if [ "$($PSQL -c "SELECT pg_cancel_backend($pid)")" != t ]; then
        # the query may have finished already on a very fast machine
        wait "$bg"
        bad "$name: pg_cancel_backend($pid) found no backend"; cat "$tmp/out" "$tmp/err"; return
    fi
    wait "$bg"
    t1=$(date +%s)
    if ! grep -q "ERROR:  57014" "$tmp/err" || ! grep -q "canceling statement due to user request" "$tmp/err"; then
        bad "$name: cancel did not give 57014 'canceling statement due to user request'"; cat "$tmp/err" "$tmp/out"; return
    fi
    if [ $((t1 - t0)) -gt "$BOUND" ]; then
        bad "$name: cancellation took $((t1 - t0)) s (bound $BOUND s)"; return
    fi
    if ! grep -q "^alive:1000$" "$tmp/out"; then
        bad "$name: the session was not usable after the cancel"; cat "$tmp/out" "$tmp/err"; return
    fi
    ok "$name: pg_cancel_backend -> 57014 after $((t1 - t0)) s, session usable"
}

run_timeout "count_distinct, one group of $N" "$Q_COUNT"
run_timeout "array_agg_distinct, one group of $N" "$Q_ARRAY"
run_timeout "count_distinct_elements, one group of 3x$N" "$Q_ELEMS"
run_cancel "count_distinct, one group of $N" "$Q_COUNT"
run_cancel "array_agg_distinct, one group of $N" "$Q_ARRAY"

# the server is healthy afterwards (no crash-restart happened)
if [ "$($PSQL -c "SELECT count_distinct(x % 7) FROM generate_series(1, 100000) x")" = 7 ]; then
    ok "server usable after the cancellations"
else
    bad "server not usable after the cancellations"
fi

echo "cancel: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

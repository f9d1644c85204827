#!/usr/bin/env bash
# Memory limits, on a SECOND throwaway cluster started under `ulimit -v`:
#  1. one group larger than the limit ends in a clean "out of memory" ERROR
#     (SQLSTATE 53200): no crash, no server restart, the same session and
#     other sessions keep working (one runs queries while the big one fails);
#  2. repeating medium queries 100 times in one connection does not grow that
#     backend's memory (VmRSS / VmSize of /proc/self/status, read by the
#     backend itself, compared after a warm-up, with slack).
#
# Needs CD_CLUSTER_BINDIR (from test/run-all.sh) and the extension installed
# for that server; runs as root (server as user postgres) or as a normal user.
#   CD_MEMLIMIT_KB    address-space limit for the second server (default 1 GB)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${CD_CLUSTER_BINDIR:-$(dirname "$(command -v psql)")}
LIMIT_KB=${CD_MEMLIMIT_KB:-1048576}
passed=0
failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }

. "$top/test/cluster.sh"
# a second cluster: keep the first one's settings out of the way
unset CD_CLUSTER_DIR
port=$(( ${PGPORT:-5432} + 1 ))
(
    ulimit -v "$LIMIT_KB"
    CD_PG_OPTS="-c shared_buffers=16MB -c max_connections=20 -c jit=off" \
        cd_cluster_start "$BIN" "$port" && echo "$CD_CLUSTER_DIR" >"${TMPDIR:-/tmp}/cd_memlimit_dir.$$"
) || { echo "could not start the second cluster"; echo "memlimit: 0 passed, 1 failed"; exit 1; }
CD_CLUSTER_DIR=$(cat "${TMPDIR:-/tmp}/cd_memlimit_dir.$$"); rm -f "${TMPDIR:-/tmp}/cd_memlimit_dir.$$"
CD_CLUSTER_BINDIR=$BIN
export CD_CLUSTER_DIR CD_CLUSTER_BINDIR
export PGHOST="$CD_CLUSTER_DIR/sock" PGPORT=$port PGUSER=postgres PGDATABASE=postgres
export PGOPTIONS="-c client_min_messages=warning"
trap cd_cluster_stop EXIT
tmp=$CD_CLUSTER_DIR/memlimit-tmp
mkdir -p "$tmp" && chmod 777 "$tmp"

PSQL="$BIN/psql -X -q -A -t -v VERBOSITY=verbose"
$PSQL -c "CREATE EXTENSION count_distinct" || { echo "memlimit: 0 passed, 1 failed"; exit 1; }

ppid=$(head -1 "$CD_CLUSTER_DIR/data/postmaster.pid")
lim=$(awk '/Max address space/ {print $4}' "/proc/$ppid/limits")
echo "second cluster on port $port, postmaster $ppid, address-space limit $lim bytes"
if [ "$lim" = unlimited ]; then
    bad "ulimit -v did not reach the server"
fi
start_time=$($PSQL -c "SELECT pg_postmaster_start_time()")

# --- 1. one group larger than the limit -------------------------------------
# 16 distinct int8 values per row; 40M rows would be 5 GB of keys.
BIG="SELECT count_distinct_elements(ARRAY[i*16, i*16+1, i*16+2, i*16+3, i*16+4, i*16+5, i*16+6, i*16+7,
        i*16+8, i*16+9, i*16+10, i*16+11, i*16+12, i*16+13, i*16+14, i*16+15])
      FROM generate_series(1::int8, 40000000) i"
$PSQL -v ON_ERROR_STOP=0 -c "SET statement_timeout = '600s'" -c "$BIG" \
    -c "SELECT 'alive:' || count_distinct(x % 10) FROM generate_series(1, 100000) x" \
    >"$tmp/big.out" 2>"$tmp/big.err" &
bg=$!
# meanwhile, another session keeps working
others_ok=1
nother=0
while kill -0 "$bg" 2>/dev/null; do
    r=$($PSQL -c "SELECT count_distinct(x % 1000) FROM generate_series(1, 100000) x" 2>&1)
    if [ "$r" != 1000 ]; then others_ok=0; echo "other session: $r"; fi
    nother=$((nother + 1))
    sleep 1
done
wait "$bg"
cat "$tmp/big.err"
if grep -q "ERROR:  53200: out of memory" "$tmp/big.err"; then
    ok "a group larger than the limit: ERROR 53200 out of memory"
else
    bad "a group larger than the limit did not end in ERROR 53200"
    cat "$tmp/big.out"
fi
if grep -q "^alive:10$" "$tmp/big.out"; then
    ok "the same session works after the out-of-memory error"
else
    bad "the session did not survive the out-of-memory error"
fi
if [ "$others_ok" = 1 ] && [ "$nother" -gt 0 ]; then
    ok "another session kept working during it ($nother queries)"
else
    bad "another session failed during the big query"
fi
if [ "$($PSQL -c "SELECT pg_postmaster_start_time()")" = "$start_time" ] && \
   ! grep -q "terminated by signal\|server process .* was terminated" "$CD_CLUSTER_DIR/log"; then
    ok "no backend crash, no server restart"
else
    bad "the server restarted or a backend crashed"; tail -20 "$CD_CLUSTER_DIR/log"
fi

# parallel workers and the spilling hash aggregate under the same limit
r=$($PSQL -v ON_ERROR_STOP=1 \
    -c "SET parallel_setup_cost = 0" -c "SET parallel_tuple_cost = 0" -c "SET min_parallel_table_scan_size = 0" \
    -c "CREATE TABLE m AS SELECT i, i % 5000 AS g FROM generate_series(1, 300000) i" -c "ANALYZE m" \
    -c "SELECT count_distinct(i), sum(c)::int8 FROM (SELECT g, count_distinct(i) c, count_distinct(i) FILTER (WHERE g = 0) d FROM m GROUP BY g) s, m WHERE m.i = s.g + 1" 2>&1)
if [ "$r" = "5000|300000" ]; then ok "parallel / hash aggregation under the limit"; else bad "parallel / hash aggregation under the limit: $r"; fi

# --- 2. no growth over 100 repetitions --------------------------------------
{
    echo "SET work_mem = '256kB';"
    echo "CREATE TEMP TABLE r AS SELECT i, i % 20000 AS g, (i * 7919) % 100003 AS v FROM generate_series(1, 200000) i;"
    echo "ANALYZE r;"
    q="SELECT count_distinct(v) FROM r;
SELECT sum(c) FROM (SELECT g, count_distinct(v) c FROM r GROUP BY g) s;
SELECT sum(cardinality(a)) FROM (SELECT g % 100, array_agg_distinct(v) a FROM r GROUP BY 1) s;
SELECT count_distinct_elements(ARRAY[v, g]) FROM r;
SELECT max(c) FROM (SELECT count_distinct(v) OVER (PARTITION BY g % 50 ORDER BY i ROWS 10 PRECEDING) c FROM r WHERE i < 20000) s;"
    for i in $(seq 1 10); do echo "$q"; done
    echo "SELECT 'before', pg_read_file('/proc/self/status');"
    for i in $(seq 1 100); do echo "$q"; done
    echo "SELECT 'after', pg_read_file('/proc/self/status');"
} >"$tmp/repeat.sql"
$PSQL -v ON_ERROR_STOP=1 -f "$tmp/repeat.sql" >"$tmp/repeat.out" 2>"$tmp/repeat.err" \
    || { cat "$tmp/repeat.err"; bad "the repeated queries failed"; }
get() {   # get before|after VmRSS
    sed -n "/^$1|/,/^VmSwap/p" "$tmp/repeat.out" | grep "$2:" | head -1 | awk '{print $2}'
}
rss0=$(get before VmRSS); rss1=$(get after VmRSS)
vsz0=$(get before VmSize); vsz1=$(get after VmSize)
echo "backend memory after 10 / 110 repetitions: VmRSS $rss0 / $rss1 kB, VmSize $vsz0 / $vsz1 kB"
SLACK=${CD_MEMLIMIT_SLACK_KB:-16384}
if [ -n "$rss0" ] && [ -n "$rss1" ] && [ "$rss1" -le $((rss0 + SLACK)) ] && [ "$vsz1" -le $((vsz0 + SLACK)) ]; then
    ok "no memory growth over 100 repetitions (slack $SLACK kB)"
else
    bad "backend memory grew over 100 repetitions (or could not be read)"
fi

echo "memlimit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# Transparent mode benchmark: a dashboard of unmodified COUNT(DISTINCT)
# queries with count_distinct.replace_native off (native) and on, serial and
# with 2 parallel workers, in interleaved rounds (off, on, off, on, ...).
#
#   PG_CONFIG=.../pg_config bash bench/replace_native.sh [--rows N] [--runs N] [--out FILE]
#
# Installs the extension into PG_CONFIG's installation (make install; the
# default PG_CONFIG is a private copy from test/pgversions.sh --prefix 15),
# starts a throwaway cluster with shared_preload_libraries = count_distinct,
# loads t(g int4: 100 groups, v int4: random, s text: md5 of a random int)
# with N rows (default 2000000), and times each query from the client
# (psql \timing) CD_BENCH_RUNS times (default 5) per setting and worker
# count, after one warm-up run each.  Every query's output must be the same
# with the setting off and on.  Writes a Markdown report to bench/results/
# (replace-native-DATE.md unless --out), with the machine, the settings and
# the median of each cell.
#
# Environment: CD_BENCH_WORK_MEM (default 64MB), CD_BENCH_PORT (default
# random).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
. test/cluster.sh

rows=2000000
runs=${CD_BENCH_RUNS:-5}
out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --rows) rows=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ -z "${PG_CONFIG:-}" ]; then
    prefix=$(bash test/pgversions.sh --prefix 15)
    PG_CONFIG=$prefix/bin/pg_config
fi
BIN=$("$PG_CONFIG" --bindir)
make -s with_llvm=no PG_CONFIG="$PG_CONFIG" install >/dev/null
work_mem=${CD_BENCH_WORK_MEM:-64MB}
CD_PG_OPTS="-c shared_preload_libraries=count_distinct -c work_mem=$work_mem -c jit=off -c max_worker_processes=8 -c max_parallel_workers=4 -c shared_buffers=512MB ${CD_PG_OPTS:-}"
export CD_PG_OPTS
cd_cluster_start "$BIN" "${CD_BENCH_PORT:-}"
tmp=$(mktemp -d)
trap 'cd_cluster_stop; rm -rf "$tmp"' EXIT
psql() { "$BIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }

psql -c "CREATE EXTENSION count_distinct" \
     -c "SELECT setseed(0.39)" \
     -c "CREATE TABLE t AS SELECT (random() * 99)::int4 AS g,
                (random() * 2147483647)::int4 AS v,
                md5((random() * 1000000)::int::text) AS s
         FROM generate_series(1, $rows)" \
     -c "VACUUM ANALYZE t" >/dev/null

# name|query: the shapes of bench/run.sh, grouped and not, with other
# aggregates beside them; unmodified SQL as a BI tool sends it
queries=(
    "grouped int4 (the goal)|SELECT g, count(DISTINCT v) FROM t GROUP BY g"
    "one group int4|SELECT count(DISTINCT v) FROM t"
    "grouped int4 + count/sum/avg|SELECT g, count(DISTINCT v), count(*), sum(v), avg(v) FROM t GROUP BY g"
    "grouped md5 text|SELECT g, count(DISTINCT s) FROM t GROUP BY g"
    "grouped int4 + text|SELECT g, count(DISTINCT v), count(DISTINCT s) FROM t GROUP BY g"
    "FILTER, one group|SELECT count(DISTINCT v) FILTER (WHERE g < 50), count(DISTINCT s) FROM t"
    "100k groups of ~20 rows|SELECT v % 100000, count(DISTINCT g) FROM t GROUP BY 1"
)

timed() {   # timed SETTING WORKERS QUERY: milliseconds; output hash in $tmp/last
    local res
    res=$(psql -c "SET count_distinct.replace_native = $1" -c "SET max_parallel_workers_per_gather = $2" \
               -c "\\timing on" -c "$3" 2>&1)
    echo "$res" | grep -v '^Time:' | sort | md5sum >"$tmp/last"
    echo "$res" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

host_cpu=$(grep -m1 "model name" /proc/cpuinfo 2>/dev/null | sed 's/.*: //')
report=${out:-bench/results/replace-native-$(date -u +%Y-%m-%d).md}
{
    echo "# Transparent mode: unmodified COUNT(DISTINCT), count_distinct.replace_native off and on"
    echo
    echo "$(date -u +%Y-%m-%d), $("$BIN/postgres" --version), $(nproc) cores ($host_cpu),"
    echo "work_mem $work_mem, jit off, $rows rows (g: 100 groups, v: random int4, s: md5 text)."
    echo "Client-side time (psql \\timing), median of $runs interleaved runs after a warm-up;"
    echo "bench/replace_native.sh. The machine was shared with other jobs: timings are noisy."
    echo
    echo "| query | workers | off (native) ms | on ms | off / on | results |"
    echo "|---|---|---|---|---|---|"
} >"$tmp/report"
for entry in "${queries[@]}"; do
    name=${entry%%|*}; query=${entry#*|}
    for workers in 0 2; do
        timed off "$workers" "$query" >/dev/null; cp "$tmp/last" "$tmp/off.hash"
        timed on "$workers" "$query" >/dev/null; cp "$tmp/last" "$tmp/on.hash"
        same=$(cmp -s "$tmp/off.hash" "$tmp/on.hash" && echo same || echo DIFFERENT)
        : >"$tmp/off"; : >"$tmp/on"
        for ((i = 0; i < runs; i++)); do
            timed off "$workers" "$query" >>"$tmp/off"
            timed on "$workers" "$query" >>"$tmp/on"
        done
        moff=$(median <"$tmp/off"); mon=$(median <"$tmp/on")
        ratio=$(awk -v a="$moff" -v b="$mon" 'BEGIN { printf "%.2f", a / b }')
        echo "| $name | $workers | $moff | $mon | $ratio | $same |" | tee -a "$tmp/report"
    done
done
{
    echo
    echo "Plans with the setting on (EXPLAIN, 2 workers allowed):"
    echo
    echo '```text'
    for entry in "${queries[@]}"; do
        query=${entry#*|}
        echo "$query"
        psql -At -c "SET count_distinct.replace_native = on" -c "SET max_parallel_workers_per_gather = 2" \
             -c "EXPLAIN (COSTS OFF, VERBOSE) $query" | grep -v "^ *Output: [a-z, ]*$" | sed 's/^/    /'
    done
    echo '```'
} >>"$tmp/report"
mkdir -p "$(dirname "$report")"
cp "$tmp/report" "$report"
echo "report: $report"

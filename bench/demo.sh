#!/usr/bin/env bash
# The main job, on a fresh machine (Debian bookworm, as root or a user with
# the packages already installed): installs PostgreSQL 15 and the build
# tools, builds and installs count_distinct, starts a throwaway cluster,
# generates sample data, prints each query, then a table of native
# COUNT(DISTINCT) against count_distinct (serial and with 2 workers): both
# results, both times and the speedup.
#
#   bash bench/demo.sh [ROWS]        (default 5000000)
#
# CD_DEMO_EXISTING=1: install nothing and start no cluster; use the server
# that PGHOST / PGPORT / PGUSER name (count_distinct installed there) and the
# psql of PG_CONFIG (default: the one on PATH), in a database cd_demo of its
# own, dropped at the end.
set -u
cd "$(dirname "$0")/.."
. test/cluster.sh
ROWS=${1:-5000000}

if [ "${CD_DEMO_EXISTING:-0}" = 1 ]; then
    if [ -n "${PG_CONFIG:-}" ]; then PSQL="$($PG_CONFIG --bindir)/psql"; else PSQL=psql; fi
    "$PSQL" -X -q -d postgres -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
        -c "DROP DATABASE IF EXISTS cd_demo" \
        -c "CREATE DATABASE cd_demo" || exit 1
    export PGDATABASE=cd_demo
    trap '"$PSQL" -X -q -d postgres -c "DROP DATABASE IF EXISTS cd_demo"' EXIT
    SESSION_SETTINGS="SET work_mem = '1GB';"
else
    cd_install_deps 15 || exit 1
    PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
    make -s with_llvm=no PG_CONFIG="$PG_CONFIG" >/dev/null && \
        make -s with_llvm=no PG_CONFIG="$PG_CONFIG" install >/dev/null || exit 1
    CD_PG_OPTS="-c shared_buffers=512MB -c work_mem=1GB -c max_parallel_workers_per_gather=2" \
        cd_cluster_start "$($PG_CONFIG --bindir)" || exit 1
    trap cd_cluster_stop EXIT
    PSQL="$($PG_CONFIG --bindir)/psql"
    SESSION_SETTINGS=""
fi

"$PSQL" -X -q -v ON_ERROR_STOP=1 -v rows="$ROWS" <<'SQL' || exit 1
CREATE EXTENSION count_distinct;
\echo generating :rows rows ...
CREATE TABLE sample AS
SELECT i % 100 AS g100,
       (hashint4(i) % 1000000) AS v,
       md5((i % 200000)::text) AS t
FROM generate_series(1, :rows) i;
VACUUM ANALYZE sample;
SQL

# the sample, counted natively
read -r nv nt <<<"$("$PSQL" -X -q -At -F ' ' -c "SELECT count(DISTINCT v), count(DISTINCT t) FROM sample")"
echo "sample: $ROWS rows; v int4 with $nv distinct values; t text (md5 strings) with $nt distinct values; g100: 100 groups"
echo

# time a query server-side with W parallel workers at most; prints "RESULT MS"
run() {
    "$PSQL" -X -q -At -v ON_ERROR_STOP=1 <<SQL | tr '\n' ' ' | sed -nE 's/^([^ ]*) .*Time: ([0-9.]+) ms.*/\1 \2/p'
$SESSION_SETTINGS
SET max_parallel_workers_per_gather = $2;
\timing on
$1;
SQL
}

# label|native query|count_distinct query (the same with count_distinct)
queries=(
    "int4, one group|SELECT count(DISTINCT v) FROM sample"
    "int4, 100 groups|SELECT sum(c) FROM (SELECT g100, count(DISTINCT v) c FROM sample GROUP BY g100) s"
    "text, one group|SELECT count(DISTINCT t) FROM sample"
    "text, 100 groups|SELECT sum(c) FROM (SELECT g100, count(DISTINCT t) c FROM sample GROUP BY g100) s"
)

echo "queries (count_distinct: the same with count_distinct(x) for count(DISTINCT x);"
echo "the 100-group queries sum the groups' counts, so that one number compares):"
for q in "${queries[@]}"; do
    printf '  %-17s %s\n' "${q%%|*}:" "${q#*|}"
done
echo

printf '%-17s %12s %10s %12s %10s %10s %10s %10s\n' \
    "query" "native" "ms" "cd" "cd ms" "cd 2w ms" "speedup" "2w speedup"
for q in "${queries[@]}"; do
    label=${q%%|*}
    nq=${q#*|}
    cq=$(echo "$nq" | sed -E 's/count\(DISTINCT ([a-z0-9]+)\)/count_distinct(\1)/')
    # native DISTINCT aggregates never run in parallel: serial only
    read -r nres nms <<<"$(run "$nq" 0)"
    read -r cres cms <<<"$(run "$cq" 0)"
    read -r pres pms <<<"$(run "$cq" 2)"
    ok=""
    [ "$nres" = "$cres" ] && [ "$nres" = "$pres" ] || ok="  RESULTS DIFFER"
    awk -v l="$label" -v nr="$nres" -v n="$nms" -v cr="$cres" -v c="$cms" -v p="$pms" -v ok="$ok" \
        'BEGIN { printf "%-17s %12s %10.0f %12s %10.0f %10.0f %9.1fx %9.1fx%s\n", l, nr, n, cr, c, p, n / c, n / p, ok }'
done
read -r _ fms <<<"$(run "SELECT count(v) FROM sample" 0)"
echo
echo "speedup: native ms / count_distinct ms (serial; 2w: at most 2 parallel workers)."
echo "count(v) over the same rows, the least any aggregate costs: ${fms%.*} ms."

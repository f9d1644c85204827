#!/usr/bin/env bash
# The main job, on a fresh machine (Debian bookworm, as root or a user with
# the packages already installed): installs PostgreSQL 15 and the build
# tools, builds and installs count_distinct, starts a throwaway cluster,
# generates sample data and prints count_distinct next to COUNT(DISTINCT),
# with both times.
#
#   bash bench/demo.sh [ROWS]        (default 5000000)
set -u
cd "$(dirname "$0")/.."
. test/cluster.sh
ROWS=${1:-5000000}

cd_install_deps 15 || exit 1
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
make -s with_llvm=no PG_CONFIG="$PG_CONFIG" >/dev/null && \
    make -s with_llvm=no PG_CONFIG="$PG_CONFIG" install >/dev/null || exit 1

CD_PG_OPTS="-c shared_buffers=512MB -c work_mem=1GB -c max_parallel_workers_per_gather=2" \
    cd_cluster_start "$($PG_CONFIG --bindir)" || exit 1
trap cd_cluster_stop EXIT

psql -X -q -v ON_ERROR_STOP=1 -v rows="$ROWS" <<'SQL' || exit 1
CREATE EXTENSION count_distinct;
\echo generating :rows rows ...
CREATE TABLE sample AS
SELECT i % 100 AS g100,
       (hashint4(i) % 1000000) AS v,
       md5((i % 200000)::text) AS t
FROM generate_series(1, :rows) i;
VACUUM ANALYZE sample;
SQL

# time a query server-side; prints "result  ms"
run() {
    psql -X -q -At -v ON_ERROR_STOP=1 <<SQL
SET max_parallel_workers_per_gather = ${2:-0};
\timing on
$1
SQL
}

echo "v: int4, $ROWS rows; t: text (md5 strings, 200000 distinct); g100: 100 groups"
printf '%-58s %-12s %s\n' "query" "result" "time"
for q in \
    "SELECT count(DISTINCT v) FROM sample" \
    "SELECT count_distinct(v) FROM sample" \
    "SELECT sum(c) FROM (SELECT g100, count(DISTINCT v) c FROM sample GROUP BY g100) s" \
    "SELECT sum(c) FROM (SELECT g100, count_distinct(v) c FROM sample GROUP BY g100) s" \
    "SELECT count(v) FROM sample" \
    "SELECT count(DISTINCT t) FROM sample" \
    "SELECT count_distinct(t) FROM sample" \
    "SELECT count(t) FROM sample"; do
    for w in 0 2; do
        # native DISTINCT aggregates never run in parallel: skip that pair
        case "$q" in *"count(DISTINCT"*) [ $w = 2 ] && continue;; esac
        out=$(run "$q;" $w | tr '\n' ' ')
        res=$(echo "$out" | awk '{print $1}')
        ms=$(echo "$out" | sed -nE 's/.*Time: ([0-9.]+) ms.*/\1/p')
        printf '%-58s %-12s %8s ms%s\n' "${q:0:58}" "$res" "$ms" "$([ $w = 2 ] && echo '  (2 workers)')"
    done
done

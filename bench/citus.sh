#!/usr/bin/env bash
# count_distinct against native COUNT(DISTINCT) on a local Citus cluster
# (coordinator + 2 workers, the one test/drivers/70-citus.sh sets up), Citus's
# default settings: a table of ROWS rows distributed on "id" (32 shards), one
# group and GROUP BY a non-distribution column (100 groups), int4 and text.
# Queries are run in interleaved rounds; prints each query's client-side
# elapsed times and their median.
#
#   CD_CITUS_SRC=path/to/citus-src-COMMIT.tar.xz bash bench/citus.sh [ROWS [ROUNDS]]
#
# Environment: as test/drivers/70-citus.sh (CD_CITUS_PORT_BASE, ...).
set -u
cd "$(dirname "$0")/.."
ROWS=${1:-2000000}
ROUNDS=${2:-5}
log=$(mktemp)
CD_CITUS_KEEP=1 CD_CITUS_ROWS=1000 bash test/drivers/70-citus.sh >"$log" 2>&1
dir=$(sed -n 's/^cluster kept: \([^ ]*\) .*/\1/p' "$log")
port=$(sed -n 's/.*coordinator on port \([0-9]*\).*/\1/p' "$log")
grep -E "^FAIL|passed, [0-9]+ failed" "$log"
[ -n "$dir" ] && [ -n "$port" ] || { cat "$log"; exit 1; }
P=$(sed -n 's/^prefix: //p' "$log")
stop() {
    local i
    for i in 0 1 2; do
        if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$P/bin/pg_ctl" -D "$dir/node$i" -m immediate -w stop >/dev/null
        else "$P/bin/pg_ctl" -D "$dir/node$i" -m immediate -w stop >/dev/null; fi
    done
    rm -rf "$dir" "$P" "$log"
}
trap stop EXIT
psql() { "$P/bin/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres "$@"; }

echo "loading $ROWS rows"
psql <<SQL
SET citus.shard_count = 32;
CREATE TABLE big (id bigint, g int, v int, s text);
SELECT create_distributed_table('big', 'id');
INSERT INTO big SELECT i, i % 100, (i::int8 * 7919) % 1000003, 'k' || (i::int8 * 31) % 1000003
FROM generate_series(1, $ROWS) i;
VACUUM ANALYZE big;
SQL
psql -c "SELECT count(*), count(DISTINCT v), count(DISTINCT s) FROM big" | sed 's/^/rows|distinct v|distinct s: /'

declare -a names queries
add() { names+=("$1"); queries+=("$2"); }
add "int4 1 group native"   "SELECT count(DISTINCT v) FROM big"
add "int4 1 group cd"       "SELECT count_distinct(v) FROM big"
add "int4 100 groups native" "SELECT g, count(DISTINCT v) FROM big GROUP BY g"
add "int4 100 groups cd"    "SELECT g, count_distinct(v) FROM big GROUP BY g"
add "text 1 group native"   "SELECT count(DISTINCT s) FROM big"
add "text 1 group cd"       "SELECT count_distinct(s) FROM big"
add "text 100 groups native" "SELECT g, count(DISTINCT s) FROM big GROUP BY g"
add "text 100 groups cd"    "SELECT g, count_distinct(s) FROM big GROUP BY g"

# results equal before timing
psql -c "SELECT count(DISTINCT v) = count_distinct(v) AND count(DISTINCT s) = count_distinct(s) FROM big" | grep -qx t \
    || { echo "results differ"; exit 1; }

declare -A times
for r in $(seq 1 "$ROUNDS"); do
    for k in "${!queries[@]}"; do
        ms=$(psql -c "\\timing on" -c "${queries[$k]}" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
        times[$k]="${times[$k]:-} $ms"
    done
done
printf '%-24s %10s   %s\n' query "median ms" runs
for k in "${!queries[@]}"; do
    med=$(echo ${times[$k]} | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf '%-24s %10.0f   %s\n' "${names[$k]}" "$med" "${times[$k]}"
done

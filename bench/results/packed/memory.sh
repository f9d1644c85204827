#!/bin/bash
# usage: P=PG_INSTALL_DIR bash memory.sh LABEL
# (count_distinct installed into P.)  A throwaway cluster (test/cluster.sh)
# with 10M rows: one group of distinct random int4 (t), 100 groups of 100k
# (t100), 100 groups of the dense values 0..99999 each (t100d), 50% one
# value (h).  Prints, per query, the HashAggregate's Peak
# Memory Usage (sampled when input ends) and the backend's RssAnon peak over
# the query (rss_peak.py: transient memory included).  Data: 40 MB of
# distinct keys in t, t100 and t100d (39062 kB), 20 MB in h.
label=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../../test/cluster.sh"
CD_PG_OPTS="-c shared_buffers=256MB" cd_cluster_start "$P/bin" >/dev/null
psql="$P/bin/psql -X -q -At -v ON_ERROR_STOP=1"
H="(((i::bigint * 2654435761) % 4294967291) - 2147483648)::int4"
$psql -c "CREATE EXTENSION count_distinct"
$psql -c "CREATE TABLE t AS SELECT $H AS v, 1 AS g FROM generate_series(1, 10000000) i"
$psql -c "CREATE TABLE t100 AS SELECT $H AS v, i % 100 AS g FROM generate_series(1, 10000000) i"
$psql -c "CREATE TABLE t100d AS SELECT (i / 100)::int4 AS v, i % 100 AS g FROM generate_series(0, 9999999) i"
$psql -c "CREATE TABLE h AS SELECT CASE WHEN i % 2 = 0 THEN 0 ELSE $H END AS v, 1 AS g FROM generate_series(1, 10000000) i"
$psql -c "VACUUM ANALYZE t"; $psql -c "VACUUM ANALYZE t100"; $psql -c "VACUUM ANALYZE h"; $psql -c "VACUUM ANALYZE t100d"
for tb in t t100 t100d h; do
  for f in count_distinct count; do
    q="SELECT g, $f(v) FROM $tb GROUP BY g"
    echo "$label | $q | $($psql -c "SET max_parallel_workers_per_gather = 0; SET work_mem = '4GB'; SET enable_sort = off; EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q" | grep 'Memory Usage' | head -1)"
  done
done
for q in "SELECT count_distinct(v) FROM t" "SELECT g, count_distinct(v) FROM t GROUP BY g" \
         "SELECT sum(c) FROM (SELECT g, count_distinct(v) c FROM t100 GROUP BY g) s" \
         "SELECT g, count_distinct(v) FROM h GROUP BY g"; do
  echo "$label | $q | $(python3 "$here/rss_peak.py" "$P/bin/psql" "$q")"
done
cd_cluster_stop

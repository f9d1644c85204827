#!/bin/bash
# usage: P=PG_INSTALL_DIR D=STOPPED_CLUSTER_DIR callgrind_shapes.sh LABEL
# (count_distinct installed into P and created in database postgres of D)
label=$1
T=${TMPDIR:-/tmp}
H="(((i::bigint * 2654435761) % 4294967291) - 2147483648)::int4"
declare -A Q
Q[1g_int4]="SELECT count_distinct($H) FROM generate_series(1, 2000000) i;"
Q[100g_int4]="SET enable_sort=off; SELECT i % 100, count_distinct($H) FROM generate_series(1, 2000000) i GROUP BY 1 ORDER BY 1 LIMIT 1;"
Q[10kg_int4]="SET enable_sort=off; SELECT i % 10000, count_distinct($H) FROM generate_series(1, 2000000) i GROUP BY 1 ORDER BY 1 LIMIT 1;"
Q[x10_int4]="SET enable_sort=off; SELECT i % 200000, count_distinct($H) FROM generate_series(1, 2000000) i GROUP BY 1 ORDER BY 1 LIMIT 1;"
Q[hh50_int4]="SELECT count_distinct(CASE WHEN i % 2 = 0 THEN 0 ELSE $H END) FROM generate_series(1, 2000000) i;"
Q[1g_text]="SELECT count_distinct(md5(i::text)) FROM generate_series(1, 500000) i;"
Q[1g_uuid]="SELECT count_distinct(md5(i::text)::uuid) FROM generate_series(1, 500000) i;"
Q[100g_text]="SET enable_sort=off; SELECT i % 100, count_distinct(md5(i::text)) FROM generate_series(1, 500000) i GROUP BY 1 ORDER BY 1 LIMIT 1;"
for s in ${SHAPES:-1g_int4 100g_int4 10kg_int4 x10_int4 hh50_int4 1g_text 1g_uuid 100g_text}; do
  echo "${Q[$s]}" > $T/q_$s.sql; chmod 644 $T/q_$s.sql
  rm -f $T/cgs.$label.$s.*
  runuser -u postgres -- valgrind --tool=callgrind --callgrind-out-file=$T/cgs.$label.$s.%p $P/bin/postgres --single -D $D/data postgres < $T/q_$s.sql > $T/out.$label.$s 2>&1
  tot=$(callgrind_annotate --threshold=100 $T/cgs.$label.$s.* 2>/dev/null | grep "PROGRAM TOTALS" | awk '{print $1}')
  ext=$(callgrind_annotate --threshold=100 $T/cgs.$label.$s.* 2>/dev/null | grep "count_distinct.so" | awk '{gsub(",","",$1); s+=$1} END {print s}')
  echo "$label $s total=$tot ext=$ext $(grep -o 'count_distinct = "[0-9]*"' $T/out.$label.$s | head -1)"
done

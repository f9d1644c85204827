-- What test/pg-upgrade.sh compares before and after pg_upgrade: for every
-- stored set, its table, key, cardinality, md5 of its text and binary forms,
-- stored size, and its place in the btree order of the table's sets.
\pset format unaligned
\pset tuples_only on
SELECT tab, ty, g, cardinality(s), md5(s::text), md5(distinct_set_send(s)), pg_column_size(s),
       rank() OVER (PARTITION BY tab ORDER BY s)
FROM (SELECT 'all_sets' AS tab, ty, g, s FROM all_sets
      UNION ALL SELECT 'small_sets', ty, g, s FROM small_sets
      UNION ALL SELECT 'sets_int4', 'int4', g, s FROM sets_int4
      UNION ALL SELECT 'sets_int8', 'int8', g, s FROM sets_int8
      UNION ALL SELECT 'sets_text', 'text', g, s FROM sets_text
      UNION ALL SELECT 'sets_uuid', 'uuid', g, s FROM sets_uuid
      UNION ALL SELECT 'sets_numeric', 'numeric', g, s FROM sets_numeric
      UNION ALL SELECT 'sets_date', 'date', g, s FROM sets_date) a
ORDER BY tab, ty, g;

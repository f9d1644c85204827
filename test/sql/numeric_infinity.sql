-- numeric infinities (PostgreSQL 14+): equal to themselves, sorted at the ends
-- Skipped (numeric_infinity_1.out) on PostgreSQL 13.
SELECT current_setting('server_version_num')::int < 140000 AS skip_test \gset
\if :skip_test
\quit
\endif
SELECT count_distinct(v), count(DISTINCT v),
       array_agg_distinct(v) = array_agg(DISTINCT v ORDER BY v) AS same_order,
       array_agg_distinct(v)
FROM (VALUES ('Infinity'::numeric), ('-Infinity'), ('NaN'), ('0'), ('Infinity'), ('1e100'), ('-0.00')) s(v);
-- as byte keys: hashed and parallel (serialized) aggregation
CREATE TABLE ni (g int, v numeric);
INSERT INTO ni SELECT i % 5, (ARRAY['Infinity', '-Infinity', 'NaN', '0', '-1e-100', '1e100', '1.0', '1'])[i % 8 + 1]::numeric
FROM generate_series(1, 400) i;
ANALYZE ni;
SET enable_sort = off;
SELECT count(*) FILTER (WHERE cd <> nat OR NOT (ad = na)) AS differ
FROM (SELECT g, count_distinct(v) cd, array_agg_distinct(v) ad FROM ni GROUP BY g) a
JOIN (SELECT g, count(DISTINCT v) nat, array_agg(DISTINCT v ORDER BY v) na FROM ni GROUP BY g) b USING (g);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT count_distinct(v), array_agg_distinct(v) FROM ni;
SELECT count(*) FILTER (WHERE cd <> nat OR NOT (ad = na)) AS differ
FROM (SELECT g, count_distinct(v) cd, array_agg_distinct(v) ad FROM ni GROUP BY g) a
JOIN (SELECT g, count(DISTINCT v) nat, array_agg(DISTINCT v ORDER BY v) na FROM ni GROUP BY g) b USING (g);
RESET ALL;
DROP TABLE ni;

-- Big and many groups: many compactions and growths, checked against native.
SET jit = off;
SET max_parallel_workers_per_gather = 0;

-- one group of 1.2M distinct values, in an order that is neither sorted nor
-- random (a permutation), so every compaction merges into the middle
SELECT count_distinct(v) AS cd, count(DISTINCT v) AS nat
FROM (SELECT (i::int8 * 1000003) % 1200007 - 600000 AS v FROM generate_series(1, 1200007) i) s;

-- int8 keys spread over the whole range (all 8 radix passes), with duplicates
SELECT count_distinct(v) = count(DISTINCT v) AS same, count(DISTINCT v) > 500000 AS big
FROM (SELECT hashint8(i % 700000)::int8 * 2147483647 + i % 700000 AS v
      FROM generate_series(1, 1000000) i) s;

-- heavy hitters: half the rows hold one value, the rest distinct
SELECT count_distinct(v) AS cd, count(DISTINCT v) AS nat
FROM (SELECT CASE WHEN i % 2 = 0 THEN 7 ELSE i END AS v FROM generate_series(1, 1000000) i) s;

-- values that come sorted and in runs (the append-time run check)
SELECT count_distinct(v) AS cd, count(DISTINCT v) AS nat
FROM (SELECT i / 3 AS v FROM generate_series(1, 300000) i) s;

-- array output of a big set is in ascending order
SELECT a = (SELECT array_agg(DISTINCT v ORDER BY v) FROM (SELECT (i::int8 * 7919) % 100003 - 50000 AS v FROM generate_series(1, 300000) i) x) AS same
FROM (SELECT array_agg_distinct((i::int8 * 7919) % 100003 - 50000) a FROM generate_series(1, 300000) i) s;

-- many small groups of all sizes 0..300, each growing past several sizes
CREATE TABLE sizes AS
SELECT g, (g * 1009 + j * 7) % (g + 1) - g / 2 AS v
FROM generate_series(0, 300) g, generate_series(1, 2 * g) j;
ANALYZE sizes;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE cd IS DISTINCT FROM nat OR ad IS DISTINCT FROM na) AS differ
FROM (SELECT g, count_distinct(v) cd, array_agg_distinct(v) ad FROM sizes GROUP BY g) a
FULL JOIN (SELECT g, count(DISTINCT v) nat, array_agg(DISTINCT v ORDER BY v) na FROM sizes GROUP BY g) b USING (g);
-- same in parallel
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE cd IS DISTINCT FROM nat OR ad IS DISTINCT FROM na) AS differ
FROM (SELECT g, count_distinct(v) cd, array_agg_distinct(v) ad FROM sizes GROUP BY g) a
FULL JOIN (SELECT g, count(DISTINCT v) nat, array_agg(DISTINCT v ORDER BY v) na FROM sizes GROUP BY g) b USING (g);

-- 100k groups of 1..3 values
SELECT count(*) FILTER (WHERE cd IS DISTINCT FROM nat) AS differ
FROM (SELECT i % 100000 g, count_distinct(i % 3 + i % 100000) cd FROM generate_series(1, 300000) i GROUP BY 1) a
FULL JOIN (SELECT i % 100000 g, count(DISTINCT i % 3 + i % 100000) nat FROM generate_series(1, 300000) i GROUP BY 1) b USING (g);

DROP TABLE sizes;

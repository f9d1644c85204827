-- Plan shapes the aggregates must work in, each checked against native
-- results.  Native DISTINCT aggregates force a sort-based plan, so the
-- native side is computed in its own subquery and joined; each query
-- returns the groups that differ (none expected).
SET extra_float_digits = 0;
SET jit = off;

CREATE TABLE t AS
SELECT i % 100 AS g,
       CASE WHEN i % 7 = 0 THEN NULL ELSE (i * 7919) % 5000 - 2500 END AS v,
       ((i * 31) % 977)::float8 / 7 AS f,
       i % 3 = 0 AS b
FROM generate_series(1, 60000) i;
-- a group whose values are all NULL, and one that has no row in most workers
INSERT INTO t SELECT 1000, NULL, NULL, NULL FROM generate_series(1, 50);
INSERT INTO t VALUES (1001, 42, 4.2, true);
ANALYZE t;

-- the planner's HashAggregate estimate needs SSPACE: with it, hashing wins
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT g, count_distinct(v) FROM t GROUP BY g;

-- HashAggregate
SELECT count(*) AS groups,
       count(*) FILTER (WHERE cd IS DISTINCT FROM nat) AS differ
FROM (SELECT g, count_distinct(v) cd FROM t GROUP BY g) a
FULL JOIN (SELECT g, count(DISTINCT v) nat FROM t GROUP BY g) b USING (g);

SELECT count(*) FILTER (WHERE a.ad IS DISTINCT FROM b.na) AS differ
FROM (SELECT g, array_agg_distinct(f) ad FROM t GROUP BY g) a
FULL JOIN (SELECT g, coalesce(array_agg(DISTINCT f ORDER BY f) FILTER (WHERE f IS NOT NULL), '{}') na
           FROM t GROUP BY g) b USING (g);

-- GroupAggregate (sorted input)
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT g, count_distinct(v) FROM t GROUP BY g;
SELECT count(*) FILTER (WHERE cd IS DISTINCT FROM nat) AS differ
FROM (SELECT g, count_distinct(v) cd FROM t GROUP BY g) a
FULL JOIN (SELECT g, count(DISTINCT v) nat FROM t GROUP BY g) b USING (g);
RESET enable_hashagg;

-- Parallel: Partial HashAggregate -> Gather -> Finalize (forced by settings)
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT g, count_distinct(v), array_agg_distinct(f) FROM t GROUP BY g;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE cd IS DISTINCT FROM nat OR ad IS DISTINCT FROM na) AS differ
FROM (SELECT g, count_distinct(v) cd, array_agg_distinct(f) ad FROM t GROUP BY g) a
FULL JOIN (SELECT g, count(DISTINCT v) nat,
                  coalesce(array_agg(DISTINCT f ORDER BY f) FILTER (WHERE f IS NOT NULL), '{}') na
           FROM t GROUP BY g) b USING (g);
-- parallel plain aggregate (one group, combined from the workers)
EXPLAIN (COSTS OFF) SELECT count_distinct(v) FROM t;
SELECT count_distinct(v) = (SELECT count(DISTINCT v) FROM t) AS same,
       count_distinct(b) = (SELECT count(DISTINCT b) FROM t) AS same_bool,
       array_agg_distinct(b) = (SELECT array_agg(DISTINCT b ORDER BY b) FILTER (WHERE b IS NOT NULL) FROM t) AS same_array
FROM t;
-- count_distinct next to other aggregates keeps the whole query parallel
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(v), count_distinct(v), max(f) FROM t GROUP BY g;
SELECT count(*) FILTER (WHERE (a.*) IS DISTINCT FROM (b.*)) AS differ
FROM (SELECT g, count(*) n, sum(v) s, count_distinct(v) cd, max(f) m FROM t GROUP BY g) a
FULL JOIN (SELECT g, count(*) n, sum(v) s, count(DISTINCT v) cd, max(f) m FROM t GROUP BY g) b USING (g);
RESET enable_sort;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- Spilling hash aggregation: tiny work_mem, more groups than fit.
-- Reports whether the executor used more than one batch, not the figures.
CREATE FUNCTION hashagg_batches(query text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || query INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'HashAgg Batches')::int;
END $$;
CREATE TABLE many AS
SELECT i % 20000 AS g, (i * 13) % 50 AS v FROM generate_series(1, 200000) i;
ANALYZE many;
SET max_parallel_workers_per_gather = 0;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT g, count_distinct(v) FROM many GROUP BY g;
SELECT hashagg_batches('SELECT g, count_distinct(v) FROM many GROUP BY g') > 1 AS spilled;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE cd IS DISTINCT FROM nat OR ad IS DISTINCT FROM na) AS differ
FROM (SELECT g, count_distinct(v) cd, array_agg_distinct(v) ad FROM many GROUP BY g) a
FULL JOIN (SELECT g, count(DISTINCT v) nat, array_agg(DISTINCT v ORDER BY v) na
           FROM many GROUP BY g) b USING (g);
RESET work_mem;
RESET hash_mem_multiplier;
RESET enable_sort;

-- Window use: per partition, and running frames (the final function is
-- called repeatedly on a state that keeps growing)
SELECT count(*) FILTER (WHERE cd IS DISTINCT FROM nat) AS differ
FROM (SELECT g, count_distinct(v) OVER (PARTITION BY g) cd FROM t) a
JOIN (SELECT g, count(DISTINCT v) nat FROM t GROUP BY g) b USING (g);

SELECT count(*) AS rows,
       count(*) FILTER (WHERE running IS DISTINCT FROM expected) AS differ
FROM (SELECT i, count_distinct(v) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) running,
             array_agg_distinct(v) OVER (ORDER BY i) running_a,
             (SELECT count(DISTINCT v) FROM (SELECT (j * 37) % 500 v FROM generate_series(1, i) j) x) expected
      FROM (SELECT i, (i * 37) % 500 v FROM generate_series(1, 2000) i) s) w;

SELECT i, v, count_distinct(v) OVER w, array_agg_distinct(v) OVER w
FROM (VALUES (1, 5), (2, 3), (3, 5), (4, NULL), (5, -1), (6, 3)) s(i, v)
WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING);

-- FILTER, and several distinct aggregates (shared and separate states)
SELECT count(*) FILTER (WHERE (a.*) IS DISTINCT FROM (b.*)) AS differ
FROM (SELECT g, count_distinct(v) FILTER (WHERE v > 0) c1, count_distinct(v) c2,
             array_agg_distinct(v) FILTER (WHERE b) c3, count_distinct(f) c4
      FROM t GROUP BY g) a
FULL JOIN (SELECT g, count(DISTINCT v) FILTER (WHERE v > 0) c1, count(DISTINCT v) c2,
                  coalesce(array_agg(DISTINCT v ORDER BY v) FILTER (WHERE b AND v IS NOT NULL), '{}') c3,
                  count(DISTINCT f) c4
           FROM t GROUP BY g) b USING (g);

-- Grouping sets mixing hashed and sorted sets (MixedAggregate): both ways
-- of keeping sets in one query
CREATE TABLE gs AS SELECT i % 7 AS a, i % 5 AS b, i % 113 AS v FROM generate_series(1, 50000) i;
ANALYZE gs;
EXPLAIN (COSTS OFF) SELECT a, b, count_distinct(v) FROM gs GROUP BY GROUPING SETS ((a), (b), ());
SELECT count(*) AS rows_differ FROM (
  (SELECT a, b, count_distinct(v) FROM gs GROUP BY GROUPING SETS ((a), (b), ())
   EXCEPT ALL SELECT a, b, count(DISTINCT v) FROM gs GROUP BY GROUPING SETS ((a), (b), ()))
  UNION ALL
  (SELECT a, b, count(DISTINCT v) FROM gs GROUP BY GROUPING SETS ((a), (b), ())
   EXCEPT ALL SELECT a, b, count_distinct(v) FROM gs GROUP BY GROUPING SETS ((a), (b), ()))) d;
DROP TABLE gs;

DROP FUNCTION hashagg_batches(text);
DROP TABLE t;
DROP TABLE many;

-- Variable-length and comparator types in hash, parallel and spilling
-- plans, against native results computed in a separate subquery.
SET jit = off;
CREATE TABLE vt AS
SELECT i % 50 AS g,
       CASE WHEN i % 11 = 0 THEN NULL ELSE md5((i % 3000)::text) END AS t,
       (i % 701)::numeric / 100 AS n,
       md5((i % 2000)::text)::uuid AS u,
       jsonb_build_object('k', i % 300, 'v', (i % 3)::numeric / 2) AS j,
       make_interval(hours => i % 48) AS iv,
       repeat('ab', i % 1500) AS long_t,
       (i % 97)::text::bpchar(4) AS c
FROM generate_series(1, 40000) i;
ANALYZE vt;

CREATE FUNCTION vt_differ() RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FILTER (WHERE (a.*) IS DISTINCT FROM (b.*))
  FROM (SELECT g, count_distinct(t) t, count_distinct(n) n, count_distinct(u) u, count_distinct(j) j,
               count_distinct(iv) iv, count_distinct(long_t) lt, count_distinct(c) c,
               array_agg_distinct(t) AS at, array_agg_distinct(n) AS an, array_agg_distinct(u) AS au,
               array_agg_distinct(iv) AS aiv, array_agg_distinct(c) AS ac
        FROM vt GROUP BY g) a
  FULL JOIN
       (SELECT g, count(DISTINCT t) t, count(DISTINCT n) n, count(DISTINCT u) u, count(DISTINCT j) j,
               count(DISTINCT iv) iv, count(DISTINCT long_t) lt, count(DISTINCT c) c,
               coalesce(array_agg(DISTINCT t ORDER BY t) FILTER (WHERE t IS NOT NULL), '{}') AS at,
               array_agg(DISTINCT n ORDER BY n) AS an, array_agg(DISTINCT u ORDER BY u) AS au,
               array_agg(DISTINCT iv ORDER BY iv) AS aiv, array_agg(DISTINCT c ORDER BY c) AS ac
        FROM vt GROUP BY g) b USING (g)
$$;

SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT g, count_distinct(t), count_distinct(n) FROM vt GROUP BY g;
SELECT vt_differ() AS hash_differ;

SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT g, count_distinct(t), count_distinct(n) FROM vt GROUP BY g;
SELECT vt_differ() AS parallel_differ;
-- one group combined from the workers
SELECT count_distinct(t) = (SELECT count(DISTINCT t) FROM vt) AS t,
       count_distinct(n) = (SELECT count(DISTINCT n) FROM vt) AS n,
       array_agg_distinct(u) = (SELECT array_agg(DISTINCT u ORDER BY u) FROM vt) AS u,
       array_agg_distinct(t) = (SELECT array_agg(DISTINCT t ORDER BY t) FILTER (WHERE t IS NOT NULL) FROM vt) AS at
FROM vt;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- spilling: every group's state is large
SET max_parallel_workers_per_gather = 0;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT vt_differ() AS spill_differ;
CREATE FUNCTION spilled(query text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || query INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'HashAgg Batches')::int > 1;
END $$;
CREATE TABLE vt2 AS
SELECT i % 4000 AS g, md5((i % 7000)::text) AS t, (i % 300)::numeric / 3 AS n
FROM generate_series(1, 60000) i;
ANALYZE vt2;
SELECT spilled('SELECT g, count_distinct(t), count_distinct(n) FROM vt2 GROUP BY g');
SELECT count(*) AS groups, count(*) FILTER (WHERE (a.*) IS DISTINCT FROM (b.*)) AS spill_differ
FROM (SELECT g, count_distinct(t) t, count_distinct(n) n, array_agg_distinct(t) AS at FROM vt2 GROUP BY g) a
FULL JOIN (SELECT g, count(DISTINCT t) t, count(DISTINCT n) n, array_agg(DISTINCT t ORDER BY t) AS at
           FROM vt2 GROUP BY g) b USING (g);
DROP TABLE vt2;
RESET work_mem;
RESET hash_mem_multiplier;
RESET enable_sort;

DROP FUNCTION spilled(text);
DROP FUNCTION vt_differ();
DROP TABLE vt;

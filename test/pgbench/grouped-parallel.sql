-- grouped, forced parallel (partial aggregation, serialize/combine)
\set lo random(1, 50000)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT 1 / (CASE WHEN e.s = n.s THEN 1 ELSE 0 END)
FROM (SELECT sum(c) AS s FROM (SELECT g, count_distinct(v) AS c FROM cd_bench WHERE id > :lo GROUP BY g) x) e,
     (SELECT sum(c) AS s FROM (SELECT g, count(DISTINCT v) AS c FROM cd_bench WHERE id > :lo GROUP BY g) x) n;
RESET ALL;

-- many groups in a spilling HashAggregate
\set m random(100, 5000)
SET work_mem = '64kB';
SET enable_sort = off;
SET hash_mem_multiplier = 1;
SELECT 1 / (CASE WHEN e.s = n.s AND e.s = e.t THEN 1 ELSE 0 END)
FROM (SELECT sum(c) AS s, sum(cardinality(a)) AS t FROM (SELECT id % :m AS k, count_distinct(v) AS c, array_agg_distinct(v) AS a FROM cd_bench GROUP BY 1) x) e,
     (SELECT sum(c) AS s FROM (SELECT id % :m AS k, count(DISTINCT v) AS c FROM cd_bench GROUP BY 1) x) n;
RESET ALL;

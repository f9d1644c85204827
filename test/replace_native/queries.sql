-- Queries that test/drivers/67-replace-native.sh runs twice, in two fresh
-- databases, with count_distinct.replace_native off and on; the two outputs
-- (EXPLAIN results left out) must be equal.  Shapes of PostgreSQL's own
-- aggregates, groupingsets, window and partition_aggregate regression
-- tests, with count(DISTINCT ...) in them.  Every result is ordered.
SET extra_float_digits = 0;
SET TimeZone = 'UTC';
CREATE TABLE tk (unique1 int, unique2 int, two int, four int, ten int, twenty int,
                 hundred int, thousand int, odd int, even int, stringu1 name,
                 string4 name, f float8, n numeric, t text, tc text COLLATE "C");
INSERT INTO tk
SELECT u, i, u % 2, u % 4, u % 10, u % 20, u % 100, u % 1000, (u % 100) * 2 + 1, (u % 100) * 2,
       ('A' || chr(65 + u % 26) || chr(65 + u / 26 % 26))::name,
       (ARRAY['AAAA', 'HHHH', 'OOOO', 'VVVV'])[i % 4 + 1]::name,
       CASE WHEN u % 17 = 0 THEN 'NaN' WHEN u % 19 = 0 THEN '-0' ELSE (u % 37) / 4.0 END,
       CASE WHEN u % 3 = 0 THEN (u % 50)::numeric ELSE ((u % 50)::numeric * 1.00) END,
       CASE WHEN u % 23 = 0 THEN NULL ELSE md5((u % 300)::text) END,
       (ARRAY['a', 'A', 'b', 'B', 'a '])[u % 5 + 1]
FROM (SELECT i, (i * 7919) % 10000 AS u FROM generate_series(0, 9999) i) s;
ANALYZE tk;

-- plain and grouped
SELECT count(DISTINCT four) AS cnt_4 FROM tk;
SELECT ten, count(DISTINCT four), count(four), sum(DISTINCT four) FROM tk GROUP BY ten ORDER BY ten;
SELECT four, count(DISTINCT t), count(DISTINCT tc), count(DISTINCT f), count(DISTINCT n)
FROM tk GROUP BY four ORDER BY four;
SELECT count(DISTINCT (two, four)), count(DISTINCT ARRAY[ten, twenty]), count(DISTINCT stringu1) FROM tk;
SELECT ten, count(DISTINCT thousand) FILTER (WHERE hundred < 50) FROM tk GROUP BY ten ORDER BY 1;
SELECT ten, count(DISTINCT four) FROM tk GROUP BY ten HAVING count(DISTINCT thousand) > 99 ORDER BY ten;
SELECT ten, count(DISTINCT four) FROM tk a GROUP BY ten
HAVING EXISTS (SELECT 1 FROM tk b WHERE count(DISTINCT a.four) = b.four) ORDER BY ten;
SELECT (SELECT count(DISTINCT o.thousand) FROM (VALUES (1)) v(x)) FROM tk o WHERE unique1 < 3 GROUP BY ten ORDER BY 1;
SELECT count(DISTINCT unique1) FILTER (WHERE unique1 IN (SELECT unique1 FROM tk WHERE unique1 < 100)) FROM tk;
SELECT count(DISTINCT x) FROM (SELECT tc || 'x' AS x FROM tk) s;
SELECT count(DISTINCT 'a'), count(DISTINCT NULL::int), count(DISTINCT NULL) FROM tk;
SELECT count(DISTINCT four ORDER BY four) FROM tk;
-- grouping sets, rollup, cube
SELECT two, four, count(DISTINCT ten), count(*), grouping(two, four)
FROM tk GROUP BY ROLLUP (two, four) ORDER BY 1, 2, 5;
SELECT two, four, count(DISTINCT hundred), sum(unique1)
FROM tk GROUP BY CUBE (two, four) ORDER BY 1, 2;
SELECT ten, twenty, count(DISTINCT thousand)
FROM tk GROUP BY GROUPING SETS ((ten), (twenty), ()) ORDER BY 1, 2;
SELECT ten, count(DISTINCT four) FROM tk GROUP BY GROUPING SETS ((ten), (ten, two)) HAVING ten > 5 ORDER BY 1, 2;
SELECT a, b, count(DISTINCT c) FROM (VALUES (1, 1, 1), (1, 2, 1), (2, 1, NULL), (2, 2, 2)) v(a, b, c)
GROUP BY GROUPING SETS ((a), (b), (a, b), ()) ORDER BY 1, 2, 3;
SET enable_hashagg = off;
SELECT two, four, count(DISTINCT ten) FROM tk GROUP BY ROLLUP (two, four) ORDER BY 1, 2;
RESET enable_hashagg;
SET enable_sort = off;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT thousand, count(DISTINCT t), count(DISTINCT unique1) FROM tk GROUP BY thousand ORDER BY thousand LIMIT 20;
SELECT thousand, two, count(DISTINCT ten) FROM tk GROUP BY GROUPING SETS ((thousand), (two)) ORDER BY 1, 2 LIMIT 20;
RESET enable_sort;
RESET work_mem;
RESET hash_mem_multiplier;
-- windows over grouped results
SELECT ten, count(DISTINCT four), sum(count(DISTINCT four)) OVER (ORDER BY ten),
       rank() OVER (ORDER BY count(DISTINCT hundred) DESC, ten)
FROM tk GROUP BY ten ORDER BY ten;
SELECT four, ten, count(DISTINCT hundred),
       first_value(count(DISTINCT hundred)) OVER (PARTITION BY four ORDER BY ten)
FROM tk GROUP BY four, ten ORDER BY four, ten;
-- subqueries, CTEs, set operations, lateral
WITH c AS (SELECT ten, count(DISTINCT hundred) AS n FROM tk GROUP BY ten)
SELECT count(DISTINCT n), sum(n) FROM c;
WITH RECURSIVE r(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM r WHERE k < 5)
SELECT k, (SELECT count(DISTINCT four) FROM tk WHERE ten < k) FROM r ORDER BY k;
SELECT count(DISTINCT four) FROM tk UNION SELECT count(DISTINCT ten) FROM tk ORDER BY 1;
SELECT ten, count(DISTINCT two) FROM tk GROUP BY ten
EXCEPT SELECT ten, count(DISTINCT four) FROM tk GROUP BY ten ORDER BY 1;
SELECT g.ten, l.n FROM (SELECT DISTINCT ten FROM tk) g,
  LATERAL (SELECT count(DISTINCT thousand) AS n FROM tk WHERE tk.ten = g.ten) l ORDER BY 1;
SELECT ten FROM tk GROUP BY ten HAVING count(DISTINCT four) = (SELECT count(DISTINCT two) FROM tk) ORDER BY 1;
-- partitionwise aggregation (full and partial)
CREATE TABLE pagg (a int, b int, c text) PARTITION BY RANGE (a);
CREATE TABLE pagg_p1 PARTITION OF pagg FOR VALUES FROM (0) TO (10);
CREATE TABLE pagg_p2 PARTITION OF pagg FOR VALUES FROM (10) TO (20);
CREATE TABLE pagg_p3 PARTITION OF pagg FOR VALUES FROM (20) TO (30);
INSERT INTO pagg SELECT i % 30, i % 51, to_char(i % 12, 'FM0000') FROM generate_series(0, 2999) i;
ANALYZE pagg;
SET enable_partitionwise_aggregate = on;
SELECT a, count(DISTINCT b), count(DISTINCT c), count(*) FROM pagg GROUP BY a ORDER BY a;
SELECT c, count(DISTINCT a), count(DISTINCT b) FROM pagg GROUP BY c HAVING count(DISTINCT a) > 1 ORDER BY c;
SELECT a, c, count(DISTINCT b) FROM pagg GROUP BY ROLLUP (a, c) ORDER BY 1, 2 LIMIT 40;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT c, count(DISTINCT b) FROM pagg GROUP BY c ORDER BY c;
SELECT count(DISTINCT b), count(DISTINCT c) FROM pagg;
SELECT four, count(DISTINCT thousand), count(DISTINCT t) FROM tk GROUP BY four ORDER BY four;
SELECT count(DISTINCT thousand), count(DISTINCT (ten, t)) FROM tk;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET enable_partitionwise_aggregate;
-- statements other than SELECT, and stored queries
CREATE TABLE agg_out (k int, n bigint);
INSERT INTO agg_out SELECT ten, count(DISTINCT hundred) FROM tk GROUP BY ten;
UPDATE agg_out SET n = n + (SELECT count(DISTINCT four) FROM tk) WHERE k < 3;
DELETE FROM agg_out WHERE n < (SELECT count(DISTINCT ten) FROM tk WHERE ten < 5);
SELECT * FROM agg_out ORDER BY k;
CREATE TABLE agg_ctas AS SELECT four, count(DISTINCT thousand) AS n FROM tk GROUP BY four;
SELECT * FROM agg_ctas ORDER BY four;
CREATE VIEW agg_view AS SELECT four, count(DISTINCT ten) AS n, count(DISTINCT t) AS nt FROM tk GROUP BY four;
SELECT * FROM agg_view ORDER BY four;
SELECT pg_get_viewdef('agg_view'::regclass);
CREATE MATERIALIZED VIEW agg_mat AS SELECT ten, count(DISTINCT hundred) AS n FROM tk GROUP BY ten;
REFRESH MATERIALIZED VIEW agg_mat;
SELECT * FROM agg_mat ORDER BY ten;
CREATE FUNCTION agg_fn(int) RETURNS bigint LANGUAGE sql STABLE
  AS 'SELECT count(DISTINCT thousand) FROM tk WHERE ten = $1';
SELECT ten, agg_fn(ten) FROM generate_series(0, 3) ten ORDER BY ten;
CREATE FUNCTION agg_srf() RETURNS TABLE (k int, n bigint) LANGUAGE sql STABLE
  AS 'SELECT four, count(DISTINCT ten) FROM tk GROUP BY four';
SELECT * FROM agg_srf() ORDER BY k;
CREATE FUNCTION agg_plpgsql() RETURNS bigint LANGUAGE plpgsql STABLE
  AS 'BEGIN RETURN (SELECT count(DISTINCT hundred) FROM tk); END';
SELECT agg_plpgsql();
PREPARE agg_prep(int) AS SELECT count(DISTINCT thousand) FROM tk WHERE ten < $1;
EXECUTE agg_prep(3);
EXECUTE agg_prep(5);
DEALLOCATE agg_prep;
BEGIN;
DECLARE agg_cur CURSOR FOR SELECT ten, count(DISTINCT t) FROM tk GROUP BY ten ORDER BY ten;
FETCH 3 FROM agg_cur;
COMMIT;
-- explain (left out of the comparison)
EXPLAIN (COSTS OFF, VERBOSE) SELECT ten, count(DISTINCT four) FROM tk GROUP BY ten;
-- errors: the same on both sides
SELECT count(DISTINCT p) FROM (VALUES (point(1, 2))) v(p);
SELECT count(DISTINCT ROW(1, point(1, 2)));
SELECT count(DISTINCT ROW(p)) FROM (VALUES (point(1, 2)), (point(1, 3))) v(p);
SELECT count(DISTINCT 1 / (ten - ten)) FROM tk;
SELECT count(DISTINCT tc || x) FROM tk, (VALUES ('a' COLLATE "POSIX")) v(x);

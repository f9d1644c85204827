-- Inputs and plan shapes that once crashed the server or failed only in
-- parallel plans.  Every result is compared with native in the same query.

-- 1. arrays whose element type changes from row to row (pseudo-type
--    anyarray columns): the element type belongs to each group's state
CREATE TABLE mcv(a bytea, b int4, c int8, d text);
INSERT INTO mcv
SELECT ('\x0' || (i % 4))::bytea, 2147483644 - i % 5, 123456789012 * (i % 3),
       repeat('x', i % 6)
FROM generate_series(1, 1000) i;
ANALYZE mcv;

-- one group mixing element types: a clear error, never a crash
SELECT count_distinct_elements(most_common_vals ORDER BY attname)
FROM pg_stats WHERE tablename = 'mcv';
DO $$
BEGIN
  PERFORM array_agg_distinct_elements(most_common_vals) FROM pg_stats WHERE tablename = 'mcv';
  RAISE EXCEPTION 'no error';
EXCEPTION WHEN datatype_mismatch THEN
  RAISE NOTICE 'SQLSTATE %', SQLSTATE;
END $$;

-- one type per group: each column's MCV count (MCVs are distinct already)
SELECT attname, count_distinct_elements(most_common_vals) AS cd,
       cardinality(most_common_vals::text::text[]) AS native
FROM pg_stats WHERE tablename = 'mcv'
GROUP BY attname, most_common_vals::text ORDER BY attname;
SELECT attname,
       array_agg_distinct_elements(most_common_vals)::text::int8[] = l.native AS same
FROM pg_stats s,
     LATERAL (SELECT array_agg(DISTINCT e ORDER BY e) AS native
              FROM unnest(s.most_common_vals::text::int8[]) e) l
WHERE tablename = 'mcv' AND attname IN ('b', 'c')
GROUP BY attname, l.native ORDER BY attname;
-- window partitions of different element types
SELECT DISTINCT attname,
       count_distinct_elements(most_common_vals) OVER (PARTITION BY attname) AS cd,
       cardinality(most_common_vals::text::text[]) AS native
FROM pg_stats WHERE tablename = 'mcv' ORDER BY attname;
-- histogram_bounds too (NULL for these columns: nothing to count)
SELECT attname, count_distinct_elements(histogram_bounds),
       array_agg_distinct_elements(histogram_bounds)
FROM pg_stats WHERE tablename = 'mcv' GROUP BY attname ORDER BY attname;
-- a pseudo-type value as a whole: the error native DISTINCT gives
SELECT count_distinct(most_common_vals) FROM pg_stats WHERE tablename = 'mcv';

-- 2. anonymous records, nested records and arrays of records in every plan
CREATE TABLE r AS
SELECT i % 7 AS a, i % 5 AS b, (i % 3)::text AS t, (i % 11)::numeric / 4 AS n
FROM generate_series(1, 20000) i;
ANALYZE r;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT count_distinct(ROW(a, b)) FROM r;
SELECT count_distinct(ROW(a, b)) AS cd, count(DISTINCT ROW(a, b)) AS native FROM r;
SELECT count_distinct(ROW(ROW(a, t), n)) AS cd, count(DISTINCT ROW(ROW(a, t), n)) AS native FROM r;
SELECT count_distinct(ARRAY[ROW(a, b), ROW(b, a)]) AS cd,
       count(DISTINCT ARRAY[ROW(a, b), ROW(b, a)]) AS native FROM r;
SELECT count_distinct(ROW(a, ARRAY[ROW(t, n)])) AS cd,
       count(DISTINCT ROW(a, ARRAY[ROW(t, n)])) AS native FROM r;
SELECT array_agg_distinct(ROW(a, t)) = array_agg(DISTINCT ROW(a, t) ORDER BY ROW(a, t)) AS same FROM r;
SELECT count_distinct_elements(ARRAY[ROW(a, b), ROW(b, a)]) AS cd,
       (SELECT count(DISTINCT x)
        FROM (SELECT unnest(ARRAY[ROW(a, b), ROW(b, a)]) AS x FROM r) u) AS native
FROM r;
EXPLAIN (COSTS OFF) SELECT b, count_distinct(ROW(a, t)) FROM r GROUP BY b;
SELECT count(*) AS groups, count(*) FILTER (WHERE cd <> native OR ad <> na) AS differ
FROM (SELECT b, count_distinct(ROW(a, t)) AS cd, count(DISTINCT ROW(a, t)) AS native,
             array_agg_distinct(ROW(ROW(t), a)) AS ad,
             array_agg(DISTINCT ROW(ROW(t), a) ORDER BY ROW(ROW(t), a)) AS na
      FROM r GROUP BY b) s;
SELECT count(*) AS groups, count(*) FILTER (WHERE x.cd IS DISTINCT FROM y.native) AS differ
FROM (SELECT b, count_distinct(ROW(a, n)) AS cd FROM r GROUP BY b) x
FULL JOIN (SELECT b, count(DISTINCT ROW(a, n)) AS native FROM r GROUP BY b) y USING (b);

-- 3. text-like values whose binary I/O converts to the client encoding:
--    states pass between processes in the database encoding
SELECT getdatabaseencoding() = 'UTF8' AS utf8 \gset
\if :utf8
CREATE TABLE enc AS
SELECT (CASE WHEN i % 2 = 0 THEN U&'\00E9t\00E9' ELSE 'ete' END || (i % 50))::char(12) AS c,
       ((U&'\00E9' || (i % 30)) COLLATE "C")::text AS t
FROM generate_series(1, 20000) i;
ANALYZE enc;
SET client_encoding = 'LATIN1';
SELECT count_distinct(c) = count(DISTINCT c) AS same_bpchar,
       count_distinct(ROW(t, c)) = count(DISTINCT ROW(t, c)) AS same_record,
       array_agg_distinct(c) = array_agg(DISTINCT c ORDER BY c) AS same_array
FROM enc;
RESET client_encoding;
DROP TABLE enc;
\else
SELECT true AS same_bpchar, true AS same_record, true AS same_array;
\endif

RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE r;
DROP TABLE mcv;

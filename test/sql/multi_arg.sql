-- count_distinct(a, b [, c [, d]]) against native COUNT(DISTINCT (a, b, ...)),
-- in the same query: grouped, spilling, parallel, window frames, NULL
-- fields (a row of NULLs is a value), FILTER, collations, mixed types.
SET extra_float_digits = 3;
SET jit = off;

CREATE TABLE m AS
SELECT i,
       (ARRAY[1, -1, 0, 7, NULL])[1 + i % 5]::int4 AS a,
       (ARRAY['1.0', '1.00', '-0.000', '0', 'NaN', NULL])[1 + i % 6]::numeric AS n,
       (ARRAY['0', '-0', 'NaN', '1.5', NULL])[1 + i % 7 % 5]::float8 AS f,
       (ARRAY['', 'a', 'a ', 'b', NULL])[1 + i % 11 % 5]::char(3) AS c,
       (ARRAY['', 'a', 'ab', 'B', 'é', NULL])[1 + i % 13 % 6]::text AS t,
       (ARRAY['\x', '\x00', '\x0001', NULL])[1 + i % 17 % 4]::bytea AS b,
       (ARRAY['2000-01-01 00:00:00+00', 'infinity', NULL])[1 + i % 3]::timestamptz AS ts,
       (ARRAY['{1,2}', '{}', NULL])[1 + i % 19 % 3]::int4[] AS arr,
       (ARRAY['{"a": 1}', '{"a":1, "b": 2}', NULL])[1 + i % 23 % 3]::jsonb AS j,
       i % 10 AS g
FROM generate_series(1, 3000) i;
INSERT INTO m (i) VALUES (0), (-1);		-- rows of NULLs
ANALYZE m;

-- a query's plan (JSON), the query run or not
CREATE FUNCTION pg_temp.plan(q text, run bool) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    j json;
BEGIN
    EXECUTE format('EXPLAIN (ANALYZE %s, FORMAT JSON, COSTS OFF) %s', run::text, q) INTO j;
    RETURN j::text;
END $$;

CREATE FUNCTION pg_temp.check_all(label text)
RETURNS TABLE (label text, ok bool) LANGUAGE sql AS $$
SELECT $1, bool_and(ok) FROM (
  SELECT count_distinct(a, t) = count(DISTINCT (a, t))
     AND count_distinct(n, f) = count(DISTINCT (n, f))
     AND count_distinct(t, ts) = count(DISTINCT (t, ts))
     AND count_distinct(a, n, c) = count(DISTINCT (a, n, c))
     AND count_distinct(b, t, f, ts) = count(DISTINCT (b, t, f, ts))
     AND count_distinct(a, arr) = count(DISTINCT (a, arr))
     AND count_distinct(j, a) = count(DISTINCT (j, a))
     AND count_distinct(a, a) = count(DISTINCT (a, a))
     AND count_distinct(a, t) FILTER (WHERE i % 2 = 0)
         = count(DISTINCT (a, t)) FILTER (WHERE i % 2 = 0)
     AND count_distinct(a, t) = count_distinct((a, t)) AS ok
  FROM m GROUP BY g
) s
$$;

SELECT * FROM pg_temp.check_all('serial');

-- one group, no GROUP BY
SELECT count_distinct(a, t, f) = count(DISTINCT (a, t, f)) AS ok,
       count_distinct(a, n) = count(DISTINCT (a, n)) AS ok2 FROM m;

-- a row of NULLs is a value; so are rows with some NULL fields
SELECT count_distinct(x, y) AS cd, count(DISTINCT (x, y)) AS native
FROM (VALUES (NULL::int, NULL::text), (NULL, NULL), (1, NULL), (NULL, 'a')) v(x, y);
SELECT count_distinct(x, y) IS NOT DISTINCT FROM count(DISTINCT (x, y)) AS ok
FROM (VALUES (NULL::int, NULL::text)) v(x, y) WHERE false;

-- untyped literals are text, as in ROW('a', 'b')
SELECT count_distinct('a', 'b') = count(DISTINCT ('a', 'b')) AS ok,
       count_distinct('a', NULL) = count(DISTINCT ('a', NULL)) AS ok2;

-- collations: each field has its argument's (deterministic ones here)
SELECT count_distinct(t COLLATE "C", c) = count(DISTINCT (t COLLATE "C", c)) AS ok,
       count_distinct(t, t COLLATE "C") = count(DISTINCT (t, t COLLATE "C")) AS ok2
FROM m;

-- spilling hash aggregation
SET work_mem = '64kB';
SET enable_sort = off;
SELECT * FROM pg_temp.check_all('spilling');
SELECT pg_temp.plan('SELECT count_distinct(a, i) FROM m GROUP BY i % 500', true)
       ~ '"HashAgg Batches": ([2-9]|[1-9][0-9])' AS spilled;
SELECT bool_and(cd = native) AS ok, count(*) AS groups FROM (
  SELECT count_distinct(a, i) AS cd, count(DISTINCT (a, i)) AS native
  FROM m GROUP BY i % 500) s;
RESET work_mem;
RESET enable_sort;

-- parallel: the states are those of the record, serialized with its
-- column types
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT pg_temp.plan('SELECT count_distinct(a, t) FROM m GROUP BY g', false)
       ~ 'Partial' AS partial;
SELECT * FROM pg_temp.check_all('parallel');
SELECT count_distinct(a, t, f) = count(DISTINCT (a, t, f)) AS ok FROM m;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- window frames (moving-aggregate mode): one collatable argument at most
SELECT bool_and(cd = native) AS ok FROM (
  SELECT count_distinct(a, n, f) OVER w AS cd,
         (SELECT count(DISTINCT (m2.a, m2.n, m2.f)) FROM m m2
          WHERE m2.i BETWEEN m.i - 7 AND m.i) AS native
  FROM m WINDOW w AS (ORDER BY i ROWS BETWEEN 7 PRECEDING AND CURRENT ROW)) s;
SELECT bool_and(cd = native) AS ok FROM (
  SELECT count_distinct(t, ts) OVER w AS cd,
         (SELECT count(DISTINCT (m2.t, m2.ts)) FROM m m2
          WHERE m2.g IS NOT DISTINCT FROM m.g AND m2.i BETWEEN m.i - 50 AND m.i) AS native
  FROM m WINDOW w AS (PARTITION BY g ORDER BY i RANGE BETWEEN 50 PRECEDING AND CURRENT ROW)) s;
SELECT bool_and(cd = native) AS ok FROM (
  SELECT count_distinct(a, j) OVER (PARTITION BY g) AS cd,
         (SELECT count(DISTINCT (m2.a, m2.j)) FROM m m2 WHERE m2.g IS NOT DISTINCT FROM m.g) AS native
  FROM m) s;
-- two collatable arguments: each one's collation is unknown in a window
SELECT count_distinct(t, c) OVER () FROM m LIMIT 1;
SELECT count_distinct((t, c)) OVER () = (SELECT count(DISTINCT (t, c)) FROM m) AS ok
FROM m LIMIT 1;

-- fields stored out of line (TOAST), named composites and arrays as fields
-- (nested keys), also in a window frame
CREATE TYPE multi_arg_pt AS (x int, y text);
CREATE TABLE multi_arg_big AS
SELECT i, CASE WHEN i % 3 = 0 THEN repeat(md5((i % 4)::text), 500) ELSE (i % 4)::text END AS t,
       ROW(i % 3, (i % 2)::text)::multi_arg_pt AS p, ARRAY[i % 2, NULL] AS arr
FROM generate_series(1, 2000) i;
ALTER TABLE multi_arg_big ALTER t SET STORAGE EXTERNAL;
INSERT INTO multi_arg_big SELECT i + 5000, repeat(md5((i % 4)::text), 500), ROW(i % 3, NULL)::multi_arg_pt, '{}'::int[]
FROM generate_series(1, 200) i;
SELECT count_distinct(t, p) = count(DISTINCT (t, p)) AS ok,
       count_distinct(p, arr, i % 5) = count(DISTINCT (p, arr, i % 5)) AS ok2,
       count_distinct(arr, t) = count(DISTINCT (arr, t)) AS ok3
FROM multi_arg_big;
SELECT bool_and(cd = native) AS ok FROM (
  SELECT count_distinct(p, arr) OVER w AS cd,
         (SELECT count(DISTINCT (b2.p, b2.arr)) FROM multi_arg_big b2 WHERE b2.i BETWEEN multi_arg_big.i - 5 AND multi_arg_big.i) AS native
  FROM multi_arg_big WINDOW w AS (ORDER BY i RANGE BETWEEN 5 PRECEDING AND CURRENT ROW)) s;
DROP TABLE multi_arg_big;
DROP TYPE multi_arg_pt;

-- one-argument calls resolve as before; arity limits
SELECT count_distinct(a) = count(DISTINCT a) AS ok, count_distinct('x') AS lit FROM m;
SELECT count_distinct(a, a, a, a, a) FROM m;
-- pseudo-types are refused
SELECT count_distinct(attname, most_common_vals) FROM pg_stats
WHERE tablename = 'm' AND most_common_vals IS NOT NULL;


DROP TABLE m;

-- array_agg_distinct(anyarray): the distinct arrays, in order, stacked into
-- an array of one more dimension, as native
-- array_agg(DISTINCT a ORDER BY a) FILTER (WHERE a IS NOT NULL) builds it
-- (shown next to it), with native's errors; '{}' for a group with no array.
SET extra_float_digits = 0;
SET jit = off;

-- 1-D inputs give a 2-D result; NULL arrays are skipped, NULL elements kept
SELECT array_agg_distinct(a), pg_typeof(array_agg_distinct(a)),
       array_agg_distinct(a) = array_agg(DISTINCT a ORDER BY a) FILTER (WHERE a IS NOT NULL) AS same
FROM (VALUES (ARRAY[3, 1]), (ARRAY[1, 2]), (NULL), (ARRAY[3, 1]), (ARRAY[NULL, 1]),
             (ARRAY[1, NULL]), (ARRAY[-5, 7]), (ARRAY[1, 2])) s(a);

-- 2-D inputs give a 3-D result
SELECT array_agg_distinct(a),
       array_agg_distinct(a) = array_agg(DISTINCT a ORDER BY a) AS same
FROM (VALUES ('{{1,2},{3,4}}'::int[]), ('{{0,9},{9,9}}'), ('{{1,2},{3,4}}')) s(a);

-- "=" of the element type: numeric 1.0 = 1.00, float -0 = 0, text under C
SELECT cardinality(array_agg_distinct(n)) / 2 AS n_distinct,
       array_agg_distinct(n) = array_agg(DISTINCT n ORDER BY n) AS same
FROM (VALUES (ARRAY[1.0, 2]::numeric[]), (ARRAY[1.00, 2.0]), (ARRAY[1, 3])) s(n);
SELECT array_agg_distinct(f), array_agg_distinct(f) = array_agg(DISTINCT f ORDER BY f) AS same
FROM (VALUES (ARRAY[0, 'NaN']::float8[]), ('{-0,NaN}'), (ARRAY['-Infinity'::float8, 1])) s(f);
SELECT array_agg_distinct(t COLLATE "C"),
       array_agg_distinct(t COLLATE "C") = array_agg(DISTINCT t COLLATE "C" ORDER BY t COLLATE "C") AS same
FROM (VALUES (ARRAY['b', 'a']), (ARRAY['B', 'a']), (ARRAY['b', 'a']), (ARRAY['', 'zz'])) s(t);

-- no arrays: '{}' (native gives NULL; without FILTER, native rejects NULL arrays)
SELECT array_agg_distinct(a), array_agg(DISTINCT a ORDER BY a) FILTER (WHERE a IS NOT NULL)
FROM (VALUES (NULL::int[])) s(a);
SELECT array_agg_distinct(a) FROM (SELECT ARRAY[1] WHERE false) s(a);

-- native's errors, at the first pair of arrays that do not stack
SELECT array_agg_distinct(a) FROM (VALUES (ARRAY[1, 2]), (ARRAY[3])) s(a);
SELECT array_agg(DISTINCT a ORDER BY a) FROM (VALUES (ARRAY[1, 2]), (ARRAY[3])) s(a);
SELECT array_agg_distinct(a) FROM (VALUES (ARRAY[1, 2]), ('{}')) s(a);
SELECT array_agg(DISTINCT a ORDER BY a) FROM (VALUES (ARRAY[1, 2]), ('{}')) s(a);
SELECT array_agg_distinct(a) FROM (VALUES (ARRAY[1, 2]), ('[0:1]={1,2}')) s(a);
SELECT array_agg(DISTINCT a ORDER BY a) FROM (VALUES (ARRAY[1, 2]), ('[0:1]={1,2}')) s(a);
SELECT array_agg_distinct(a) FROM (VALUES (ARRAY[1, 2]), ('{{1,2}}')) s(a);
SELECT array_agg(DISTINCT a ORDER BY a) FROM (VALUES (ARRAY[1, 2]), ('{{1,2}}')) s(a);
-- ... with the same SQLSTATEs
\set VERBOSITY sqlstate
SELECT array_agg_distinct(a) FROM (VALUES (ARRAY[1, 2]), (ARRAY[3])) s(a);
SELECT array_agg(DISTINCT a ORDER BY a) FROM (VALUES (ARRAY[1, 2]), (ARRAY[3])) s(a);
SELECT array_agg_distinct(a) FROM (VALUES (ARRAY[1, 2]), ('{}')) s(a);
SELECT array_agg(DISTINCT a ORDER BY a) FROM (VALUES (ARRAY[1, 2]), ('{}')) s(a);
\set VERBOSITY default

-- many groups in hash, parallel and spilling plans, against native
CREATE TABLE arr AS
SELECT i % 40 AS g,
       CASE WHEN i % 13 = 0 THEN NULL
            ELSE ARRAY[(i * 7) % 11, CASE WHEN i % 17 = 0 THEN NULL ELSE (i * 3) % 5 END] END AS a,
       ARRAY[md5((i % 50)::text), (i % 3)::text] AS t
FROM generate_series(1, 30000) i;
ANALYZE arr;
CREATE FUNCTION arr_differ() RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FILTER (WHERE (x.a, x.t) IS DISTINCT FROM (y.a, y.t))
  FROM (SELECT g, array_agg_distinct(a) a, array_agg_distinct(t) t FROM arr GROUP BY g) x
  FULL JOIN (SELECT g, coalesce(array_agg(DISTINCT a ORDER BY a) FILTER (WHERE a IS NOT NULL), '{}') a,
                    array_agg(DISTINCT t ORDER BY t) t
             FROM arr GROUP BY g) y USING (g)
$$;
SET max_parallel_workers_per_gather = 0;
SET enable_sort = off;
SELECT arr_differ() AS hashed;
SET work_mem = '64kB';
SELECT arr_differ() AS spilled;
RESET work_mem;
RESET enable_sort;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT arr_differ() AS parallel;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP FUNCTION arr_differ();
DROP TABLE arr;

-- as a window function (moving-aggregate mode): running and sliding frames
-- against a self-join with native array_agg(DISTINCT ...)
CREATE TEMP TABLE aw AS
SELECT i, CASE WHEN i % 5 = 0 THEN NULL ELSE ARRAY[i % 3, i % 4] END AS a
FROM generate_series(1, 60) i;
SELECT count(*) AS rows,
       count(*) FILTER (WHERE w.run IS DISTINCT FROM
                        (SELECT coalesce(array_agg(DISTINCT a2.a ORDER BY a2.a)
                                         FILTER (WHERE a2.a IS NOT NULL), '{}')
                         FROM aw a2 WHERE a2.i <= w.i)) AS running_differ,
       count(*) FILTER (WHERE w.slide IS DISTINCT FROM
                        (SELECT coalesce(array_agg(DISTINCT a2.a ORDER BY a2.a)
                                         FILTER (WHERE a2.a IS NOT NULL), '{}')
                         FROM aw a2 WHERE a2.i BETWEEN w.i - 6 AND w.i)) AS sliding_differ
FROM (SELECT i,
             array_agg_distinct(a) OVER (ORDER BY i ROWS UNBOUNDED PRECEDING) AS run,
             array_agg_distinct(a) OVER (ORDER BY i ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) AS slide
      FROM aw) w;
DROP TABLE aw;

-- Window frames (moving-aggregate mode): every frame kind, every key path,
-- FILTER, PARTITION BY, NULLs entering and leaving, empty frames.  Each
-- result is checked against a reference computed in the same statement
-- from native aggregates only: the frame's rows as native array_agg(i) OVER
-- the same window sees them, and COUNT(DISTINCT) / array_agg(DISTINCT ...
-- ORDER BY ...) over their values; running counts against a cumulative sum
-- of first-occurrence flags; sliding frames against a self-join.
SET extra_float_digits = 0;

CREATE TYPE wpair AS (a int, b int);

-- 240 rows; small value domains (repeats in every frame), ~15% NULLs, and
-- equal values with different bytes where the type has them
CREATE TABLE wt AS
SELECT i,
       i % 3 AS p,                                     -- partition
       i / 4 AS k,                                     -- order key with ties
       date '2024-01-01' + i / 3 AS d,
       timestamp '2024-01-01' + (i / 2) * interval '1 hour' AS ts,
       CASE WHEN x % 7 = 0 THEN NULL ELSE x % 11 - 5 END AS c_int4,
       CASE WHEN x % 7 = 1 THEN NULL ELSE (x % 13)::int8 * 1000000007 END AS c_int8,
       CASE WHEN x % 7 = 2 THEN NULL
            WHEN x % 9 = 0 THEN '-0'::float8 WHEN x % 9 = 1 THEN 0::float8
            WHEN x % 9 = 2 THEN 'NaN'::float8 ELSE (x % 5) / 4.0 END AS c_float8,
       CASE WHEN x % 5 = 3 THEN NULL ELSE x % 3 = 0 END AS c_bool,
       CASE WHEN x % 7 = 3 THEN NULL ELSE md5((x % 10)::text) END AS c_text,
       CASE WHEN x % 7 = 4 THEN NULL ELSE chr(97 + x % 4) || chr(65 + x % 3) END COLLATE "C" AS c_text_c,
       CASE WHEN x % 6 = 0 THEN NULL ELSE decode(repeat(to_hex(x % 9), x % 3), 'escape') END AS c_bytea,
       CASE WHEN x % 7 = 5 THEN NULL ELSE md5((x % 8)::text)::uuid END AS c_uuid,
       CASE WHEN x % 7 = 6 THEN NULL
            WHEN x % 2 = 0 THEN (x % 6)::numeric ELSE round((x % 6)::numeric, 2) END AS c_numeric,
       CASE WHEN x % 8 = 0 THEN NULL
            WHEN x % 2 = 0 THEN (x % 4) * interval '1 day' ELSE (x % 4) * interval '24 hours' END AS c_interval,
       CASE WHEN x % 8 = 1 THEN NULL ELSE rpad(chr(97 + x % 3), 1 + x % 2)::bpchar END AS c_bpchar,
       CASE WHEN x % 8 = 2 THEN NULL ELSE ('{"a": ' || (x % 5) || '}')::jsonb END AS c_jsonb,
       CASE WHEN x % 8 = 3 THEN NULL ELSE ROW(x % 3, NULLIF(x % 4, 0))::wpair END AS c_pair,
       CASE WHEN x % 9 = 4 THEN NULL WHEN x % 9 = 5 THEN '{}'::int4[]
            ELSE ARRAY[x % 7, NULLIF(x % 5, 0), (x + 3) % 7] END AS e_int4,
       CASE WHEN x % 9 = 6 THEN NULL
            ELSE ARRAY[md5((x % 6)::text), NULL, md5((x % 4)::text)] END AS e_text,
       CASE WHEN x % 9 = 7 THEN NULL
            ELSE ARRAY[(x % 3)::numeric, round((x % 4)::numeric, 1)] END AS e_numeric
FROM (SELECT i, (i * 7919) % 241 AS x FROM generate_series(1, 240) i) s;

-- The check: one aggregate (count and array form) over one window, against
-- native aggregates over the rows that native array_agg(i) puts in the same
-- frame.  Returns the number of rows and of rows that differ.  (num_nulls:
-- a composite with a NULL field is a value, though "IS NOT NULL" is false.)
CREATE FUNCTION check_frame(col text, frame text, filt text DEFAULT NULL,
                            OUT nrows bigint, OUT ndiffer bigint)
LANGUAGE plpgsql AS $$
DECLARE
  elements boolean := col LIKE 'e\_%';
  cnt text := CASE WHEN elements THEN 'count_distinct_elements' ELSE 'count_distinct' END;
  arr text := CASE WHEN elements THEN 'array_agg_distinct_elements' ELSE 'array_agg_distinct' END;
  f text := CASE WHEN filt IS NULL THEN '' ELSE ' FILTER (WHERE ' || filt || ')' END;
  src text := CASE WHEN elements THEN 'wt t2, unnest(t2.' || col || ') z' ELSE 'wt t2, LATERAL (SELECT t2.' || col || ' AS z) v' END;
BEGIN
  EXECUTE format(
    'SELECT count(*), count(*) FILTER (WHERE s.cd IS DISTINCT FROM l.n OR s.ad IS DISTINCT FROM l.na)
     FROM (SELECT i, %1$s(%2$s)%3$s OVER w AS cd, %4$s(%2$s)%3$s OVER w AS ad,
                  array_agg(i)%3$s OVER w AS ids
           FROM wt WINDOW w AS (%5$s)) s,
     LATERAL (SELECT count(DISTINCT z) AS n,
                     coalesce(array_agg(DISTINCT z ORDER BY z) FILTER (WHERE num_nulls(z) = 0), %6$L) AS na
              FROM %7$s WHERE t2.i = ANY (s.ids)) l',
    cnt, col, f, arr, frame, '{}', src)
  INTO nrows, ndiffer;
END
$$;

-- every frame kind x every key path: the number of checks, of rows
-- checked, and the failing checks (none)
SELECT count(*) AS checks, sum(nrows) AS nrows, sum(ndiffer) AS ndiffer,
       string_agg(c || ' OVER (' || f || ')', '; ') FILTER (WHERE ndiffer <> 0) AS failing
FROM unnest(ARRAY['c_int4', 'c_int8', 'c_float8', 'c_bool', 'c_text', 'c_text_c',
                  'c_bytea', 'c_uuid', 'c_numeric', 'c_interval', 'c_bpchar',
                  'c_jsonb', 'c_pair', 'e_int4', 'e_text', 'e_numeric']) c,
     unnest(ARRAY[
       'PARTITION BY p ORDER BY i ROWS UNBOUNDED PRECEDING',
       'PARTITION BY p ORDER BY i ROWS BETWEEN 5 PRECEDING AND CURRENT ROW',
       'ORDER BY i ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING',
       'ORDER BY i ROWS BETWEEN 2 FOLLOWING AND 4 FOLLOWING',
       'ORDER BY i ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING',
       'ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING',
       'PARTITION BY p ORDER BY k RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING',
       'ORDER BY d RANGE BETWEEN ''3 days'' PRECEDING AND CURRENT ROW',
       'ORDER BY ts RANGE BETWEEN ''5 hours'' PRECEDING AND ''1 hour'' PRECEDING',
       'ORDER BY k GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING',
       'ORDER BY k ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW',
       'ORDER BY k RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE GROUP',
       'ORDER BY k GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE TIES',
       'PARTITION BY p',
       'ORDER BY k']) f,
     LATERAL check_frame(c, f) r;

-- the same with FILTER, on columns of each key path
SELECT count(*) AS checks, sum(nrows) AS nrows, sum(ndiffer) AS ndiffer,
       string_agg(c || ' OVER (' || f || ')', '; ') FILTER (WHERE ndiffer <> 0) AS failing
FROM unnest(ARRAY['c_int4', 'c_text', 'c_text_c', 'c_numeric', 'c_interval',
                  'e_int4', 'e_numeric']) c,
     unnest(ARRAY[
       'ORDER BY i ROWS UNBOUNDED PRECEDING',
       'PARTITION BY p ORDER BY i ROWS BETWEEN 4 PRECEDING AND CURRENT ROW',
       'ORDER BY d RANGE BETWEEN ''2 days'' PRECEDING AND ''1 day'' FOLLOWING',
       'ORDER BY k GROUPS BETWEEN 2 PRECEDING AND 1 PRECEDING EXCLUDE TIES',
       'ORDER BY k ROWS BETWEEN 1 PRECEDING AND 3 FOLLOWING EXCLUDE GROUP']) f,
     LATERAL check_frame(c, f, 'i % 3 <> 1') r;

-- Running counts against the cumulative sum of first-occurrence flags
-- (PARTITION BY p, v numbers the rows holding each value: the first is
-- the one that makes it distinct).
SELECT count(*) AS nrows,
       count(*) FILTER (WHERE r_int4 <> f_int4 OR r_text <> f_text OR r_num <> f_num) AS ndiffer
FROM (SELECT count_distinct(c_int4) OVER w AS r_int4,
             sum((c_int4 IS NOT NULL AND n_int4 = 1)::int) OVER w AS f_int4,
             count_distinct(c_text) OVER w AS r_text,
             sum((c_text IS NOT NULL AND n_text = 1)::int) OVER w AS f_text,
             count_distinct(c_numeric) OVER w AS r_num,
             sum((c_numeric IS NOT NULL AND n_num = 1)::int) OVER w AS f_num
      FROM (SELECT *, row_number() OVER (PARTITION BY p, c_int4 ORDER BY i) AS n_int4,
                      row_number() OVER (PARTITION BY p, c_text ORDER BY i) AS n_text,
                      row_number() OVER (PARTITION BY p, c_numeric ORDER BY i) AS n_num
            FROM wt) s
      WINDOW w AS (PARTITION BY p ORDER BY i ROWS UNBOUNDED PRECEDING)) r;

-- Sliding frames against a self-join with COUNT(DISTINCT) and
-- array_agg(DISTINCT ... ORDER BY ...): ROWS over row numbers, RANGE on dates.
SELECT count(*) AS nrows,
       count(*) FILTER (WHERE a.cd IS DISTINCT FROM b.n OR a.ad IS DISTINCT FROM b.na
                        OR a.ct IS DISTINCT FROM b.nt OR a.at IS DISTINCT FROM b.nat) AS ndiffer
FROM (SELECT i, count_distinct(c_int4) OVER w AS cd, array_agg_distinct(c_int4) OVER w AS ad,
             count_distinct(c_text_c) OVER w AS ct, array_agg_distinct(c_text_c) OVER w AS at
      FROM wt WINDOW w AS (ORDER BY i ROWS BETWEEN 6 PRECEDING AND CURRENT ROW)) a
JOIN (SELECT t1.i, count(DISTINCT t2.c_int4) AS n,
             coalesce(array_agg(DISTINCT t2.c_int4 ORDER BY t2.c_int4)
                      FILTER (WHERE t2.c_int4 IS NOT NULL), '{}') AS na,
             count(DISTINCT t2.c_text_c) AS nt,
             coalesce(array_agg(DISTINCT t2.c_text_c ORDER BY t2.c_text_c)
                      FILTER (WHERE t2.c_text_c IS NOT NULL), '{}') AS nat
      FROM wt t1 JOIN wt t2 ON t2.i BETWEEN t1.i - 6 AND t1.i
      GROUP BY t1.i) b USING (i);

SELECT count(*) AS nrows,
       count(*) FILTER (WHERE a.cd IS DISTINCT FROM b.n OR a.ad IS DISTINCT FROM b.na) AS ndiffer
FROM (SELECT i, count_distinct(c_numeric) OVER w AS cd, array_agg_distinct(c_numeric) OVER w AS ad
      FROM wt WINDOW w AS (ORDER BY d RANGE BETWEEN '6 days' PRECEDING AND CURRENT ROW)) a
JOIN (SELECT t1.i, count(DISTINCT t2.c_numeric) AS n,
             coalesce(array_agg(DISTINCT t2.c_numeric ORDER BY t2.c_numeric)
                      FILTER (WHERE t2.c_numeric IS NOT NULL), '{}') AS na
      FROM wt t1 JOIN wt t2 ON t2.d BETWEEN t1.d - 6 AND t1.d
      GROUP BY t1.i) b USING (i);

-- NULLs entering and leaving, a value leaving only with its last row,
-- empty frames (0 and '{}'), by hand
SELECT i, v,
       count_distinct(v) OVER w AS cd, array_agg_distinct(v) OVER w AS ad,
       count_distinct(v) OVER e AS cd_empty, array_agg_distinct(v) OVER e AS ad_empty
FROM (VALUES (1, 5), (2, NULL), (3, 5), (4, NULL), (5, NULL), (6, 7), (7, 5), (8, NULL)) t(i, v)
WINDOW w AS (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW),
       e AS (ORDER BY i ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING)
ORDER BY i;

SELECT i, a,
       count_distinct_elements(a) OVER w AS cd, array_agg_distinct_elements(a) OVER w AS ad
FROM (VALUES (1, '{1,2}'::int[]), (2, NULL), (3, '{}'), (4, '{NULL,2}'), (5, '{{3,3},{NULL,1}}'),
             (6, NULL), (7, '{}'), (8, NULL)) t(i, a)
WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
ORDER BY i;

-- equal values with different bytes leave as one value: 1.0 then 1.00
SELECT i, v, count_distinct(v) OVER w AS cd, array_length(array_agg_distinct(v) OVER w, 1) AS n
FROM (VALUES (1, 1.0), (2, 1.00), (3, 2), (4, 1.000), (5, 3)) t(i, v)
WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
ORDER BY i;

-- all NULL: the state never learns its type
SELECT i, count_distinct(v) OVER w, array_agg_distinct(v) OVER w,
       count_distinct_elements(a) OVER w, array_agg_distinct_elements(a) OVER w
FROM (VALUES (1, NULL::text, NULL::int[]), (2, NULL, '{NULL}'), (3, NULL, NULL)) t(i, v, a)
WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
ORDER BY i;

-- A volatile argument: the value leaving the frame is computed again and
-- was never added, so the inverse function gives up and PostgreSQL
-- restarts the frame (every value differs: the count is the frame's size).
CREATE SEQUENCE wseq;
SELECT count(*) FILTER (WHERE c <> least(i, 3)) AS ndiffer
FROM (SELECT i, count_distinct(nextval('wseq')) OVER (ORDER BY i ROWS 2 PRECEDING) AS c
      FROM generate_series(1, 50) i) s;
DROP SEQUENCE wseq;

-- plain aggregation still shares one state between the aggregates
SELECT p, count_distinct(c_int4), array_agg_distinct(c_int4), count(DISTINCT c_int4)
FROM wt GROUP BY p ORDER BY p;

DROP FUNCTION check_frame(text, text, text);
DROP TABLE wt;
DROP TYPE wpair;

-- Records as byte keys (key_record.c): every result is compared with
-- native COUNT(DISTINCT) / array_agg(DISTINCT ... ORDER BY), in the same
-- query.
SET extra_float_digits = 3;
SET jit = off;

-- values with equality traps in every field: numeric scales, -0.0 and NaN,
-- bpchar blanks, bytea with zero bytes (escaped in the key), NULL fields
CREATE TEMP TABLE v AS
SELECT i,
       (ARRAY[1, -1, 0, 2147483647, -2147483648, NULL])[1 + i % 6]::int4 AS a,
       (ARRAY['1.0', '1.00', '-1', '0', '-0.000', 'NaN', '1e-20', NULL])[1 + i % 8]::numeric AS n,
       (ARRAY['0', '-0', 'NaN', '-Infinity', '1.5', NULL])[1 + i % 7 % 6]::float8 AS f,
       (ARRAY['', 'a', 'a ', 'b', NULL])[1 + i % 5]::char(3) AS c,
       (ARRAY['', 'a', 'ab', 'b', 'é', NULL])[1 + i % 11 % 6]::text AS t,
       (ARRAY['\x', '\x00', '\x0000', '\x0001', '\x01', '\xff00', NULL])[1 + i % 13 % 7]::bytea AS b,
       (ARRAY['1 day', '24 hours', '1 mon', '30 days', NULL])[1 + i % 17 % 5]::interval AS iv,
       (ARRAY['2000-01-01 00:00:00+00', 'infinity', NULL])[1 + i % 3]::timestamptz AS ts
FROM generate_series(1, 3000) i;

CREATE TEMP TABLE shapes (k int, expr text);
INSERT INTO shapes VALUES
  (1, 'ROW(a, n)'), (2, 'ROW(f, c)'), (3, 'ROW(t, b)'), (4, 'ROW(iv, ts, a)'),
  (5, 'ROW(b, n, f, c)'), (6, 'ROW(ROW(a, t), b)'), (7, 'ROW(t COLLATE "C", a)'),
  (8, 'ROW(n)'), (9, 'ROW(b, b)'), (10, 'ROW(c, t, iv)');

CREATE FUNCTION pg_temp.check_shapes(setting text) RETURNS TABLE (k int, ok bool)
LANGUAGE plpgsql AS $$
DECLARE
  s record;
  r bool;
BEGIN
  FOR s IN SELECT * FROM shapes ORDER BY 1 LOOP
    EXECUTE format('SELECT count_distinct(%1$s) = count(DISTINCT %1$s)
                       AND array_agg_distinct(%1$s) = array_agg(DISTINCT %1$s ORDER BY %1$s)
                    FROM v', s.expr) INTO r;
    k := s.k; ok := r;
    RETURN NEXT;
  END LOOP;
END $$;

SELECT * FROM pg_temp.check_shapes('serial') WHERE ok IS NOT TRUE;

-- grouped, hashed and spilling
SET work_mem = '64kB';
SET enable_sort = off;
SELECT i % 7 AS g FROM v GROUP BY 1
HAVING count_distinct((a, n, c)) <> count(DISTINCT (a, n, c))
    OR array_agg_distinct((b, t)) <> array_agg(DISTINCT (b, t) ORDER BY (b, t));
RESET work_mem;
RESET enable_sort;

-- parallel: states travel with their column types named
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM pg_temp.check_shapes('parallel') WHERE ok IS NOT TRUE;
SELECT count_distinct((a, f, b)) = (SELECT count(DISTINCT (a, f, b)) FROM v)
FROM (SELECT * FROM v UNION ALL SELECT * FROM v) s;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- window frames
SELECT count(*) FROM (
  SELECT i,
         count_distinct((a, n, c)) OVER w AS e,
         array_agg_distinct((b, t)) OVER w AS ea,
         array_agg((a, n, c)) OVER w AS all1,
         array_agg((b, t)) OVER w AS all2
  FROM v WINDOW w AS (ORDER BY i ROWS BETWEEN 40 PRECEDING AND CURRENT ROW)) s
WHERE e <> (SELECT count(DISTINCT z) FROM (SELECT unnest(all1) AS z) u)
   OR ea <> (SELECT array_agg(DISTINCT z ORDER BY z) FROM (SELECT unnest(all2) AS z) u);

-- named composites: a dropped attribute, a domain field, a nested composite,
-- a domain over the composite
CREATE DOMAIN rk_dnum AS numeric;
CREATE TYPE rk_inner AS (x float8, y char(2));
CREATE TYPE rk_pair AS (gone int, a int4, n rk_dnum, w rk_inner);
ALTER TYPE rk_pair DROP ATTRIBUTE gone;
CREATE DOMAIN rk_dpair AS rk_pair;
CREATE TEMP TABLE p AS
SELECT ROW(a, n, ROW(f, c)::rk_inner)::rk_pair AS x FROM v;
INSERT INTO p VALUES (NULL), (ROW(NULL, NULL, NULL)), (ROW(1, NULL, ROW(NULL, NULL)));
SELECT count_distinct(x) = count(DISTINCT x) AS count_ok,
       array_agg_distinct(x) = array_agg(DISTINCT x ORDER BY x) FILTER (WHERE x IS DISTINCT FROM NULL) AS array_ok,
       count_distinct(x::rk_dpair) = count(DISTINCT x) AS domain_ok,
       count_distinct((x, 1)) = count(DISTINCT (x, 1)) AS nested_ok
FROM p;
ALTER TYPE rk_pair ADD ATTRIBUTE extra text;
SELECT count_distinct(x) = count(DISTINCT x) AS added_ok,
       array_agg_distinct(x) = array_agg(DISTINCT x ORDER BY x) FILTER (WHERE x IS DISTINCT FROM NULL) AS array_ok
FROM p;

-- random pairs of records from the values above: equality and order of the
-- keys against record_eq and record_cmp
SELECT setseed(0.38);
CREATE TEMP TABLE pool AS SELECT row_number() OVER () AS k, a, n, f, c, t, b FROM v;
SELECT count(*) AS pairs, count(*) FILTER (WHERE ok IS NOT TRUE) AS wrong
FROM (
  SELECT (SELECT array_agg_distinct(r) = array_agg(DISTINCT r ORDER BY r)
                 AND count_distinct(r) = count(DISTINCT r)
          FROM (SELECT ROW(a, n, f, c, t, b) AS r
                FROM pool WHERE k IN (q.i, q.j)) s) AS ok
  FROM (SELECT 1 + floor(random() * 3000)::int AS i, 1 + floor(random() * 3000)::int AS j
        FROM generate_series(1, 2000)) q) s;

-- the comparator path stays for records with other fields
SELECT count_distinct((a, ARRAY[a])) = count(DISTINCT (a, ARRAY[a])) AS array_field,
       count_distinct((a, to_jsonb(t))) = count(DISTINCT (a, to_jsonb(t))) AS jsonb_field,
       count_distinct((a, (a, t))) = count(DISTINCT (a, (a, t))) AS nested_anonymous
FROM v;

-- one group, records of different column types: refused, as native
-- comparison refuses them
SELECT count_distinct(x) FROM (VALUES (ROW(1, 'a'::text)), (ROW(1, 2))) s(x);
-- stored sets of records (dset_records.sql has the rest)
SELECT cardinality(distinct_set_agg((a, n))) = count(DISTINCT (a, n)) FROM v;

DROP TABLE p;
DROP DOMAIN rk_dpair;
DROP TYPE rk_pair;
DROP TYPE rk_inner;
DROP DOMAIN rk_dnum;

-- Arrays as byte keys: element keys (NULL elements after values), then the
-- dimensions and lower bounds, as array_eq and array_cmp use them
CREATE TYPE rk_el AS (x numeric, y text);
CREATE TEMP TABLE arr AS
SELECT i, (ARRAY['{}', '{1}', '[3:3]={1}', '[-2:-2]={1}', '{{1}}', '{NULL}', '{1,NULL}',
                 '{NULL,1}', '{1,2,3,4}', '{{1,2},{3,4}}', '{{1,2,3,4}}', '{{1},{2},{3},{4}}',
                 '[0:1][5:6]={{1,2},{3,4}}', '{1.0,2.00}', '{-0,1}', NULL])[1 + i % 16]::numeric[] AS n,
       (ARRAY['{}', '{a}', '{"a "}', '{a,b}', '{"",NULL}', '{é}', NULL])[1 + i % 7]::text[] AS t,
       (ARRAY['{0,-0}', '{NaN}', '{-Infinity,1.5}', '{}'])[1 + i % 4]::float8[] AS f
FROM generate_series(1, 600) i;
SELECT count_distinct(n) = count(DISTINCT n) AS numeric_arrays,
       count_distinct(t) = count(DISTINCT t) AS text_arrays,
       count_distinct(t COLLATE "C") = count(DISTINCT t COLLATE "C") AS text_c_arrays,
       count_distinct(f) = count(DISTINCT f) AS float_arrays,
       count_distinct((n, t)) = count(DISTINCT (n, t)) AS records_of_arrays,
       array_agg_distinct((n, t)) = array_agg(DISTINCT (n, t) ORDER BY (n, t)) AS records_of_arrays_order,
       array_agg_distinct((t, f)) = array_agg(DISTINCT (t, f) ORDER BY (t, f)) AS text_float_order,
       count_distinct(ARRAY[ROW(n[1], t[1])::rk_el]) = count(DISTINCT ARRAY[ROW(n[1], t[1])::rk_el])
         AS arrays_of_composites
FROM arr;
-- one-dimensional arrays in array order (array_agg_distinct stacks them)
SELECT array_agg_distinct(t) = array_agg(DISTINCT t ORDER BY t) AS text_order
FROM arr WHERE cardinality(t) = 1;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT i % 3 AS g FROM (SELECT * FROM arr UNION ALL SELECT * FROM arr) s GROUP BY 1
HAVING count_distinct(n) <> count(DISTINCT n) OR count_distinct((t, n)) <> count(DISTINCT (t, n));
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
CREATE TYPE rk_w AS (n numeric[]);
SELECT count(*) FROM (
  SELECT count_distinct(n) OVER w AS e, array_agg(ROW(n)::rk_w) OVER w AS ns
  FROM arr WINDOW w AS (ORDER BY i ROWS BETWEEN 20 PRECEDING AND CURRENT ROW)) s
WHERE e <> (SELECT count(DISTINCT (z).n) FROM unnest(ns) z);
DROP TYPE rk_w;
-- random pairs of arrays: equality and order against array_eq, array_cmp
SELECT setseed(0.5);
CREATE TEMP TABLE apool AS SELECT row_number() OVER () AS k, n, t FROM arr WHERE n IS NOT NULL;
SELECT count(*) AS pairs, count(*) FILTER (WHERE ok IS NOT TRUE) AS wrong
FROM (
  SELECT (SELECT array_agg_distinct(ROW(n)) = array_agg(DISTINCT ROW(n) ORDER BY ROW(n))
                 AND count_distinct(n) = count(DISTINCT n)
                 AND array_agg_distinct(ROW(t, n)) = array_agg(DISTINCT ROW(t, n) ORDER BY ROW(t, n))
          FROM apool WHERE k IN (q.i, q.j)) AS ok
  FROM (SELECT 1 + floor(random() * 560)::int AS i, 1 + floor(random() * 560)::int AS j
        FROM generate_series(1, 1000)) q) s;
-- oidvector keeps its own order (the comparator)
SELECT count_distinct(v) = count(DISTINCT v) AS oidvector
FROM (VALUES ('1 2'::oidvector), ('1'), ('2')) s(v);
-- int2vector (array-like, lower bound 0, read back as a vector) keeps the
-- comparator: an empty vector beside others, alone and in a record
SELECT count_distinct(v) = count(DISTINCT v) AS int2vector,
       count_distinct((v, v)) = count(DISTINCT (v, v)) AS int2vector_records
FROM (VALUES (''::int2vector), ('1'), ('1 -2'), ('1'), ('')) s(v);
DROP TYPE rk_el;
-- fields with a type modifier (numeric(p,s), char(n), a domain over
-- numeric(p,s)) come out as the column holds them: the same text as native
CREATE DOMAIN rk_d62 AS numeric(6,2);
CREATE TYPE rk_tm AS (n numeric(12,3), c char(5), d rk_d62, v varchar(4));
CREATE TEMP TABLE tm AS
SELECT ROW(n, c, d, v)::rk_tm AS x
FROM (VALUES (1.5, 'ab', 2, 'x'), (1.500, 'ab  ', 2.0, 'x'), (NULL, 'abcde', 'NaN', 'y'),
             (-0.25, '', 1234.5, NULL), (123456789.123, 'é', 0, 'z'), (0, NULL, -0.1, '')) v(n, c, d, v);
SELECT array_agg_distinct(x)::text = array_agg(DISTINCT x ORDER BY x)::text AS typmod_fields,
       array_agg_distinct(ARRAY[x, x])::text = array_agg(DISTINCT ARRAY[x, x] ORDER BY ARRAY[x, x])::text AS typmod_arrays,
       array_agg_distinct(ROW(x))::text = array_agg(DISTINCT ROW(x) ORDER BY ROW(x))::text AS typmod_nested
FROM tm;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
ALTER TABLE tm SET (parallel_workers = 2);
SELECT array_agg_distinct(x)::text = array_agg(DISTINCT x ORDER BY x)::text AS typmod_parallel
FROM tm;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE tm;
DROP TYPE rk_tm;
DROP DOMAIN rk_d62;
